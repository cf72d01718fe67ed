//! Packed tables (issue 50, item 2): the time to read one entry of a
//! packed table at random, beside a read of the 2-bit values it was
//! packed from; and the time to probe a position with all its moves (what
//! `POST /v1/tablebase/probe` does: a read for the position and one for
//! each move) from a packed table file, beside the values.
//!
//! The table is 7×7 with 2 pegs, solved here in a second; with
//! `STERNHALMA_PACKED_TABLE` naming a values or depths file (7×7 with 3 or
//! 4 pegs: `sternhalma solve-game`), that table instead, packed here as
//! `tablebase pack` packs it. Every read is checked against the values,
//! so a wrong decoding fails the bench rather than timing it. A bench
//! never passes or fails on time. Results are in `BENCHMARKS.md`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sternhalma::solve::{
    Game, PackedTable, Table, Tablebase, Value, file, packed::CHUNK_ENTRIES, solve,
};
use sternhalma::{Layout, Position, Rules};

/// Entries read a round.
const READS: usize = 1_000;

fn table() -> (Game, Table) {
    match std::env::var_os("STERNHALMA_PACKED_TABLE") {
        Some(path) => {
            let (_, game, loaded) = file::read(path.as_ref()).expect("a table file");
            (game, loaded.into_values())
        }
        None => {
            let game = Game::new(7, 2).expect("7x7 with 2 pegs");
            let (table, _) = solve(&game, 2);
            (game, table)
        }
    }
}

fn reads(c: &mut Criterion) {
    let (game, values) = table();
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let chunk = std::env::var("STERNHALMA_PACKED_CHUNK")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(CHUNK_ENTRIES);
    let packed = PackedTable::pack(&game, &values, chunk, threads, &|_, _| {});
    let entries = values.len();
    // Entries where the game goes on (a read a rule does not answer), in
    // a fixed random order.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut indices = Vec::with_capacity(READS);
    while indices.len() < READS {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let index = state % entries;
        if matches!(values.get(index), Value::Win | Value::Loss | Value::Draw) {
            indices.push(index);
        }
    }
    for &index in &indices {
        assert_eq!(packed.get(index), values.get(index), "entry {index}");
    }
    let name = format!("{}_chunk{chunk}", game.board());
    eprintln!(
        "{name}: {entries} entries, packed in {} bytes of memory ({} coded), the values in {}",
        packed.bytes(),
        packed.coded_bytes(),
        values.bytes()
    );
    let mut group = c.benchmark_group("packed");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(6));
    group.throughput(Throughput::Elements(READS as u64));
    group.bench_function(format!("{name}_get_random"), |b| {
        b.iter(|| {
            let mut wins = 0;
            for &index in &indices {
                wins += usize::from(packed.get(black_box(index)) == Value::Win);
            }
            wins
        });
    });
    group.bench_function(format!("{}_values_get_random", game.board()), |b| {
        b.iter(|| {
            let mut wins = 0;
            for &index in &indices {
                wins += usize::from(values.get(black_box(index)) == Value::Win);
            }
            wins
        });
    });
    // Probes with every move, from a packed file as a server opens it.
    let path = std::env::temp_dir().join(format!("sternhalma-bench-{}.packed", std::process::id()));
    file::write_packed(&path, &packed).expect("a packed file written");
    let opened = Tablebase::open(&path).expect("the packed file opened");
    std::fs::remove_file(&path).expect("the packed file removed");
    let plain = Tablebase::from_solved(game.clone(), values.clone(), None);
    let positions = positions(&game, 100);
    let moves: usize = positions.iter().map(|p| p.legal_moves().len()).sum();
    for position in &positions {
        assert_eq!(
            opened.moves(position).unwrap(),
            plain.moves(position).unwrap()
        );
    }
    eprintln!("{name}: {} positions, {moves} moves", positions.len());
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function(format!("{name}_probe_with_moves"), |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| opened.moves(black_box(p)).unwrap().len())
                .sum::<usize>()
        });
    });
    group.bench_function(format!("{}_values_probe_with_moves", game.board()), |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| plain.moves(black_box(p)).unwrap().len())
                .sum::<usize>()
        });
    });
    group.finish();
}

/// `count` positions of `game` in progress, by seeded random play from
/// the start.
fn positions(game: &Game, count: usize) -> Vec<Position> {
    let start = Position::start(
        game.board(),
        Layout::standard(2).unwrap(),
        Rules::sturtevant(),
    )
    .expect("the start");
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut random = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let mut out = Vec::new();
    while out.len() < count {
        let mut position = start.clone();
        for _ in 0..random(40) {
            let moves = position.legal_moves();
            if position.is_game_over() || moves.is_empty() {
                break;
            }
            position = position.play(moves[random(moves.len())]).unwrap();
        }
        if !position.is_game_over() {
            out.push(position);
        }
    }
    out
}

criterion_group!(benches, reads);
criterion_main!(benches);

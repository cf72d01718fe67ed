//! Move generation, make/unmake, perft and random playouts, timed with
//! criterion: `cargo bench --bench movegen`. Results and the machine they
//! were taken on: BENCHMARKS.md.
//!
//! As in shakmaty's benches, every bench asserts the count of the work it
//! times (moves generated, moves made, perft nodes, plies played), so a
//! change that makes the engine do different work fails here instead of
//! showing up as a speed-up. A bench never passes or fails on time.
//!
//! The middle- and end-game positions come from seeded games played by
//! `cargo run --release --example playouts -- positions` (SplitMix64, `sternhalma::search::Rng`; each
//! ply a random move among those that bring the peg nearer its target; the
//! first seed from 1 whose game is still in progress after the given number
//! of plies). They are kept here as text so that the bench times the same
//! positions even when move order changes.
//!
//! The group `boards` times move generation on every board the crate knows,
//! at the start, in the middle and near the end of a seeded game
//! (`benches/boards.rs`, which `examples/movegen_calls.rs` shares for
//! instruction counts under callgrind: `benches/callgrind_movegen.py`).

mod boards;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sternhalma::search::Rng;
use sternhalma::{Board, Layout, Move, Position, Rules, perft};

/// 2 players, middle game: 40 plies, seed 1.
const TWO_PLAYER_MIDDLE: &str = "star4 classic \
    south:59,64,72,80,81,91,102,105,116,120/north:5,6,14,17,29,32,38,42,54,90 0 40 -";

/// 2 players, end game: 150 plies, seed 1.
const TWO_PLAYER_END: &str = "star4 classic \
    south:0,1,6,7,14,18,26,28,29,80/north:77,90,102,106,111,113-115,117,119 0 150 -";

/// 6 players, middle game: 120 plies (20 each), seed 1.
const SIX_PLAYER_MIDDLE: &str = "star4 classic \
    south:39,71,83,91,93,100,103,104,106,116/\
    south_west:32,66-68,70,75,77,78,82,101/\
    north_west:3,13,24,27,46,50,56,57,62,80/\
    north:2,7,26,29,40,42,43,51,52,105/\
    north_east:6,22,34,37,38,44,48,60,61,81/\
    south_east:36,49,53,59,64,72,74,90,95,109 0 120 -";

/// 6 players, end game: 450 plies (75 each), seed 124 (every game from
/// seeds 1 to 123 had a winner by then).
const SIX_PLAYER_END: &str = "star4 classic \
    south:0,1,3-7,18,31,43/\
    south_west:9,19-22,32-34,45,55/\
    north_west:74,85,95-97,106-110/\
    north:100,111-113,115-120/\
    north_east:14,46,75,79,86,98,99,101-103/\
    south_east:10-13,23-25,35,36,57 0 450 -";

/// Plies after which a random playout stops if nobody has won.
const PLAYOUT_LIMIT: u32 = 2000;

/// Random playouts timed per iteration (seeds 1 to this), so that every
/// iteration plays the same games.
const PLAYOUTS_PER_ITERATION: u64 = 8;

/// A position to time, with its number of legal moves.
struct Case {
    name: &'static str,
    position: Position,
    moves: usize,
}

fn parse(text: &str) -> Position {
    text.parse()
        .unwrap_or_else(|e| panic!("bench position {text:?} does not parse: {e}"))
}

/// The 2-player start on the standard star: `star4 classic south:111-120/north:0-9`.
fn two_player_start() -> Position {
    parse("star4 classic south:111-120/north:0-9")
}

fn cases() -> Vec<Case> {
    let six_player_start = Position::start(
        Board::STANDARD,
        Layout::standard(6).expect("six players"),
        Rules::classic(),
    )
    .expect("the six-player start is valid");
    // rhombus9p10 research south:71-80/north:0-9 (Bell's board).
    let rhombus_start = Position::start(
        Board::rhombus(9, 4).expect("9x4 is a rhombus"),
        Layout::standard(2).expect("two players"),
        Rules::research(),
    )
    .expect("the rhombus start is valid");
    let cases = vec![
        Case {
            name: "2p_start",
            position: two_player_start(),
            moves: 14,
        },
        Case {
            name: "2p_middle",
            position: parse(TWO_PLAYER_MIDDLE),
            moves: 71,
        },
        Case {
            name: "2p_end",
            position: parse(TWO_PLAYER_END),
            moves: 47,
        },
        Case {
            name: "6p_start",
            position: six_player_start,
            moves: 14,
        },
        Case {
            name: "6p_middle",
            position: parse(SIX_PLAYER_MIDDLE),
            moves: 57,
        },
        Case {
            name: "6p_end",
            position: parse(SIX_PLAYER_END),
            moves: 19,
        },
        Case {
            name: "rhombus9p10_start",
            position: rhombus_start,
            moves: 14,
        },
    ];
    for case in &cases {
        assert!(
            !case.position.outcome().is_over(),
            "{}: the game must still be in progress",
            case.name
        );
        assert_eq!(
            case.position.legal_moves().len(),
            case.moves,
            "{}: legal move count changed",
            case.name
        );
    }
    cases
}

/// Full legal move generation into a reused buffer.
fn legal_moves(c: &mut Criterion) {
    let mut group = c.benchmark_group("legal_moves");
    for case in cases() {
        let mut moves = Vec::with_capacity(256);
        group.throughput(Throughput::Elements(case.moves as u64));
        group.bench_function(case.name, |b| {
            b.iter(|| {
                black_box(&case.position).legal_moves_into(&mut moves);
                assert_eq!(black_box(&moves).len(), case.moves);
            });
        });
    }
    group.finish();
}

/// Makes and unmakes every legal move of a position, in place. The sum of
/// the children's hashes proves each move was made.
fn make_unmake(c: &mut Criterion) {
    let mut group = c.benchmark_group("make_unmake");
    for case in cases() {
        let moves = case.position.legal_moves();
        let children_hash = |position: &mut Position, moves: &[Move]| -> u64 {
            let mut sum = 0u64;
            for &mv in moves {
                let undo = position.make_move(mv);
                sum = sum.wrapping_add(position.zobrist_hash());
                position.unmake_move(mv, undo);
            }
            sum
        };
        let mut position = case.position.clone();
        let expected: u64 = moves
            .iter()
            .map(|&mv| case.position.play(mv).expect("legal").zobrist_hash())
            .fold(0, u64::wrapping_add);
        assert_eq!(children_hash(&mut position, &moves), expected);
        assert!(position == case.position, "{}: unmake restores", case.name);
        group.throughput(Throughput::Elements(moves.len() as u64));
        group.bench_function(case.name, |b| {
            b.iter(|| {
                let sum = children_hash(black_box(&mut position), black_box(&moves));
                assert_eq!(sum, expected);
            });
        });
    }
    group.finish();
}

/// Perft from the 2-player start: 14, 196, 4 760, 115 600.
fn perft_start(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    let start = two_player_start();
    for (depth, nodes) in [(3, 4_760), (4, 115_600)] {
        assert_eq!(perft(&start, depth), nodes);
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(format!("2p_start_depth{depth}"), |b| {
            b.iter(|| assert_eq!(perft(black_box(&start), depth), nodes));
        });
    }
    group.finish();
}

/// Plays uniformly random legal moves from `start` until the game is over
/// or `PLAYOUT_LIMIT` plies; returns the plies played.
fn playout(start: &Position, seed: u64, moves: &mut Vec<Move>) -> u32 {
    let mut rng = Rng::new(seed);
    let mut position = start.clone();
    while position.ply() < PLAYOUT_LIMIT && !position.outcome().is_over() {
        position.legal_moves_into(moves);
        let mv = moves[rng.below(moves.len())];
        position.make_move(mv);
    }
    position.ply()
}

fn playouts(start: &Position, moves: &mut Vec<Move>) -> u64 {
    (1..=PLAYOUTS_PER_ITERATION)
        .map(|seed| u64::from(playout(start, seed, moves)))
        .sum()
}

/// Random playouts on the 2-player standard star (classic): throughput in
/// plies; playouts per second is `PLAYOUTS_PER_ITERATION` over the time.
fn random_playouts(c: &mut Criterion) {
    let start = two_player_start();
    let mut moves = Vec::with_capacity(256);
    let plies = playouts(&start, &mut moves);
    let mut group = c.benchmark_group("playouts");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(10))
        .throughput(Throughput::Elements(plies));
    group.bench_function(format!("2p_classic_x{PLAYOUTS_PER_ITERATION}"), |b| {
        b.iter(|| assert_eq!(playouts(black_box(&start), &mut moves), plies));
    });
    group.finish();
}

/// Full legal move generation on every board's start, middle and end
/// (`benches/boards.rs`): three cases for each of the many boards, so each
/// is measured briefly.
fn board_legal_moves(c: &mut Criterion) {
    let mut group = c.benchmark_group("boards");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_millis(300));
    for case in boards::cases() {
        let mut moves = Vec::with_capacity(256);
        group.throughput(Throughput::Elements(case.moves as u64));
        group.bench_function(&case.name, |b| {
            b.iter(|| {
                black_box(&case.position).legal_moves_into(&mut moves);
                assert_eq!(black_box(&moves).len(), case.moves);
            });
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    legal_moves,
    make_unmake,
    perft_start,
    random_playouts,
    board_legal_moves
);
criterion_main!(benches);

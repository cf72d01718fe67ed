//! The Rust half of the side-by-side benchmark against open_spiel's C++
//! `chinese_checkers` (`benches/sidebyside/cpp_vs_rust.py` runs both; see
//! `benches/sidebyside/CPP.md`).
//!
//! ```text
//! cargo run --release --example sidebyside_movegen -- POSITIONS_FILE [--target-ms MS]
//! ```
//!
//! `POSITIONS_FILE` has one position per line: `SET EXPECTED POSITION`, where
//! `SET` is `start`, `middle`, `other` or `random`, `EXPECTED` our number of
//! legal moves and `POSITION` our position string. It times
//! `Position::legal_moves_into` into one reused `Vec`: the full turn-level
//! move list (every hop chain's destination, deduplicated, the target lock
//! applied). The counts are checked against `EXPECTED` first. Then, for each
//! set (`all`: the `middle` and `other` positions, the first position file;
//! the middle subset; the start; `random`: the second file, turn starts of
//! our seeded uniformly random games), every position of the set is
//! generated K times, K chosen so that this takes about `--target-ms`; the
//! output is one JSON line with ns per call, as the C++ harness prints.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use sternhalma::{Move, Position};

struct Entry {
    set: String,
    expected: usize,
    position: Position,
}

fn read_positions(path: &str) -> Result<Vec<Entry>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let mut entries = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = || format!("{path}:{}", i + 1);
        let mut fields = line.splitn(3, ' ');
        let (Some(set), Some(expected), Some(position)) =
            (fields.next(), fields.next(), fields.next())
        else {
            return Err(format!("{}: expected SET EXPECTED POSITION", at()));
        };
        let expected = expected
            .parse()
            .map_err(|e| format!("{}: bad count: {e}", at()))?;
        let position = position
            .parse()
            .map_err(|e| format!("{}: bad position: {e}", at()))?;
        entries.push(Entry {
            set: set.to_string(),
            expected,
            position,
        });
    }
    Ok(entries)
}

/// What the timed loop keeps, so the generation cannot be optimised away.
#[derive(Default)]
struct Tally {
    moves: u64,
    checksum: u64,
}

/// One pass: every position of `set` generated once.
fn pass(set: &[&Position], buffer: &mut Vec<Move>, tally: &mut Tally) {
    for position in set {
        position.legal_moves_into(buffer);
        let moves = black_box(&*buffer);
        tally.moves += moves.len() as u64;
        if let Some(last) = moves.last() {
            let id = last.to().map_or(0, |c| c.id() as u64);
            tally.checksum = (tally.checksum ^ id).wrapping_mul(0x1000_0000_01B3);
        }
    }
}

struct Timing {
    reps: u64,
    ns_per_call: f64,
    moves_per_call: f64,
    checksum: u64,
}

fn time(set: &[&Position], target: Duration) -> Timing {
    let mut buffer = Vec::new();
    let mut warm_tally = Tally::default();
    // Warm up and calibrate: passes until 1/8 of the target has gone by.
    let mut reps = 0u64;
    let warm_start = Instant::now();
    while warm_start.elapsed() < target / 8 || reps < 2 {
        pass(set, &mut buffer, &mut warm_tally);
        reps += 1;
    }
    let per_pass = warm_start.elapsed().as_secs_f64() / reps as f64;
    let reps = ((target.as_secs_f64() / per_pass) as u64).max(1);
    let mut tally = Tally::default();
    let start = Instant::now();
    for _ in 0..reps {
        pass(set, &mut buffer, &mut tally);
    }
    let elapsed = start.elapsed().as_secs_f64();
    let calls = reps as f64 * set.len() as f64;
    Timing {
        reps,
        ns_per_call: elapsed * 1e9 / calls,
        moves_per_call: tally.moves as f64 / calls,
        checksum: tally.checksum ^ warm_tally.checksum,
    }
}

fn run() -> Result<(), String> {
    let usage = "usage: sidebyside_movegen POSITIONS_FILE [--target-ms MS]";
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or(usage)?;
    let mut target = Duration::from_millis(200);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--target-ms" => {
                let ms: f64 = args.next().and_then(|v| v.parse().ok()).ok_or(usage)?;
                target = Duration::from_secs_f64(ms / 1000.0);
            }
            _ => return Err(format!("unknown argument {arg}\n{usage}")),
        }
    }
    let entries = read_positions(&path)?;

    // Check the work before timing it.
    let mut buffer = Vec::new();
    for entry in &entries {
        entry.position.legal_moves_into(&mut buffer);
        if buffer.len() != entry.expected || buffer.contains(&Move::Pass) {
            return Err(format!(
                "move count mismatch: expected {}, got {} ({:?})",
                entry.expected,
                buffer.len(),
                entry.position.to_string()
            ));
        }
    }

    let mut all = Vec::new();
    let mut middle = Vec::new();
    let mut start = Vec::new();
    let mut random = Vec::new();
    for entry in &entries {
        match entry.set.as_str() {
            "start" => start.push(&entry.position),
            "random" => random.push(&entry.position),
            "middle" => {
                all.push(&entry.position);
                middle.push(&entry.position);
            }
            "other" => all.push(&entry.position),
            other => return Err(format!("unknown set {other}")),
        }
    }
    if all.is_empty() || middle.is_empty() || start.is_empty() || random.is_empty() {
        return Err("the file needs start, middle, other and random positions".into());
    }

    let mut results = Vec::new();
    let mut checksum = 0u64;
    for (name, set) in [
        ("all", &all),
        ("middle", &middle),
        ("start", &start),
        ("random", &random),
    ] {
        let t = time(set, target);
        checksum ^= t.checksum;
        results.push(format!(
            "{{\"set\": \"{name}\", \"method\": \"legal_moves_into\", \"positions\": {}, \
             \"reps\": {}, \"ns_per_enum\": {:.2}, \"moves_per_enum\": {:.3}}}",
            set.len(),
            t.reps,
            t.ns_per_call,
            t.moves_per_call
        ));
    }
    println!(
        "{{\"engine\": \"sternhalma-rust\", \"results\": [{}], \"checksum\": {checksum}}}",
        results.join(", ")
    );
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sidebyside_movegen: {e}");
            ExitCode::FAILURE
        }
    }
}

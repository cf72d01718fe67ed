//! Random playouts and move-generation loops, outside criterion: for
//! profiling (`perf record`, `valgrind --tool=callgrind`) and for making the
//! benchmark positions again.
//!
//! ```text
//! cargo run --release --example playouts -- playouts 200     # random games
//! cargo run --release --example playouts -- movegen 1000000  # 2p start movegen
//! cargo run --release --example playouts -- positions        # bench positions
//! ```
//!
//! `positions` prints the middle- and end-game positions that
//! `benches/movegen.rs` times, from seeded games. The bench keeps them as
//! text, so it measures the same positions even if move order changes.

use std::env;
use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use sternhalma::search::Rng;
use sternhalma::{Board, Cell, Layout, Move, Position, Rules};

/// Plies after which a random playout stops if nobody has won.
const PLAYOUT_LIMIT: u32 = 2000;

fn two_player_start() -> Position {
    "star4 classic south:111-120/north:0-9"
        .parse()
        .expect("the two-player start parses")
}

fn six_player_start() -> Position {
    Position::start(
        Board::STANDARD,
        Layout::standard(6).expect("six players"),
        Rules::classic(),
    )
    .expect("the six-player start is valid")
}

/// The hole of `set`'s target farthest from the board's centre: where its
/// pegs are heading.
fn target_tip(position: &Position, set: usize) -> Cell {
    let geometry = position.geometry();
    let centre = geometry.cell_at(0, 0).expect("star boards have a centre");
    position
        .target(set)
        .iter()
        .max_by_key(|&cell| geometry.distance(cell, centre))
        .expect("targets are not empty")
}

/// How much nearer its target's tip a move brings the moving peg.
fn progress(position: &Position, tips: &[Cell], mv: Move) -> i64 {
    let (Some(from), Some(to)) = (mv.from(), mv.to()) else {
        return 0;
    };
    let set = position.set_at(from).expect("a move starts on a peg");
    let geometry = position.geometry();
    i64::from(geometry.distance(from, tips[set])) - i64::from(geometry.distance(to, tips[set]))
}

/// Plays `plies` plies from `start`: each ply a uniformly random move among
/// those that bring the peg nearer its target (any legal move if none do).
/// Uniform random play wanders and never reaches an end-game, so this
/// forward bias is what makes "middle" and "end" mean something.
fn forward_random_game(start: &Position, plies: u32, seed: u64) -> Position {
    let mut rng = Rng::new(seed);
    let mut position = start.clone();
    let tips: Vec<Cell> = (0..start.layout().set_count())
        .map(|set| target_tip(start, set))
        .collect();
    let mut moves = Vec::new();
    let mut forward = Vec::new();
    for _ in 0..plies {
        position.legal_moves_into(&mut moves);
        if moves.is_empty() {
            break;
        }
        forward.clear();
        forward.extend(
            moves
                .iter()
                .copied()
                .filter(|&mv| progress(&position, &tips, mv) > 0),
        );
        let pool = if forward.is_empty() { &moves } else { &forward };
        let mv = pool[rng.below(pool.len())];
        position.make_move(mv);
    }
    position
}

/// The first seed from `first` whose game is still in progress after
/// `plies` plies, and the position then.
fn in_progress_after(start: &Position, plies: u32, first: u64) -> (u64, Position) {
    (first..)
        .map(|seed| (seed, forward_random_game(start, plies, seed)))
        .find(|(_, p)| p.ply() == plies && !p.outcome().is_over())
        .expect("some game is still going")
}

/// One uniformly random playout, as the bench plays it: plies played.
fn playout(start: &Position, rng: &mut Rng, moves: &mut Vec<Move>) -> u32 {
    let mut position = start.clone();
    while position.ply() < PLAYOUT_LIMIT && !position.outcome().is_over() {
        position.legal_moves_into(moves);
        let mv = moves[rng.below(moves.len())];
        position.make_move(mv);
    }
    position.ply()
}

fn print_positions() {
    for (name, start, plies) in [
        ("2p middle", two_player_start(), 40),
        ("2p end", two_player_start(), 150),
        ("6p middle", six_player_start(), 120),
        ("6p end", six_player_start(), 450),
    ] {
        let (seed, position) = in_progress_after(&start, plies, 1);
        let count = position.legal_moves().len();
        println!("{name}: {plies} plies, seed {seed}, {count} moves");
        println!("  {position}");
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let count =
        |default: u64| -> u64 { args.get(1).and_then(|n| n.parse().ok()).unwrap_or(default) };
    match args.first().map(String::as_str) {
        Some("positions") => print_positions(),
        Some("playouts") => {
            let games = count(100);
            let start = two_player_start();
            let mut rng = Rng::new(1);
            let mut moves = Vec::new();
            let began = Instant::now();
            let plies: u64 = (0..games)
                .map(|_| u64::from(playout(&start, &mut rng, &mut moves)))
                .sum();
            let seconds = began.elapsed().as_secs_f64();
            println!(
                "{games} playouts, {plies} plies in {seconds:.3} s: {:.0} playouts/s, {:.0} plies/s",
                games as f64 / seconds,
                plies as f64 / seconds
            );
        }
        Some("movegen") => {
            let calls = count(1_000_000);
            let start = two_player_start();
            let mut moves = Vec::new();
            let began = Instant::now();
            let mut total = 0;
            for _ in 0..calls {
                black_box(&start).legal_moves_into(&mut moves);
                total += black_box(&moves).len();
            }
            let seconds = began.elapsed().as_secs_f64();
            assert_eq!(total as u64, 14 * calls);
            println!(
                "{calls} calls in {seconds:.3} s: {:.0} calls/s",
                calls as f64 / seconds
            );
        }
        _ => {
            eprintln!("usage: playouts positions | playouts [GAMES] | movegen [CALLS]");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

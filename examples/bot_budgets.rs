//! The time one bot move takes at a fixed budget on the heaviest positions:
//! the measurement behind the HTTP caps of `POST /v1/bots/move`
//! (`api/src/limits.rs`, BENCHMARKS.md).
//!
//! ```sh
//! cargo run --release --example bot_budgets                 # at the HTTP caps: 400,000 nodes, 4,000 playouts
//! cargo run --release --example bot_budgets -- 200000 5000  # other budgets: nodes, then playouts
//! ```
//!
//! The positions are star4 (the largest star) with six players and
//! rhombus11p55 (the largest rhombus, 55 pegs a side) with two, at the start
//! and after 30, 60 and 120 seeded greedy plies, under `classic` and under
//! `super` (long jumps: the most hops per position). Each search
//! runs once, with a node budget only, so it does the same work on any
//! machine; only the seconds printed depend on the machine.

use std::time::Instant;

use sternhalma::search::{BotConfig, BotKind, Budget, new_bot};
use sternhalma::{Board, Layout, Position, Rules};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let nodes: u64 = args.next().map_or(Ok(400_000), |s| s.parse())?;
    let playouts: u64 = args.next().map_or(Ok(4_000), |s| s.parse())?;
    println!(
        "| board | players | rules | plies played | legal moves | bot | budget | nodes | seconds | per second |"
    );
    println!("| --- | ---: | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |");
    let boards = [("star4", 6), ("rhombus11p55", 2)];
    for ((board, players), rules) in boards
        .into_iter()
        .flat_map(|board| ["classic", "super"].map(|rules| (board, rules)))
    {
        let board: Board = board.parse()?;
        let start = Position::start(board, Layout::standard(players)?, rules.parse::<Rules>()?)?;
        let positions = [0, 30, 60, 120].map(|plies| (plies, middle_game(&start, plies)));
        for (plies, position) in &positions {
            for kind in [
                BotKind::AlphaBeta,
                BotKind::Paranoid,
                BotKind::Mcts,
                BotKind::Greedy,
            ] {
                let budget = match kind {
                    BotKind::Mcts => playouts,
                    _ => nodes,
                };
                let config = BotConfig::new(kind)
                    .with_budget(Budget::nodes(budget))
                    .with_seed(1);
                let started = Instant::now();
                let result = new_bot(&config, None).search(position);
                let seconds = started.elapsed().as_secs_f64();
                println!(
                    "| {board} | {players} | {rules} | {plies} | {} | {kind} | {budget} | {} | {seconds:.2} | {:.0} |",
                    position.legal_moves().len(),
                    result.nodes,
                    result.nodes as f64 / seconds,
                );
            }
        }
    }
    Ok(())
}

/// The position after `plies` moves of a seeded greedy bot for every seat.
fn middle_game(start: &Position, plies: u32) -> Position {
    let mut bot = new_bot(&BotConfig::new(BotKind::Greedy).with_seed(1), None);
    let mut position = start.clone();
    for _ in 0..plies {
        if position.legal_moves().is_empty() {
            break;
        }
        let mv = bot.step(&position);
        position = position.play(mv).expect("the bot plays legal moves");
    }
    position
}

//! The bots' strength table: seeded matches between neighbouring bots.
//!
//! ```sh
//! cargo run --release --example arena            # the table of docs/bots.md
//! cargo run --release --example arena -- 40      # games per match (default 40)
//! ```
//!
//! Each row plays one bot against the one below it (first seat alternating
//! with two players; with three, the first bot takes each seat in turn and
//! the second bot the other two) and prints the first bot's wins, losses,
//! draws and score rate (wins plus half the draws). Node budgets only, so
//! the table replays exactly.

use std::time::Instant;

use sternhalma::search::{BotConfig, BotKind, Budget, arena};
use sternhalma::{Board, Layout, Position, Rules};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let games: u32 = std::env::args().nth(1).map_or(Ok(40), |s| s.parse())?;
    // Anti-spoiling keeps pegs that never leave their start triangle from
    // blocking a winner forever; the ply limit ends every game.
    let rules: Rules = "classic,anti_spoiling=fill_available,max_plies=300".parse()?;
    let two = Position::start(Board::STANDARD, Layout::standard(2)?, rules)?;
    let three = Position::start(Board::STANDARD, Layout::standard(3)?, rules)?;
    let bot = |kind, budget| BotConfig::new(kind).with_budget(budget).with_seed(1);
    let random = bot(BotKind::Random, Budget::UNLIMITED);
    let greedy = bot(BotKind::Greedy, Budget::UNLIMITED);
    let mcts = bot(BotKind::Mcts, Budget::nodes(300));
    let alphabeta = bot(BotKind::AlphaBeta, Budget::nodes(20_000));
    let paranoid = bot(BotKind::Paranoid, Budget::nodes(20_000));
    // The ladder, then two more rows: MCTS at about alpha-beta's time per
    // move, and the paranoid search against MCTS on three players.
    let mcts_same_time = bot(BotKind::Mcts, Budget::nodes(1_000));
    let matches = [
        ("2", &greedy, &random, &two),
        ("2", &mcts, &greedy, &two),
        ("2", &alphabeta, &mcts, &two),
        ("3", &paranoid, &greedy, &three),
        ("2", &alphabeta, &mcts_same_time, &two),
        ("3", &paranoid, &mcts, &three),
    ];
    println!("star4 {rules}, {games} games per match, seeds from 1");
    println!();
    println!(
        "| players | bot (budget) | against (budget) | wins | losses | draws | score | plies/game | seconds |"
    );
    println!("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (players, a, b, start) in matches {
        let started = Instant::now();
        let result = arena::arena(a, b, start, games);
        println!(
            "| {players} | {} | {} | {} | {} | {} | {:.0}% | {:.0} | {:.0} |",
            describe(a),
            describe(b),
            result.wins,
            result.losses,
            result.draws,
            100.0 * result.win_rate(),
            result.plies as f64 / f64::from(result.games),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

fn describe(config: &BotConfig) -> String {
    match config.budget.nodes {
        Some(nodes) if config.kind == BotKind::Mcts => {
            format!("{} ({nodes} playouts)", config.kind)
        }
        Some(nodes) => format!("{} ({nodes} nodes)", config.kind),
        None => config.kind.to_string(),
    }
}

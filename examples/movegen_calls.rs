//! Legal move generation in a loop on one of the per-board cases of
//! `benches/boards.rs`, outside criterion: the program
//! `benches/callgrind_movegen.py` counts instructions of under callgrind.
//!
//! ```text
//! cargo run --release --example movegen_calls -- list              # cases (tab-separated)
//! cargo run --release --example movegen_calls -- star4/middle 2000 # 2000 calls
//! ```
//!
//! Only the named case's board is played out before the loop, so the
//! start-up is short; run with two call counts and take the difference to
//! cancel it.

#[path = "../benches/boards.rs"]
mod boards;

use std::env;
use std::hint::black_box;
use std::process::ExitCode;

const USAGE: &str = "usage: movegen_calls list | movegen_calls CASE CALLS (CASE like star4/middle)";

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    match args.as_slice() {
        [list] if list == "list" => {
            println!("case\tmoves\trules\tseed\tlength\tply\tposition");
            for case in boards::cases() {
                println!(
                    "{}\t{}\t{}\t{}\t{}\t{}\t{}",
                    case.name,
                    case.moves,
                    case.rules,
                    case.seed,
                    case.length,
                    case.position.ply(),
                    case.position
                );
            }
            ExitCode::SUCCESS
        }
        [name, calls] => {
            let Ok(calls) = calls.parse::<u64>() else {
                eprintln!("{USAGE}");
                return ExitCode::FAILURE;
            };
            let Some(case) = boards::case(name) else {
                eprintln!("no case {name:?}; `movegen_calls list` prints them");
                return ExitCode::FAILURE;
            };
            let mut moves = Vec::with_capacity(256);
            let mut total = 0u64;
            for _ in 0..calls {
                black_box(&case.position).legal_moves_into(&mut moves);
                total += black_box(&moves).len() as u64;
            }
            assert_eq!(total, case.moves as u64 * calls, "{name}: move count");
            println!("{name}: {calls} calls, {} moves each", case.moves);
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::FAILURE
        }
    }
}

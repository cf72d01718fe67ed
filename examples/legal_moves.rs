//! Reads position strings, one per line, and prints each one's legal moves.
//!
//! Used by the open_spiel cross-check (`tests/crosscheck/crosscheck.py`) as
//! an oracle: one line out per line in, moves as `FROM-TO` separated by
//! spaces (or `pass`), or `error: ...`.

use std::io::{self, BufRead, BufWriter, Write};

use sternhalma::Position;

fn main() -> io::Result<()> {
    let stdin = io::stdin();
    let mut out = BufWriter::new(io::stdout().lock());
    for line in stdin.lock().lines() {
        let line = line?;
        match line.trim_end().parse::<Position>() {
            Ok(position) => {
                let moves: Vec<String> = position
                    .legal_moves()
                    .iter()
                    .map(ToString::to_string)
                    .collect();
                writeln!(out, "{}", moves.join(" "))?;
            }
            Err(e) => writeln!(out, "error: {e}")?,
        }
        out.flush()?;
    }
    Ok(())
}

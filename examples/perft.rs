//! Prints perft counts: `cargo run --release --example perft -- DEPTH "POSITION"`.

use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: perft DEPTH \"POSITION STRING\"";
    let depth: u32 = args.next().and_then(|d| d.parse().ok()).expect(usage);
    let text = args.next().expect(usage);
    let position: sternhalma::Position = match text.parse() {
        Ok(position) => position,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    for d in 1..=depth {
        let start = Instant::now();
        let nodes = sternhalma::perft(&position, d);
        let seconds = start.elapsed().as_secs_f64();
        println!(
            "depth {d}: {nodes} nodes in {seconds:.3} s ({:.1} M nodes/s)",
            nodes as f64 / seconds / 1e6
        );
    }
}

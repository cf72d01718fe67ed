//! Prints the start position string of a game.
//!
//! `cargo run --example start -- BOARD LAYOUT RULES`, e.g.
//! `cargo run --example start -- star4 3 classic` or `... rhombus9p10 2 research`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [board, layout, rules] = &args[..] else {
        eprintln!("usage: start BOARD LAYOUT RULES   (e.g. star4 2x3 masters)");
        std::process::exit(2);
    };
    let parsed = (|| -> Result<sternhalma::Position, Box<dyn std::error::Error>> {
        Ok(sternhalma::Position::start(
            board.parse()?,
            layout.parse()?,
            rules.parse()?,
        )?)
    })();
    match parsed {
        Ok(position) => println!("{position}"),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}

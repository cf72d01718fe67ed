//! Prints a board's holes row by row: id and axial coordinates.
//!
//! `cargo run --example show_board -- star4` (any board name).

fn main() {
    let name = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "star4".to_owned());
    let board: sternhalma::Board = match name.parse() {
        Ok(board) => board,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let geometry = board.geometry();
    let mut row = None;
    for cell in geometry.cells() {
        let (q, r) = geometry.coordinates(cell);
        if row != Some(r) {
            if row.is_some() {
                println!();
            }
            print!("r={r:>3}:");
            row = Some(r);
        }
        let triangle = geometry
            .triangle_of(cell)
            .map_or(String::new(), |t| format!("/{t}"));
        print!(" {}({q}){triangle}", cell.id());
    }
    println!();
}

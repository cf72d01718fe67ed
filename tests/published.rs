//! Published results the engine must reproduce (RULES §6).

use std::collections::HashSet;

use sternhalma::{Board, Layout, Position, Rules};

fn start(board: &str, rules: Rules) -> Position {
    Position::start(board.parse().unwrap(), Layout::standard(2).unwrap(), rules).unwrap()
}

/// The pegs of every set, the same for a position and its mirror image only
/// if they are equal up to the left-right mirror.
fn canonical(position: &Position) -> Vec<u128> {
    let key = |p: &Position| -> Vec<u128> {
        p.layout()
            .triangles()
            .map(|t| {
                p.pegs_of_triangle(t)
                    .unwrap()
                    .iter()
                    .fold(0u128, |bits, c| bits | 1 << c.id())
            })
            .collect()
    };
    let mirrored = position
        .mirrored()
        .expect("the two-player layout is symmetric");
    key(position).min(key(&mirrored))
}

fn distinct_after_plies(start: &Position, plies: usize) -> Vec<usize> {
    let mut frontier = vec![start.clone()];
    let mut counts = Vec::new();
    for _ in 0..plies {
        let mut seen = HashSet::new();
        let mut next = Vec::new();
        for position in &frontier {
            for mv in position.legal_moves() {
                let child = position.play(mv).unwrap();
                if seen.insert(canonical(&child)) {
                    next.push(child);
                }
            }
        }
        counts.push(seen.len());
        frontier = next;
    }
    counts
}

#[test]
fn fourteen_first_moves_on_the_standard_board() {
    let position = start("star4", Rules::classic());
    assert_eq!(position.legal_moves().len(), 14);
    assert_eq!(Board::STANDARD.geometry().len(), 121);
}

#[test]
fn fourteen_first_moves_on_bells_rhombus() {
    let position = start("rhombus9p10", Rules::research());
    assert_eq!(position.geometry().len(), 81);
    assert_eq!(position.legal_moves().len(), 14);
}

/// Bell 2009, p. 9: 7, 98 and 1253 distinct positions after 1, 2 and 3
/// plies, up to the mirror that swaps left and right.
#[test]
fn bell_distinct_positions_up_to_mirror() {
    let position = start("rhombus9p10", Rules::research());
    assert_eq!(distinct_after_plies(&position, 3), [7, 98, 1253]);
}

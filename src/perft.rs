//! Counting move sequences: perft, the standard check of a move generator.

use crate::moves::Move;
use crate::position::Position;

/// The number of move sequences of exactly `depth` plies from `position`
/// (a pass counts as a move; sequences stop early only at a game's end, and
/// are then not counted). `perft(p, 0) == 1`.
///
/// ```
/// use sternhalma::{perft, Position};
/// let start: Position = "star4 classic south:111-120/north:0-9".parse()?;
/// assert_eq!(perft(&start, 1), 14);
/// # Ok::<(), sternhalma::PositionError>(())
/// ```
#[must_use]
pub fn perft(position: &Position, depth: u32) -> u64 {
    let mut position = position.clone();
    let mut buffers: Vec<Vec<Move>> = (0..depth).map(|_| Vec::new()).collect();
    count(&mut position, depth, &mut buffers)
}

fn count(position: &mut Position, depth: u32, buffers: &mut [Vec<Move>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (moves, rest) = buffers.split_first_mut().expect("one buffer per ply");
    position.legal_moves_into(moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut total = 0;
    for &mv in moves.iter() {
        let undo = position.make_move(mv);
        total += count(position, depth - 1, rest);
        position.unmake_move(mv, undo);
    }
    total
}

/// Node counts for each depth from 1 to `depth`, in one walk of the tree:
/// `perft_by_depth(p, d)[i] == perft(p, i + 1)`.
///
/// ```
/// use sternhalma::{perft_by_depth, Position};
/// let start: Position = "star4 classic south:111-120/north:0-9".parse()?;
/// assert_eq!(perft_by_depth(&start, 3), [14, 196, 4760]);
/// # Ok::<(), sternhalma::PositionError>(())
/// ```
#[must_use]
pub fn perft_by_depth(position: &Position, depth: u32) -> Vec<u64> {
    let mut position = position.clone();
    let mut counts = vec![0; depth as usize];
    let mut buffers: Vec<Vec<Move>> = (0..depth).map(|_| Vec::new()).collect();
    count_levels(&mut position, &mut counts, &mut buffers);
    counts
}

/// Adds this node's moves to `counts[0]` and its subtree's to the rest.
fn count_levels(position: &mut Position, counts: &mut [u64], buffers: &mut [Vec<Move>]) {
    let Some((here, deeper)) = counts.split_first_mut() else {
        return;
    };
    let (moves, rest) = buffers.split_first_mut().expect("one buffer per ply");
    position.legal_moves_into(moves);
    *here += moves.len() as u64;
    if deeper.is_empty() {
        return;
    }
    for &mv in moves.iter() {
        let undo = position.make_move(mv);
        count_levels(position, deeper, rest);
        position.unmake_move(mv, undo);
    }
}

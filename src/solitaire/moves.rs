//! Moves of the lone set, generated on the bit set of its pegs.
//!
//! The same moves as the crate's move generator for the solitaire position
//! (layout `1`, `classic` rules): steps to empty neighbours, and every hole a
//! hop chain reaches with the mover's own start hole counted as empty; a peg
//! that starts in the goal triangle must end in it (the target lock). A test
//! checks the two generators agree.

use super::tables::Tables;

/// A move as start and end hole ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BitMove {
    pub(crate) from: u8,
    pub(crate) to: u8,
}

/// Every hole a chain of hops from `from` reaches, `from` excluded.
#[inline]
pub(crate) fn hop_reach(tables: &Tables, pegs: u128, from: usize) -> u128 {
    let start = 1u128 << from;
    let others = pegs & !start;
    let mut reached = start;
    let mut todo = start;
    while todo != 0 {
        let here = todo.trailing_zeros() as usize;
        todo &= todo - 1;
        for hop in &tables.hops[here] {
            if others & hop.over != 0 && (others | reached) & hop.landing == 0 {
                reached |= hop.landing;
                todo |= hop.landing;
            }
        }
    }
    reached & !start
}

/// Every move of the position `pegs`, appended to `moves`.
pub(crate) fn generate(tables: &Tables, pegs: u128, hops_only: bool, moves: &mut Vec<BitMove>) {
    generate_with(tables, pegs, hops_only, true, moves);
}

/// As [`generate`]; without the target lock (`lock` false) every move can
/// be played backwards, which the search back from the goal needs.
pub(crate) fn generate_with(
    tables: &Tables,
    pegs: u128,
    hops_only: bool,
    lock: bool,
    moves: &mut Vec<BitMove>,
) {
    let mut rest = pegs;
    while rest != 0 {
        let from = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let mut destinations = hop_reach(tables, pegs, from);
        if !hops_only {
            destinations |= tables.neighbours[from] & !pegs;
        }
        if lock && tables.goal & (1u128 << from) != 0 {
            destinations &= tables.goal;
        }
        while destinations != 0 {
            let to = destinations.trailing_zeros() as u8;
            destinations &= destinations - 1;
            moves.push(BitMove {
                from: from as u8,
                to,
            });
        }
    }
}

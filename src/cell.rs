//! Holes and sets of holes.
//!
//! Every board has at most 121 holes, so a set of holes fits one `u128`: the
//! move generator works on these bit sets and never allocates.

use std::fmt;

/// A hole of a board, by its id.
///
/// Ids run `0..N` row by row from the top row, left to right within a row
/// (RULES §1). A `Cell` does not know its board: the same id names different
/// holes on different boards, and [`crate::Geometry`] says which.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell(pub(crate) u8);

impl Cell {
    /// The largest number of holes a board can have (the 121-hole star).
    pub const MAX_HOLES: usize = 121;

    /// The cell with this id, if the id can exist on some board.
    ///
    /// Whether it exists on a given board is [`crate::Geometry::contains`]'s
    /// question.
    ///
    /// ```
    /// use sternhalma::Cell;
    /// assert_eq!(Cell::new(120).map(Cell::id), Some(120));
    /// assert_eq!(Cell::new(121), None);
    /// ```
    #[must_use]
    pub fn new(id: usize) -> Option<Cell> {
        (id < Self::MAX_HOLES).then_some(Cell(id as u8))
    }

    /// The id of this hole.
    #[must_use]
    pub fn id(self) -> usize {
        usize::from(self.0)
    }

    pub(crate) fn bit(self) -> u128 {
        1u128 << self.0
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A set of holes, one bit per hole id.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CellSet(pub(crate) u128);

impl CellSet {
    /// The empty set.
    pub const EMPTY: CellSet = CellSet(0);

    /// The set of the given cells.
    #[must_use]
    pub fn from_cells(cells: impl IntoIterator<Item = Cell>) -> CellSet {
        cells.into_iter().fold(CellSet::EMPTY, CellSet::with)
    }

    /// The set of ids `0..n`.
    #[must_use]
    pub fn first(n: usize) -> CellSet {
        debug_assert!(n <= Cell::MAX_HOLES);
        if n == 0 {
            CellSet::EMPTY
        } else {
            CellSet(u128::MAX >> (128 - n))
        }
    }

    /// Whether the set holds `cell`.
    #[must_use]
    #[inline]
    pub fn contains(self, cell: Cell) -> bool {
        self.0 & cell.bit() != 0
    }

    /// This set with `cell` added.
    #[must_use]
    #[inline]
    pub fn with(self, cell: Cell) -> CellSet {
        CellSet(self.0 | cell.bit())
    }

    /// This set with `cell` removed.
    #[must_use]
    #[inline]
    pub fn without(self, cell: Cell) -> CellSet {
        CellSet(self.0 & !cell.bit())
    }

    /// Adds `cell`.
    #[inline]
    pub fn insert(&mut self, cell: Cell) {
        self.0 |= cell.bit();
    }

    /// Removes `cell`.
    #[inline]
    pub fn remove(&mut self, cell: Cell) {
        self.0 &= !cell.bit();
    }

    /// Number of holes in the set.
    #[must_use]
    #[inline]
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    #[must_use]
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Holes in both sets.
    #[must_use]
    #[inline]
    pub fn intersection(self, other: CellSet) -> CellSet {
        CellSet(self.0 & other.0)
    }

    /// Holes in either set.
    #[must_use]
    #[inline]
    pub fn union(self, other: CellSet) -> CellSet {
        CellSet(self.0 | other.0)
    }

    /// Holes of this set that are not in `other`.
    #[must_use]
    #[inline]
    pub fn difference(self, other: CellSet) -> CellSet {
        CellSet(self.0 & !other.0)
    }

    /// Whether every hole of this set is in `other`.
    #[must_use]
    #[inline]
    pub fn is_subset(self, other: CellSet) -> bool {
        self.0 & !other.0 == 0
    }

    /// The hole with the smallest id, if any.
    #[must_use]
    #[inline]
    pub fn first_cell(self) -> Option<Cell> {
        (self.0 != 0).then(|| Cell(self.0.trailing_zeros() as u8))
    }

    /// The holes in increasing id order.
    #[must_use]
    pub fn iter(self) -> CellSetIter {
        CellSetIter(self.0)
    }
}

impl fmt::Debug for CellSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter().map(Cell::id)).finish()
    }
}

impl FromIterator<Cell> for CellSet {
    fn from_iter<I: IntoIterator<Item = Cell>>(iter: I) -> Self {
        CellSet::from_cells(iter)
    }
}

impl IntoIterator for CellSet {
    type Item = Cell;
    type IntoIter = CellSetIter;
    fn into_iter(self) -> CellSetIter {
        self.iter()
    }
}

/// Iterator over a [`CellSet`] in increasing id order.
#[derive(Clone, Debug)]
pub struct CellSetIter(u128);

impl Iterator for CellSetIter {
    type Item = Cell;

    #[inline]
    fn next(&mut self) -> Option<Cell> {
        if self.0 == 0 {
            return None;
        }
        let id = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Cell(id))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for CellSetIter {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_operations() {
        let a = CellSet::from_cells([Cell(0), Cell(5), Cell(120)]);
        assert_eq!(a.len(), 3);
        assert!(a.contains(Cell(120)));
        assert!(!a.contains(Cell(6)));
        assert_eq!(a.iter().map(Cell::id).collect::<Vec<_>>(), [0, 5, 120]);
        assert_eq!(a.without(Cell(5)).len(), 2);
        assert_eq!(CellSet::first(121).len(), 121);
        assert_eq!(CellSet::first(0), CellSet::EMPTY);
        assert!(CellSet::first(6).is_subset(CellSet::first(7)));
        assert_eq!(a.first_cell(), Some(Cell(0)));
    }
}

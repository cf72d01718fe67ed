//! The geometry of a board, generated from its shape (RULES §1).
//!
//! Hole ids, axial coordinates, neighbour, hop and long-jump tables and the
//! triangles are all computed here from the definition of the shape; nothing
//! is typed in by hand.

use std::sync::OnceLock;

use crate::bitboard::Lanes;
use crate::board::{Board, BoardShape, Direction, Triangle};
use crate::cell::{Cell, CellSet};

/// Marks "no such hole" in the internal tables.
pub(crate) const NONE: u8 = u8::MAX;

/// Coordinates are kept in an array indexed by `q + OFFSET`, `r + OFFSET`.
/// Every supported board fits within -10..=10 on both axes.
const OFFSET: i32 = 10;
const SPAN: usize = 2 * OFFSET as usize + 1;

/// Holes, coordinates, neighbours and triangles of one board.
///
/// Obtained from [`Board::geometry`]; one instance per board lives for the
/// whole program.
///
/// ```
/// use sternhalma::{Board, Direction, Triangle};
/// let g = Board::STANDARD.geometry();
/// assert_eq!(g.len(), 121);
/// let top = g.cell(0).unwrap();
/// assert_eq!(g.coordinates(top), (4, -8));
/// assert_eq!(g.triangle_of(top), Some(Triangle::North));
/// assert_eq!(g.neighbors(top).count(), 2);
/// assert_eq!(g.neighbor(top, Direction::SouthWest).map(|c| c.id()), Some(1));
/// ```
#[derive(Debug)]
pub struct Geometry {
    board: Board,
    coordinates: Vec<(i8, i8)>,
    lookup: [[u8; SPAN]; SPAN],
    neighbors: Vec<[u8; 6]>,
    neighbor_sets: Vec<CellSet>,
    /// For each hole and direction: the hole hopped over and the landing hole.
    hops: Vec<[(u8, u8); 6]>,
    /// For each hole and direction: the holes along the line, nearest first.
    rays: Vec<[Vec<u8>; 6]>,
    /// The same lines as bit sets.
    ray_masks: Vec<[u128; 6]>,
    triangles: [CellSet; 6],
    /// The holes as four bitboard lanes, for hop chains.
    lanes: Lanes,
    triangle_of: Vec<Option<Triangle>>,
    mirror: Vec<u8>,
    all: CellSet,
    rows: usize,
}

impl Geometry {
    pub(crate) fn of(board: Board) -> &'static Geometry {
        const SLOTS: usize = 4 + 10 * 10 + 10 * 2;
        static GEOMETRIES: [OnceLock<Geometry>; SLOTS] = [const { OnceLock::new() }; SLOTS];
        let slot = match board.shape() {
            BoardShape::Star { size } => usize::from(size) - 1,
            BoardShape::Rhombus { side, home_rows } => {
                4 + usize::from(side - 2) * 10 + usize::from(home_rows - 1)
            }
            BoardShape::RhombusPegs { side, pegs } => {
                4 + 100 + usize::from(side - 2) * 2 + usize::from(pegs / 4)
            }
        };
        GEOMETRIES[slot].get_or_init(|| Geometry::build(board))
    }

    fn build(board: Board) -> Geometry {
        let mut coordinates: Vec<(i8, i8)> = Vec::new();
        for r in -OFFSET..=OFFSET {
            for q in -OFFSET..=OFFSET {
                if on_board(board, q, r) {
                    coordinates.push((q as i8, r as i8));
                }
            }
        }
        // Rows from the top, left to right: the loops above already visit
        // holes in exactly that order (r outer, q inner), so ids follow.
        assert!(coordinates.len() <= Cell::MAX_HOLES);
        let mut lookup = [[NONE; SPAN]; SPAN];
        for (id, &(q, r)) in coordinates.iter().enumerate() {
            lookup[(i32::from(r) + OFFSET) as usize][(i32::from(q) + OFFSET) as usize] = id as u8;
        }
        let at = |q: i32, r: i32| -> u8 {
            if (-OFFSET..=OFFSET).contains(&q) && (-OFFSET..=OFFSET).contains(&r) {
                lookup[(r + OFFSET) as usize][(q + OFFSET) as usize]
            } else {
                NONE
            }
        };

        let mut neighbors = Vec::with_capacity(coordinates.len());
        let mut neighbor_sets = Vec::with_capacity(coordinates.len());
        let mut hops = Vec::with_capacity(coordinates.len());
        let mut rays = Vec::with_capacity(coordinates.len());
        for &(q, r) in &coordinates {
            let (q, r) = (i32::from(q), i32::from(r));
            let mut around = [NONE; 6];
            let mut hop = [(NONE, NONE); 6];
            let mut ray: [Vec<u8>; 6] = Default::default();
            for direction in Direction::ALL {
                let (dq, dr) = direction.delta();
                let (dq, dr) = (i32::from(dq), i32::from(dr));
                let d = direction.index();
                around[d] = at(q + dq, r + dr);
                let landing = at(q + 2 * dq, r + 2 * dr);
                if around[d] != NONE && landing != NONE {
                    hop[d] = (around[d], landing);
                }
                let mut k = 1;
                while at(q + k * dq, r + k * dr) != NONE {
                    ray[d].push(at(q + k * dq, r + k * dr));
                    k += 1;
                }
            }
            neighbor_sets.push(
                around
                    .iter()
                    .filter(|&&n| n != NONE)
                    .map(|&n| Cell(n))
                    .collect(),
            );
            neighbors.push(around);
            hops.push(hop);
            rays.push(ray);
        }

        let (r_min, r_max) = coordinates
            .iter()
            .fold((i8::MAX, i8::MIN), |(lo, hi), &(_, r)| {
                (lo.min(r), hi.max(r))
            });
        let mut triangles = [CellSet::EMPTY; 6];
        let mut triangle_of = vec![None; coordinates.len()];
        let last = coordinates.len() - 1;
        for (id, &(q, r)) in coordinates.iter().enumerate() {
            let found = if let BoardShape::RhombusPegs { pegs, .. } = board.shape() {
                // RULES §7: north's home is ids 0, 1 (2 pegs) or 0, 1, 2, 4
                // (4 pegs); south's is its 180° rotation.
                let north: &[usize] = if pegs == 2 { &[0, 1] } else { &[0, 1, 2, 4] };
                if north.contains(&id) {
                    Some(Triangle::North)
                } else if north.contains(&(last - id)) {
                    Some(Triangle::South)
                } else {
                    None
                }
            } else {
                triangle_at(board, i32::from(q), i32::from(r), r_min, r_max)
            };
            if let Some(t) = found {
                triangles[t.index()].insert(Cell(id as u8));
            }
            triangle_of[id] = found;
        }
        let mirror = coordinates
            .iter()
            .map(|&(q, r)| {
                let (q, r) = (i32::from(q), i32::from(r));
                let image = at(-q - r, r);
                assert_ne!(image, NONE, "every supported board is left-right symmetric");
                image
            })
            .collect();
        let ray_masks = rays
            .iter()
            .map(|lines: &[Vec<u8>; 6]| {
                lines
                    .each_ref()
                    .map(|line| line.iter().fold(0u128, |mask, &id| mask | 1 << id))
            })
            .collect();
        let lanes = Lanes::build(&coordinates, &hops);
        Geometry {
            board,
            lanes,
            all: CellSet::first(coordinates.len()),
            ray_masks,
            rows: (r_max - r_min + 1) as usize,
            coordinates,
            lookup,
            neighbors,
            neighbor_sets,
            hops,
            rays,
            triangles,
            triangle_of,
            mirror,
        }
    }

    /// The board this geometry describes.
    #[must_use]
    pub fn board(&self) -> Board {
        self.board
    }

    /// Number of holes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.coordinates.len()
    }

    /// Always false: every board has holes. (Present for the `len` idiom.)
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.coordinates.is_empty()
    }

    /// Number of rows.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Whether `cell` is a hole of this board.
    #[must_use]
    pub fn contains(&self, cell: Cell) -> bool {
        cell.id() < self.len()
    }

    /// The hole with this id, if the board has it.
    #[must_use]
    pub fn cell(&self, id: usize) -> Option<Cell> {
        (id < self.len()).then_some(Cell(id as u8))
    }

    /// Every hole, in id order.
    pub fn cells(&self) -> impl Iterator<Item = Cell> + '_ {
        (0..self.len()).map(|id| Cell(id as u8))
    }

    /// Every hole, as a set.
    #[must_use]
    pub fn all(&self) -> CellSet {
        self.all
    }

    /// Axial coordinates `(q, r)` of a hole of this board.
    ///
    /// # Panics
    /// If `cell` is not on this board.
    #[must_use]
    pub fn coordinates(&self, cell: Cell) -> (i32, i32) {
        let (q, r) = self.coordinates[cell.id()];
        (i32::from(q), i32::from(r))
    }

    /// The hole at axial coordinates `(q, r)`, if the board has one.
    #[must_use]
    pub fn cell_at(&self, q: i32, r: i32) -> Option<Cell> {
        if !(-OFFSET..=OFFSET).contains(&q) || !(-OFFSET..=OFFSET).contains(&r) {
            return None;
        }
        let id = self.lookup[(r + OFFSET) as usize][(q + OFFSET) as usize];
        (id != NONE).then_some(Cell(id))
    }

    /// The neighbour of `cell` in `direction`, if on the board.
    #[must_use]
    pub fn neighbor(&self, cell: Cell, direction: Direction) -> Option<Cell> {
        let id = self.neighbors[cell.id()][direction.index()];
        (id != NONE).then_some(Cell(id))
    }

    /// The neighbours of `cell`, clockwise from east.
    pub fn neighbors(&self, cell: Cell) -> impl Iterator<Item = Cell> + '_ {
        self.neighbors[cell.id()]
            .iter()
            .filter(|&&id| id != NONE)
            .map(|&id| Cell(id))
    }

    /// The neighbours of `cell`, as a set.
    #[must_use]
    #[inline]
    pub fn neighbor_set(&self, cell: Cell) -> CellSet {
        self.neighbor_sets[cell.id()]
    }

    /// The holes on the line from `cell` in `direction`, nearest first.
    #[must_use]
    pub fn ray(
        &self,
        cell: Cell,
        direction: Direction,
    ) -> impl ExactSizeIterator<Item = Cell> + '_ {
        self.rays[cell.id()][direction.index()]
            .iter()
            .map(|&id| Cell(id))
    }

    #[inline]
    pub(crate) fn hop_table(&self, cell: Cell) -> &[(u8, u8); 6] {
        &self.hops[cell.id()]
    }

    /// The holes as bitboard lanes (`bitboard.rs`).
    #[inline]
    pub(crate) fn lanes(&self) -> &Lanes {
        &self.lanes
    }

    #[inline]
    pub(crate) fn ray_table(&self, cell: Cell) -> &[Vec<u8>; 6] {
        &self.rays[cell.id()]
    }

    /// The holes on the line from `cell` in direction number `direction`,
    /// as a bit set. Ids grow along the line for the first three directions
    /// (east, south-east, south-west) and shrink for the others.
    #[inline]
    pub(crate) fn ray_mask(&self, cell: Cell, direction: usize) -> u128 {
        self.ray_masks[cell.id()][direction]
    }

    /// The holes of a triangle (empty for a triangle the board lacks).
    #[must_use]
    #[inline]
    pub fn triangle(&self, triangle: Triangle) -> CellSet {
        self.triangles[triangle.index()]
    }

    /// The holes that decide whether a 6-peg triangle is **blocked** in the
    /// solved game (RULES §7): its tip, and the four holes of its outer
    /// edges next to the tip and at the corners of its last row. `None` for
    /// a triangle of any other size.
    ///
    /// The tip is the triangle's hole with the fewest neighbours on the
    /// board (a corner of the board); the one hole left out of the four is
    /// the middle of the last row, two steps from the tip with four
    /// neighbours in the triangle.
    ///
    /// ```
    /// use sternhalma::{Board, Triangle};
    /// let g = Board::rhombus(7, 3)?.geometry();
    /// let (tip, edges) = g.blocking_holes(Triangle::North).unwrap();
    /// assert_eq!(tip.id(), 0);
    /// assert_eq!(edges.iter().map(|c| c.id()).collect::<Vec<_>>(), [1, 2, 3, 5]);
    /// assert!(g.blocking_holes(Triangle::NorthEast).is_none());
    /// # Ok::<(), sternhalma::ParseError>(())
    /// ```
    #[must_use]
    pub fn blocking_holes(&self, triangle: Triangle) -> Option<(Cell, CellSet)> {
        let holes = self.triangle(triangle);
        if holes.len() != 6 {
            return None;
        }
        let tip = holes.iter().min_by_key(|&c| self.neighbor_set(c).len())?;
        let inside = |c: Cell| self.neighbor_set(c).intersection(holes).len();
        let middle = holes
            .iter()
            .find(|&c| self.distance(tip, c) == 2 && inside(c) == 4)?;
        Some((tip, holes.without(tip).without(middle)))
    }

    /// The triangle (or home) a hole belongs to, if any.
    #[must_use]
    pub fn triangle_of(&self, cell: Cell) -> Option<Triangle> {
        self.triangle_of[cell.id()]
    }

    /// The hole's image in the mirror that swaps left and right (row kept).
    #[must_use]
    pub fn mirror(&self, cell: Cell) -> Cell {
        Cell(self.mirror[cell.id()])
    }

    /// Grid distance between two holes: the fewest steps on an empty,
    /// unbounded grid.
    #[must_use]
    pub fn distance(&self, a: Cell, b: Cell) -> u32 {
        let (aq, ar) = self.coordinates(a);
        let (bq, br) = self.coordinates(b);
        let (dq, dr) = (aq - bq, ar - br);
        ((dq.abs() + dr.abs() + (dq + dr).abs()) / 2) as u32
    }

    /// The direction and distance from `a` to `b` if they lie on one line.
    #[must_use]
    pub fn line_between(&self, a: Cell, b: Cell) -> Option<(Direction, u32)> {
        let (aq, ar) = self.coordinates(a);
        let (bq, br) = self.coordinates(b);
        let (dq, dr) = (bq - aq, br - ar);
        let steps = self.distance(a, b) as i32;
        if steps == 0 {
            return None;
        }
        Direction::ALL.into_iter().find_map(|d| {
            let (uq, ur) = d.delta();
            (i32::from(uq) * steps == dq && i32::from(ur) * steps == dr)
                .then_some((d, steps as u32))
        })
    }
}

/// Whether `(q, r)` is a hole of `board` (RULES §1).
fn on_board(board: Board, q: i32, r: i32) -> bool {
    let s = -q - r;
    match board.shape() {
        BoardShape::Star { size } => {
            let n = i32::from(size);
            (q >= -n && r >= -n && s >= -n) || (q <= n && r <= n && s <= n)
        }
        BoardShape::Rhombus { side, .. } | BoardShape::RhombusPegs { side, .. } => {
            let (low, high) = rhombus_range(side);
            (low..=high).contains(&q) && (low..=high).contains(&s)
        }
    }
}

/// The range of `q` (and of `s`) on a rhombus of this side.
///
/// An odd rhombus 2n+1 is centred like the star of size n (q and s in -n..=n),
/// so that 2n+1×n is the star without its side triangles. An even one puts
/// the extra line on the positive side: q and s in -(m/2 - 1)..=m/2.
fn rhombus_range(side: u8) -> (i32, i32) {
    let low = -((i32::from(side) - 1) / 2);
    (low, low + i32::from(side) - 1)
}

fn triangle_at(board: Board, q: i32, r: i32, r_min: i8, r_max: i8) -> Option<Triangle> {
    let s = -q - r;
    match board.shape() {
        BoardShape::Star { size } => {
            // RULES §1 writes these as `r <= -(n+1)`, `q >= n+1`, ...
            let n = i32::from(size);
            if r < -n {
                Some(Triangle::North)
            } else if q > n {
                Some(Triangle::NorthEast)
            } else if s < -n {
                Some(Triangle::SouthEast)
            } else if r > n {
                Some(Triangle::South)
            } else if q < -n {
                Some(Triangle::SouthWest)
            } else if s > n {
                Some(Triangle::NorthWest)
            } else {
                None
            }
        }
        // The homes of 2 and 4 pegs are given by id (`Geometry::build`).
        BoardShape::RhombusPegs { .. } => None,
        BoardShape::Rhombus { home_rows, .. } => {
            let k = i32::from(home_rows);
            if r < i32::from(r_min) + k {
                Some(Triangle::North)
            } else if r > i32::from(r_max) - k {
                Some(Triangle::South)
            } else {
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn star_hole_counts() {
        for (size, holes) in [(1, 13), (2, 37), (3, 73), (4, 121)] {
            let g = Board::star(size).unwrap().geometry();
            assert_eq!(g.len(), holes);
            let per = usize::from(size) * (usize::from(size) + 1) / 2;
            for t in Triangle::ALL {
                assert_eq!(g.triangle(t).len(), per, "{t} of star{size}");
            }
            assert_eq!(g.rows(), 4 * usize::from(size) + 1);
        }
    }

    #[test]
    fn homes_of_two_and_four_pegs_are_the_ids_of_rules_section_7() {
        for side in 2..=11u8 {
            for pegs in [2u8, 4] {
                let Ok(board) = Board::rhombus_pegs(side, pegs) else {
                    assert!(pegs == 4 && side < 4, "{side}p{pegs}");
                    continue;
                };
                let g = board.geometry();
                let last = g.len() - 1;
                let north: Vec<usize> = g.triangle(Triangle::North).iter().map(Cell::id).collect();
                let south: Vec<usize> = g.triangle(Triangle::South).iter().map(Cell::id).collect();
                let expected: Vec<usize> = if pegs == 2 {
                    vec![0, 1]
                } else {
                    vec![0, 1, 2, 4]
                };
                assert_eq!(north, expected, "{board}");
                let mut rotated: Vec<usize> = expected.iter().map(|&id| last - id).collect();
                rotated.sort_unstable();
                assert_eq!(south, rotated, "{board}");
                assert_eq!(board.pegs_per_set(), usize::from(pegs));
                assert_eq!(board.to_string().parse::<Board>().unwrap(), board);
            }
        }
        // 4 pegs: the tip, the two holes below it and the middle of the
        // third row, which on 7x7 is the hole between ids 1 and 2's hops.
        let g = Board::rhombus_pegs(7, 4).unwrap().geometry();
        let middle = g.cell(4).unwrap();
        for id in [1, 2] {
            assert!(g.neighbor_set(g.cell(id).unwrap()).contains(middle));
        }
    }

    #[test]
    fn rhombus_hole_counts_and_homes() {
        for board in Board::all() {
            if let BoardShape::Rhombus { side, home_rows } = board.shape() {
                let g = board.geometry();
                assert_eq!(g.len(), usize::from(side) * usize::from(side));
                assert_eq!(g.rows(), 2 * usize::from(side) - 1);
                for t in [Triangle::North, Triangle::South] {
                    assert_eq!(g.triangle(t).len(), board.pegs_per_set());
                }
                assert!(
                    g.triangle(Triangle::North)
                        .intersection(g.triangle(Triangle::South))
                        .is_empty()
                );
                assert_eq!(
                    usize::from(home_rows) * (usize::from(home_rows) + 1) / 2,
                    board.pegs_per_set()
                );
            }
        }
    }

    #[test]
    fn odd_rhombus_is_the_star_without_side_triangles() {
        for n in 1..=4u8 {
            let star = Board::star(n).unwrap().geometry();
            let rhombus = Board::rhombus(2 * n + 1, n).unwrap().geometry();
            let kept: Vec<(i32, i32)> = star
                .cells()
                .filter(|&c| {
                    matches!(
                        star.triangle_of(c),
                        None | Some(Triangle::North | Triangle::South)
                    )
                })
                .map(|c| star.coordinates(c))
                .collect();
            let all: Vec<(i32, i32)> = rhombus.cells().map(|c| rhombus.coordinates(c)).collect();
            assert_eq!(kept, all);
            for t in [Triangle::North, Triangle::South] {
                let a: Vec<_> = star
                    .triangle(t)
                    .iter()
                    .map(|c| star.coordinates(c))
                    .collect();
                let b: Vec<_> = rhombus
                    .triangle(t)
                    .iter()
                    .map(|c| rhombus.coordinates(c))
                    .collect();
                assert_eq!(a, b);
            }
        }
    }

    #[test]
    fn ids_run_row_by_row_left_to_right() {
        for board in Board::all() {
            let g = board.geometry();
            let coords: Vec<_> = g.cells().map(|c| g.coordinates(c)).collect();
            for pair in coords.windows(2) {
                let ((q0, r0), (q1, r1)) = (pair[0], pair[1]);
                assert!(r0 < r1 || (r0 == r1 && q0 < q1));
            }
            for c in g.cells() {
                let (q, r) = g.coordinates(c);
                assert_eq!(g.cell_at(q, r), Some(c));
            }
        }
    }

    #[test]
    fn neighbours_are_symmetric_and_hops_straight() {
        for board in Board::all() {
            let g = board.geometry();
            for c in g.cells() {
                assert!(g.neighbors(c).count() <= 6);
                for n in g.neighbors(c) {
                    assert!(g.neighbor_set(n).contains(c));
                    assert_eq!(g.distance(c, n), 1);
                }
                for (d, &(over, land)) in g.hop_table(c).iter().enumerate() {
                    if over != NONE {
                        assert_eq!(g.line_between(c, Cell(land)), Some((Direction::ALL[d], 2)));
                        assert_eq!(g.neighbor(c, Direction::ALL[d]), Some(Cell(over)));
                    }
                }
                assert_eq!(g.mirror(g.mirror(c)), c);
            }
        }
    }

    #[test]
    fn ids_grow_along_the_first_three_directions_and_shrink_along_the_rest() {
        for board in Board::all() {
            let g = board.geometry();
            for c in g.cells() {
                for d in Direction::ALL {
                    let ids: Vec<usize> = g.ray(c, d).map(Cell::id).collect();
                    let mut sorted = ids.clone();
                    sorted.sort_unstable();
                    if d.index() >= 3 {
                        sorted.reverse();
                    }
                    assert_eq!(ids, sorted, "{board} {c} {d:?}");
                    assert_eq!(g.ray_mask(c, d.index()).count_ones() as usize, ids.len());
                }
            }
        }
    }

    #[test]
    fn centre_hole_of_the_standard_board() {
        let g = Board::STANDARD.geometry();
        let centre = g.cell_at(0, 0).unwrap();
        assert_eq!(centre.id(), 60);
        assert_eq!(g.neighbors(centre).count(), 6);
        assert_eq!(g.mirror(centre), centre);
        // The hexagon has side 5, so every line from the centre meets 4 holes.
        for d in Direction::ALL {
            assert_eq!(g.ray(centre, d).count(), 4);
        }
    }
}

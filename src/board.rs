//! Boards, triangles and directions (RULES §1).

use std::fmt;
use std::str::FromStr;

use crate::error::{ParseError, ParseErrorKind};
use crate::geometry::Geometry;

/// A board the engine can play on: the star of size 1–4 or a rhombus.
///
/// Always valid: made through [`Board::star`], [`Board::rhombus`] or parsing.
///
/// A rhombus is named by its side and the pegs of one home:
/// `rhombus9p10` is G. I. Bell's 81-hole board (homes of 4 rows),
/// `rhombus7p3` the solved game's 7×7 with 3 pegs a side. The older names
/// by home rows (`rhombus9x4`, `rhombus7x2`) still read, as the same
/// boards, and print in the new form ([`Board::older_name`]).
///
/// ```
/// use sternhalma::Board;
/// let board: Board = "rhombus9p10".parse()?;
/// assert_eq!(board.geometry().len(), 81);
/// assert_eq!("rhombus9x4".parse::<Board>()?, board);
/// assert_eq!(board.to_string(), "rhombus9p10");
/// assert_eq!(Board::STANDARD.to_string(), "star4");
/// assert!("star5".parse::<Board>().is_err());
/// # Ok::<(), sternhalma::ParseError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "String", into = "String"))]
pub struct Board(BoardShape);

/// The shape of a board, for matching on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardShape {
    /// The six-pointed star; `size` is the number of rows of one point
    /// triangle (4 on the standard 121-hole board).
    Star {
        /// Rows of one point triangle, 1 to 4.
        size: u8,
    },
    /// An m×m rhombus whose acute corners are the north and south homes.
    Rhombus {
        /// Holes along one side (m), 2 to 11.
        side: u8,
        /// Rows of each home triangle (k), 1 to m−1.
        home_rows: u8,
    },
    /// An m×m rhombus with the homes of 2 or 4 pegs of the solved game
    /// (RULES §7), which are not triangles: north's home is the first two
    /// hole ids (the tip and the first hole of the next row), or the tip,
    /// the next row and the middle hole of the row after (ids 0, 1, 2, 4);
    /// south's is its 180° rotation. Homes of 1, 3 and 6 pegs are the
    /// triangles of 1, 2 and 3 rows: [`BoardShape::Rhombus`].
    RhombusPegs {
        /// Holes along one side (m): 2 to 11 for 2 pegs, 4 to 11 for 4.
        side: u8,
        /// Pegs of each home: 2 or 4.
        pegs: u8,
    },
}

impl BoardShape {
    /// The names of the shapes' families, as [`BoardShape::name`] gives them.
    pub const NAMES: [&'static str; 2] = ["star", "rhombus"];

    /// The family's name, without its sizes: `star`, or `rhombus` (with
    /// triangle homes or the solved game's homes of 2 or 4 pegs alike).
    ///
    /// ```
    /// use sternhalma::Board;
    /// let rhombus: Board = "rhombus7p2".parse()?;
    /// assert_eq!(Board::STANDARD.shape().name(), "star");
    /// assert_eq!(rhombus.shape().name(), "rhombus");
    /// # Ok::<(), sternhalma::ParseError>(())
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            BoardShape::Star { .. } => "star",
            BoardShape::Rhombus { .. } | BoardShape::RhombusPegs { .. } => "rhombus",
        }
    }
}

impl Board {
    /// The standard 121-hole star with 10-peg triangles.
    pub const STANDARD: Board = Board(BoardShape::Star { size: 4 });

    /// The star whose point triangles have `size` rows (1 to 4).
    ///
    /// # Errors
    /// A size outside 1..=4.
    pub fn star(size: u8) -> Result<Board, ParseError> {
        if (1..=4).contains(&size) {
            Ok(Board(BoardShape::Star { size }))
        } else {
            Err(ParseError::new(
                ParseErrorKind::Board,
                &format!("star{size}"),
                "a star has point triangles of 1 to 4 rows",
            ))
        }
    }

    /// The `side`×`side` rhombus with homes of `home_rows` rows.
    ///
    /// # Errors
    /// A side outside 2..=11, or homes that are empty or would meet
    /// (`home_rows` must be 1 to `side - 1`).
    pub fn rhombus(side: u8, home_rows: u8) -> Result<Board, ParseError> {
        let text = format!("rhombus{side}x{home_rows}");
        if !(2..=11).contains(&side) {
            return Err(ParseError::new(
                ParseErrorKind::Board,
                &text,
                "a rhombus has sides of 2 to 11 holes",
            ));
        }
        if home_rows == 0 || home_rows >= side {
            return Err(ParseError::new(
                ParseErrorKind::Board,
                &text,
                format!(
                    "a {side}x{side} rhombus has homes of 1 to {} rows",
                    side - 1
                ),
            ));
        }
        Ok(Board(BoardShape::Rhombus { side, home_rows }))
    }

    /// The `side`×`side` rhombus whose homes hold `pegs` pegs: a
    /// triangle's number of pegs (1, 3, 6, 10, …) is the triangle of that
    /// many (1, 2, 3, 4, …) rows ([`Board::rhombus`]); 2 and 4 pegs are the
    /// solved game's homes of [`BoardShape::RhombusPegs`] (RULES §7).
    ///
    /// ```
    /// use sternhalma::Board;
    /// assert_eq!(Board::rhombus_pegs(7, 3)?, Board::rhombus(7, 2)?);
    /// assert_eq!(Board::rhombus_pegs(7, 3)?.to_string(), "rhombus7p3");
    /// assert_eq!(Board::rhombus_pegs(7, 4)?.to_string(), "rhombus7p4");
    /// assert_eq!("rhombus9p10".parse::<Board>()?, Board::rhombus(9, 4)?);
    /// assert!(Board::rhombus_pegs(3, 4).is_err());
    /// assert!(Board::rhombus_pegs(9, 5).is_err());
    /// # Ok::<(), sternhalma::ParseError>(())
    /// ```
    ///
    /// # Errors
    /// Pegs that are neither a triangle's number nor 2 or 4, a side
    /// outside 2..=11, or homes that would meet.
    pub fn rhombus_pegs(side: u8, pegs: u8) -> Result<Board, ParseError> {
        let text = format!("rhombus{side}p{pegs}");
        let triangle =
            (1..=10u8).find(|rows| u16::from(*rows) * u16::from(rows + 1) / 2 == u16::from(pegs));
        let rows = match (pegs, triangle) {
            (_, Some(rows)) => rows,
            (2 | 4, None) => {
                let least = if pegs == 2 { 2 } else { 4 };
                if !(least..=11).contains(&side) {
                    return Err(ParseError::new(
                        ParseErrorKind::Board,
                        &text,
                        format!(
                            "homes of {pegs} pegs need a rhombus of {least} to 11 holes a side"
                        ),
                    ));
                }
                return Ok(Board(BoardShape::RhombusPegs { side, pegs }));
            }
            _ => {
                return Err(ParseError::new(
                    ParseErrorKind::Board,
                    &text,
                    "a rhombus's homes hold a triangle's pegs (1, 3, 6, 10, 15, …) or 2 or 4",
                ));
            }
        };
        Board::rhombus(side, rows).map_err(|_| {
            ParseError::new(
                ParseErrorKind::Board,
                &text,
                format!(
                    "homes of {pegs} pegs need a rhombus of {} to 11 holes a side",
                    rows + 1
                ),
            )
        })
    }

    /// The name this board had before rhombi were named by their pegs
    /// (`rhombus7x2` for `rhombus7p3`: homes of 2 rows), which still reads;
    /// `None` where it was the same (stars, homes of 2 or 4 pegs).
    ///
    /// ```
    /// use sternhalma::Board;
    /// let board: Board = "rhombus7p3".parse()?;
    /// assert_eq!(board.older_name().as_deref(), Some("rhombus7x2"));
    /// assert_eq!(Board::STANDARD.older_name(), None);
    /// # Ok::<(), sternhalma::ParseError>(())
    /// ```
    #[must_use]
    pub fn older_name(self) -> Option<String> {
        match self.0 {
            BoardShape::Rhombus { side, home_rows } => Some(format!("rhombus{side}x{home_rows}")),
            BoardShape::Star { .. } | BoardShape::RhombusPegs { .. } => None,
        }
    }

    /// The shape of this board.
    #[must_use]
    pub fn shape(self) -> BoardShape {
        self.0
    }

    /// The board's geometry: holes, coordinates, neighbours, triangles.
    ///
    /// Built from the shape on first use and kept for the life of the program.
    #[must_use]
    pub fn geometry(self) -> &'static Geometry {
        Geometry::of(self)
    }

    /// Every board the engine supports, stars first.
    pub fn all() -> impl Iterator<Item = Board> {
        let stars = (1..=4).map(|size| Board(BoardShape::Star { size }));
        let rhombi = (2..=11u8).flat_map(|side| {
            (1..side).map(move |home_rows| Board(BoardShape::Rhombus { side, home_rows }))
        });
        let pegs = (2..=11u8).flat_map(|side| {
            [2, 4]
                .into_iter()
                .filter(move |&pegs| side >= pegs)
                .map(move |pegs| Board(BoardShape::RhombusPegs { side, pegs }))
        });
        stars.chain(rhombi).chain(pegs)
    }

    /// Number of pegs in one set: the holes of one triangle.
    #[must_use]
    pub fn pegs_per_set(self) -> usize {
        let rows = match self.0 {
            BoardShape::Star { size } => size,
            BoardShape::Rhombus { home_rows, .. } => home_rows,
            BoardShape::RhombusPegs { pegs, .. } => return usize::from(pegs),
        } as usize;
        rows * (rows + 1) / 2
    }

    /// The triangles that exist on this board: all six on a star, north and
    /// south on a rhombus.
    #[must_use]
    pub fn triangles(self) -> &'static [Triangle] {
        match self.0 {
            BoardShape::Star { .. } => &Triangle::ALL,
            BoardShape::Rhombus { .. } | BoardShape::RhombusPegs { .. } => {
                &[Triangle::North, Triangle::South]
            }
        }
    }

    /// Whether `triangle` exists on this board.
    #[must_use]
    pub fn has_triangle(self, triangle: Triangle) -> bool {
        self.triangles().contains(&triangle)
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            BoardShape::Star { size } => write!(f, "star{size}"),
            BoardShape::Rhombus { side, .. } => {
                write!(f, "rhombus{side}p{}", self.pegs_per_set())
            }
            BoardShape::RhombusPegs { side, pegs } => write!(f, "rhombus{side}p{pegs}"),
        }
    }
}

impl FromStr for Board {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<Board, ParseError> {
        let number = |digits: &str| -> Result<u8, ParseError> {
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(ParseError::new(
                    ParseErrorKind::Board,
                    text,
                    "expected star<N> or rhombus<M>p<P> (a side of M holes, homes of P pegs), e.g. star4, rhombus9p10 or rhombus7p3",
                ));
            }
            digits
                .parse()
                .map_err(|_| ParseError::new(ParseErrorKind::Board, text, "number too large"))
        };
        if let Some(size) = text.strip_prefix("star") {
            Board::star(number(size)?)
        } else if let Some(rest) = text.strip_prefix("rhombus") {
            if let Some((side, pegs)) = rest.split_once('p') {
                return Board::rhombus_pegs(number(side)?, number(pegs)?);
            }
            let (side, rows) = rest.split_once('x').ok_or_else(|| {
                ParseError::new(
                    ParseErrorKind::Board,
                    text,
                    "a rhombus is written rhombus<M>p<P> (a side of M holes, homes of P pegs), e.g. rhombus9p10 or rhombus7p3; the older rhombus<M>x<K> (homes of K rows) still reads",
                )
            })?;
            Board::rhombus(number(side)?, number(rows)?)
        } else {
            Err(ParseError::new(
                ParseErrorKind::Board,
                text,
                "expected star<N> or rhombus<M>p<P> (a side of M holes, homes of P pegs), e.g. star4, rhombus9p10 or rhombus7p3",
            ))
        }
    }
}

impl TryFrom<String> for Board {
    type Error = ParseError;
    fn try_from(text: String) -> Result<Board, ParseError> {
        text.parse()
    }
}

impl From<Board> for String {
    fn from(board: Board) -> String {
        board.to_string()
    }
}

impl Default for Board {
    fn default() -> Board {
        Board::STANDARD
    }
}

/// One of the six point triangles of the star, in clockwise order from the
/// top. A rhombus has only `North` and `South`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub enum Triangle {
    /// The top point.
    North,
    /// Upper right.
    NorthEast,
    /// Lower right.
    SouthEast,
    /// The bottom point.
    South,
    /// Lower left.
    SouthWest,
    /// Upper left.
    NorthWest,
}

impl Triangle {
    /// All six, clockwise from north.
    pub const ALL: [Triangle; 6] = [
        Triangle::North,
        Triangle::NorthEast,
        Triangle::SouthEast,
        Triangle::South,
        Triangle::SouthWest,
        Triangle::NorthWest,
    ];

    /// Index in clockwise order from north (0..6).
    #[must_use]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The triangle across the board: where a set starting here is headed.
    ///
    /// ```
    /// use sternhalma::Triangle;
    /// assert_eq!(Triangle::South.opposite(), Triangle::North);
    /// assert_eq!(Triangle::NorthEast.opposite(), Triangle::SouthWest);
    /// ```
    #[must_use]
    pub fn opposite(self) -> Triangle {
        Triangle::ALL[(self.index() + 3) % 6]
    }

    /// The snake_case name used in every text format.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Triangle::North => "north",
            Triangle::NorthEast => "north_east",
            Triangle::SouthEast => "south_east",
            Triangle::South => "south",
            Triangle::SouthWest => "south_west",
            Triangle::NorthWest => "north_west",
        }
    }
}

impl fmt::Display for Triangle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Triangle {
    type Err = ParseError;
    fn from_str(text: &str) -> Result<Triangle, ParseError> {
        Triangle::ALL
            .into_iter()
            .find(|t| t.name() == text)
            .ok_or_else(|| {
                ParseError::new(
                    ParseErrorKind::Triangle,
                    text,
                    "expected north, north_east, south_east, south, south_west or north_west",
                )
            })
    }
}

/// The six directions of the hexagonal grid, clockwise from east.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// `(q + 1, r)`.
    East,
    /// `(q, r + 1)`: down and to the right.
    SouthEast,
    /// `(q - 1, r + 1)`: down and to the left.
    SouthWest,
    /// `(q - 1, r)`.
    West,
    /// `(q, r - 1)`: up and to the left.
    NorthWest,
    /// `(q + 1, r - 1)`: up and to the right.
    NorthEast,
}

impl Direction {
    /// All six, clockwise from east.
    pub const ALL: [Direction; 6] = [
        Direction::East,
        Direction::SouthEast,
        Direction::SouthWest,
        Direction::West,
        Direction::NorthWest,
        Direction::NorthEast,
    ];

    /// The axial step `(dq, dr)` of one move in this direction.
    #[must_use]
    pub fn delta(self) -> (i8, i8) {
        match self {
            Direction::East => (1, 0),
            Direction::SouthEast => (0, 1),
            Direction::SouthWest => (-1, 1),
            Direction::West => (-1, 0),
            Direction::NorthWest => (0, -1),
            Direction::NorthEast => (1, -1),
        }
    }

    /// Index in clockwise order from east (0..6).
    #[must_use]
    pub fn index(self) -> usize {
        self as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rhombus_is_named_by_its_pegs_and_its_older_name_still_reads() {
        for side in 2..=11u8 {
            for rows in 1..side {
                let board = Board::rhombus(side, rows).unwrap();
                let pegs = usize::from(rows) * usize::from(rows + 1) / 2;
                assert_eq!(board.to_string(), format!("rhombus{side}p{pegs}"));
                let older = format!("rhombus{side}x{rows}");
                assert_eq!(board.older_name().as_deref(), Some(older.as_str()));
                assert_eq!(older.parse::<Board>().unwrap(), board);
                assert_eq!(board.to_string().parse::<Board>().unwrap(), board);
            }
        }
        // Homes of 2 and 4 pegs had their names already.
        assert_eq!(Board::rhombus_pegs(7, 4).unwrap().older_name(), None);
        // Neither a triangle's pegs nor 2 or 4.
        for name in ["rhombus9p5", "rhombus9p7", "rhombus11p66"] {
            assert!(name.parse::<Board>().is_err(), "{name}");
        }
    }

    #[test]
    fn board_names_round_trip() {
        for board in Board::all() {
            assert_eq!(board.to_string().parse::<Board>(), Ok(board));
        }
        // Four stars, every m×k rhombus, and the homes of 2 pegs (sides 2 to
        // 11) and of 4 (sides 4 to 11).
        assert_eq!(Board::all().count(), 4 + (1..=10).sum::<usize>() + 10 + 8);
    }

    #[test]
    fn malformed_boards_are_refused() {
        for text in [
            "",
            "star",
            "star0",
            "star5",
            "rhombus9",
            "rhombus9x9",
            "rhombus12x3",
            "rhombus1x0",
            "hex4",
            "star4 ",
            "star-1",
            "rhombus9p10x",
        ] {
            assert!(text.parse::<Board>().is_err(), "{text:?} parsed");
        }
    }

    #[test]
    fn triangles_oppose_in_pairs() {
        for t in Triangle::ALL {
            assert_ne!(t.opposite(), t);
            assert_eq!(t.opposite().opposite(), t);
            assert_eq!(t.name().parse::<Triangle>(), Ok(t));
        }
    }
}

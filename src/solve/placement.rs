//! Positions of the solved game as a table sees them, and questions to a
//! table as lines of text: what `sternhalma tablebase probe` reads and
//! `sternhalma tablebase export` writes.
//!
//! A [`Placement`] is a position of the solved game reduced to what its
//! value depends on: south's pegs, north's pegs and the side to move, as
//! bit sets of hole ids. Its text is compact, `47,48/0,1 0` (south's holes,
//! a slash, north's holes, a space, the side to move: 0 for south, 1 for
//! north), so that millions of them are read and written fast. Parsing
//! checks the form only; [`Tablebase::index_of`] checks it against a
//! table's game.
//!
//! A [`Query`] is one line a researcher asks a table: a whole position
//! string (`rhombus7p2 sturtevant south:47,48/north:0,1 0 0 -`), a
//! placement, or a table index (digits alone). A [`Prober`] answers
//! queries one after another, its buffers reused, with the value, the
//! depth and the best move.
//!
//! ```
//! use sternhalma::solve::{Game, Placement, Prober, Query, Tablebase};
//!
//! let game = Game::new(7, 2)?;
//! let table = Tablebase::build(&game, 1, &|_| {})?;
//! let mut prober = Prober::new(&table);
//! let start: Query = "47,48/0,1 0".parse()?;
//! let answer = prober.answer(&start)?;
//! assert_eq!(answer.to_string(), "win in 33 48-45");
//! let same: Query = "rhombus7p2 sturtevant south:47,48/north:0,1 0 0 -".parse()?;
//! assert_eq!(prober.answer(&same)?, answer);
//! let placement: Placement = "47,48/0,1 0".parse()?;
//! assert_eq!(placement.to_string(), "47,48/0,1 0");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::str::FromStr;

use super::game::{Moves, Sets};
use super::table::Value;
use super::tablebase::{MoveProbe, Probe, Tablebase, TablebaseError};
use crate::board::Triangle;
use crate::error::{ParseError, ParseErrorKind};
use crate::notation::PositionError;
use crate::setup::{Finisher, PegSet, Setup};
use crate::{Position, Rules};

/// A position of the solved game as its two peg sets and the side to move:
/// bit `i` of a set is hole `i` (the position string's hole ids). Plain
/// data: [`Tablebase::index_of`] says whether it is a legal position of a
/// table's game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Placement {
    /// South's pegs (player 0, who moves first, heading north).
    pub south: u64,
    /// North's pegs (player 1, heading south).
    pub north: u64,
    /// The player to move: 0 (south) or 1 (north).
    pub side_to_move: usize,
}

/// Writes the ids of `set`'s holes, ascending, joined by `separator`.
///
/// ```
/// let mut out = Vec::new();
/// sternhalma::solve::placement::write_holes(&mut out, 0b1010_0001, b' ');
/// assert_eq!(out, b"0 5 7");
/// ```
pub fn write_holes(out: &mut Vec<u8>, set: u64, separator: u8) {
    let mut rest = set;
    let mut first = true;
    while rest != 0 {
        if !first {
            out.push(separator);
        }
        first = false;
        write_number(out, u64::from(rest.trailing_zeros()));
        rest &= rest - 1;
    }
}

/// Writes `n` in decimal (what `write!` does, without its formatting
/// machinery: export writes hundreds of millions).
pub fn write_number(out: &mut Vec<u8>, n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

impl Placement {
    /// Appends the placement's text (`47,48/0,1 0`) to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        write_holes(out, self.south, b',');
        out.push(b'/');
        write_holes(out, self.north, b',');
        out.push(b' ');
        out.push(b'0' + self.side_to_move as u8);
    }
}

impl fmt::Display for Placement {
    /// `47,48/0,1 0`: south's holes, north's holes, the side to move.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = Vec::with_capacity(32);
        self.write(&mut out);
        f.write_str(std::str::from_utf8(&out).expect("digits and punctuation"))
    }
}

/// A malformed placement text: the text and why.
fn malformed(text: &str, reason: impl Into<String>) -> ParseError {
    ParseError::new(ParseErrorKind::Position, text, reason)
}

/// The set of a comma-separated list of hole ids (`47,48`; empty for none).
fn parse_holes(list: &str, text: &str, whose: &str) -> Result<u64, ParseError> {
    let mut set = 0u64;
    if list.is_empty() {
        return Ok(0);
    }
    for item in list.split(',') {
        if item.is_empty() || item.len() > 2 || !item.bytes().all(|b| b.is_ascii_digit()) {
            return Err(malformed(
                text,
                format!("{whose}'s holes are ids from 0 to 63 joined by commas, not {item:?}"),
            ));
        }
        let id: u32 = item.parse().expect("one or two digits");
        if id >= 64 {
            return Err(malformed(
                text,
                format!("hole {id} is past the solved game's largest board (ids 0 to 63)"),
            ));
        }
        if set & (1 << id) != 0 {
            return Err(malformed(text, format!("{whose} has hole {id} twice")));
        }
        set |= 1 << id;
    }
    Ok(set)
}

impl FromStr for Placement {
    type Err = ParseError;

    /// Reads `47,48/0,1 0`: south's hole ids, a slash, north's, a space, the
    /// side to move (0 for south, 1 for north). Only the form is checked.
    fn from_str(text: &str) -> Result<Placement, ParseError> {
        let mut fields = text.split_ascii_whitespace();
        let (Some(sets), Some(side), None) = (fields.next(), fields.next(), fields.next()) else {
            return Err(malformed(
                text,
                "write south's holes, a slash, north's holes, a space and the side to move, e.g. 47,48/0,1 0",
            ));
        };
        let Some((south, north)) = sets.split_once('/') else {
            return Err(malformed(
                text,
                "south's and north's holes are separated by a slash, e.g. 47,48/0,1",
            ));
        };
        let south = parse_holes(south, text, "south")?;
        let north = parse_holes(north, text, "north")?;
        let side_to_move = match side {
            "0" => 0,
            "1" => 1,
            _ => {
                return Err(malformed(
                    text,
                    format!("the side to move is 0 (south) or 1 (north), not {side:?}"),
                ));
            }
        };
        Ok(Placement {
            south,
            north,
            side_to_move,
        })
    }
}

/// One question to a table, as a line of text: a position string, a
/// [`Placement`] (`47,48/0,1 0`), or a table index (digits alone).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Query {
    /// A whole position (parsed and validated).
    Position(Box<Position>),
    /// Two peg sets and the side to move.
    Placement(Placement),
    /// An entry of the table ([`Tablebase::index`]).
    Index(u64),
}

impl FromStr for Query {
    type Err = PositionError;

    /// Digits alone are an index; a line starting with a digit a
    /// placement; anything else a position string. Surrounding blanks are
    /// ignored.
    fn from_str(text: &str) -> Result<Query, PositionError> {
        let line = text.trim();
        if line.is_empty() {
            return Err(PositionError::Malformed(malformed(
                text,
                "an empty line: write a position string, a placement (47,48/0,1 0) or a table index",
            )));
        }
        if line.bytes().all(|b| b.is_ascii_digit()) {
            return line
                .parse()
                .map(Query::Index)
                .map_err(|_| PositionError::Malformed(malformed(text, "an index past 2^64")));
        }
        if line.as_bytes()[0].is_ascii_digit() {
            return line
                .parse()
                .map(Query::Placement)
                .map_err(PositionError::Malformed);
        }
        line.parse().map(|p| Query::Position(Box::new(p)))
    }
}

/// A table's answer to a [`Query`]: what the table holds for the position
/// (for its side to move), and the best move if there is one (the first
/// of [`Tablebase::moves`]: the fastest win, else a drawing move, else the
/// longest loss; among equals the first in start hole, then end hole
/// order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The value and depth for the side to move ([`Value::Illegal`] only
    /// for an index whose entry holds no position).
    pub probe: Probe,
    /// The best move; `None` once the game is over (or for an entry that
    /// holds no position).
    pub best: Option<MoveProbe>,
}

/// Appends what [`Probe`]'s `Display` writes (`win in 33`, `draw`, `win`
/// without depths) to `out`, without the formatting machinery.
pub fn write_probe(out: &mut Vec<u8>, probe: &Probe) {
    out.extend_from_slice(probe.value.name().as_bytes());
    if let Some(depth) = probe.depth
        && probe.value != Value::Draw
    {
        out.extend_from_slice(b" in ");
        write_number(out, u64::from(depth));
    }
}

impl Answer {
    /// Appends the answer's text (`win in 33 48-45`, as `Display` writes
    /// it) to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        write_probe(out, &self.probe);
        if let Some(best) = &self.best
            && let (Some(from), Some(to)) = (best.mv.from(), best.mv.to())
        {
            out.push(b' ');
            write_number(out, u64::from(from.0));
            out.push(b'-');
            write_number(out, u64::from(to.0));
        }
    }
}

impl fmt::Display for Answer {
    /// `win in 33 48-45`: the probe, then the best move if any (the solved
    /// game has no pass).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = Vec::with_capacity(24);
        self.write(&mut out);
        f.write_str(std::str::from_utf8(&out).expect("words and digits"))
    }
}

impl Tablebase {
    /// The index of `placement` in this table, after checking that it is a
    /// legal position of the table's game: as many pegs a side as the game,
    /// on the board's holes, on distinct holes, and not illegal under
    /// RULES §7 (the side to move has not already won; no home is
    /// blocked). The same index as [`Tablebase::index`] of the position.
    ///
    /// ```
    /// use sternhalma::solve::{Game, Placement, Tablebase};
    /// let table = Tablebase::build(&Game::new(7, 2)?, 1, &|_| {})?;
    /// let start: Placement = "47,48/0,1 0".parse()?;
    /// let position = "rhombus7p2 sturtevant south:47,48/north:0,1 0 0 -".parse()?;
    /// assert_eq!(table.index_of(&start)?, table.index(&position)?);
    /// let overlapping: Placement = "47,48/48,1 0".parse()?;
    /// assert_eq!(table.index_of(&overlapping).unwrap_err().code(), "tablebase_not_a_position");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`TablebaseError::OtherGame`] for another number of pegs a side;
    /// [`TablebaseError::NotAPosition`] for the other faults, saying which.
    pub fn index_of(&self, placement: &Placement) -> Result<u64, TablebaseError> {
        let (mover, other) = self.folded(placement)?;
        Ok(self.game().ranking().index(mover, other))
    }

    /// The placement, folded so that south is to move (the table's own
    /// frame: [`super::Game`]), after the checks of [`Tablebase::index_of`].
    fn folded(&self, placement: &Placement) -> Result<(u64, u64), TablebaseError> {
        let game = self.game();
        let ranking = game.ranking();
        let pegs = u32::from(game.pegs());
        let Placement {
            south,
            north,
            side_to_move,
        } = *placement;
        let not_a_position = |why: String| {
            Err(TablebaseError::NotAPosition(format!(
                "{placement} is not a position of {}: {why}",
                game.board()
            )))
        };
        for (whose, set) in [("south", south), ("north", north)] {
            if set.count_ones() != pegs {
                let count = set.count_ones();
                return Err(TablebaseError::OtherGame(format!(
                    "{placement}: {whose} has {count} peg{}, and the table of {} has {pegs} a side",
                    if count == 1 { "" } else { "s" },
                    game.board()
                )));
            }
            if set & !ranking.all() != 0 {
                return not_a_position(format!(
                    "{whose} has a peg on hole {}, and the board's holes are 0 to {}",
                    (set & !ranking.all()).trailing_zeros(),
                    ranking.holes() - 1
                ));
            }
        }
        if south & north != 0 {
            return not_a_position(format!(
                "south and north both have a peg on hole {}",
                (south & north).trailing_zeros()
            ));
        }
        let (mover, other) = match side_to_move {
            0 => (south, north),
            1 => (ranking.rotate(north), ranking.rotate(south)),
            _ => return not_a_position(format!("no player {side_to_move} in a two-player game")),
        };
        if game.is_illegal(mover, other) {
            return not_a_position(
                "it is illegal under RULES §7 (the side to move has already won, or a home is blocked)"
                    .to_owned(),
            );
        }
        Ok((mover, other))
    }

    /// The [`Position`] of `placement`, after the checks of
    /// [`Tablebase::index_of`]: the table's board and rules (the
    /// `sturtevant` preset), the ply count 0 with south to move and 1 with
    /// north, and when the player who moved last has all their pegs home,
    /// the game over (the `finished` field names them).
    ///
    /// ```
    /// use sternhalma::solve::{Game, Placement, Tablebase};
    /// let table = Tablebase::build(&Game::new(7, 2)?, 1, &|_| {})?;
    /// let start = table.position_of(&"47,48/0,1 0".parse()?)?;
    /// assert_eq!(start.to_string(), "rhombus7p2 sturtevant south:47,48/north:0,1 0 0 -");
    /// let over = table.position_of(&"0,1/24,25 1".parse()?)?;
    /// assert!(over.is_game_over());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Tablebase::index_of`].
    pub fn position_of(&self, placement: &Placement) -> Result<Position, TablebaseError> {
        let (mover, other) = self.folded(placement)?;
        let game = self.game();
        let ids = |set: u64| (0..64).filter(|&i| set & (1u64 << i) != 0).collect();
        let side = placement.side_to_move;
        let ply = side as u32;
        let setup = Setup {
            board: game.board(),
            rules: Rules::sturtevant(),
            players: vec![
                vec![PegSet {
                    triangle: Triangle::South,
                    pegs: ids(placement.south),
                }],
                vec![PegSet {
                    triangle: Triangle::North,
                    pegs: ids(placement.north),
                }],
            ],
            neutral: None,
            side_to_move: side,
            ply,
            finished: if game.is_over(mover, other) {
                vec![Finisher {
                    player: 1 - side,
                    ply,
                }]
            } else {
                Vec::new()
            },
            resigned: Vec::new(),
        };
        setup.validate().map_err(|e| {
            TablebaseError::NotAPosition(format!("{placement} is not a position: {e}"))
        })
    }

    /// The position entry `index` stands for with south to move (of a
    /// mirror-folded table, the one of the position and its image that the
    /// entry names).
    ///
    /// ```
    /// use sternhalma::solve::{Game, Placement, Tablebase};
    /// let table = Tablebase::build(&Game::new(7, 2)?, 1, &|_| {})?;
    /// let start: Placement = "47,48/0,1 0".parse()?;
    /// assert_eq!(table.placement(table.index_of(&start)?)?, start);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`TablebaseError::NotAPosition`] for an index past the table or an
    /// entry that holds no legal position.
    pub fn placement(&self, index: u64) -> Result<Placement, TablebaseError> {
        if self.probe_index(index)?.value == Value::Illegal {
            return Err(TablebaseError::NotAPosition(format!(
                "entry {index} of the table of {} holds no position: {}",
                self.game().board(),
                if self.game().ranking().folds_mirror() {
                    "illegal under RULES §7, or the mirror image of another entry's"
                } else {
                    "illegal under RULES §7"
                }
            )));
        }
        let (mover, other) = self.game().ranking().position(index);
        Ok(Placement {
            south: mover,
            north: other,
            side_to_move: 0,
        })
    }
}

/// The positions one entry of a table stands for, with what the table
/// holds there ([`Tablebase::entry`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The value and depth, for the side to move of each position.
    pub probe: Probe,
    positions: [Placement; 4],
    len: usize,
}

impl Entry {
    /// The legal positions the entry stands for, in this order: with south
    /// to move, the position the entry names, then (a mirror-folded table)
    /// its mirror image if it is another position; then the same with north
    /// to move (each rotated by 180°, the colours swapped). None for an
    /// entry that holds no legal position ([`Value::Illegal`]).
    #[must_use]
    pub fn positions(&self) -> &[Placement] {
        &self.positions[..self.len]
    }
}

impl Tablebase {
    /// Entry `index`: what the table holds there and every legal position
    /// it stands for (either side to move, and a position's mirror image
    /// where the table folds the mirror). Over every index, each legal
    /// position of the game comes exactly once: RULES §7's count of
    /// positions less its illegal ones.
    ///
    /// ```
    /// use sternhalma::solve::{Game, Tablebase};
    /// let game = Game::new(7, 2)?;
    /// let table = Tablebase::build(&game, 1, &|_| {})?;
    /// let (mover, other) = game.start();
    /// let entry = table.entry(game.ranking().index(mover, other))?;
    /// let texts: Vec<String> = entry.positions().iter().map(|p| p.to_string()).collect();
    /// assert_eq!(texts, ["47,48/0,1 0", "47,48/0,1 1"]);
    /// assert_eq!(entry.probe.to_string(), "win in 33");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`TablebaseError::NotAPosition`] for an index past the table.
    pub fn entry(&self, index: u64) -> Result<Entry, TablebaseError> {
        let probe = self.probe_index(index)?;
        let empty = Placement {
            south: 0,
            north: 0,
            side_to_move: 0,
        };
        let mut entry = Entry {
            probe,
            positions: [empty; 4],
            len: 0,
        };
        if probe.value == Value::Illegal {
            return Ok(entry);
        }
        let ranking = self.game().ranking();
        let (mover, other) = ranking.position(index);
        let block = index / ranking.block_len();
        let mut south_to_move = [(mover, other); 2];
        let images = if ranking.multiplicity(block, mover, other) == 2 {
            south_to_move[1] = (ranking.mirror(mover), ranking.mirror(other));
            2
        } else {
            1
        };
        for (side, slot) in [0, 1].into_iter().zip([0, images]) {
            for (i, &(mover, other)) in south_to_move[..images].iter().enumerate() {
                entry.positions[slot + i] = if side == 0 {
                    Placement {
                        south: mover,
                        north: other,
                        side_to_move: 0,
                    }
                } else {
                    Placement {
                        south: ranking.rotate(other),
                        north: ranking.rotate(mover),
                        side_to_move: 1,
                    }
                };
            }
        }
        entry.len = 2 * images;
        Ok(entry)
    }
}

/// Answers [`Query`]s against one table, one after another, with buffers
/// reused from one to the next: what a batch probe keeps per thread.
pub struct Prober<'t> {
    table: &'t Tablebase,
    moves: Moves,
    next: Sets,
}

impl<'t> Prober<'t> {
    /// A prober of `table`.
    #[must_use]
    pub fn new(table: &'t Tablebase) -> Prober<'t> {
        Prober {
            table,
            moves: Moves::new(table.game()),
            next: Sets::new(),
        }
    }

    /// The table's answer to `query`: the value and depth for the side to
    /// move, and the best move, the first of [`Tablebase::moves`] for the
    /// same position (a finished game, or one at its move limit, has no
    /// move). A placement or an index is over when the last mover has all
    /// their pegs home. An index whose entry holds no position answers
    /// [`Value::Illegal`] with no move.
    ///
    /// # Errors
    /// A position of another game, or a placement or index that is no
    /// legal position of the table's game.
    pub fn answer(&mut self, query: &Query) -> Result<Answer, TablebaseError> {
        self.answer_with(query, true)
    }

    /// The value and depth of [`Prober::answer`] alone, without looking
    /// for the best move: a table read or two (the best move reads the
    /// table once per legal move).
    ///
    /// # Errors
    /// As [`Prober::answer`].
    pub fn probe(&mut self, query: &Query) -> Result<Probe, TablebaseError> {
        self.answer_with(query, false).map(|answer| answer.probe)
    }

    fn answer_with(&mut self, query: &Query, with_move: bool) -> Result<Answer, TablebaseError> {
        match query {
            Query::Position(position) => {
                let (mover, other) = self.table.sets(position)?;
                let index = self.table.game().ranking().index(mover, other);
                let probe = self.table.probe_index(index)?;
                // A finished game, or one at its move limit, has no move
                // (`Position::legal_moves`); otherwise its moves are those
                // of its peg sets.
                let best = if !with_move || position.is_decided() {
                    None
                } else {
                    let layout = position.layout();
                    let north =
                        layout.sets_of(position.side_to_move()).next() == Some(Triangle::North);
                    self.best(mover, other, north)
                };
                Ok(Answer { probe, best })
            }
            Query::Placement(placement) => {
                let (mover, other) = self.table.folded(placement)?;
                let index = self.table.game().ranking().index(mover, other);
                let probe = self.table.probe_index(index)?;
                let best = if with_move {
                    self.best(mover, other, placement.side_to_move == 1)
                } else {
                    None
                };
                Ok(Answer { probe, best })
            }
            Query::Index(index) => {
                let probe = self.table.probe_index(*index)?;
                if !with_move || probe.value == Value::Illegal {
                    return Ok(Answer { probe, best: None });
                }
                let (mover, other) = self.table.game().ranking().position(*index);
                Ok(Answer {
                    probe,
                    best: self.best(mover, other, false),
                })
            }
        }
    }

    /// The best move of the legal position `(mover, other)` (folded: south
    /// to move), as played on the board: rotated back when `north` is to
    /// move. Among equals, the lowest start hole then end hole on the
    /// board, as [`Tablebase::moves`] orders them.
    fn best(&mut self, mover: u64, other: u64, north: bool) -> Option<MoveProbe> {
        let game = self.table.game();
        if game.is_over(mover, other) {
            return None;
        }
        let ranking = game.ranking();
        game.successors(mover, other, &mut self.moves, &mut self.next);
        let successor_mover = ranking.rotate(other);
        let last = ranking.holes() as u8 - 1;
        // The best so far, and its ends on the board.
        let mut best: Option<(MoveProbe, (u8, u8))> = None;
        for (&(from, to), &after) in self.moves.as_slice().iter().zip(self.next.as_slice()) {
            let reply = self
                .table
                .probe_index(ranking.index(successor_mover, after))
                .expect("a successor's index is in the table");
            let value = match reply.value {
                Value::Win => Value::Loss,
                Value::Loss => Value::Win,
                other => other,
            };
            let (from, to) = if north {
                (last - from, last - to)
            } else {
                (from, to)
            };
            let candidate = MoveProbe {
                mv: game.move_between(from, to),
                value,
                depth: reply.depth.map(|d| d + 1),
            };
            let preference = candidate.preference();
            let better = best.is_none_or(|(so_far, ends)| {
                let theirs = so_far.preference();
                preference > theirs || (preference == theirs && (from, to) < ends)
            });
            if better {
                best = Some((candidate, (from, to)));
            }
        }
        best.map(|(m, _)| m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::{Game, published};

    fn holes(set: u64) -> String {
        let mut out = Vec::new();
        write_holes(&mut out, set, b',');
        String::from_utf8(out).unwrap()
    }

    /// The position string of a placement of `game`, its game over
    /// written out.
    fn text_position(game: &Game, placement: &Placement) -> Position {
        let ranking = game.ranking();
        let (mover, other) = if placement.side_to_move == 0 {
            (placement.south, placement.north)
        } else {
            (
                ranking.rotate(placement.north),
                ranking.rotate(placement.south),
            )
        };
        let side = placement.side_to_move;
        let finished = if game.is_over(mover, other) {
            format!("{}@{side}", 1 - side)
        } else {
            "-".to_owned()
        };
        format!(
            "{} sturtevant south:{}/north:{} {side} {side} {finished}",
            game.board(),
            holes(placement.south),
            holes(placement.north),
        )
        .parse()
        .unwrap_or_else(|e| panic!("{placement}: {e}"))
    }

    /// Every `step`-th entry of `game`'s table: its positions are each
    /// answered from the peg sets as from the whole position, and its
    /// index as its first position.
    fn answers_agree(game: &Game, step: u64) -> u64 {
        let table = Tablebase::build(game, 2, &|_| {}).unwrap();
        let mut prober = Prober::new(&table);
        let mut checked = 0;
        for index in (0..game.ranking().states()).step_by(step as usize) {
            let entry = table.entry(index).unwrap();
            let by_index = prober.answer(&Query::Index(index)).unwrap();
            assert_eq!(by_index.probe, entry.probe);
            assert_eq!(prober.probe(&Query::Index(index)).unwrap(), entry.probe);
            for (i, placement) in entry.positions().iter().enumerate() {
                assert_eq!(table.index_of(placement).unwrap(), index, "{placement}");
                let answer = prober.answer(&Query::Placement(*placement)).unwrap();
                let probe = prober.probe(&Query::Placement(*placement)).unwrap();
                assert_eq!(probe, answer.probe, "{placement}");
                let position = table.position_of(placement).unwrap();
                assert_eq!(position, text_position(game, placement));
                assert_eq!(table.index(&position).unwrap(), index, "{placement}");
                assert_eq!(answer.probe, table.probe(&position).unwrap(), "{placement}");
                let whole = prober
                    .answer(&Query::Position(Box::new(position.clone())))
                    .unwrap();
                assert_eq!(answer, whole, "{placement}");
                assert_eq!(whole.best, table.moves(&position).unwrap().first().copied());
                if position.is_game_over() {
                    assert_eq!(answer.probe.depth.unwrap_or(0), 0);
                    assert_eq!(answer.probe.value, Value::Loss);
                    assert_eq!(answer.best, None, "{placement}");
                }
                if i == 0 {
                    assert_eq!(by_index, answer, "entry {index}");
                    assert_eq!(table.placement(index).unwrap(), *placement);
                }
                checked += 1;
            }
        }
        checked
    }

    #[test]
    fn placements_and_indices_answer_as_whole_positions_do() {
        // 7×7 with 1 peg folds the mirror, 2 pegs does not; 4×4 with 6
        // folds it and has draws.
        assert_eq!(answers_agree(&Game::new(7, 1).unwrap(), 1), 4_704 - 96);
        assert!(answers_agree(&Game::new(7, 2).unwrap(), 211) > 10_000);
        assert!(answers_agree(&Game::new(4, 6).unwrap(), 97) > 10_000);
    }

    #[test]
    fn the_entries_stand_for_every_legal_position_once() {
        for (side, pegs) in [(7, 1), (7, 2), (4, 6)] {
            let game = Game::new(side, pegs).unwrap();
            let table = Tablebase::build(&game, 2, &|_| {}).unwrap();
            let mut seen = std::collections::HashSet::new();
            let mut by_value = [0u64; 4];
            for index in 0..game.ranking().states() {
                let entry = table.entry(index).unwrap();
                for placement in entry.positions() {
                    assert!(seen.insert(*placement), "{placement} twice");
                    by_value[entry.probe.value as usize] += 1;
                }
            }
            let [positions, _, draws, illegal] = published(side, pegs)
                .or_else(|| crate::solve::reproduced(side, pegs))
                .unwrap();
            assert_eq!(seen.len() as u64, positions - illegal, "{game}");
            assert_eq!(by_value[Value::Illegal as usize], 0);
            if (side, pegs) != (4, 6) {
                // The paper's draws of 4×4 with 6 pegs are not this
                // rules' (`reproduced`).
                assert_eq!(by_value[Value::Draw as usize], draws, "{game}");
            }
        }
    }

    #[test]
    fn placements_parse_print_and_are_checked_against_the_game() {
        let text = "47,48/0,1 0";
        let placement: Placement = text.parse().unwrap();
        assert_eq!(
            placement,
            Placement {
                south: (1 << 47) | (1 << 48),
                north: 0b11,
                side_to_move: 0
            }
        );
        assert_eq!(placement.to_string(), text);
        for (bad, why) in [
            ("47,48/0,1", "side to move"),
            ("47,48 0,1 0", "slash"),
            ("47,48/0,1 2", "0 (south) or 1 (north)"),
            ("47,x/0,1 0", "ids from 0 to 63"),
            ("47,,48/0,1 0", "ids from 0 to 63"),
            ("47,64/0,1 0", "hole 64"),
            ("47,47/0,1 0", "hole 47 twice"),
            ("47,48/0,1 0 1", "side to move"),
        ] {
            let e = bad.parse::<Placement>().unwrap_err();
            assert!(e.to_string().contains(why), "{bad}: {e}");
        }
        let table = Tablebase::build(&Game::new(7, 2).unwrap(), 1, &|_| {}).unwrap();
        for (bad, code, why) in [
            ("47/0,1 0", "tablebase_other_game", "south has 1 peg,"),
            ("47,48/0,1,2 0", "tablebase_other_game", "north has 3 pegs"),
            ("47,49/0,1 0", "tablebase_not_a_position", "hole 49"),
            ("47,48/48,1 0", "tablebase_not_a_position", "hole 48"),
            // South to move with its pegs home: it has already won.
            ("0,1/47,48 0", "tablebase_not_a_position", "illegal"),
        ] {
            let e = table.index_of(&bad.parse().unwrap()).unwrap_err();
            assert_eq!(e.code(), code, "{bad}: {e}");
            assert!(e.to_string().contains(why), "{bad}: {e}");
        }
        // North home, south to move: the game is over, a loss in 0.
        let mut prober = Prober::new(&table);
        let over = prober.answer(&"47,48/0,1 1".parse().unwrap()).unwrap();
        assert_eq!(over.probe.to_string(), "win in 33");
        let end = prober.answer(&"0,1/24,25 1".parse().unwrap()).unwrap();
        assert_eq!(end.to_string(), "loss in 0");
        let past = prober.answer(&Query::Index(u64::MAX)).unwrap_err();
        assert_eq!(past.code(), "tablebase_not_a_position");
    }

    #[test]
    fn an_answer_is_written_as_its_probe_and_move_print() {
        let table = Tablebase::build(&Game::new(7, 2).unwrap(), 1, &|_| {}).unwrap();
        let mut prober = Prober::new(&table);
        for index in (0..table.game().ranking().states()).step_by(1009) {
            let answer = prober.answer(&Query::Index(index)).unwrap();
            let expected = match answer.best {
                Some(best) => format!("{} {}", answer.probe, best.mv),
                None => answer.probe.to_string(),
            };
            assert_eq!(answer.to_string(), expected);
        }
        let (values, _) = crate::solve::solve(table.game(), 1);
        let values_only = Tablebase::from_solved(table.game().clone(), values, None);
        let answer = Prober::new(&values_only)
            .answer(&"47,48/0,1 0".parse().unwrap())
            .unwrap();
        assert_eq!(
            answer.to_string(),
            format!("win {}", answer.best.unwrap().mv)
        );
    }

    #[test]
    fn a_line_is_an_index_a_placement_or_a_position_string() {
        assert_eq!("  1234 ".parse::<Query>().unwrap(), Query::Index(1234));
        assert!(matches!(
            "47,48/0,1 0".parse::<Query>().unwrap(),
            Query::Placement(_)
        ));
        assert!(matches!(
            "rhombus7p2 sturtevant south:47,48/north:0,1 0 0 -"
                .parse::<Query>()
                .unwrap(),
            Query::Position(_)
        ));
        for bad in [
            "",
            "   ",
            "99999999999999999999999",
            "47,48/0,1",
            "rhombus7p2 nonsense",
        ] {
            assert!(bad.parse::<Query>().is_err(), "{bad:?}");
        }
        assert_eq!(
            "rhombus7p2 sturtevant south:47,47/north:0,1 0 0 -"
                .parse::<Query>()
                .unwrap_err()
                .code(),
            "invalid_position"
        );
    }
}

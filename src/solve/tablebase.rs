//! Solved tables opened for play: the value of any position of the solved
//! game (RULES §7) and of every move from it, as lichess shows a
//! tablebase ("win in 7", "draw", "loss in 12").
//!
//! A [`Tablebase`] is one game's table: opened from a file that
//! `sternhalma solve-game` wrote, or solved in memory for the small games
//! ([`Tablebase::build`], [`Tablebase::open_or_build`]). It answers for
//! ordinary [`Position`]s: a position of another game (another board,
//! peg count or rules) is an error, never a wrong answer.
//!
//! [`Tablebases`] is a set of opened tables, one per board: a value its
//! owner shares as `Arc<Tablebases>` and hands to whatever plays or probes
//! from it (the `perfect` bot, [`crate::search::perfect::PerfectBot`]; the
//! server's routes; the Python module's tables). The crate keeps no set
//! of its own: two handles never see each other's tables.
//!
//! ```
//! use sternhalma::solve::{Game, Tablebase, Value};
//! use sternhalma::{Layout, Position, Rules};
//!
//! let game = Game::new(7, 1)?;
//! let tablebase = Tablebase::build(&game, 1, &|_| {})?;
//! let start = Position::start(game.board(), Layout::standard(2)?, Rules::sturtevant())?;
//! let probe = tablebase.probe(&start)?;
//! assert_eq!(probe.value, Value::Win);
//! let best = tablebase.best_move(&start, 0)?;
//! assert_eq!((best.value, best.depth), (Value::Win, probe.depth));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

use super::depth::{self, Depths};
use super::file::{self, FileError, Kind, Loaded};
use super::game::Game;
use super::packed::PackedTable;
#[cfg(doc)]
use super::placement::Placement;
use super::solver::{Progress, Solver};
use super::table::{Counts, Table, Value};
use crate::board::{Board, Triangle};
use crate::search::Rng;
use crate::{Move, Position, Rules};

/// Positions a side up to which a game is *small*: solved in seconds,
/// depths kept (a byte a position), built on first use.
pub const SMALL_STATES: u64 = 1 << 24;

/// The small games of RULES §7 (side, pegs): 7×7 with 1 and 2 pegs, 4×4
/// with 6; what `sternhalma serve --build-tablebases` solves when missing.
pub const SMALL_GAMES: [(u8, u8); 3] = [(7, 1), (7, 2), (4, 6)];

/// What a table says of a position, for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// Win, loss or draw for the side to move.
    pub value: Value,
    /// Plies to the end under best play (the winner hurrying, the loser
    /// holding out), where the table keeps depths; `None` for a draw.
    pub depth: Option<u32>,
}

impl fmt::Display for Probe {
    /// `win in 7`, `loss in 12`, `draw`, or `win` without depths.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.depth {
            Some(depth) if self.value != Value::Draw => write!(f, "{} in {depth}", self.value),
            _ => write!(f, "{}", self.value),
        }
    }
}

/// A legal move and where it leads, for the player making it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveProbe {
    /// The move.
    pub mv: Move,
    /// The mover's value after it: a win if it leaves the opponent lost.
    pub value: Value,
    /// Plies to the end from the position before the move, the move
    /// counted, under best play after it; `None` for a draw or without
    /// depths. The best move's depth is the position's.
    pub depth: Option<u32>,
}

impl MoveProbe {
    /// The move's order of preference, greatest best: wins by fewest
    /// plies, then draws, then losses by most plies (without depths, by
    /// value alone). [`Tablebase::best_move`] plays one of the greatest;
    /// [`Tablebase::moves`] lists moves in this order, best first.
    #[must_use]
    pub fn preference(&self) -> (u8, i64) {
        let depth = i64::from(self.depth.unwrap_or(0));
        match self.value {
            Value::Win => (3, -depth),
            Value::Draw => (2, 0),
            Value::Loss => (1, depth),
            Value::Illegal => (0, 0),
        }
    }

    /// The probe of the move's value, as [`Probe`] prints it.
    #[must_use]
    pub fn probe(&self) -> Probe {
        Probe {
            value: self.value,
            depth: self.depth,
        }
    }
}

/// Why a table cannot answer.
#[derive(Debug)]
pub enum TablebaseError {
    /// The position is not of the table's game; the text says how.
    OtherGame(String),
    /// No opened table covers the position's game.
    NotCovered(String),
    /// The table has no depths, which this question needs.
    NoDepths(String),
    /// The game is over: there is no move to choose.
    GameOver,
    /// A table file was refused.
    File(FileError),
    /// The game cannot be solved as asked (its depths do not fit a byte).
    Unsolvable(String),
    /// A table could not be fetched from a server, or did not match the
    /// size and digest its listing gives (`Tablebase.download`).
    Download(String),
    /// No legal position of the table's game: an index past the table, an
    /// entry that holds none (illegal under RULES §7, or a mirror twin), or
    /// peg sets that are not a legal position ([`Placement`]); the text
    /// says which.
    NotAPosition(String),
}

impl TablebaseError {
    /// Every [`TablebaseError::code`], so that a client can tell a table's
    /// refusal from another by its code alone. `game_over` is also an
    /// illegal move's code ([`IllegalMove::CODES`](crate::IllegalMove::CODES)):
    /// a client that tells the two apart asks about illegal moves first.
    ///
    /// ```
    /// use sternhalma::solve::TablebaseError;
    /// assert!(TablebaseError::CODES.contains(&TablebaseError::GameOver.code()));
    /// assert!(!TablebaseError::CODES.contains(&"hole_occupied"));
    /// ```
    pub const CODES: [&'static str; 8] = [
        "tablebase_other_game",
        "no_tablebase",
        "tablebase_without_depths",
        "game_over",
        "tablebase_file",
        "tablebase_unsolvable",
        "tablebase_download",
        "tablebase_not_a_position",
    ];

    /// The stable code every surface reports: `tablebase_other_game`,
    /// `no_tablebase`, `tablebase_without_depths`, `game_over`,
    /// `tablebase_file`, `tablebase_unsolvable`, `tablebase_download`,
    /// `tablebase_not_a_position`.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            TablebaseError::OtherGame(_) => "tablebase_other_game",
            TablebaseError::NotCovered(_) => "no_tablebase",
            TablebaseError::NoDepths(_) => "tablebase_without_depths",
            TablebaseError::GameOver => "game_over",
            TablebaseError::File(_) => "tablebase_file",
            TablebaseError::Unsolvable(_) => "tablebase_unsolvable",
            TablebaseError::Download(_) => "tablebase_download",
            TablebaseError::NotAPosition(_) => "tablebase_not_a_position",
        }
    }
}

impl fmt::Display for TablebaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TablebaseError::OtherGame(why)
            | TablebaseError::NotCovered(why)
            | TablebaseError::NoDepths(why)
            | TablebaseError::Unsolvable(why)
            | TablebaseError::Download(why)
            | TablebaseError::NotAPosition(why) => f.write_str(why),
            TablebaseError::GameOver => f.write_str("the game is over: there is no move to make"),
            TablebaseError::File(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for TablebaseError {}

impl From<FileError> for TablebaseError {
    fn from(e: FileError) -> TablebaseError {
        TablebaseError::File(e)
    }
}

enum Body {
    Values(Table),
    Depths(Depths),
    Packed(Box<PackedTable>),
}

/// One solved game's table; see the module's documentation.
pub struct Tablebase {
    game: Game,
    body: Body,
    source: Option<PathBuf>,
    /// The counts, from a scan of the whole table on first use: a table
    /// never changes, and `GET /v1/tablebases` asks for them on every
    /// request.
    counts: OnceLock<Counts>,
    /// How many times the whole table was scanned for its counts.
    count_scans: AtomicU32,
}

impl fmt::Debug for Tablebase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tablebase")
            .field("game", &self.game.to_string())
            .field("depths", &self.has_depths())
            .field("source", &self.source)
            .finish()
    }
}

/// The file names of a game's tables in `folder`: values, depths.
#[must_use]
pub fn paths(folder: &Path, game: &Game) -> (PathBuf, PathBuf) {
    let board = game.board().to_string();
    (
        folder.join(format!("{board}.values")),
        folder.join(format!("{board}.depths")),
    )
}

/// The file name of a game's packed table in `folder` (`tablebase pack`).
#[must_use]
pub fn packed_path(folder: &Path, game: &Game) -> PathBuf {
    folder.join(format!("{}.{}", game.board(), Kind::Packed.extension()))
}

/// A game's table files in `folder`, in the order a folder's table is
/// read (the first there): the depths (which hold the values too), the
/// packed values (on the large boards, the values in a sixth of the
/// memory or less: BENCHMARKS.md, "Packed tables"), the values.
#[must_use]
pub fn files_in_order(folder: &Path, game: &Game) -> [PathBuf; 3] {
    let (values, depths) = paths(folder, game);
    [depths, packed_path(folder, game), values]
}

/// Renames a game's table files in `folder` written under the board's
/// older name ([`Board::older_name`]: `rhombus7x2.values` for
/// `rhombus7p3.values`) to the name [`paths`] gives, where no file of that
/// name is there: a folder filled by an older engine reads as it did. A
/// file that cannot be renamed (a read-only folder, another process
/// renaming it first) is left as it is.
pub fn adopt_older_files(folder: &Path, game: &Game) {
    let Some(older) = game.board().older_name() else {
        return;
    };
    let (values, depths) = paths(folder, game);
    for (path, extension) in [(values, "values"), (depths, "depths")] {
        let was = folder.join(format!("{older}.{extension}"));
        if was.is_file() && !path.exists() {
            let _ = std::fs::rename(&was, &path);
        }
    }
}

impl Tablebase {
    /// The table in a file that `sternhalma solve-game` wrote: a `.depths`
    /// file (which holds the values too) or a `.values` file; or a
    /// `.packed` file (`sternhalma tablebase pack`). That file and no
    /// other: a `.depths` file beside a `.values` one is read only when
    /// asked for (a folder's tables are found by [`files_in_order`]).
    ///
    /// # Errors
    /// The file is missing, damaged, a checkpoint rather than a solved
    /// table, or of other rules ([`file::read`]).
    pub fn open(path: &Path) -> Result<Tablebase, TablebaseError> {
        let (header, game, loaded) = file::read(path)?;
        if !header.complete {
            return Err(FileError::Invalid(
                path.to_owned(),
                format!(
                    "a checkpoint after {} passes, not a solved table (finish it with solve-game --resume)",
                    header.passes
                ),
            )
            .into());
        }
        let body = match loaded {
            Loaded::Values(table) => Body::Values(table),
            Loaded::Depths(depths) => Body::Depths(depths),
            Loaded::Packed(packed) => Body::Packed(packed),
        };
        debug_assert_eq!(header.kind == Kind::Depths, matches!(body, Body::Depths(_)));
        Ok(Tablebase::new(game, body, Some(path.to_owned())))
    }

    /// A table from a solve's values and, if computed, its depths.
    #[must_use]
    pub fn from_solved(game: Game, values: Table, depths: Option<Depths>) -> Tablebase {
        let body = match depths {
            Some(depths) => Body::Depths(depths),
            None => Body::Values(values),
        };
        Tablebase::new(game, body, None)
    }

    fn new(game: Game, body: Body, source: Option<PathBuf>) -> Tablebase {
        Tablebase {
            game,
            body,
            source,
            counts: OnceLock::new(),
            count_scans: AtomicU32::new(0),
        }
    }

    /// Solves `game` in memory on `threads` threads, with depths if it is
    /// small ([`SMALL_STATES`]); `progress` as passes go.
    ///
    /// # Errors
    /// Depths that do not fit a byte.
    pub fn build(
        game: &Game,
        threads: usize,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<Tablebase, TablebaseError> {
        let mut solver = Solver::new(game, threads);
        solver.run(progress, &mut |_, _| true);
        let values = solver.into_table();
        let depths = if game.ranking().states() <= SMALL_STATES {
            let depths = depth::solve_depths(game, &values, threads, &|_, _| {})
                .map_err(TablebaseError::Unsolvable)?;
            Some(depths)
        } else {
            None
        };
        Ok(Tablebase::from_solved(game.clone(), values, depths))
    }

    /// The game's table from `folder` if it is there, else solved
    /// ([`Tablebase::build`]) and written there for next time. A file
    /// there of an older format or rules version ([`file::is_outdated`])
    /// is solved again and replaced.
    ///
    /// # Errors
    /// A file there that is refused, or one that cannot be written.
    pub fn open_or_build(
        folder: &Path,
        game: &Game,
        threads: usize,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<Tablebase, TablebaseError> {
        adopt_older_files(folder, game);
        let files = files_in_order(folder, game);
        file::remove_outdated(&files.each_ref().map(PathBuf::as_path))?;
        if let Some(path) = files.iter().find(|path| path.is_file()) {
            return Tablebase::open(path);
        }
        let (values, depths) = paths(folder, game);
        let mut built = Tablebase::build(game, threads, progress)?;
        std::fs::create_dir_all(folder)
            .map_err(|e| TablebaseError::File(FileError::Io(folder.to_owned(), e)))?;
        match &built.body {
            Body::Depths(d) => {
                file::write_depths(&depths, game, d)?;
                built.source = Some(depths);
            }
            Body::Values(t) => {
                file::write_values(&values, game, t, 0, true)?;
                built.source = Some(values);
            }
            Body::Packed(_) => unreachable!("a table solved in memory is not packed"),
        }
        Ok(built)
    }

    /// Whether its values are packed ([`PackedTable`]): each read decodes
    /// part of a chunk, some microseconds.
    #[must_use]
    pub fn is_packed(&self) -> bool {
        matches!(self.body, Body::Packed(_))
    }

    /// The same table with its values unpacked into 2 bits an entry (on
    /// `threads` threads), for work that reads every entry or many (an
    /// export, a batch probe): each read is then a lookup. Any other table
    /// as it is.
    #[must_use]
    pub fn unpacked(self, threads: usize) -> Tablebase {
        let Body::Packed(packed) = &self.body else {
            return self;
        };
        let values = packed.unpack(threads);
        let mut table =
            Tablebase::new(self.game.clone(), Body::Values(values), self.source.clone());
        if let Some(&counts) = self.counts.get() {
            let _ = table.counts.set(counts);
        }
        table.count_scans = AtomicU32::new(self.count_scans());
        table
    }

    /// The game solved.
    #[must_use]
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The file it was read from or written to, if any.
    #[must_use]
    pub fn source(&self) -> Option<&Path> {
        self.source.as_deref()
    }

    /// Whether it knows the depth to the end of each position.
    #[must_use]
    pub fn has_depths(&self) -> bool {
        matches!(self.body, Body::Depths(_))
    }

    /// Bytes of memory the table holds.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        match &self.body {
            Body::Values(t) => t.bytes(),
            Body::Depths(d) => d.bytes().len() as u64,
            Body::Packed(p) => p.bytes(),
        }
    }

    /// Positions of each value (one side to move; [`Game::counts`]).
    ///
    /// The first call scans the whole table (for a table with depths, a
    /// copy of its values first); every later one, from any thread, answers
    /// the same counts from memory. [`Tablebases::install`] asks first, so
    /// an installed table's counts are a lookup.
    ///
    /// ```
    /// use sternhalma::solve::{Game, Tablebase};
    ///
    /// let game = Game::new(7, 1)?;
    /// let tablebase = Tablebase::build(&game, 1, &|_| {})?;
    /// assert_eq!(tablebase.count_scans(), 0);
    /// let counts = tablebase.counts();
    /// assert_eq!(tablebase.counts(), counts);
    /// assert_eq!(tablebase.count_scans(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn counts(&self) -> Counts {
        *self.counts.get_or_init(|| {
            self.count_scans.fetch_add(1, Ordering::Relaxed);
            match &self.body {
                Body::Values(t) => self.game.counts(t),
                Body::Depths(d) => self.game.counts(&d.values()),
                // Counted when it was packed (a count would decode it
                // whole; `tablebase verify` does).
                Body::Packed(p) => p.counts(),
            }
        })
    }

    /// How many times the whole table has been scanned for its counts
    /// ([`Tablebase::counts`]): 0 until they are first asked for, then 1
    /// for good. What a test or an operator checks to see that answering
    /// the counts costs a lookup, however often they are asked.
    #[must_use]
    pub fn count_scans(&self) -> u32 {
        self.count_scans.load(Ordering::Relaxed)
    }

    /// Whether `position` is of this table's game (board, rules, a set
    /// each in the two homes), and if so its index.
    ///
    /// # Errors
    /// [`TablebaseError::OtherGame`], saying what differs.
    pub fn index(&self, position: &Position) -> Result<u64, TablebaseError> {
        let (mover, other) = self.sets(position)?;
        Ok(self.game.ranking().index(mover, other))
    }

    /// The position's peg sets folded so that south is to move (the
    /// mover's, the other's), after the checks of [`Tablebase::index`].
    pub(crate) fn sets(&self, position: &Position) -> Result<(u64, u64), TablebaseError> {
        let game = &self.game;
        if position.board() != game.board() {
            return Err(TablebaseError::OtherGame(format!(
                "the table is of {} ({} pegs a side), the position is on {}",
                game.board(),
                game.pegs(),
                position.board()
            )));
        }
        if !is_solved_game(position.rules()) {
            return Err(TablebaseError::OtherGame(format!(
                "the table is of the rules {}, the position's are {}",
                game.rules(),
                position.rules()
            )));
        }
        let layout = position.layout();
        let south = position.pegs_of_triangle(Triangle::South);
        let north = position.pegs_of_triangle(Triangle::North);
        let (Some(south), Some(north)) = (south, north) else {
            return Err(TablebaseError::OtherGame(
                "the table is of two sets, one in each home".into(),
            ));
        };
        if layout.player_count() != 2 || layout.set_count() != 2 {
            return Err(TablebaseError::OtherGame(
                "the table is of two players with a set each".into(),
            ));
        }
        let (south, north) = (south.0 as u64, north.0 as u64);
        let mover = layout
            .sets_of(position.side_to_move())
            .next()
            .expect("every player has a set");
        let r = game.ranking();
        Ok(if mover == Triangle::South {
            (south, north)
        } else {
            (r.rotate(north), r.rotate(south))
        })
    }

    /// What the table holds at `index` ([`Tablebase::index`]), for the
    /// side to move of the positions the entry stands for: a value, and a
    /// depth where the table keeps depths. An entry that holds no position
    /// (illegal under RULES §7, or a mirror twin) answers
    /// [`Value::Illegal`]. The batch probe of the command line and of
    /// Python: a read, no position made.
    ///
    /// ```
    /// use sternhalma::solve::{Game, Tablebase};
    /// let game = Game::new(7, 2)?;
    /// let table = Tablebase::build(&game, 1, &|_| {})?;
    /// let (mover, other) = game.start();
    /// let start = game.ranking().index(mover, other);
    /// assert_eq!(table.probe_index(start)?.to_string(), "win in 33");
    /// assert!(table.probe_index(game.ranking().states()).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`TablebaseError::NotAPosition`] for an index past the table.
    #[inline]
    pub fn probe_index(&self, index: u64) -> Result<Probe, TablebaseError> {
        let entries = self.game.ranking().states();
        if index >= entries {
            return Err(TablebaseError::NotAPosition(format!(
                "index {index} is past the table of {}: its entries are 0 to {}",
                self.game.board(),
                entries - 1
            )));
        }
        Ok(self.at(index))
    }

    /// [`Tablebase::probe_index`] of each of `indices`, in their order; a
    /// packed table decodes each chunk once for all the entries asked of
    /// it ([`PackedTable::get_many`]).
    ///
    /// # Errors
    /// [`TablebaseError::NotAPosition`] for the first index past the
    /// table.
    pub fn probe_indices(&self, indices: &[u64]) -> Result<Vec<Probe>, TablebaseError> {
        if let Some(&past) = indices.iter().find(|&&i| i >= self.game.ranking().states()) {
            return Err(self.probe_index(past).expect_err("an index past the table"));
        }
        Ok(match &self.body {
            Body::Packed(p) => p
                .get_many(indices)
                .into_iter()
                .map(|value| Probe { value, depth: None })
                .collect(),
            _ => indices.iter().map(|&i| self.at(i)).collect(),
        })
    }

    #[inline]
    fn at(&self, index: u64) -> Probe {
        match &self.body {
            Body::Values(t) => Probe {
                value: t.get(index),
                depth: None,
            },
            Body::Depths(d) => {
                let code = d.get(index);
                let value = depth::value_of(code);
                Probe {
                    value,
                    depth: matches!(value, Value::Win | Value::Loss).then_some(u32::from(code)),
                }
            }
            Body::Packed(p) => Probe {
                value: p.get(index),
                depth: None,
            },
        }
    }

    /// The value of `position` for the side to move, and its depth where
    /// the table has depths. A game that is over is a loss in 0 for the
    /// side to move (the other side has won).
    ///
    /// # Errors
    /// A position of another game.
    pub fn probe(&self, position: &Position) -> Result<Probe, TablebaseError> {
        let probe = self.at(self.index(position)?);
        // Setup refuses the positions RULES §7 calls illegal, and moves
        // never reach one.
        debug_assert_ne!(probe.value, Value::Illegal, "{position}");
        Ok(probe)
    }

    /// Every legal move of `position` with its value and depth for the
    /// mover, best first ([`MoveProbe::preference`]; equals in the move
    /// generator's order); none once the game is over.
    ///
    /// # Errors
    /// A position of another game.
    pub fn moves(&self, position: &Position) -> Result<Vec<MoveProbe>, TablebaseError> {
        self.index(position)?;
        let mut scratch = position.clone();
        let mut probes = Vec::new();
        for mv in position.legal_moves() {
            let undo = scratch.make_move(mv);
            let after = self.at(self.index(&scratch)?);
            scratch.unmake_move(mv, undo);
            let value = match after.value {
                Value::Win => Value::Loss,
                Value::Loss => Value::Win,
                other => other,
            };
            probes.push(MoveProbe {
                mv,
                value,
                depth: after.depth.map(|d| d + 1),
            });
        }
        // Stable: equals keep the move generator's order.
        probes.sort_by_key(|m| std::cmp::Reverse(m.preference()));
        Ok(probes)
    }

    /// The best move: the fastest win, else a drawing move, else the
    /// longest loss; among equals, one drawn by `seed`. Without depths,
    /// any move that keeps the value.
    ///
    /// # Errors
    /// A position of another game, or a game that is over.
    pub fn best_move(&self, position: &Position, seed: u64) -> Result<MoveProbe, TablebaseError> {
        best_among(&self.moves(position)?, seed).ok_or(TablebaseError::GameOver)
    }
}

/// The move [`Tablebase::best_move`] plays among `moves` (a position's,
/// from [`Tablebase::moves`]): one of the most preferred
/// ([`MoveProbe::preference`]), drawn by `seed`; none if there is none.
#[must_use]
pub fn best_among(moves: &[MoveProbe], seed: u64) -> Option<MoveProbe> {
    let best = moves.iter().map(MoveProbe::preference).max()?;
    let equals: Vec<&MoveProbe> = moves.iter().filter(|m| m.preference() == best).collect();
    Some(*equals[Rng::new(seed).below(equals.len())])
}

/// Whether rules are those of the solved game: the `sturtevant` preset,
/// whatever the ply limit (the tables are of the game without one).
#[must_use]
pub fn is_solved_game(rules: &Rules) -> bool {
    let mut rules = *rules;
    rules.max_plies = None;
    rules == Rules::sturtevant()
}

/// A set of opened tables, at most one per board; empty by default. Filled
/// through a shared reference ([`Tablebases::install`]), so an
/// `Arc<Tablebases>` handed out before a table is opened sees it once it
/// is. Whoever needs tables is given a handle: nothing in the crate looks
/// one up.
///
/// ```
/// use std::sync::Arc;
/// use sternhalma::solve::{Game, Tablebase, Tablebases};
///
/// let game = Game::new(7, 1)?;
/// let tables = Arc::new(Tablebases::default());
/// let shared = Arc::clone(&tables);
/// tables.install(Arc::new(Tablebase::build(&game, 1, &|_| {})?));
/// assert!(shared.get(game.board()).is_some());
/// assert!(Tablebases::default().get(game.board()).is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default)]
pub struct Tablebases {
    tables: RwLock<Vec<Arc<Tablebase>>>,
}

impl Tablebases {
    /// Adds `tablebase`, replacing one of the same game. Its counts are
    /// scanned for here ([`Tablebase::counts`]), before the set is locked,
    /// so that no listing of the installed tables pays for them.
    pub fn install(&self, tablebase: Arc<Tablebase>) {
        let _ = tablebase.counts();
        let mut tables = self.tables.write().expect("tables are never poisoned");
        tables.retain(|t| t.game.board() != tablebase.game.board());
        tables.push(tablebase);
        tables.sort_by_key(|t| t.game.board().to_string());
    }

    /// Every opened table, by board name.
    #[must_use]
    pub fn list(&self) -> Vec<Arc<Tablebase>> {
        self.tables
            .read()
            .expect("tables are never poisoned")
            .clone()
    }

    /// The table of `board`, if opened.
    #[must_use]
    pub fn get(&self, board: Board) -> Option<Arc<Tablebase>> {
        self.list().into_iter().find(|t| t.game.board() == board)
    }

    /// The table covering `position`.
    ///
    /// # Errors
    /// [`TablebaseError::NotCovered`] when no opened table is of the
    /// position's board; [`TablebaseError::OtherGame`] when one is, but the
    /// position is not of its game (other rules or sets).
    pub fn for_position(&self, position: &Position) -> Result<Arc<Tablebase>, TablebaseError> {
        let Some(table) = self.get(position.board()) else {
            let opened: Vec<String> = self
                .list()
                .iter()
                .map(|t| t.game.board().to_string())
                .collect();
            return Err(TablebaseError::NotCovered(format!(
                "no solved table covers {}; tables opened: {}",
                position.board(),
                if opened.is_empty() {
                    "none".to_owned()
                } else {
                    opened.join(", ")
                }
            )));
        };
        table.index(position)?;
        Ok(table)
    }
}

/// Where tables built on first use are kept: `$STERNHALMA_TABLES`, else
/// `sternhalma/tables` under `user_cache`, else under the system's
/// temporary folder.
///
/// `user_cache` is the user's cache folder, which the surface that asks
/// finds as its platform names it (the Python module with the `dirs`
/// crate: `$XDG_CACHE_HOME` or `~/.cache` on Linux), or `None` where
/// there is none.
///
/// ```
/// use std::path::Path;
/// use sternhalma::solve::tablebase::cache_folder;
///
/// let folder = cache_folder(Some(Path::new("/home/ada/.cache")));
/// if std::env::var_os("STERNHALMA_TABLES").is_none() {
///     assert_eq!(folder, Path::new("/home/ada/.cache/sternhalma/tables"));
/// }
/// ```
#[must_use]
pub fn cache_folder(user_cache: Option<&Path>) -> PathBuf {
    tables_folder(std::env::var_os("STERNHALMA_TABLES"), user_cache)
}

/// [`cache_folder`] given `$STERNHALMA_TABLES` (`setting`).
fn tables_folder(setting: Option<OsString>, user_cache: Option<&Path>) -> PathBuf {
    if let Some(folder) = setting.filter(|f| !f.is_empty()) {
        return PathBuf::from(folder);
    }
    user_cache
        .map_or_else(std::env::temp_dir, Path::to_owned)
        .join("sternhalma")
        .join("tables")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Layout;

    fn start(game: &Game) -> Position {
        Position::start(
            game.board(),
            Layout::standard(2).unwrap(),
            Rules::sturtevant(),
        )
        .unwrap()
    }

    #[test]
    fn the_best_move_keeps_the_value_and_shortens_the_win() {
        let game = Game::new(7, 2).unwrap();
        let tb = Tablebase::build(&game, 1, &|_| {}).unwrap();
        let mut position = start(&game);
        let first = tb.probe(&position).unwrap();
        assert_eq!(first.value, Value::Win);
        let mut plies = 0;
        while !position.is_game_over() {
            let before = tb.probe(&position).unwrap();
            let best = tb.best_move(&position, plies).unwrap();
            assert_eq!(best.probe(), before, "ply {plies}");
            position = position.play(best.mv).unwrap();
            let after = tb.probe(&position).unwrap();
            assert_eq!(after.depth, before.depth.map(|d| d - 1));
            plies += 1;
        }
        assert_eq!(Some(plies), first.depth.map(u64::from));
        assert_eq!(tb.probe(&position).unwrap().to_string(), "loss in 0");
        assert!(matches!(
            tb.best_move(&position, 0),
            Err(TablebaseError::GameOver)
        ));
    }

    #[test]
    fn the_solved_game_is_the_sturtevant_preset_whatever_its_ply_limit() {
        let mut rules = Rules::sturtevant();
        assert!(is_solved_game(&rules));
        rules.max_plies = Some(400);
        assert!(is_solved_game(&rules));
        rules.target_lock = true;
        assert!(!is_solved_game(&rules));
        assert!(!is_solved_game(&Rules::classic()));
    }

    #[test]
    fn the_tables_setting_wins_over_the_cache_folder() {
        let cache = Path::new("/home/ada/.cache");
        let set = Some(OsString::from("/srv/tables"));
        assert_eq!(
            tables_folder(set.clone(), Some(cache)),
            Path::new("/srv/tables")
        );
        assert_eq!(tables_folder(set, None), Path::new("/srv/tables"));
        let under_cache = Path::new("/home/ada/.cache/sternhalma/tables");
        assert_eq!(tables_folder(None, Some(cache)), under_cache);
        // An empty setting is no setting.
        assert_eq!(
            tables_folder(Some(OsString::new()), Some(cache)),
            under_cache
        );
        assert_eq!(
            tables_folder(None, None),
            std::env::temp_dir().join("sternhalma").join("tables")
        );
    }

    #[test]
    fn codes_lists_every_code_once() {
        let why = || "why".to_owned();
        let path = || PathBuf::from("table.values");
        // No wildcard: a new variant does not compile until it is listed
        // here (and its code in `CODES`).
        let all = [
            TablebaseError::OtherGame(why()),
            TablebaseError::NotCovered(why()),
            TablebaseError::NoDepths(why()),
            TablebaseError::GameOver,
            TablebaseError::File(FileError::Invalid(path(), why())),
            TablebaseError::Unsolvable(why()),
            TablebaseError::Download(why()),
            TablebaseError::NotAPosition(why()),
        ];
        for error in &all {
            match error {
                TablebaseError::OtherGame(_)
                | TablebaseError::NotCovered(_)
                | TablebaseError::NoDepths(_)
                | TablebaseError::GameOver
                | TablebaseError::File(_)
                | TablebaseError::Unsolvable(_)
                | TablebaseError::Download(_)
                | TablebaseError::NotAPosition(_) => {}
            }
        }
        let codes: Vec<&str> = all.iter().map(TablebaseError::code).collect();
        assert_eq!(codes, TablebaseError::CODES);
    }

    #[test]
    fn a_folder_of_an_older_engine_is_read_under_the_new_names() {
        let game = Game::new(7, 1).unwrap();
        let folder =
            std::env::temp_dir().join(format!("sternhalma-older-names-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&folder);
        std::fs::create_dir_all(&folder).unwrap();
        // Written as an older engine named it: rhombus7x1.values, whose
        // header says rhombus7x1 too (the same length: the body stays).
        let values = super::super::solver::solve(&game, 1).0;
        let older = folder.join("rhombus7x1.values");
        file::write_values(&older, &game, &values, 0, true).unwrap();
        let mut bytes = std::fs::read(&older).unwrap();
        let at = bytes
            .windows(10)
            .position(|w| w == b"rhombus7p1")
            .expect("the header names the board");
        bytes[at..at + 10].copy_from_slice(b"rhombus7x1");
        std::fs::write(&older, &bytes).unwrap();
        let opened = Tablebase::open_or_build(&folder, &game, 1, &|_| {}).unwrap();
        // Read, not solved again (a solve would have written depths).
        assert!(!opened.has_depths());
        assert_eq!(
            opened.source(),
            Some(folder.join("rhombus7p1.values").as_path())
        );
        assert!(!older.exists());
        std::fs::remove_dir_all(&folder).unwrap();
    }

    #[test]
    fn a_position_of_another_game_is_refused() {
        let game = Game::new(7, 1).unwrap();
        let tb = Tablebase::build(&game, 1, &|_| {}).unwrap();
        let other = Position::start(
            Game::new(7, 2).unwrap().board(),
            Layout::standard(2).unwrap(),
            Rules::sturtevant(),
        )
        .unwrap();
        let e = tb.probe(&other).unwrap_err();
        assert_eq!(e.code(), "tablebase_other_game");
        assert!(e.to_string().contains("rhombus7p1"), "{e}");
        let classic =
            Position::start(game.board(), Layout::standard(2).unwrap(), Rules::classic()).unwrap();
        let e = tb.probe(&classic).unwrap_err();
        assert!(e.to_string().contains("rules"), "{e}");
    }
}

//! Table files: a text header of 4,096 bytes, then the body (2-bit values,
//! 32 positions a little-endian 64-bit word; depths, a byte a position;
//! or packed values, [`PackedTable::to_bytes`]). The header names the game, the format and the rules
//! version, counts the values, and carries a checksum of the body. Files
//! are written to a temporary name and renamed, so a file under its final
//! name is whole; one that does not match its header, or was made under
//! other rules, is refused.

use std::borrow::Cow;
use std::fmt;
use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use super::depth::Depths;
use super::game::Game;
use super::packed::PackedTable;
use super::table::{Counts, Table};

/// The first line of every table file.
pub const MAGIC: &str = "sternhalma tablebase";
/// The layout of the file. Format 2 (2026-11-26): the mirror folded
/// where the homes allow it (`rank.rs`), so a table of 1, 3, 4 or 6 pegs
/// holds about half the entries of format 1's.
pub const FORMAT_VERSION: u32 = 2;
/// The version of the rules of RULES §7 the engine solves; a table made
/// under another is refused.
pub const RULES_VERSION: u32 = 1;
/// Bytes of the header.
pub const HEADER_BYTES: usize = 4096;

/// What a file's body holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// 2-bit values.
    Values,
    /// Depths to the end, a byte a position.
    Depths,
    /// Values packed for random access ([`PackedTable`]).
    Packed,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Values => "values",
            Kind::Depths => "depths",
            Kind::Packed => "packed",
        }
    }

    /// The file name's extension for a table of this kind.
    #[must_use]
    pub fn extension(self) -> &'static str {
        self.name()
    }
}

/// A table file's header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// What the body holds.
    pub kind: Kind,
    /// Holes along a side.
    pub side: u8,
    /// Pegs a side.
    pub pegs: u8,
    /// The board's name.
    pub board: String,
    /// The rules' name.
    pub rules: String,
    /// Entries in the body (positions with one side to move, about half
    /// of them with the mirror folded).
    pub states: u64,
    /// Whether the mirror is folded (`rank.rs`).
    pub mirror: bool,
    /// Positions of each value.
    pub counts: Counts,
    /// Passes done, in a checkpoint; 0 in a solved table of values, whose
    /// bytes do not depend on how it was reached (the passes a solve takes
    /// vary with the threads' timing); rounds for depths (the deepest
    /// depth + 1, a property of the game).
    pub passes: u32,
    /// Whether the solve reached its fixed point (else a checkpoint).
    pub complete: bool,
    /// Bytes of the body.
    pub body_bytes: u64,
    /// Checksum of the body ([`checksum`]).
    pub checksum: u64,
}

/// Why a table file was refused.
#[derive(Debug)]
pub enum FileError {
    /// Reading or writing failed.
    Io(PathBuf, io::Error),
    /// The file is not a table the engine can use; the text says why.
    Invalid(PathBuf, String),
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Io(path, e) => write!(f, "{}: {e}", path.display()),
            FileError::Invalid(path, why) => write!(f, "{}: {why}", path.display()),
        }
    }
}

impl std::error::Error for FileError {}

/// A checksum of a body: FNV-1a over its little-endian 64-bit words (the
/// last one padded with zeros), then the length.
#[must_use]
pub fn checksum(words: impl Iterator<Item = u64>, bytes: u64) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for word in words {
        hash = (hash ^ word).wrapping_mul(PRIME);
        hash ^= hash >> 29;
    }
    (hash ^ bytes).wrapping_mul(PRIME)
}

fn byte_words(bytes: &[u8]) -> impl Iterator<Item = u64> + '_ {
    bytes.chunks(8).map(|chunk| {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        u64::from_le_bytes(word)
    })
}

impl Header {
    /// The header of `game`'s table of `kind`.
    #[must_use]
    pub fn new(game: &Game, kind: Kind, counts: Counts, passes: u32, complete: bool) -> Header {
        Header {
            kind,
            side: game.side(),
            pegs: game.pegs(),
            board: game.board().to_string(),
            rules: game.rules().to_owned(),
            states: game.ranking().states(),
            mirror: game.ranking().folds_mirror(),
            counts,
            passes,
            complete,
            body_bytes: 0,
            checksum: 0,
        }
    }

    fn text(&self) -> String {
        let c = &self.counts;
        format!(
            "{MAGIC}\nformat: {FORMAT_VERSION}\nrules_version: {RULES_VERSION}\nkind: {}\n\
             board: {}\nside: {}\npegs: {}\nrules: {}\nstates: {}\nmirror: {}\nwins: {}\nlosses: {}\n\
             draws: {}\nillegal: {}\npasses: {}\ncomplete: {}\nbody_bytes: {}\nchecksum: {:016x}\n",
            self.kind.name(),
            self.board,
            self.side,
            self.pegs,
            self.rules,
            self.states,
            self.mirror,
            c.wins,
            c.losses,
            c.draws,
            c.illegal,
            self.passes,
            self.complete,
            self.body_bytes,
            self.checksum,
        )
    }

    fn parse(text: &str) -> Result<Header, String> {
        let mut lines = text.lines();
        if lines.next() != Some(MAGIC) {
            return Err(format!(
                "not a table file (it does not start with {MAGIC:?})"
            ));
        }
        let fields: Vec<(&str, &str)> = lines.map_while(|line| line.split_once(": ")).collect();
        let field = |name: &str| -> Result<&str, String> {
            fields
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| *v)
                .ok_or_else(|| format!("the header has no {name}"))
        };
        let number = |name: &str| -> Result<u64, String> {
            field(name)?
                .parse()
                .map_err(|_| format!("the header's {name} is not a number"))
        };
        let format = number("format")?;
        if format != u64::from(FORMAT_VERSION) {
            let older = if format < u64::from(FORMAT_VERSION) {
                " (written by an older engine: solve the game again)"
            } else {
                " (written by a newer engine)"
            };
            return Err(format!(
                "format {format}; this engine reads format {FORMAT_VERSION}{older}"
            ));
        }
        let rules_version = number("rules_version")?;
        if rules_version != u64::from(RULES_VERSION) {
            return Err(format!(
                "made under rules version {rules_version}; this engine solves version {RULES_VERSION}: solve the game again"
            ));
        }
        let kind = match field("kind")? {
            "values" => Kind::Values,
            "depths" => Kind::Depths,
            "packed" => Kind::Packed,
            other => return Err(format!("unknown kind {other:?}")),
        };
        let small = |name: &str| -> Result<u8, String> {
            u8::try_from(number(name)?).map_err(|_| format!("the header's {name} is too large"))
        };
        Ok(Header {
            kind,
            side: small("side")?,
            pegs: small("pegs")?,
            board: field("board")?.to_owned(),
            rules: field("rules")?.to_owned(),
            states: number("states")?,
            mirror: field("mirror")? == "true",
            counts: Counts {
                wins: number("wins")?,
                losses: number("losses")?,
                draws: number("draws")?,
                illegal: number("illegal")?,
            },
            passes: u32::try_from(number("passes")?).map_err(|_| "passes too large".to_owned())?,
            complete: field("complete")? == "true",
            body_bytes: number("body_bytes")?,
            checksum: u64::from_str_radix(field("checksum")?, 16)
                .map_err(|_| "the header's checksum is not hexadecimal".to_owned())?,
        })
    }

    /// The game the header names.
    ///
    /// # Errors
    /// A game the engine does not know, or whose board or rules differ from
    /// the header's.
    pub fn game(&self) -> Result<Game, String> {
        let game = Game::new(self.side, self.pegs).map_err(|e| e.to_string())?;
        // The board as the header names it, in either of its names: a file
        // written before rhombi were named by their pegs says `rhombus7x2`.
        let same_board = self.board.parse::<crate::Board>() == Ok(game.board());
        if !same_board || game.rules() != self.rules {
            return Err(format!(
                "the header says {} under {}, but {}x{} with {} pegs is {} under {}",
                self.board,
                self.rules,
                self.side,
                self.side,
                self.pegs,
                game.board(),
                game.rules()
            ));
        }
        if game.ranking().folds_mirror() != self.mirror {
            return Err(format!(
                "the header says the mirror is {}folded; this engine {} it for {}",
                if self.mirror { "" } else { "not " },
                if game.ranking().folds_mirror() {
                    "folds"
                } else {
                    "does not fold"
                },
                game.board()
            ));
        }
        if game.ranking().states() != self.states {
            return Err(format!(
                "the header says {} positions; the game has {}",
                self.states,
                game.ranking().states()
            ));
        }
        Ok(game)
    }
}

fn write_atomically(
    path: &Path,
    header: &mut Header,
    body: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> Result<(), FileError> {
    let io = |e| FileError::Io(path.to_owned(), e);
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".partial");
    let temporary = PathBuf::from(temporary);
    let file = File::create(&temporary).map_err(io)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let mut text = header.text().into_bytes();
    if text.len() > HEADER_BYTES {
        return Err(FileError::Invalid(
            path.to_owned(),
            "header too long".into(),
        ));
    }
    text.resize(HEADER_BYTES, b' ');
    out.write_all(&text).map_err(io)?;
    body(&mut out).map_err(io)?;
    let file = out.into_inner().map_err(|e| io(e.into_error()))?;
    file.sync_all().map_err(io)?;
    fs::rename(&temporary, path).map_err(io)?;
    Ok(())
}

/// Writes `table`, a table of `game`'s values after `passes` passes
/// (`complete` once at its fixed point), to `path`, atomically.
///
/// # Errors
/// The file cannot be written.
pub fn write_values(
    path: &Path,
    game: &Game,
    table: &Table,
    passes: u32,
    complete: bool,
) -> Result<Header, FileError> {
    let passes = if complete { 0 } else { passes };
    let mut header = Header::new(game, Kind::Values, table.counts(), passes, complete);
    header.body_bytes = table.len().div_ceil(32) * 8;
    header.checksum = checksum(table.words(), header.body_bytes);
    write_atomically(path, &mut header.clone(), &mut |out| {
        let mut buffer = Vec::with_capacity(1 << 16);
        for word in table.words() {
            buffer.extend_from_slice(&word.to_le_bytes());
            if buffer.len() >= 1 << 16 {
                out.write_all(&buffer)?;
                buffer.clear();
            }
        }
        out.write_all(&buffer)
    })?;
    Ok(header)
}

/// Writes `depths`, `game`'s depths to the end, to `path`, atomically.
///
/// # Errors
/// The file cannot be written.
pub fn write_depths(path: &Path, game: &Game, depths: &Depths) -> Result<Header, FileError> {
    let counts = depths.values().counts();
    let mut header = Header::new(game, Kind::Depths, counts, depths.rounds, true);
    header.body_bytes = depths.bytes().len() as u64;
    header.checksum = checksum(byte_words(depths.bytes()), header.body_bytes);
    write_atomically(path, &mut header.clone(), &mut |out| {
        out.write_all(depths.bytes())
    })?;
    Ok(header)
}

/// Writes `packed`, a packed table of values ([`PackedTable::pack`]),
/// to `path`, atomically.
///
/// # Errors
/// The file cannot be written.
pub fn write_packed(path: &Path, packed: &PackedTable) -> Result<Header, FileError> {
    let body = packed.to_bytes();
    let mut header = Header::new(packed.game(), Kind::Packed, packed.entry_counts(), 0, true);
    header.body_bytes = body.len() as u64;
    header.checksum = checksum(byte_words(&body), header.body_bytes);
    write_atomically(path, &mut header.clone(), &mut |out| out.write_all(&body))?;
    Ok(header)
}

/// Reads a file's header only.
///
/// # Errors
/// The file cannot be read, or its header is not one this engine reads.
pub fn read_header(path: &Path) -> Result<Header, FileError> {
    let mut file = File::open(path).map_err(|e| FileError::Io(path.to_owned(), e))?;
    let mut text = vec![0u8; HEADER_BYTES];
    file.read_exact(&mut text).map_err(|e| {
        FileError::Invalid(path.to_owned(), format!("too short for a table file ({e})"))
    })?;
    let text = String::from_utf8_lossy(&text);
    Header::parse(&text).map_err(|why| FileError::Invalid(path.to_owned(), why))
}

/// Whether the file at `path` is a table file of an older format or rules
/// version than this engine's: one to solve again, not a damaged one.
#[must_use]
pub fn is_outdated(path: &Path) -> bool {
    let Ok(mut file) = File::open(path) else {
        return false;
    };
    let mut text = vec![0u8; HEADER_BYTES];
    if file.read_exact(&mut text).is_err() {
        return false;
    }
    let text = String::from_utf8_lossy(&text);
    let mut lines = text.lines();
    if lines.next() != Some(MAGIC) {
        return false;
    }
    let number = |name: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(name)?.strip_prefix(": "))
            .and_then(|v| v.trim().parse::<u32>().ok())
    };
    number("format").is_some_and(|f| f < FORMAT_VERSION)
        || number("rules_version").is_some_and(|v| v < RULES_VERSION)
}

/// Removes each of `paths` that [`is_outdated`]: a table an older engine
/// wrote, which cannot be read and is to be solved again. All of a game's
/// files go together, so that an outdated depths file is never read
/// beside new values.
///
/// # Errors
/// An outdated file that cannot be removed (the message says it is
/// outdated, and why it stays).
pub fn remove_outdated(paths: &[&Path]) -> Result<(), FileError> {
    for &path in paths {
        if is_outdated(path) {
            fs::remove_file(path).map_err(|e| {
                FileError::Invalid(
                    path.to_owned(),
                    format!("written by an older engine, and it cannot be removed: {e}"),
                )
            })?;
        }
    }
    Ok(())
}

/// A table read from a file, checked against its header.
pub enum Loaded {
    /// 2-bit values.
    Values(Table),
    /// Depths.
    Depths(Depths),
    /// Packed values.
    Packed(Box<PackedTable>),
}

/// Threads to unpack a packed table with: every core.
fn unpacking_threads() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

impl Loaded {
    /// The 2-bit values: a values file's table as read (a large table is
    /// not held twice), derived from the depths for a depths file,
    /// unpacked (on every core) for a packed one.
    #[must_use]
    pub fn values(&self) -> Cow<'_, Table> {
        match self {
            Loaded::Values(table) => Cow::Borrowed(table),
            Loaded::Depths(depths) => Cow::Owned(depths.values()),
            Loaded::Packed(packed) => Cow::Owned(packed.unpack(unpacking_threads())),
        }
    }

    /// The 2-bit values, as [`Loaded::values`]; a packed table's decoded
    /// whole and checked against the counts it holds
    /// ([`PackedTable::check`]).
    ///
    /// # Errors
    /// A packed table that does not decode to its counts.
    pub fn checked_values(&self) -> Result<Cow<'_, Table>, super::packed::PackError> {
        match self {
            Loaded::Packed(packed) => packed.check(unpacking_threads()).map(Cow::Owned),
            _ => Ok(self.values()),
        }
    }

    /// The 2-bit values, owned, as [`Loaded::values`] without a copy of a
    /// values file's table (a checkpoint resumed is solved on as read).
    #[must_use]
    pub fn into_values(self) -> Table {
        match self {
            Loaded::Values(table) => table,
            Loaded::Depths(depths) => depths.values(),
            Loaded::Packed(packed) => packed.unpack(unpacking_threads()),
        }
    }
}

/// Reads a table file whole: header, game, body, checksum, counts (a
/// packed file's header counts against those its body holds; that the
/// body decodes to them, only a whole decoding checks:
/// [`PackedTable::check`], `sternhalma tablebase verify`).
///
/// # Errors
/// The file cannot be read, or does not match its header (size, checksum,
/// counts), or names a game or rules version this engine does not solve.
pub fn read(path: &Path) -> Result<(Header, Game, Loaded), FileError> {
    let header = read_header(path)?;
    let invalid = |why: String| FileError::Invalid(path.to_owned(), why);
    let game = header.game().map_err(invalid)?;
    let expected = match header.kind {
        Kind::Values => header.states.div_ceil(32) * 8,
        Kind::Depths => header.states,
        Kind::Packed => header.body_bytes,
    };
    let actual = fs::metadata(path)
        .map_err(|e| FileError::Io(path.to_owned(), e))?
        .len()
        - HEADER_BYTES as u64;
    if header.body_bytes != expected || actual != expected {
        return Err(invalid(format!(
            "the body holds {actual} bytes; {} positions need {expected}",
            header.states
        )));
    }
    let mut file = BufReader::with_capacity(
        1 << 20,
        File::open(path).map_err(|e| FileError::Io(path.to_owned(), e))?,
    );
    let mut skip = vec![0u8; HEADER_BYTES];
    file.read_exact(&mut skip)
        .map_err(|e| FileError::Io(path.to_owned(), e))?;
    let io = |e| FileError::Io(path.to_owned(), e);
    let damaged = || {
        invalid("the body does not match the header's checksum (a damaged or altered file)".into())
    };
    let loaded = match header.kind {
        Kind::Values => {
            // Read word by word: a large table is not held twice.
            let mut words = Vec::with_capacity((expected / 8) as usize);
            let mut chunk = vec![0u8; 1 << 20];
            let mut left = expected as usize;
            while left > 0 {
                let n = left.min(chunk.len());
                file.read_exact(&mut chunk[..n]).map_err(io)?;
                words.extend(byte_words(&chunk[..n]));
                left -= n;
            }
            if checksum(words.iter().copied(), expected) != header.checksum {
                return Err(damaged());
            }
            Loaded::Values(Table::from_words(words, header.states))
        }
        Kind::Depths => {
            let mut body = vec![0u8; expected as usize];
            file.read_exact(&mut body).map_err(io)?;
            if checksum(byte_words(&body), expected) != header.checksum {
                return Err(damaged());
            }
            Loaded::Depths(Depths::from_bytes(body))
        }
        Kind::Packed => {
            let mut body = vec![0u8; expected as usize];
            file.read_exact(&mut body).map_err(io)?;
            if checksum(byte_words(&body), expected) != header.checksum {
                return Err(damaged());
            }
            let packed = PackedTable::from_vec(&game, body)
                .map_err(|e| invalid(format!("not a packed table of {}: {e}", game.board())))?;
            Loaded::Packed(Box::new(packed))
        }
    };
    let counts = match &loaded {
        Loaded::Values(table) => table.counts(),
        Loaded::Depths(depths) => depths.values().counts(),
        // The counts the body holds (a whole decoding checks them:
        // `PackedTable::check`).
        Loaded::Packed(packed) => packed.entry_counts(),
    };
    if counts != header.counts {
        return Err(invalid(format!(
            "the body's counts {counts:?} differ from the header's {:?}",
            header.counts
        )));
    }
    Ok((header, game, loaded))
}

//! Packed tables: a solved table of values in a small fraction of its 2
//! bits an entry, any entry read on its own (random access), for a class
//! server that holds the largest boards in memory.
//!
//! **What is stored.** Only the entries a rule does not decide: an
//! illegal position, a mirror twin and a game over (a loss for the side
//! to move) are known from the position itself, as Syzygy's tables leave
//! such entries "don't care"; [`PackedTable::get`] answers them by the
//! rule. Every other entry (a win, a loss or a draw) is coded.
//!
//! **How.** Each entry is coded by a binary arithmetic coder (a
//! carry-less range coder over 32 bits, the scheme of the PAQ family of
//! compressors, ended by one byte): first whether it is a draw (only in
//! the contexts where a draw was seen), then whether it is a win. The
//! probability of a win comes from three models, each a table from a
//! context to a level (one of [`LEVELS`] steps of the odds of a win there,
//! counted over the whole table when it is packed):
//!
//! 1. the rows to go of each side (their sums, and each side's laggard);
//! 2. the other side's exact holes, and the mover's sum of rows to go;
//! 3. the mover's exact holes (its block), and the other side's sum;
//!
//! every one with the value coded just before in the chunk (none at its
//! start). A fourth table, also counted over the whole table, turns the
//! three levels (and that value) into the probability coded with (a
//! secondary estimation, as PAQ's APM stages do). The models are kept in
//! the file: the second and third compressed by the same coder.
//!
//! **Random access.** The entries of a mover's block are coded in chunks
//! of [`PackedTable::chunk_entries`] (a chunk never spans two blocks);
//! each chunk is coded on its own, and a table of chunk lengths finds its
//! bytes. Reading an entry decodes its chunk up to it: on average half a
//! chunk. `BENCHMARKS.md` ("Packed tables") has the sizes and times
//! measured.
//!
//! `tests/solve.rs` checks every entry of the small boards against the
//! table they were packed from, and `tablebase pack` checks every entry
//! of the table it packs before it writes the file.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::game::Game;
use super::table::{Counts, Table, Value};

/// Entries a chunk codes, by default: a read decodes half of it on
/// average (BENCHMARKS.md, "Packed tables", for the measure that chose
/// it).
pub const CHUNK_ENTRIES: u32 = 1024;
/// Entries a chunk may code at most: a bit costs at most 4 bytes of
/// code (12 bits of odds, and the carry-less coder's worst case), an
/// entry 2 bits, so a chunk's length fits its `u16`.
pub const MAX_CHUNK_ENTRIES: u32 = 8191;
/// Steps of a model's odds of a win (held in 4 bits each).
pub const LEVELS: usize = 16;
const _: () = assert!(LEVELS <= 16, "a level is held in 4 bits");
/// Chunks whose starting byte is kept, once for every so many chunks (the
/// others are found by adding lengths).
const SUPER: usize = 64;
/// Probabilities are of 12 bits.
const BITS: u32 = 12;
const ONE: u32 = 1 << BITS;

/// The value before the first of a chunk, in a context.
const NONE: usize = 0;

/// Why a packed body was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackError(pub String);

impl std::fmt::Display for PackError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PackError {}

/// The contexts of one game: how its positions are read into the three
/// models' context numbers.
#[derive(Clone, Debug)]
struct Contexts {
    /// Rows to go for a mover's peg on each hole (south to move: its
    /// target is the north tip, row 0).
    to_go: [u8; 64],
    /// The most rows to go: the other side's distance is `top - row`.
    top: u32,
    /// Sums of rows to go take `0..sums`.
    sums: usize,
    /// A peg's rows to go take `0..rows`.
    rows: usize,
    /// Sets of a side's pegs (the other side's exact holes: model 2).
    sets: usize,
    /// Blocks (the mover's exact holes: model 3).
    blocks: usize,
}

/// One side's part of a context: its sum of rows to go, and its
/// laggard's.
type Part = (usize, usize);

/// Where a coded entry's models are read.
#[derive(Clone, Copy, Debug)]
struct Site {
    first: usize,
    second: usize,
    third: usize,
    before: usize,
}

impl Contexts {
    fn new(game: &Game) -> Contexts {
        let geometry = game.board().geometry();
        let mut to_go = [0u8; 64];
        let rows: Vec<i32> = geometry
            .cells()
            .map(|cell| geometry.coordinates(cell).1)
            .collect();
        let low = rows.iter().copied().min().unwrap_or(0);
        let high = rows.iter().copied().max().unwrap_or(0);
        for (id, &r) in rows.iter().enumerate() {
            to_go[id] = u8::try_from(r - low).expect("fewer than 256 rows");
        }
        let top = u32::try_from(high - low).expect("rows in order");
        let r = game.ranking();
        Contexts {
            to_go,
            top,
            sums: game.pegs() as usize * top as usize + 1,
            rows: top as usize + 1,
            sets: r.sets_of_pegs() as usize,
            blocks: r.blocks() as usize,
        }
    }

    /// Contexts of model 1.
    fn first_len(&self) -> usize {
        4 * self.sums * self.sums * self.rows * self.rows
    }

    /// Contexts of model 2.
    fn second_len(&self) -> usize {
        4 * self.sets * self.sums
    }

    /// Contexts of model 3.
    fn third_len(&self) -> usize {
        4 * self.blocks * self.sums
    }

    /// The mover's part.
    #[inline(always)]
    fn mover(&self, set: u64) -> Part {
        let (mut sum, mut most) = (0, 0);
        let mut rest = set;
        while rest != 0 {
            let d = usize::from(self.to_go[rest.trailing_zeros() as usize]);
            sum += d;
            most = most.max(d);
            rest &= rest - 1;
        }
        (sum, most)
    }

    /// The other side's part: the same, its target being the south tip.
    #[inline(always)]
    fn other(&self, set: u64) -> Part {
        let (mut sum, mut most) = (0, 0);
        let mut rest = set;
        while rest != 0 {
            let d = self.top as usize - usize::from(self.to_go[rest.trailing_zeros() as usize]);
            sum += d;
            most = most.max(d);
            rest &= rest - 1;
        }
        (sum, most)
    }

    /// The models' contexts of the entry `other` of `block` (whose
    /// mover's part is `mover`), after a value coded `before`.
    #[inline(always)]
    fn site(&self, game: &Game, block: u64, mover: Part, other: u64, before: usize) -> Site {
        let part = self.other(other);
        let first = (((before * self.sums + mover.0) * self.sums + part.0) * self.rows + mover.1)
            * self.rows
            + part.1;
        let rank = game.ranking().rank(other) as usize;
        let second = (before * self.sets + rank) * self.sums + mover.0;
        let third = (before * self.blocks + block as usize) * self.sums + part.0;
        Site {
            first,
            second,
            third,
            before,
        }
    }
}

/// The `before` part of a context after a coded value.
#[inline(always)]
fn previous(value: Value) -> usize {
    match value {
        Value::Win => 1,
        Value::Loss => 2,
        _ => 3,
    }
}

/// The level (1 to [`LEVELS`]; 0 for a context never seen) of a context
/// where `wins` and `losses` were counted: steps of equal width in the
/// log-odds of a win, from −8 to 8.
fn level(wins: u64, losses: u64) -> u8 {
    if wins + losses == 0 {
        return 0;
    }
    let p = (wins as f64 + 0.4) / ((wins + losses) as f64 + 0.8);
    let odds = (p / (1.0 - p)).ln().clamp(-8.0, 7.999);
    let step = ((odds + 8.0) / 16.0 * LEVELS as f64).floor() as usize;
    u8::try_from(step.min(LEVELS - 1) + 1).expect("a level fits a byte")
}

/// A probability of 12 bits (1 to 4095) from counts.
fn probability(part: u64, whole: u64) -> u16 {
    let p = (part as f64 + 0.4) / (whole as f64 + 0.8) * f64::from(ONE);
    u16::try_from((p.round() as u32).clamp(1, ONE - 1)).expect("12 bits")
}

/// Model 1 of a context: the probability of a draw (0: no draw was seen,
/// and none is coded) and the level of a win.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct First {
    draw: u16,
    level: u16,
}

/// The index in the final table of the three levels (each 1 to
/// [`LEVELS`]) after `before`.
#[inline(always)]
fn mixed(before: usize, levels: [u8; 3]) -> usize {
    let l = |i: usize| usize::from(levels[i]).saturating_sub(1);
    ((before * LEVELS + l(0)) * LEVELS + l(1)) * LEVELS + l(2)
}

/// Entries of the final table.
const MIXED: usize = 4 * LEVELS * LEVELS * LEVELS;

/// The three models and the final table.
struct Models {
    first: Lookup,
    second: Nibbles,
    third: Nibbles,
    /// The probability of a win, 12 bits, for each [`mixed`] index.
    last: Vec<u16>,
}

impl Models {
    /// The probability of a draw at `site` (0: none coded), and of a win.
    #[inline(always)]
    fn at(&self, site: Site) -> (u16, u16) {
        let first = self.first.get(site.first);
        let levels = [
            u8::try_from(first.level).unwrap_or(0),
            self.second.get(site.second),
            self.third.get(site.third),
        ];
        (first.draw, self.last[mixed(site.before, levels)])
    }

    fn bytes(&self) -> usize {
        self.first.bytes() + self.second.bytes() + self.third.bytes() + 2 * self.last.len()
    }
}

/// Levels of a model as they are held: 4 bits each, the level less one
/// (a context never seen, level 0, is never read, and is held as 1).
struct Nibbles {
    bytes: Vec<u8>,
    len: usize,
}

impl Nibbles {
    fn new(levels: &[u8]) -> Nibbles {
        let mut bytes = vec![0u8; levels.len().div_ceil(2)];
        for (i, &level) in levels.iter().enumerate() {
            bytes[i / 2] |= (level.max(1) - 1) << (4 * (i % 2));
        }
        Nibbles {
            bytes,
            len: levels.len(),
        }
    }

    #[inline(always)]
    fn get(&self, i: usize) -> u8 {
        ((self.bytes[i / 2] >> (4 * (i % 2))) & 15) + 1
    }

    /// The levels, each 1 to [`LEVELS`].
    fn levels(&self) -> Vec<u8> {
        (0..self.len).map(|i| self.get(i)).collect()
    }

    fn bytes(&self) -> usize {
        self.bytes.len()
    }
}

/// Model 1 as it is held: the contexts in use, by rows of
/// [`Contexts::rows`] contexts (those that differ only in the other
/// side's laggard), and for every row whether it is in use and where. A
/// dense array of every context would hold more than the coded chunks of
/// the smaller boards.
struct Lookup {
    rows: usize,
    /// For each row of contexts, its first in `models`, or `u32::MAX`.
    first: Vec<u32>,
    models: Vec<First>,
}

impl Lookup {
    fn new(dense: &[First], rows: usize) -> Lookup {
        let mut first = Vec::with_capacity(dense.len() / rows);
        let mut models = Vec::new();
        for row in dense.chunks(rows) {
            if row.iter().all(|m| *m == First::default()) {
                first.push(u32::MAX);
            } else {
                first.push(u32::try_from(models.len()).expect("fewer than 2^32 contexts"));
                models.extend_from_slice(row);
            }
        }
        Lookup {
            rows,
            first,
            models,
        }
    }

    /// A context's model: [`First::default`] for one never seen, which
    /// a table's own chunks never ask for (a damaged one might).
    #[inline(always)]
    fn get(&self, context: usize) -> First {
        match self.first[context / self.rows] {
            u32::MAX => First::default(),
            first => self.models[first as usize + context % self.rows],
        }
    }

    /// Every context's model, unused ones as [`First::default`].
    fn dense(&self) -> Vec<First> {
        let mut dense = vec![First::default(); self.first.len() * self.rows];
        for (row, &first) in self.first.iter().enumerate() {
            if first != u32::MAX {
                let at = first as usize;
                dense[row * self.rows..(row + 1) * self.rows]
                    .copy_from_slice(&self.models[at..at + self.rows]);
            }
        }
        dense
    }

    fn bytes(&self) -> usize {
        4 * self.first.len() + std::mem::size_of::<First>() * self.models.len()
    }
}

/// Levels (0 to [`LEVELS`]) coded 5 bits each by the arithmetic coder,
/// each bit's probability adapting to the bits before it in the level and
/// to the level before: the models 2 and 3 in a file.
fn compress_levels(levels: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = Encoder::new(&mut out);
    let mut odds = vec![2048u16; (LEVELS + 1) * 32];
    let mut before = 0usize;
    for &level in levels {
        let mut node = 1usize;
        for shift in (0..5).rev() {
            let bit = (level >> shift) & 1 == 1;
            let p = &mut odds[before * 32 + node];
            encoder.bit(bit, *p);
            adapt(p, bit);
            node = 2 * node + usize::from(bit);
        }
        before = usize::from(level);
    }
    encoder.finish();
    out
}

/// The `count` levels [`compress_levels`] coded.
fn expand_levels(bytes: &[u8], count: usize) -> Result<Vec<u8>, PackError> {
    let mut decoder = Decoder::new(bytes);
    let mut odds = vec![2048u16; (LEVELS + 1) * 32];
    let mut levels = Vec::with_capacity(count);
    let mut before = 0usize;
    for _ in 0..count {
        let mut node = 1usize;
        for _ in 0..5 {
            let p = &mut odds[before * 32 + node];
            let bit = decoder.bit(*p);
            adapt(p, bit);
            node = 2 * node + usize::from(bit);
        }
        let level = node - 32;
        if level > LEVELS {
            return Err(PackError(format!("a model's level {level}, past {LEVELS}")));
        }
        levels.push(u8::try_from(level).expect("at most LEVELS"));
        before = level;
    }
    Ok(levels)
}

/// A probability of a 1 moved a sixteenth of the way towards the bit
/// seen.
#[inline(always)]
fn adapt(p: &mut u16, bit: bool) {
    if bit {
        *p += (4064 - *p) >> 4;
    } else {
        *p -= (*p - 32) >> 4;
    }
}

/// How an entry reads: decided by a rule, or coded.
#[inline(always)]
fn by_rule(game: &Game, symmetric: bool, block: u64, mover: u64, other: u64) -> Option<Value> {
    let r = game.ranking();
    if (symmetric && r.multiplicity(block, mover, other) == 0) || game.is_illegal(mover, other) {
        Some(Value::Illegal)
    } else if game.is_over(mover, other) {
        Some(Value::Loss)
    } else {
        None
    }
}

/// The holes a mover leaves, and the other sets among them in rank order
/// from a given rank.
struct Others {
    free: [u8; 64],
    all: u64,
    /// The current set, as bits over the free holes.
    packed: u64,
}

impl Others {
    fn new(game: &Game, mover: u64, rank: u64) -> Others {
        let r = game.ranking();
        let mut free = [0u8; 64];
        let mut n = 0;
        let mut rest = !mover & r.all();
        while rest != 0 {
            free[n] = rest.trailing_zeros() as u8;
            n += 1;
            rest &= rest - 1;
        }
        let set = r.unrank_among(rank, mover);
        let mut packed = 0;
        for (i, &hole) in free[..n].iter().enumerate() {
            if set & (1 << hole) != 0 {
                packed |= 1 << i;
            }
        }
        Others {
            free,
            all: if n == 64 { u64::MAX } else { (1 << n) - 1 },
            packed,
        }
    }

    /// The current set.
    #[inline(always)]
    fn set(&self) -> u64 {
        let mut set = 0;
        let mut rest = self.packed;
        while rest != 0 {
            set |= 1 << self.free[rest.trailing_zeros() as usize];
            rest &= rest - 1;
        }
        set
    }

    /// On to the next set of the order (colex: Gosper's hack over the
    /// free holes); past the last, nothing meaningful.
    #[inline(always)]
    fn advance(&mut self) {
        let set = self.packed;
        let low = set & set.wrapping_neg();
        let ripple = set.wrapping_add(low);
        self.packed = (ripple | (((set ^ ripple) >> 2) / low.max(1))) & self.all;
    }
}

/// The carry-less binary arithmetic coder's encoder.
struct Encoder<'a> {
    low: u32,
    high: u32,
    out: &'a mut Vec<u8>,
}

impl<'a> Encoder<'a> {
    fn new(out: &'a mut Vec<u8>) -> Encoder<'a> {
        Encoder {
            low: 0,
            high: u32::MAX,
            out,
        }
    }

    /// Codes `bit`, whose probability of being 1 is `p / 4096`.
    #[inline(always)]
    fn bit(&mut self, bit: bool, p: u16) {
        let middle = self.low + ((self.high - self.low) >> BITS) * u32::from(p);
        if bit {
            self.high = middle;
        } else {
            self.low = middle + 1;
        }
        while (self.low ^ self.high) & 0xff00_0000 == 0 {
            self.out.push((self.high >> 24) as u8);
            self.low <<= 8;
            self.high = (self.high << 8) | 0xff;
        }
    }

    /// Ends the code: one byte, which the decoder follows with 0xff.
    fn finish(self) {
        self.out.push((self.low >> 24) as u8);
    }
}

/// The decoder of [`Encoder`]'s code.
struct Decoder<'a> {
    low: u32,
    high: u32,
    x: u32,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Decoder<'a> {
    fn new(bytes: &'a [u8]) -> Decoder<'a> {
        let mut decoder = Decoder {
            low: 0,
            high: u32::MAX,
            x: 0,
            bytes,
            at: 0,
        };
        for _ in 0..4 {
            decoder.x = (decoder.x << 8) | u32::from(decoder.next());
        }
        decoder
    }

    #[inline(always)]
    fn next(&mut self) -> u8 {
        let byte = self.bytes.get(self.at).copied().unwrap_or(0xff);
        self.at += 1;
        byte
    }

    #[inline(always)]
    fn bit(&mut self, p: u16) -> bool {
        let middle = self.low + ((self.high - self.low) >> BITS) * u32::from(p);
        let bit = self.x <= middle;
        if bit {
            self.high = middle;
        } else {
            self.low = middle + 1;
        }
        while (self.low ^ self.high) & 0xff00_0000 == 0 {
            self.low <<= 8;
            self.high = (self.high << 8) | 0xff;
            self.x = (self.x << 8) | u32::from(self.next());
        }
        bit
    }
}

/// Calls `visit(within, other, rule)` for the entries `first..end` of
/// `block` (within the block), in order: the other side's set, and the
/// value a rule gives it if one does; stops when it answers false.
#[inline(always)]
fn walk_chunk(
    game: &Game,
    block: u64,
    first: u64,
    end: u64,
    mut visit: impl FnMut(u64, u64, Option<Value>) -> bool,
) {
    let r = game.ranking();
    let mover = r.mover(block);
    let symmetric = r.is_symmetric(block);
    let mut others = Others::new(game, mover, first);
    for within in first..end {
        let other = others.set();
        if !visit(within, other, by_rule(game, symmetric, block, mover, other)) {
            return;
        }
        others.advance();
    }
}

/// A packed table of values; see the module's documentation.
pub struct PackedTable {
    game: Game,
    contexts: Contexts,
    chunk_entries: u32,
    /// Chunks in a mover's block.
    chunks_a_block: u64,
    models: Models,
    /// Each chunk's bytes.
    lengths: Vec<u16>,
    /// The first byte of every [`SUPER`]-th chunk.
    supers: Vec<u64>,
    data: Vec<u8>,
    /// Entries of each value (as [`Table::counts`]).
    entries: Counts,
    /// Positions of each value (as [`Game::counts`]).
    counts: Counts,
}

impl std::fmt::Debug for PackedTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PackedTable")
            .field("game", &self.game.to_string())
            .field("chunk_entries", &self.chunk_entries)
            .field("bytes", &self.bytes())
            .finish_non_exhaustive()
    }
}

/// Calls `visit(site, value)` for every entry of `table` that a rule does
/// not decide, chunk by chunk, block by block (a block at a time from a
/// shared counter, on `threads` threads); each thread's `state` starts as
/// `fresh()` and is answered, one per thread.
fn visit_coded<S: Send>(
    game: &Game,
    contexts: &Contexts,
    table: &Table,
    chunk_entries: u32,
    threads: usize,
    fresh: &(dyn Fn() -> S + Sync),
    visit: &(dyn Fn(&mut S, Site, Value) + Sync),
) -> Vec<S> {
    let r = game.ranking();
    let (blocks, block_len) = (r.blocks(), r.block_len());
    let chunks_a_block = block_len.div_ceil(u64::from(chunk_entries));
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut state = fresh();
                    loop {
                        let block = next.fetch_add(1, Ordering::Relaxed) as u64;
                        if block >= blocks {
                            break;
                        }
                        let mover = contexts.mover(r.mover(block));
                        for chunk in 0..chunks_a_block {
                            let first = chunk * u64::from(chunk_entries);
                            let end = (first + u64::from(chunk_entries)).min(block_len);
                            let mut before = NONE;
                            walk_chunk(game, block, first, end, |within, other, rule| {
                                if rule.is_none() {
                                    let value = table.get(block * block_len + within);
                                    let site = contexts.site(game, block, mover, other, before);
                                    visit(&mut state, site, value);
                                    before = previous(value);
                                }
                                true
                            });
                        }
                    }
                    state
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a packing thread"))
            .collect()
    })
}

/// Counts of wins and losses seen in each context of models 2 and 3.
type Seen = (Vec<[u64; 3]>, Vec<[u32; 2]>, Vec<[u32; 2]>);

impl PackedTable {
    /// Packs `table`, the solved values of `game`, in chunks of
    /// `chunk_entries` entries, on `threads` threads; `progress(done,
    /// all)` in blocks, as the last of the three passes goes (the first
    /// two count the models).
    ///
    /// # Panics
    /// A table of another size than the game's, or a chunk size of 0.
    #[must_use]
    pub fn pack(
        game: &Game,
        table: &Table,
        chunk_entries: u32,
        threads: usize,
        progress: &(dyn Fn(u64, u64) + Sync),
    ) -> PackedTable {
        let r = game.ranking();
        assert_eq!(table.len(), r.states(), "a table of this game");
        assert!(
            (1..=MAX_CHUNK_ENTRIES).contains(&chunk_entries),
            "chunks of 1 to {MAX_CHUNK_ENTRIES} entries"
        );
        let contexts = Contexts::new(game);
        let threads = threads.max(1);
        // First pass: the values seen in each context of the three models.
        let parts: Vec<Seen> = visit_coded(
            game,
            &contexts,
            table,
            chunk_entries,
            threads,
            &|| {
                (
                    vec![[0u64; 3]; contexts.first_len()],
                    vec![[0u32; 2]; contexts.second_len()],
                    vec![[0u32; 2]; contexts.third_len()],
                )
            },
            &|(first, second, third), site, value| {
                let slot = match value {
                    Value::Draw => {
                        first[site.first][0] += 1;
                        return;
                    }
                    Value::Win => 1,
                    _ => 2,
                };
                first[site.first][slot] += 1;
                second[site.second][slot - 1] += 1;
                third[site.third][slot - 1] += 1;
            },
        );
        let mut parts = parts.into_iter();
        let (mut first, mut second, mut third) = parts.next().expect("a thread");
        for (f, s, t) in parts {
            for (total, part) in first.iter_mut().zip(f) {
                for k in 0..3 {
                    total[k] += part[k];
                }
            }
            for (total, part) in second.iter_mut().zip(s).chain(third.iter_mut().zip(t)) {
                total[0] += part[0];
                total[1] += part[1];
            }
        }
        let first: Vec<First> = first
            .iter()
            .map(|&[draws, wins, losses]| {
                if draws + wins + losses == 0 {
                    First::default()
                } else {
                    First {
                        draw: if draws == 0 {
                            0
                        } else {
                            probability(draws, draws + wins + losses)
                        },
                        // A context of draws alone still has a level.
                        level: u16::from(level(wins, losses).max(1)),
                    }
                }
            })
            .collect();
        let levels = |seen: &[[u32; 2]]| -> Vec<u8> {
            seen.iter()
                .map(|&[w, l]| level(u64::from(w), u64::from(l)))
                .collect()
        };
        let mut models = Models {
            first: Lookup::new(&first, contexts.rows),
            second: Nibbles::new(&levels(&second)),
            third: Nibbles::new(&levels(&third)),
            last: vec![ONE as u16 / 2; MIXED],
        };
        drop((second, third));
        // Second pass: the final table, from the three levels.
        let seen: Vec<Vec<[u64; 2]>> = visit_coded(
            game,
            &contexts,
            table,
            chunk_entries,
            threads,
            &|| vec![[0u64; 2]; MIXED],
            &|seen, site, value| {
                if value != Value::Draw {
                    let first = models.first.get(site.first);
                    let levels = [
                        u8::try_from(first.level).unwrap_or(0),
                        models.second.get(site.second),
                        models.third.get(site.third),
                    ];
                    seen[mixed(site.before, levels)][usize::from(value == Value::Win)] += 1;
                }
            },
        );
        let mut last = vec![[0u64; 2]; MIXED];
        for part in seen {
            for (total, part) in last.iter_mut().zip(part) {
                total[0] += part[0];
                total[1] += part[1];
            }
        }
        models.last = last
            .iter()
            .map(|&[losses, wins]| probability(wins, wins + losses))
            .collect();
        // Third pass: the chunks, coded a block at a time, gathered in
        // block order.
        let (blocks, block_len) = (r.blocks(), r.block_len());
        let chunks_a_block = block_len.div_ceil(u64::from(chunk_entries));
        let next = AtomicUsize::new(0);
        let done = AtomicUsize::new(0);
        const BATCH: u64 = 64;
        let batches = blocks.div_ceil(BATCH);
        let mut parts: Vec<(u64, Vec<u16>, Vec<u8>)> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    scope.spawn(|| {
                        let mut mine = Vec::new();
                        loop {
                            let batch = next.fetch_add(1, Ordering::Relaxed) as u64;
                            if batch >= batches {
                                break;
                            }
                            let (mut lengths, mut data) = (Vec::new(), Vec::new());
                            for block in batch * BATCH..((batch + 1) * BATCH).min(blocks) {
                                let mover = contexts.mover(r.mover(block));
                                for chunk in 0..chunks_a_block {
                                    let first = chunk * u64::from(chunk_entries);
                                    let end = (first + u64::from(chunk_entries)).min(block_len);
                                    let start = data.len();
                                    let mut encoder = Encoder::new(&mut data);
                                    let mut before = NONE;
                                    walk_chunk(game, block, first, end, |within, other, rule| {
                                        if rule.is_none() {
                                            let value = table.get(block * block_len + within);
                                            let site =
                                                contexts.site(game, block, mover, other, before);
                                            let (draw, win) = models.at(site);
                                            if draw != 0 {
                                                encoder.bit(value == Value::Draw, draw);
                                            }
                                            if value != Value::Draw {
                                                encoder.bit(value == Value::Win, win);
                                            }
                                            before = previous(value);
                                        }
                                        true
                                    });
                                    encoder.finish();
                                    let length = data.len() - start;
                                    lengths.push(
                                        u16::try_from(length)
                                            .expect("a chunk of at most 8 bytes an entry"),
                                    );
                                }
                            }
                            let finished = done.fetch_add(1, Ordering::Relaxed) as u64 + 1;
                            progress((finished * BATCH).min(blocks), blocks);
                            mine.push((batch, lengths, data));
                        }
                        mine
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().expect("a packing thread"))
                .collect()
        });
        parts.sort_unstable_by_key(|part| part.0);
        let mut lengths = Vec::with_capacity((blocks * chunks_a_block) as usize);
        let mut data = Vec::with_capacity(parts.iter().map(|p| p.2.len()).sum());
        for (_, l, d) in parts {
            lengths.extend_from_slice(&l);
            data.extend_from_slice(&d);
        }
        let supers = supers_of(&lengths);
        PackedTable {
            game: game.clone(),
            contexts,
            chunk_entries,
            chunks_a_block,
            models,
            lengths,
            supers,
            data,
            entries: table.counts(),
            counts: game.counts(table),
        }
    }

    /// The game.
    #[must_use]
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Entries a chunk codes.
    #[must_use]
    pub fn chunk_entries(&self) -> u32 {
        self.chunk_entries
    }

    /// Positions of each value, as counted when the table was packed (one
    /// side to move; [`Game::counts`]).
    #[must_use]
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Entries of each value, as counted when the table was packed
    /// ([`Table::counts`]: what a file's header counts).
    #[must_use]
    pub fn entry_counts(&self) -> Counts {
        self.entries
    }

    /// Every entry decoded (on `threads` threads), and the counts it holds
    /// checked against those it makes: the table, or why not.
    ///
    /// # Errors
    /// Counts that differ (a damaged table).
    pub fn check(&self, threads: usize) -> Result<Table, PackError> {
        let table = self.unpack(threads);
        let (entries, counts) = (table.counts(), self.game.counts(&table));
        if entries != self.entries || counts != self.counts {
            return Err(PackError(format!(
                "decoded whole, its counts {counts:?} differ from those it holds, {:?}",
                self.counts
            )));
        }
        Ok(table)
    }

    /// Bytes of memory the table holds: the coded chunks, their lengths
    /// and the models.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        (self.data.len() + 2 * self.lengths.len() + 8 * self.supers.len() + self.models.bytes())
            as u64
    }

    /// Bytes of the coded chunks alone.
    #[must_use]
    pub fn coded_bytes(&self) -> u64 {
        self.data.len() as u64
    }

    fn chunk_bytes(&self, chunk: usize) -> &[u8] {
        let base = chunk / SUPER * SUPER;
        let start = self.supers[chunk / SUPER]
            + self.lengths[base..chunk]
                .iter()
                .map(|&l| u64::from(l))
                .sum::<u64>();
        &self.data[start as usize..start as usize + usize::from(self.lengths[chunk])]
    }

    /// Decodes the chunk `chunk` of `block` from its first entry to
    /// `last` (within the block), calling `visit(within, value)` for
    /// each: by a rule where one decides it, else decoded.
    #[inline(always)]
    fn decode_chunk(&self, block: u64, chunk: u64, last: u64, mut visit: impl FnMut(u64, Value)) {
        let first = chunk * u64::from(self.chunk_entries);
        let bytes = self.chunk_bytes((block * self.chunks_a_block + chunk) as usize);
        let mut decoder = Decoder::new(bytes);
        let mover = self.contexts.mover(self.game.ranking().mover(block));
        let mut before = NONE;
        walk_chunk(&self.game, block, first, last + 1, |within, other, rule| {
            let value = rule.unwrap_or_else(|| {
                let site = self.contexts.site(&self.game, block, mover, other, before);
                let (draw, win) = self.models.at(site);
                let value = if draw != 0 && decoder.bit(draw) {
                    Value::Draw
                } else if decoder.bit(win) {
                    Value::Win
                } else {
                    Value::Loss
                };
                before = previous(value);
                value
            });
            visit(within, value);
            true
        });
    }

    /// The value of entry `index` (as [`Table::get`] of the table packed):
    /// by a rule where one decides it, else decoded from its chunk.
    ///
    /// # Panics
    /// An index past the table.
    #[must_use]
    pub fn get(&self, index: u64) -> Value {
        let r = self.game.ranking();
        let block_len = r.block_len();
        let (block, within) = (index / block_len, index % block_len);
        // An entry a rule decides is read from its position.
        let mover = r.mover(block);
        let other = r.unrank_among(within, mover);
        if let Some(value) = by_rule(&self.game, r.is_symmetric(block), block, mover, other) {
            return value;
        }
        let mut answer = Value::Illegal;
        self.decode_chunk(
            block,
            within / u64::from(self.chunk_entries),
            within,
            |at, value| {
                if at == within {
                    answer = value;
                }
            },
        );
        answer
    }

    /// The values of many entries (as [`PackedTable::get`] of each), in
    /// their order: each chunk decoded once for all the entries asked of
    /// it, so a batch that covers whole chunks costs about an unpacking
    /// of them.
    ///
    /// # Panics
    /// An index past the table.
    #[must_use]
    pub fn get_many(&self, indices: &[u64]) -> Vec<Value> {
        let block_len = self.game.ranking().block_len();
        let chunk_of = |index: u64| {
            (
                index / block_len,
                index % block_len / u64::from(self.chunk_entries),
            )
        };
        let mut order: Vec<usize> = (0..indices.len()).collect();
        order.sort_unstable_by_key(|&i| indices[i]);
        let mut values = vec![Value::Illegal; indices.len()];
        let mut k = 0;
        while k < order.len() {
            let (block, chunk) = chunk_of(indices[order[k]]);
            let end = k + order[k..]
                .iter()
                .take_while(|&&i| chunk_of(indices[i]) == (block, chunk))
                .count();
            if end == k + 1 {
                values[order[k]] = self.get(indices[order[k]]);
            } else {
                let mut next = k;
                let last = indices[order[end - 1]] % block_len;
                self.decode_chunk(block, chunk, last, |within, value| {
                    while next < end && indices[order[next]] % block_len == within {
                        values[order[next]] = value;
                        next += 1;
                    }
                });
            }
            k = end;
        }
        values
    }

    /// Every entry, decoded into a table of 2-bit values (the table it
    /// was packed from), on `threads` threads.
    #[must_use]
    pub fn unpack(&self, threads: usize) -> Table {
        let r = self.game.ranking();
        let table = Table::new(r.states());
        let (blocks, block_len) = (r.blocks(), r.block_len());
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..threads.max(1) {
                scope.spawn(|| {
                    loop {
                        let block = next.fetch_add(1, Ordering::Relaxed) as u64;
                        if block >= blocks {
                            break;
                        }
                        for chunk in 0..self.chunks_a_block {
                            let last =
                                ((chunk + 1) * u64::from(self.chunk_entries)).min(block_len) - 1;
                            self.decode_chunk(block, chunk, last, |within, value| {
                                if value != Value::Draw {
                                    table.prove(block * block_len + within, value);
                                }
                            });
                        }
                    }
                });
            }
        });
        table
    }

    /// The body as it is written to a file (after the header,
    /// [`crate::solve::file`]): the chunk size and [`LEVELS`]; the counts
    /// (of entries, then of positions: wins, losses, draws, illegal); model 1 in
    /// runs of contexts in use; models 2 and 3 compressed; the final
    /// table; the chunks' lengths; the coded chunks. Little-endian
    /// throughout.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.data.len() + 2 * self.lengths.len() + (1 << 20));
        out.extend_from_slice(&self.chunk_entries.to_le_bytes());
        out.extend_from_slice(&(LEVELS as u32).to_le_bytes());
        for c in [self.entries, self.counts] {
            for n in [c.wins, c.losses, c.draws, c.illegal] {
                out.extend_from_slice(&n.to_le_bytes());
            }
        }
        let first = self.models.first.dense();
        out.extend_from_slice(&(first.len() as u64).to_le_bytes());
        // Model 1 in runs: (unused contexts skipped, used ones that
        // follow, their draw probability and level).
        let mut runs = Vec::new();
        let mut at = 0;
        while at < first.len() {
            let skip = first[at..]
                .iter()
                .take_while(|m| **m == First::default())
                .count();
            let used = first[at + skip..]
                .iter()
                .take_while(|m| **m != First::default())
                .count();
            runs.push((at + skip, used));
            at += skip + used;
        }
        out.extend_from_slice(&(runs.len() as u64).to_le_bytes());
        for &(start, used) in &runs {
            out.extend_from_slice(&(start as u64).to_le_bytes());
            out.extend_from_slice(&(used as u64).to_le_bytes());
            for m in &first[start..start + used] {
                out.extend_from_slice(&m.draw.to_le_bytes());
                out.extend_from_slice(&m.level.to_le_bytes());
            }
        }
        for levels in [&self.models.second, &self.models.third] {
            let levels = levels.levels();
            let coded = compress_levels(&levels);
            out.extend_from_slice(&(levels.len() as u64).to_le_bytes());
            out.extend_from_slice(&(coded.len() as u64).to_le_bytes());
            out.extend_from_slice(&coded);
        }
        for p in &self.models.last {
            out.extend_from_slice(&p.to_le_bytes());
        }
        out.extend_from_slice(&(self.lengths.len() as u64).to_le_bytes());
        for length in &self.lengths {
            out.extend_from_slice(&length.to_le_bytes());
        }
        out.extend_from_slice(&(self.data.len() as u64).to_le_bytes());
        out.extend_from_slice(&self.data);
        out
    }

    /// A packed table read back from [`PackedTable::to_bytes`], of `game`
    /// (a copy of `body`; [`PackedTable::from_vec`] keeps its bytes).
    ///
    /// # Errors
    /// As [`PackedTable::from_vec`].
    pub fn from_bytes(game: &Game, body: &[u8]) -> Result<PackedTable, PackError> {
        PackedTable::from_vec(game, body.to_vec())
    }

    /// A packed table read back from [`PackedTable::to_bytes`], of `game`,
    /// its coded chunks kept where they are in `body` (a file's body is
    /// not held twice). A body whose chunks were altered reads (its values
    /// are then wrong: a file's checksum, and [`PackedTable::check`], find
    /// it), but never panics.
    ///
    /// # Errors
    /// A body that is not one of this game's packed tables (truncated, of
    /// another size, models of another shape, counts that do not add up).
    pub fn from_vec(game: &Game, mut body: Vec<u8>) -> Result<PackedTable, PackError> {
        let mut reader = Reader {
            bytes: &body,
            at: 0,
        };
        let chunk_entries = reader.u32()?;
        if !(1..=MAX_CHUNK_ENTRIES).contains(&chunk_entries) {
            return Err(PackError(format!(
                "chunks of {chunk_entries} entries (1 to {MAX_CHUNK_ENTRIES})"
            )));
        }
        let levels = reader.u32()?;
        if levels as usize != LEVELS {
            return Err(PackError(format!(
                "models of {levels} levels; this engine reads {LEVELS}"
            )));
        }
        let mut counted = [Counts::default(); 2];
        for c in &mut counted {
            c.wins = reader.u64()?;
            c.losses = reader.u64()?;
            c.draws = reader.u64()?;
            c.illegal = reader.u64()?;
        }
        let [entries, counts] = counted;
        let states = game.ranking().states();
        if [entries.wins, entries.losses, entries.draws, entries.illegal]
            .iter()
            .try_fold(0u64, |sum, &n| sum.checked_add(n))
            != Some(states)
        {
            return Err(PackError(format!(
                "counts of {entries:?}, where the game has {states} entries"
            )));
        }
        let contexts = Contexts::new(game);
        let n = reader.u64()? as usize;
        if n != contexts.first_len() {
            return Err(PackError(format!(
                "a first model of {n} contexts, where this game has {}",
                contexts.first_len()
            )));
        }
        let mut first = vec![First::default(); n];
        let runs = reader.u64()?;
        for _ in 0..runs {
            let start = reader.u64()? as usize;
            let used = reader.u64()? as usize;
            if start.checked_add(used).is_none_or(|end| end > n) {
                return Err(PackError("a model's run past its contexts".into()));
            }
            for m in &mut first[start..start + used] {
                m.draw = reader.u16()?;
                m.level = reader.u16()?;
                if u32::from(m.draw) >= ONE || m.level == 0 || usize::from(m.level) > LEVELS {
                    return Err(PackError(
                        "a model's probability or level out of range".into(),
                    ));
                }
            }
        }
        let mut dense = Vec::new();
        for expected in [contexts.second_len(), contexts.third_len()] {
            let count = reader.u64()? as usize;
            if count != expected {
                return Err(PackError(format!(
                    "a model of {count} contexts, where this game has {expected}"
                )));
            }
            let coded = reader.u64()? as usize;
            let bytes = reader.bytes(coded)?;
            dense.push(Nibbles::new(&expand_levels(bytes, count)?));
        }
        let mut last = Vec::with_capacity(MIXED);
        for _ in 0..MIXED {
            let p = reader.u16()?;
            if p == 0 || u32::from(p) >= ONE {
                return Err(PackError("a final probability out of range".into()));
            }
            last.push(p);
        }
        let r = game.ranking();
        let chunks_a_block = r.block_len().div_ceil(u64::from(chunk_entries));
        let chunks = reader.u64()?;
        if chunks != r.blocks() * chunks_a_block {
            return Err(PackError(format!(
                "{chunks} chunks, where the game's {} entries in chunks of {chunk_entries} make {}",
                r.states(),
                r.blocks() * chunks_a_block
            )));
        }
        if chunks
            .checked_mul(2)
            .is_none_or(|bytes| bytes > (body.len() - reader.at) as u64)
        {
            return Err(PackError("the body ends too soon".into()));
        }
        let mut lengths = Vec::with_capacity(chunks as usize);
        for _ in 0..chunks {
            lengths.push(reader.u16()?);
        }
        let data_len = reader.u64()? as usize;
        let coded: u64 = lengths.iter().map(|&l| u64::from(l)).sum();
        if coded != data_len as u64 || reader.at + data_len != body.len() {
            return Err(PackError(format!(
                "the chunks' lengths add up to {coded} bytes, the body holds {}",
                body.len().saturating_sub(reader.at)
            )));
        }
        let start = reader.at;
        // The chunks: the body without what comes before them.
        body.drain(..start);
        let data = body;
        let supers = supers_of(&lengths);
        let third = dense.pop().expect("model 3");
        let second = dense.pop().expect("model 2");
        Ok(PackedTable {
            game: game.clone(),
            models: Models {
                first: Lookup::new(&first, contexts.rows),
                second,
                third,
                last,
            },
            contexts,
            chunk_entries,
            chunks_a_block,
            lengths,
            supers,
            data,
            entries,
            counts,
        })
    }
}

/// The first byte of every [`SUPER`]-th chunk.
fn supers_of(lengths: &[u16]) -> Vec<u64> {
    let mut supers = Vec::with_capacity(lengths.len() / SUPER + 1);
    let mut at = 0u64;
    for (i, &l) in lengths.iter().enumerate() {
        if i % SUPER == 0 {
            supers.push(at);
        }
        at += u64::from(l);
    }
    supers
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], PackError> {
        let slice = self
            .bytes
            .get(self.at..self.at + N)
            .ok_or_else(|| PackError("the body ends too soon".into()))?;
        self.at += N;
        Ok(slice.try_into().expect("N bytes"))
    }
    fn bytes(&mut self, n: usize) -> Result<&[u8], PackError> {
        let slice = self
            .bytes
            .get(
                self.at
                    ..self
                        .at
                        .checked_add(n)
                        .ok_or_else(|| PackError("a length past the body".into()))?,
            )
            .ok_or_else(|| PackError("the body ends too soon".into()))?;
        self.at += n;
        Ok(slice)
    }
    fn u16(&mut self) -> Result<u16, PackError> {
        self.take().map(u16::from_le_bytes)
    }
    fn u32(&mut self) -> Result<u32, PackError> {
        self.take().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Result<u64, PackError> {
        self.take().map(u64::from_le_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_coder_decodes_what_it_coded() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut random = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..50 {
            let n = (random() % 3000) as usize;
            let bits: Vec<(bool, u16)> = (0..n)
                .map(|_| {
                    let p = (random() % 4095 + 1) as u16;
                    // Mostly as predicted, sometimes not.
                    let bit = (random() % 4096) < u64::from(p);
                    (bit, p)
                })
                .collect();
            let mut out = Vec::new();
            let mut encoder = Encoder::new(&mut out);
            for &(bit, p) in &bits {
                encoder.bit(bit, p);
            }
            encoder.finish();
            let mut decoder = Decoder::new(&out);
            for &(bit, p) in &bits {
                assert_eq!(decoder.bit(p), bit);
            }
        }
    }
}

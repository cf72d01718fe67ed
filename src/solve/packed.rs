//! Packed tables: a solved table of values in about a tenth of a bit an
//! entry, any entry read on its own (random access), for a class server
//! that holds the largest boards in memory.
//!
//! **What is stored.** Only the entries a rule does not decide: an
//! illegal position, a mirror twin and a game over (a loss for the side
//! to move) are known from the position itself, as Syzygy's tables leave
//! such entries "don't care"; [`PackedTable::get`] answers them by the
//! rule. Every other entry (a win, a loss or a draw) is coded.
//!
//! **How.** Each entry's value is predicted from a context, and coded by
//! a binary arithmetic coder with the context's probabilities:
//!
//! - the context: the mover's and the other side's sums of distances to
//!   their targets (rows to go), the laggard's distance of each, and the
//!   value of the entry coded just before in the same chunk (none at a
//!   chunk's start);
//! - the probabilities: counted over the whole table when it is packed
//!   (a draw, then a win rather than a loss), 12 bits each, kept in the
//!   file (the model);
//! - the coder: a carry-less range coder over 32 bits (the scheme of the
//!   PAQ family of compressors), ended by one byte.
//!
//! **Random access.** The entries of a mover's block are coded in chunks
//! of [`PackedTable::chunk_entries`] (a chunk never spans two blocks);
//! each chunk is coded on its own, and a table of chunk lengths finds its
//! bytes. Reading an entry decodes its chunk up to it: on average half a
//! chunk. `BENCHMARKS.md` ("Packed tables") has the sizes and times
//! measured.
//!
//! `tests/solve.rs` checks every entry of the small boards against the
//! table they were packed from.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::game::Game;
use super::table::{Counts, Table, Value};

/// Entries a chunk codes, by default: a read decodes half of it on
/// average (BENCHMARKS.md, "Packed tables", for the measure that chose
/// it).
pub const CHUNK_ENTRIES: u32 = 1024;
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

/// The contexts of one game: how its positions are read into a context
/// number.
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
}

impl Contexts {
    fn new(game: &Game) -> Contexts {
        let geometry = game.board().geometry();
        let mut to_go = [0u8; 64];
        let mut rows = Vec::new();
        for cell in geometry.cells() {
            rows.push(geometry.coordinates(cell).1);
        }
        let low = rows.iter().copied().min().unwrap_or(0);
        let high = rows.iter().copied().max().unwrap_or(0);
        for (id, &r) in rows.iter().enumerate() {
            to_go[id] = (r - low) as u8;
        }
        let top = (high - low) as u32;
        Contexts {
            to_go,
            top,
            sums: game.pegs() as usize * top as usize + 1,
            rows: top as usize + 1,
        }
    }

    /// Contexts in all: a previous value (or none) each.
    fn len(&self) -> usize {
        4 * self.sums * self.sums * self.rows * self.rows
    }

    /// The mover's part of a context: sum of rows to go, and the laggard's.
    #[inline(always)]
    fn mover(&self, set: u64) -> (usize, usize) {
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
    fn other(&self, set: u64) -> (usize, usize) {
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

    /// The context of a position whose mover's part is `mover`, other
    /// side's `other`, after a value coded `previous` ([`NONE`], or a
    /// value's code + 1... see [`previous`]).
    #[inline(always)]
    fn of(&self, mover: (usize, usize), other: (usize, usize), previous: usize) -> usize {
        (((previous * self.sums + mover.0) * self.sums + other.0) * self.rows + mover.1) * self.rows
            + other.1
    }
}

/// The `previous` part of a context after a coded value.
#[inline(always)]
fn previous(value: Value) -> usize {
    match value {
        Value::Win => 1,
        Value::Loss => 2,
        _ => 3,
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

/// The probabilities of a context, 12 bits each: of a draw (0: no draw
/// was seen, and none is coded), and of a win rather than a loss.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Model {
    draw: u16,
    win: u16,
}

/// The model as it is held: the probabilities of the contexts in use, by
/// rows of [`Contexts::rows`] contexts (those that differ only in the
/// other side's laggard), and for every row whether it is in use and
/// where. A dense array of every context would hold more than the coded
/// chunks of the smaller boards.
struct Lookup {
    rows: usize,
    /// For each row of contexts, its first in `models`, or `u32::MAX`.
    first: Vec<u32>,
    models: Vec<Model>,
}

impl Lookup {
    fn new(dense: &[Model], rows: usize) -> Lookup {
        let mut first = Vec::with_capacity(dense.len() / rows);
        let mut models = Vec::new();
        for row in dense.chunks(rows) {
            if row.iter().all(|m| *m == Model::default()) {
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

    #[inline(always)]
    fn get(&self, context: usize) -> Model {
        let first = self.first[context / self.rows];
        self.models[first as usize + context % self.rows]
    }

    /// Every context's model, unused ones as [`Model::default`].
    fn dense(&self) -> Vec<Model> {
        let mut dense = vec![Model::default(); self.first.len() * self.rows];
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
        4 * self.first.len() + std::mem::size_of::<Model>() * self.models.len()
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

/// A packed table of values; see the module's documentation.
pub struct PackedTable {
    game: Game,
    contexts: Contexts,
    chunk_entries: u32,
    /// Chunks in a mover's block.
    chunks_a_block: u64,
    model: Lookup,
    /// Each chunk's bytes.
    lengths: Vec<u16>,
    /// The first byte of every [`SUPER`]-th chunk.
    supers: Vec<u64>,
    data: Vec<u8>,
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

/// Calls `visit(block, within, mover, other, rule)` for every entry of
/// the chunk `chunk` of `block`, in order; stops when it answers false.
#[inline(always)]
fn walk_chunk(
    game: &Game,
    block: u64,
    first: u64,
    end: u64,
    mut visit: impl FnMut(u64, u64, u64, Option<Value>) -> bool,
) {
    let r = game.ranking();
    let mover = r.mover(block);
    let symmetric = r.is_symmetric(block);
    let mut others = Others::new(game, mover, first);
    for within in first..end {
        let other = others.set();
        if !visit(
            within,
            mover,
            other,
            by_rule(game, symmetric, block, mover, other),
        ) {
            return;
        }
        others.advance();
    }
}

impl PackedTable {
    /// Packs `table`, the solved values of `game`, in chunks of
    /// `chunk_entries` entries, on `threads` threads; `progress(done,
    /// all)` in blocks, as the second of the two passes goes.
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
        assert!(chunk_entries > 0, "chunks of at least one entry");
        let contexts = Contexts::new(game);
        let threads = threads.max(1);
        let blocks = r.blocks();
        let block_len = r.block_len();
        let chunks_a_block = block_len.div_ceil(u64::from(chunk_entries));
        // First pass: the values seen in each context.
        let next = AtomicUsize::new(0);
        let seen = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    scope.spawn(|| {
                        let mut seen = vec![[0u64; 3]; contexts.len()];
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
                                walk_chunk(game, block, first, end, |within, _, other, rule| {
                                    if rule.is_none() {
                                        let value = table.get(block * block_len + within);
                                        let context =
                                            contexts.of(mover, contexts.other(other), before);
                                        let slot = match value {
                                            Value::Draw => 0,
                                            Value::Win => 1,
                                            _ => 2,
                                        };
                                        seen[context][slot] += 1;
                                        before = previous(value);
                                    }
                                    true
                                });
                            }
                        }
                        seen
                    })
                })
                .collect();
            let mut all = vec![[0u64; 3]; contexts.len()];
            for worker in workers {
                for (total, part) in all.iter_mut().zip(worker.join().expect("a packing thread")) {
                    for k in 0..3 {
                        total[k] += part[k];
                    }
                }
            }
            all
        });
        let model: Vec<Model> = seen
            .iter()
            .map(|&[draws, wins, losses]| model_of(draws, wins, losses))
            .collect();
        // Second pass: the chunks, coded a block at a time, gathered in
        // block order.
        let next = AtomicUsize::new(0);
        let done = AtomicUsize::new(0);
        const BATCH: u64 = 64;
        let batches = blocks.div_ceil(BATCH);
        let mut parts: Vec<(Vec<u16>, Vec<u8>)> = std::thread::scope(|scope| {
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
                                    walk_chunk(
                                        game,
                                        block,
                                        first,
                                        end,
                                        |within, _, other, rule| {
                                            if rule.is_none() {
                                                let value = table.get(block * block_len + within);
                                                let m = model[contexts.of(
                                                    mover,
                                                    contexts.other(other),
                                                    before,
                                                )];
                                                if m.draw != 0 {
                                                    encoder.bit(value == Value::Draw, m.draw);
                                                }
                                                if value != Value::Draw {
                                                    encoder.bit(value == Value::Win, m.win);
                                                }
                                                before = previous(value);
                                            }
                                            true
                                        },
                                    );
                                    encoder.finish();
                                    let length = data.len() - start;
                                    lengths.push(
                                        u16::try_from(length)
                                            .expect("a chunk of at most 3 bytes an entry"),
                                    );
                                }
                            }
                            let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
                            progress((finished as u64 * BATCH).min(blocks), blocks);
                            mine.push((batch, lengths, data));
                        }
                        mine
                    })
                })
                .collect();
            let mut all: Vec<(u64, Vec<u16>, Vec<u8>)> = workers
                .into_iter()
                .flat_map(|w| w.join().expect("a packing thread"))
                .collect();
            all.sort_unstable_by_key(|part| part.0);
            all.into_iter()
                .map(|(_, lengths, data)| (lengths, data))
                .collect()
        });
        let mut lengths = Vec::with_capacity((blocks * chunks_a_block) as usize);
        let mut data = Vec::with_capacity(parts.iter().map(|p| p.1.len()).sum());
        for (l, d) in parts.drain(..) {
            lengths.extend_from_slice(&l);
            data.extend_from_slice(&d);
        }
        let supers = supers_of(&lengths);
        let model = Lookup::new(&model, contexts.rows);
        PackedTable {
            game: game.clone(),
            contexts,
            chunk_entries,
            chunks_a_block,
            model,
            lengths,
            supers,
            data,
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

    /// Bytes of memory the table holds: the coded chunks, their lengths
    /// and the model.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        (self.data.len() + 2 * self.lengths.len() + 8 * self.supers.len() + self.model.bytes())
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
        let chunk = within / u64::from(self.chunk_entries);
        let first = chunk * u64::from(self.chunk_entries);
        let bytes = self.chunk_bytes((block * self.chunks_a_block + chunk) as usize);
        let mut decoder = Decoder::new(bytes);
        let mover = self.contexts.mover(r.mover(block));
        let mut before = NONE;
        let mut answer = Value::Illegal;
        walk_chunk(
            &self.game,
            block,
            first,
            within + 1,
            |at, _, other, rule| {
                let value = match rule {
                    Some(value) => value,
                    None => {
                        let value = self.decode(&mut decoder, mover, other, before);
                        before = previous(value);
                        value
                    }
                };
                if at == within {
                    answer = value;
                    return false;
                }
                true
            },
        );
        answer
    }

    #[inline(always)]
    fn decode(
        &self,
        decoder: &mut Decoder<'_>,
        mover: (usize, usize),
        other: u64,
        before: usize,
    ) -> Value {
        let m = self
            .model
            .get(self.contexts.of(mover, self.contexts.other(other), before));
        if m.draw != 0 && decoder.bit(m.draw) {
            Value::Draw
        } else if decoder.bit(m.win) {
            Value::Win
        } else {
            Value::Loss
        }
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
                        let mover = self.contexts.mover(r.mover(block));
                        for chunk in 0..self.chunks_a_block {
                            let first = chunk * u64::from(self.chunk_entries);
                            let end = (first + u64::from(self.chunk_entries)).min(block_len);
                            let bytes =
                                self.chunk_bytes((block * self.chunks_a_block + chunk) as usize);
                            let mut decoder = Decoder::new(bytes);
                            let mut before = NONE;
                            walk_chunk(&self.game, block, first, end, |within, _, other, rule| {
                                let value = match rule {
                                    Some(value) => value,
                                    None => {
                                        let value = self.decode(&mut decoder, mover, other, before);
                                        before = previous(value);
                                        value
                                    }
                                };
                                if value != Value::Draw {
                                    table.prove(block * block_len + within, value);
                                }
                                true
                            });
                        }
                    }
                });
            }
        });
        table
    }

    /// The body as it is written to a file (after the header,
    /// [`crate::solve::file`]): the chunk size, the model (its contexts
    /// in runs: unused ones skipped), the chunks' lengths, the coded
    /// chunks. Little-endian throughout.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.data.len() + 2 * self.lengths.len() + (1 << 16));
        out.extend_from_slice(&self.chunk_entries.to_le_bytes());
        let model = self.model.dense();
        out.extend_from_slice(&(model.len() as u64).to_le_bytes());
        // The model in runs: (unused contexts skipped, used ones that
        // follow, their probabilities).
        let mut runs = Vec::new();
        let mut at = 0;
        while at < model.len() {
            let skip = model[at..]
                .iter()
                .take_while(|m| **m == Model::default())
                .count();
            let used = model[at + skip..]
                .iter()
                .take_while(|m| **m != Model::default())
                .count();
            runs.push((at + skip, used));
            at += skip + used;
        }
        out.extend_from_slice(&(runs.len() as u64).to_le_bytes());
        for &(start, used) in &runs {
            out.extend_from_slice(&(start as u64).to_le_bytes());
            out.extend_from_slice(&(used as u64).to_le_bytes());
            for m in &model[start..start + used] {
                out.extend_from_slice(&m.draw.to_le_bytes());
                out.extend_from_slice(&m.win.to_le_bytes());
            }
        }
        out.extend_from_slice(&(self.lengths.len() as u64).to_le_bytes());
        for length in &self.lengths {
            out.extend_from_slice(&length.to_le_bytes());
        }
        out.extend_from_slice(&(self.data.len() as u64).to_le_bytes());
        out.extend_from_slice(&self.data);
        out
    }

    /// A packed table read back from [`PackedTable::to_bytes`], of `game`,
    /// counted `counts` (the file's header).
    ///
    /// # Errors
    /// A body that is not one of this game's packed tables (truncated, of
    /// another size, a model of another shape).
    pub fn from_bytes(game: &Game, counts: Counts, body: &[u8]) -> Result<PackedTable, PackError> {
        let mut reader = Reader { bytes: body, at: 0 };
        let chunk_entries = reader.u32()?;
        if chunk_entries == 0 {
            return Err(PackError("chunks of 0 entries".into()));
        }
        let contexts = Contexts::new(game);
        let n = reader.u64()? as usize;
        if n != contexts.len() {
            return Err(PackError(format!(
                "a model of {n} contexts, where this game has {}",
                contexts.len()
            )));
        }
        let mut model = vec![Model::default(); n];
        let runs = reader.u64()?;
        for _ in 0..runs {
            let start = reader.u64()? as usize;
            let used = reader.u64()? as usize;
            if start.checked_add(used).is_none_or(|end| end > n) {
                return Err(PackError("a model's run past its contexts".into()));
            }
            for m in &mut model[start..start + used] {
                m.draw = reader.u16()?;
                m.win = reader.u16()?;
                if u32::from(m.draw) >= ONE || m.win == 0 || u32::from(m.win) >= ONE {
                    return Err(PackError("a probability out of range".into()));
                }
            }
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
        let data = body[reader.at..].to_vec();
        let supers = supers_of(&lengths);
        let model = Lookup::new(&model, contexts.rows);
        Ok(PackedTable {
            game: game.clone(),
            contexts,
            chunk_entries,
            chunks_a_block,
            model,
            lengths,
            supers,
            data,
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

/// A context's probabilities from the values seen there.
fn model_of(draws: u64, wins: u64, losses: u64) -> Model {
    let all = draws + wins + losses;
    if all == 0 {
        return Model::default();
    }
    let quantize = |part: u64, whole: u64| -> u16 {
        let p = (part as f64 + 0.4) / (whole as f64 + 0.8) * f64::from(ONE);
        (p.round() as u32).clamp(1, ONE - 1) as u16
    };
    Model {
        draw: if draws == 0 { 0 } else { quantize(draws, all) },
        win: quantize(wins, wins + losses),
    }
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

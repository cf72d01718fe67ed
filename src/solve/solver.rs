//! The retrograde solver: every position's value by value iteration to a
//! fixed point (RULES §7), on both cores, 2 bits a position.
//!
//! - **Initial pass**: illegal positions, and positions that are over (the
//!   side not to move has won: a loss for the side to move).
//! - **Passes**: each unknown position is expanded: a win if a legal
//!   successor is a loss, a loss if every legal successor is a win (or it
//!   has none). A position proven lost marks every predecessor won at
//!   once (the other side's moves taken back). Passes repeat until one
//!   proves nothing; what is still unknown is a draw.
//! - **Order**: a pass walks *tiles* of consecutive other-side sets `B`.
//!   Every successor of a position `(A, B)` lies in the block of
//!   `rotate(B)` (`rank.rs`), so the blocks a tile reads stay in cache
//!   while, for each mover set `A`, the tile's positions `(A, B)` are a
//!   few consecutive words; a run of words with nothing unknown is skipped
//!   whole.
//! - **Threads** take tiles from a shared counter. A value only goes from
//!   unknown to proven, and proofs never conflict, so the table is shared
//!   without locks, and the fixed point, hence the table, is the same
//!   bytes whatever the threads' timing (only the pass a proof lands in
//!   may differ).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use super::game::{Game, MAX_MOVES, Moves, Sets};
use super::table::{Table, Value};

/// Predecessors queued before they are marked won together.
const MARKS: usize = 4096;
const LOSS: u64 = Value::Loss as u64;

/// Where a pass is, for a progress bar.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// The pass (1 for the first pass after the initial one).
    pub pass: u32,
    /// Tiles of this pass done.
    pub tiles_done: u64,
    /// Tiles in a pass.
    pub tiles: u64,
    /// Positions still unknown.
    pub unknown: u64,
}

/// What a pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PassReport {
    /// The pass.
    pub pass: u32,
    /// Positions proven in it (by expansion or as predecessors of a loss).
    pub proven: u64,
    /// Positions expanded: unknown positions whose successors were read.
    pub expansions: u64,
    /// Positions still unknown after it.
    pub unknown: u64,
    /// Wall time, seconds.
    pub seconds: f64,
}

/// Solves one game's table; see the module's documentation.
pub struct Solver<'g> {
    game: &'g Game,
    table: Table,
    /// Every p-set in rank order: the other sets the tiles take.
    sets: Vec<u64>,
    /// The blocks' mover sets (every set, or the canonical ones when the
    /// mirror is folded).
    movers: Vec<u64>,
    tile: usize,
    threads: usize,
    passes: u32,
    unknown: AtomicU64,
}

/// Bytes of successor blocks one tile may read: about half of a 512 KiB
/// level-2 cache.
const TILE_BYTES: u64 = 256 * 1024;
/// Sets in a tile at most: one bit each in a word (`tile_portable`).
const MAX_TILE: usize = 64;

impl<'g> Solver<'g> {
    /// A solver with a fresh table, initial pass done, on `threads` threads
    /// (at least one).
    #[must_use]
    pub fn new(game: &'g Game, threads: usize) -> Solver<'g> {
        let table = Table::new(game.ranking().states());
        let mut solver = Solver::with_table(game, table, 0, threads);
        solver.initialize();
        solver
    }

    /// A solver that goes on from `table`, a checkpoint written after
    /// `passes` passes.
    ///
    /// # Panics
    /// A table of another size than the game's.
    #[must_use]
    pub fn resume(game: &'g Game, table: Table, passes: u32, threads: usize) -> Solver<'g> {
        assert_eq!(table.len(), game.ranking().states(), "a table of this game");
        let solver = Solver::with_table(game, table, passes, threads);
        solver
            .unknown
            .store(solver.table.counts().draws, Ordering::Relaxed);
        solver
    }

    fn with_table(game: &'g Game, table: Table, passes: u32, threads: usize) -> Solver<'g> {
        let r = game.ranking();
        let sets: Vec<u64> = r.sets().collect();
        let movers: Vec<u64> = r.movers().collect();
        let threads = threads.max(1);
        let block_bytes = r.block_len().div_ceil(4).max(1);
        let by_cache = (TILE_BYTES / block_bytes).max(1) as usize;
        // Enough tiles for every thread to stay busy to the end.
        let by_threads = sets.len().div_ceil(16 * threads).max(1);
        Solver {
            game,
            table,
            sets,
            movers,
            tile: by_cache.min(by_threads).min(MAX_TILE),
            threads,
            passes,
            unknown: AtomicU64::new(0),
        }
    }

    /// The table as it stands.
    #[must_use]
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The table, once solved.
    #[must_use]
    pub fn into_table(self) -> Table {
        self.table
    }

    /// Passes done.
    #[must_use]
    pub fn passes(&self) -> u32 {
        self.passes
    }

    /// Positions still unknown.
    #[must_use]
    pub fn unknown(&self) -> u64 {
        self.unknown.load(Ordering::Relaxed)
    }

    /// Tiles in a pass.
    #[must_use]
    pub fn tiles(&self) -> u64 {
        self.sets.len().div_ceil(self.tile) as u64
    }

    /// Marks illegal positions, positions that are over, and the twins of
    /// the symmetric blocks (`rank.rs`), which no position maps to.
    fn initialize(&mut self) {
        let game = self.game;
        let r = game.ranking();
        let block_len = r.block_len();
        let next = AtomicUsize::new(0);
        let unknown = AtomicU64::new(0);
        let (movers, table) = (&self.movers, &self.table);
        std::thread::scope(|scope| {
            for _ in 0..self.threads {
                scope.spawn(|| {
                    let mut open = 0;
                    loop {
                        let a_block = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&a) = movers.get(a_block) else { break };
                        let symmetric = r.is_symmetric(a_block as u64);
                        let block = a_block as u64 * block_len;
                        for (index, b) in (block..).zip(r.sets_among(a)) {
                            let twin = symmetric && r.multiplicity(a_block as u64, a, b) == 0;
                            if twin || game.is_illegal(a, b) {
                                table.prove(index, Value::Illegal);
                            } else if game.is_over(a, b) {
                                table.prove(index, Value::Loss);
                            } else {
                                open += 1;
                            }
                        }
                    }
                    unknown.fetch_add(open, Ordering::Relaxed);
                });
            }
        });
        // Every win is proven from a lost successor: first those of the
        // positions that are over.
        let next = AtomicUsize::new(0);
        let marked = AtomicU64::new(0);
        let this = &*self;
        std::thread::scope(|scope| {
            for _ in 0..this.threads {
                scope.spawn(|| {
                    let (mut moves, mut buffer) = (Moves::new(game), Sets::new());
                    let mut marks = Vec::with_capacity(MARKS + MAX_MOVES);
                    let mut mine = 0;
                    loop {
                        let a_block = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&a) = movers.get(a_block) else { break };
                        let block = a_block as u64 * block_len;
                        for (index, b) in (block..).zip(r.sets_among(a)) {
                            if table.code(index) == LOSS {
                                mine += this.mark(a, b, &mut moves, &mut buffer, &mut marks);
                            }
                        }
                    }
                    mine += this.flush(&mut marks);
                    marked.fetch_add(mine, Ordering::Relaxed);
                });
            }
        });
        self.unknown.store(
            unknown.into_inner() - marked.into_inner(),
            Ordering::Relaxed,
        );
    }

    /// Solves to the fixed point, calling `progress` as tiles finish and
    /// `after_pass` after each pass (for checkpoints and logs), which may
    /// stop the solve early by returning `false`. Returns whether the fixed
    /// point was reached.
    pub fn run(
        &mut self,
        progress: &(dyn Fn(Progress) + Sync),
        after_pass: &mut dyn FnMut(&Solver<'_>, PassReport) -> bool,
    ) -> bool {
        loop {
            let report = self.pass(progress);
            let go_on = after_pass(self, report);
            if report.proven == 0 {
                return true;
            }
            if !go_on {
                return false;
            }
        }
    }

    /// One pass over every unknown position.
    pub fn pass(&mut self, progress: &(dyn Fn(Progress) + Sync)) -> PassReport {
        let started = Instant::now();
        self.passes += 1;
        let pass = self.passes;
        let tiles = self.tiles();
        let next = AtomicUsize::new(0);
        let done = AtomicU64::new(0);
        let proven = AtomicU64::new(0);
        let expansions = AtomicU64::new(0);
        let this = &*self;
        std::thread::scope(|scope| {
            for _ in 0..this.threads {
                scope.spawn(|| {
                    let mut mine = (0, 0);
                    loop {
                        let tile = next.fetch_add(1, Ordering::Relaxed);
                        if tile as u64 >= tiles {
                            break;
                        }
                        let (p, e) = this.tile(tile);
                        mine.0 += p;
                        mine.1 += e;
                        this.unknown.fetch_sub(p, Ordering::Relaxed);
                        progress(Progress {
                            pass,
                            tiles_done: done.fetch_add(1, Ordering::Relaxed) + 1,
                            tiles,
                            unknown: this.unknown(),
                        });
                    }
                    proven.fetch_add(mine.0, Ordering::Relaxed);
                    expansions.fetch_add(mine.1, Ordering::Relaxed);
                });
            }
        });
        PassReport {
            pass,
            proven: proven.into_inner(),
            expansions: expansions.into_inner(),
            unknown: self.unknown(),
            seconds: started.elapsed().as_secs_f64(),
        }
    }

    /// Queues the predecessors of the lost position `(a, b)` in `marks`,
    /// to be proven won by [`Solver::flush`]; flushes a full queue.
    /// Returns the positions proven.
    #[inline(always)]
    fn mark(
        &self,
        a: u64,
        b: u64,
        moves: &mut Moves,
        sets: &mut Sets,
        marks: &mut Vec<u64>,
    ) -> u64 {
        let r = self.game.ranking();
        self.game.predecessors(a, b, moves, sets);
        let other = r.rotate(a);
        for &mover in sets.as_slice() {
            marks.push(r.index(mover, other));
        }
        if marks.len() >= MARKS {
            self.flush(marks)
        } else {
            0
        }
    }

    /// Proves won every position queued in `marks` that is still unknown
    /// (a predecessor of a loss is never lost, illegal or over), reading
    /// ahead: these are scattered over the table, and a cache miss each
    /// would otherwise wait in turn. Returns the positions proven.
    #[inline(always)]
    fn flush(&self, marks: &mut Vec<u64>) -> u64 {
        const AHEAD: usize = 16;
        for &index in marks.iter().take(AHEAD) {
            self.table.prefetch(index);
        }
        let mut proven = 0;
        for i in 0..marks.len() {
            if let Some(&ahead) = marks.get(i + AHEAD) {
                self.table.prefetch(ahead);
            }
            let index = marks[i];
            if self.table.code(index) == 0 {
                proven += u64::from(self.table.prove(index, Value::Win));
            }
        }
        marks.clear();
        proven
    }

    /// One tile of a pass: positions proven, positions expanded. Compiled
    /// for BMI1, BMI2 and POPCNT too (ranks count bits), chosen at run time.
    fn tile(&self, tile: usize) -> (u64, u64) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("bmi2")
            && std::arch::is_x86_feature_detected!("popcnt")
        {
            // SAFETY: the processor has the features just checked.
            return unsafe { self.tile_bmi(tile) };
        }
        self.tile_portable(tile)
    }

    /// [`Solver::tile`] compiled for BMI1, BMI2 and POPCNT.
    ///
    /// # Safety
    /// The processor must have BMI1, BMI2 and POPCNT.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi1,bmi2,popcnt")]
    unsafe fn tile_bmi(&self, tile: usize) -> (u64, u64) {
        self.tile_portable(tile)
    }

    #[inline(always)]
    fn tile_portable(&self, tile: usize) -> (u64, u64) {
        let game = self.game;
        let r = game.ranking();
        let block_len = r.block_len();
        let others = &self.sets[tile * self.tile..((tile + 1) * self.tile).min(self.sets.len())];
        // Each other-side set's successor block: the successors' mover is
        // the other set rotated, or with the mirror folded its image when
        // that is the canonical one (the position is then expanded as its
        // image, whose successors are the images of its successors).
        let bases: Vec<(u64, bool, bool)> = others
            .iter()
            .map(|&b| {
                let (block, flip) = r.block(r.rotate(b));
                (block * block_len, flip, r.is_symmetric(block))
            })
            .collect();
        // For each hole, the tile's sets holding it, a bit each: the sets
        // disjoint from a mover set are found in p steps, not one a set.
        let mut holding = [0u64; 64];
        for (j, &b) in others.iter().enumerate() {
            let mut rest = b;
            while rest != 0 {
                holding[rest.trailing_zeros() as usize] |= 1 << j;
                rest &= rest - 1;
            }
        }
        let whole = u64::MAX >> (64 - others.len());
        let mut moves = Moves::new(game);
        let mut sets = Sets::new();
        let mut marks = Vec::with_capacity(MARKS + MAX_MOVES);
        let (mut proven, mut expansions) = (0, 0);
        for (a_block, &a) in self.movers.iter().enumerate() {
            let mut disjoint = whole;
            let mut rest = a;
            while rest != 0 {
                disjoint &= !holding[rest.trailing_zeros() as usize];
                rest &= rest - 1;
            }
            if disjoint == 0 {
                continue;
            }
            let block = a_block as u64 * block_len;
            let (first, last) = (
                disjoint.trailing_zeros() as usize,
                63 - disjoint.leading_zeros() as usize,
            );
            if !self.table.any_unknown(
                block + r.rank_among(others[first], a),
                block + r.rank_among(others[last], a),
            ) {
                continue;
            }
            while disjoint != 0 {
                let j = disjoint.trailing_zeros() as usize;
                disjoint &= disjoint - 1;
                let b = others[j];
                let index = block + r.rank_among(b, a);
                if self.table.code(index) != 0 {
                    continue;
                }
                expansions += 1;
                // Wins are proven backwards, when a successor is proven lost
                // (`mark`); forwards, only a loss: every successor won. So
                // the first successor not won ends the expansion.
                let (base, flip, symmetric) = bases[j];
                let (mover, other) = if flip {
                    (r.mirror(a), r.mirror(b))
                } else {
                    (a, b)
                };
                let lost =
                    game.all_successors_won(mover, other, &self.table, base, symmetric, &mut moves);
                if lost && self.table.prove(index, Value::Loss) {
                    proven += 1 + self.mark(a, b, &mut moves, &mut sets, &mut marks);
                }
            }
        }
        proven += self.flush(&mut marks);
        (proven, expansions)
    }
}

/// Solves `game` on `threads` threads with no progress report: the table
/// and the passes it took.
#[must_use]
pub fn solve(game: &Game, threads: usize) -> (Table, Vec<PassReport>) {
    let mut solver = Solver::new(game, threads);
    let mut reports = Vec::new();
    solver.run(&|_| {}, &mut |_, report| {
        reports.push(report);
        true
    });
    (solver.into_table(), reports)
}

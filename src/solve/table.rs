//! The table of values: 2 bits a position, 32 positions a word, shared
//! by the solver's threads without locks (values only go from unknown to
//! proven, so an atomic OR is the only write).

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// The game-theoretic value of a position for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Value {
    /// Never proven: with best play it goes on forever (a draw); during
    /// the solve, not yet known.
    Draw = 0,
    /// The side to move wins.
    Win = 1,
    /// The side to move loses.
    Loss = 2,
    /// The position cannot arise (RULES §7).
    Illegal = 3,
}

impl Value {
    /// All values, in their code order.
    pub const ALL: [Value; 4] = [Value::Draw, Value::Win, Value::Loss, Value::Illegal];

    /// The value of a 2-bit code.
    #[must_use]
    pub fn from_code(code: u64) -> Value {
        Value::ALL[(code & 3) as usize]
    }

    /// The lower-case name: `draw`, `win`, `loss`, `illegal`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Value::Draw => "draw",
            Value::Win => "win",
            Value::Loss => "loss",
            Value::Illegal => "illegal",
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Positions of each value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Counts {
    /// Won by the side to move.
    pub wins: u64,
    /// Lost by the side to move.
    pub losses: u64,
    /// Drawn (never proven).
    pub draws: u64,
    /// Illegal.
    pub illegal: u64,
}

impl Counts {
    /// The count of one value.
    #[must_use]
    pub fn of(&self, value: Value) -> u64 {
        match value {
            Value::Draw => self.draws,
            Value::Win => self.wins,
            Value::Loss => self.losses,
            Value::Illegal => self.illegal,
        }
    }

    /// All positions counted.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.wins + self.losses + self.draws + self.illegal
    }

    /// As RULES §7 and Table 1 of Sturtevant (2019) count them, over both
    /// sides to move: positions, wins of the first player (a win with
    /// south to move, or a loss with north to move: `wins + losses` here),
    /// draws and illegal positions (each twice).
    #[must_use]
    pub fn published(&self) -> [u64; 4] {
        [
            2 * self.total(),
            self.wins + self.losses,
            2 * self.draws,
            2 * self.illegal,
        ]
    }
}

/// 2-bit values of `len` positions.
pub struct Table {
    words: Vec<AtomicU64>,
    len: u64,
}

/// A copy of the values as they stand (a large table: copy only with
/// reason; [`crate::solve::file::Loaded::values`] lends a file's table).
impl Clone for Table {
    fn clone(&self) -> Table {
        Table::from_words(self.words().collect(), self.len)
    }
}

impl Table {
    /// A table of `len` positions, all [`Value::Draw`] (unknown).
    #[must_use]
    pub fn new(len: u64) -> Table {
        let words = len.div_ceil(32) as usize;
        let mut v = Vec::with_capacity(words);
        v.resize_with(words, || AtomicU64::new(0));
        Table { words: v, len }
    }

    /// A table read from its words (little-endian bytes, 4 positions a byte).
    #[must_use]
    pub fn from_words(words: Vec<u64>, len: u64) -> Table {
        Table {
            words: words.into_iter().map(AtomicU64::new).collect(),
            len,
        }
    }

    /// Positions held.
    #[must_use]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the table holds no position.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes of memory the values take.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        self.words.len() as u64 * 8
    }

    /// The value of position `index`.
    #[inline]
    #[must_use]
    pub fn get(&self, index: u64) -> Value {
        Value::from_code(self.code(index))
    }

    /// The 2-bit code of position `index`.
    #[inline(always)]
    pub(crate) fn code(&self, index: u64) -> u64 {
        let word = self.words[(index / 32) as usize].load(Ordering::Relaxed);
        (word >> (2 * (index % 32))) & 3
    }

    /// Asks the processor to bring position `index`'s word into cache,
    /// ahead of a [`Table::code`] or [`Table::prove`] there.
    #[inline(always)]
    pub(crate) fn prefetch(&self, index: u64) {
        #[cfg(target_arch = "x86_64")]
        if let Some(word) = self.words.get((index / 32) as usize) {
            // SAFETY: a prefetch reads nothing and cannot fault; the
            // address is a word of the table.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                    word.as_ptr().cast::<i8>().cast_const(),
                );
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = index;
    }

    /// Proves position `index` to be `value`, if it is unknown. Returns
    /// whether it was unknown. Proofs never conflict (a position proven a
    /// win is never proven a loss), so a plain atomic OR is enough.
    #[inline]
    pub fn prove(&self, index: u64, value: Value) -> bool {
        let shift = 2 * (index % 32);
        let old =
            self.words[(index / 32) as usize].fetch_or((value as u64) << shift, Ordering::Relaxed);
        debug_assert!(
            (old >> shift) & 3 == 0 || (old >> shift) & 3 == value as u64,
            "position {index}: {:?} proven {value:?}",
            Value::from_code(old >> shift)
        );
        (old >> shift) & 3 == 0
    }

    /// Whether any position in `first..=last` is unknown.
    #[inline]
    pub(crate) fn any_unknown(&self, first: u64, last: u64) -> bool {
        let (w0, w1) = ((first / 32) as usize, (last / 32) as usize);
        for w in w0..=w1 {
            let word = self.words[w].load(Ordering::Relaxed);
            // A pair of bits both zero: unknown.
            let mut unknown = !(word | (word >> 1)) & 0x5555_5555_5555_5555;
            if w == w0 {
                unknown &= u64::MAX << (2 * (first % 32));
            }
            if w == w1 && last % 32 != 31 {
                unknown &= (1u64 << (2 * (last % 32 + 1))) - 1;
            }
            if unknown != 0 {
                return true;
            }
        }
        false
    }

    /// The words, for writing (the last word's unused positions are zero).
    pub fn words(&self) -> impl Iterator<Item = u64> + '_ {
        self.words.iter().map(|w| w.load(Ordering::Relaxed))
    }

    /// How many entries hold another value than in `other`, a table of
    /// the same length: compared a word (32 entries) at a time.
    ///
    /// # Panics
    /// A table of another length.
    #[must_use]
    pub fn count_differences(&self, other: &Table) -> u64 {
        assert_eq!(self.len, other.len, "tables of one game");
        // Unused positions of the last word are zero in both.
        self.words()
            .zip(other.words())
            .map(|(a, b)| {
                let x = a ^ b;
                u64::from(((x | (x >> 1)) & 0x5555_5555_5555_5555).count_ones())
            })
            .sum()
    }

    /// Positions of each value.
    #[must_use]
    pub fn counts(&self) -> Counts {
        let mut counts = [0u64; 4];
        let full = self.len / 32;
        for word in self.words().take(full as usize) {
            let low = word & 0x5555_5555_5555_5555;
            let high = (word >> 1) & 0x5555_5555_5555_5555;
            let illegal = (low & high).count_ones();
            counts[3] += u64::from(illegal);
            counts[1] += u64::from((low & !high).count_ones());
            counts[2] += u64::from((high & !low).count_ones());
            counts[0] += u64::from(32 - (low | high).count_ones());
        }
        for index in full * 32..self.len {
            counts[self.code(index) as usize] += 1;
        }
        Counts {
            draws: counts[0],
            wins: counts[1],
            losses: counts[2],
            illegal: counts[3],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_stored_and_counted() {
        let t = Table::new(100);
        assert!(t.prove(5, Value::Win));
        assert!(!t.prove(5, Value::Win));
        assert!(t.prove(64, Value::Loss));
        assert!(t.prove(99, Value::Illegal));
        assert_eq!(t.get(5), Value::Win);
        assert_eq!(t.get(64), Value::Loss);
        assert_eq!(t.get(99), Value::Illegal);
        assert_eq!(t.get(6), Value::Draw);
        let c = t.counts();
        assert_eq!((c.wins, c.losses, c.illegal, c.draws), (1, 1, 1, 97));
        assert!(t.any_unknown(0, 99));
        assert!(!t.any_unknown(5, 5));
        assert!(t.any_unknown(5, 6));
        let full = Table::new(64);
        for i in 0..64 {
            full.prove(i, Value::Loss);
        }
        assert!(!full.any_unknown(0, 63));
        assert!(!full.any_unknown(30, 33));
        // Differences counted by entry, the last word's too.
        let other = Table::new(100);
        assert_eq!(t.count_differences(&other), 3);
        other.prove(5, Value::Loss);
        other.prove(99, Value::Illegal);
        assert_eq!(t.count_differences(&other), 2);
    }
}

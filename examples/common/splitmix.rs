//! A seeded random-number generator shared by `examples/playouts.rs` and
//! `benches/movegen.rs` (included with `#[path]`), so neither needs `rand`.

/// SplitMix64 (Steele, Lea and Flood 2014): a tiny, well-mixed generator,
/// so the crate needs no `rand` and games replay the same on every machine.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`), by Lemire's multiply-shift; the bias
    /// is below 2^-50 for move lists.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

//! The one random generator of the crate: SplitMix64 (Steele, Lea and Flood
//! 2014), small, fast and the same on every platform, so a seed reproduces a
//! generated instance or a randomised search anywhere.

/// SplitMix64 state.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The generator with state `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }
    /// Stream `stream` of `seed`: independent parts of a computation draw from
    /// their own streams, so that one part's draws do not shift another's.
    pub fn stream(seed: u64, stream: u64) -> Self {
        let mut r = SplitMix64(seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03));
        r.next_u64();
        r
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `[0, 1)` (53 bits).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    /// Uniform in `0..n` (`n > 0`) by multiply-high: the generator's draws.
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }
    /// `next mod n` (`n = 0` taken as 1): the list engine's draws. Slightly
    /// biased for huge `n`, harmless for sampling orders; kept because the
    /// engine's seeded runs are reproducible only with the same sequence.
    pub fn below_mod(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi == u64::MAX && lo == 0 {
            return self.next_u64();
        }
        lo + self.below(hi - lo + 1)
    }
    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

/// The Luby sequence (1, 1, 2, 1, 1, 2, 4, ...): restart budgets whose
/// total is within a log factor of the best fixed budget.
pub fn luby(i: u64) -> u64 {
    let mut i = i;
    loop {
        let mut k = 1u32;
        while (1u64 << k) - 1 < i {
            k += 1;
        }
        if (1u64 << k) - 1 == i {
            return 1u64 << (k - 1);
        }
        i -= (1u64 << (k - 1)) - 1;
    }
}

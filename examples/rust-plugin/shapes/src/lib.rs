//! A small library with the kind of code fmerge merges in real Rust programs: one generic
//! container instantiated for several element types, and hand-written functions that differ
//! only in constants.

use std::fmt::Display;

/// A bounded ring of the last `cap` values, with summary statistics.
pub struct Ring<T> {
    items: Vec<T>,
    cap: usize,
    next: usize,
    pushed: u64,
}

impl<T: Copy + PartialOrd + Display + Default> Ring<T> {
    pub fn new(cap: usize) -> Self {
        assert!(cap > 0, "a ring needs room for one value");
        Ring { items: Vec::with_capacity(cap), cap, next: 0, pushed: 0 }
    }

    pub fn push(&mut self, v: T) {
        if self.items.len() < self.cap {
            self.items.push(v);
        } else {
            self.items[self.next] = v;
        }
        self.next = (self.next + 1) % self.cap;
        self.pushed += 1;
    }

    pub fn max(&self) -> Option<T> {
        let mut it = self.items.iter().copied();
        let first = it.next()?;
        Some(it.fold(first, |m, v| if v > m { v } else { m }))
    }

    pub fn min(&self) -> Option<T> {
        let mut it = self.items.iter().copied();
        let first = it.next()?;
        Some(it.fold(first, |m, v| if v < m { v } else { m }))
    }

    /// The values, oldest first.
    pub fn in_order(&self) -> Vec<T> {
        let (newer, older) = self.items.split_at(if self.items.len() < self.cap { 0 } else { self.next });
        older.iter().chain(newer).copied().collect()
    }

    pub fn describe(&self) -> String {
        let vals: Vec<String> = self.in_order().iter().map(|v| v.to_string()).collect();
        match (self.min(), self.max()) {
            (Some(lo), Some(hi)) => {
                format!("{} values of {} pushed [{}], min {lo}, max {hi}", self.items.len(), self.pushed, vals.join(" "))
            }
            _ => String::from("empty"),
        }
    }
}

/// Prices in cents after a tax rate, one function per region: equal up to constants.
pub fn price_eu(cents: u64) -> u64 {
    let taxed = cents * 121 / 100;
    if taxed % 5 >= 3 { taxed + 5 - taxed % 5 } else { taxed - taxed % 5 }
}

pub fn price_uk(cents: u64) -> u64 {
    let taxed = cents * 120 / 100;
    if taxed % 5 >= 3 { taxed + 5 - taxed % 5 } else { taxed - taxed % 5 }
}

pub fn price_ch(cents: u64) -> u64 {
    let taxed = cents * 108 / 100;
    if taxed % 10 >= 5 { taxed + 10 - taxed % 10 } else { taxed - taxed % 10 }
}

/// Checksums of the same shape over different constants (similar functions).
pub fn checksum_a(data: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in data {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

pub fn checksum_b(data: &[u8]) -> u32 {
    let mut h: u32 = 5381;
    for &b in data {
        h = h.wrapping_mul(33);
        h ^= u32::from(b);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ring_keeps_the_last_values_in_order() {
        let mut r = Ring::new(3);
        for v in [5, 1, 9, 7] {
            r.push(v);
        }
        assert_eq!(r.in_order(), vec![1, 9, 7]);
        assert_eq!((r.min(), r.max()), (Some(1), Some(9)));
        assert_eq!(r.describe(), "3 values of 4 pushed [1 9 7], min 1, max 9");
    }

    #[test]
    fn rings_of_every_type_agree() {
        let mut a = Ring::<f64>::new(2);
        let mut b = Ring::<i16>::new(2);
        let mut c = Ring::<u8>::new(2);
        for v in [3u8, 200, 17] {
            a.push(f64::from(v));
            b.push(i16::from(v));
            c.push(v);
        }
        assert_eq!(a.describe(), "2 values of 3 pushed [200 17], min 17, max 200");
        assert_eq!(b.describe(), "2 values of 3 pushed [200 17], min 17, max 200");
        assert_eq!(c.describe(), "2 values of 3 pushed [200 17], min 17, max 200");
        assert_eq!(Ring::<u64>::new(1).describe(), "empty");
    }

    #[test]
    fn prices_round_to_their_region_step() {
        assert_eq!(price_eu(1000), 1210);
        assert_eq!(price_uk(999), 1200);
        assert_eq!(price_ch(1234), 1330);
        assert_eq!(price_eu(13), 15);
    }

    #[test]
    fn checksums_are_the_known_values() {
        assert_eq!(checksum_a(b""), 0x811c_9dc5);
        assert_eq!(checksum_b(b""), 5381);
        assert_ne!(checksum_a(b"a"), checksum_b(b"a"));
    }
}

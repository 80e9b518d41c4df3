//! A bounded latency histogram in the HDR style: log-linear buckets of
//! microseconds, exact below 256 µs and within 1/128 (0.8 %) above, up to
//! about 71 minutes (2^32 µs; longer values count in the top bucket, and
//! the maximum stays exact). Memory is fixed: at most [`MAX_BUCKETS`]
//! counters, allocated as far as the largest value seen needs (a server
//! that answers in milliseconds uses a few kilobytes), however long the
//! session runs.
//!
//! Percentiles are by the nearest rank, as over the sorted samples, and
//! report the highest value of the bucket that holds that rank, clamped
//! to the exact minimum and maximum: never below the exact percentile,
//! and above it by less than 0.8 %.

/// Bits of the sub-buckets: 2^8 = 256 values per power of two below
/// the first, 128 in each after it.
const SUB_BITS: u32 = 8;
const SUB: u64 = 1 << SUB_BITS;
const HALF: u64 = SUB / 2;
/// The largest value with its own bucket (about 71.6 minutes in µs).
pub const MAX_TRACKED: u64 = u32::MAX as u64;
/// The counters a histogram holds at most.
pub const MAX_BUCKETS: usize = bucket_of(MAX_TRACKED) + 1;

/// The bucket of a value (values above [`MAX_TRACKED`] share the top one).
const fn bucket_of(v: u64) -> usize {
    let v = if v > MAX_TRACKED { MAX_TRACKED } else { v };
    if v < SUB {
        return v as usize;
    }
    // v >> e is in [HALF, SUB): 128 buckets per power of two.
    let e = (63 - v.leading_zeros()) - (SUB_BITS - 1);
    (SUB + (e as u64 - 1) * HALF + ((v >> e) - HALF)) as usize
}

/// The highest value that falls in bucket `i`.
fn highest_in(i: usize) -> u64 {
    let i = i as u64;
    if i < SUB {
        return i;
    }
    let e = (i - SUB) / HALF + 1;
    let m = (i - SUB) % HALF + HALF;
    ((m + 1) << e) - 1
}

/// Counts of microsecond values, with their count, minimum and maximum.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Histogram {
    counts: Vec<u64>,
    total: u64,
    min: u64,
    max: u64,
}

impl Histogram {
    pub fn new() -> Self {
        Self::default()
    }

    /// Count one value (microseconds).
    pub fn record(&mut self, micros: u64) {
        let i = bucket_of(micros);
        if self.counts.len() <= i {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] = self.counts[i].saturating_add(1);
        if self.total == 0 || micros < self.min {
            self.min = micros;
        }
        self.max = self.max.max(micros);
        self.total = self.total.saturating_add(1);
    }

    /// How many values were counted.
    pub fn count(&self) -> u64 {
        self.total
    }

    /// The largest value counted (exact; 0 when empty).
    pub fn max(&self) -> u64 {
        self.max
    }

    /// The smallest value counted (exact; 0 when empty).
    pub fn min(&self) -> u64 {
        if self.total == 0 { 0 } else { self.min }
    }

    /// The nearest-rank percentile `p` (0–100) of the values, within the
    /// histogram's precision (0 when empty).
    pub fn percentile(&self, p: f64) -> u64 {
        if self.total == 0 {
            return 0;
        }
        let p = if p.is_nan() {
            100.0
        } else {
            p.clamp(0.0, 100.0)
        };
        let rank = ((p / 100.0) * self.total as f64).ceil().max(1.0) as u64;
        if rank >= self.total {
            return self.max;
        }
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen = seen.saturating_add(c);
            if seen >= rank {
                // The top bucket also holds what is above its range.
                if i + 1 == MAX_BUCKETS {
                    return self.max;
                }
                return highest_in(i).clamp(self.min, self.max);
            }
        }
        self.max
    }

    /// Add another histogram's counts to this one.
    pub fn merge(&mut self, other: &Histogram) {
        if other.total == 0 {
            return;
        }
        if self.counts.len() < other.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a = a.saturating_add(*b);
        }
        self.min = if self.total == 0 {
            other.min
        } else {
            self.min.min(other.min)
        };
        self.max = self.max.max(other.max);
        self.total = self.total.saturating_add(other.total);
    }

    /// Forget every value (the memory is kept for the next ones).
    pub fn reset(&mut self) {
        self.counts.iter_mut().for_each(|c| *c = 0);
        self.total = 0;
        self.min = 0;
        self.max = 0;
    }

    /// The counters held now (at most [`MAX_BUCKETS`]).
    pub fn buckets(&self) -> usize {
        self.counts.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::stats::percentile as exact;
    use rand::{RngExt, SeedableRng, rngs::StdRng};

    #[test]
    fn buckets_cover_every_value_in_order() {
        assert_eq!(bucket_of(0), 0);
        assert_eq!(bucket_of(255), 255);
        assert_eq!(bucket_of(256), 256);
        let mut values: Vec<u64> = (0..34u32)
            .flat_map(|s| {
                let p = 1u64 << s;
                [p - 1, p, p + 1, p + p / 3]
            })
            .collect();
        values.sort_unstable();
        let mut last = 0;
        for v in values {
            let b = bucket_of(v);
            assert!(b >= last, "{v}: bucket {b} below {last}");
            assert!(b < MAX_BUCKETS);
            // The value lies in its bucket, which is narrow.
            if v <= MAX_TRACKED {
                let hi = highest_in(b);
                assert!(hi >= v, "{v} above its bucket's top {hi}");
                assert!(hi - v <= v / 128, "{v}: bucket up to {hi} is too wide");
                assert!(b == 0 || highest_in(b - 1) < v, "{v} belongs lower");
            }
            last = b;
        }
        assert_eq!(bucket_of(u64::MAX), MAX_BUCKETS - 1);
        assert_eq!(highest_in(MAX_BUCKETS - 1), MAX_TRACKED);
    }

    #[test]
    fn percentiles_are_within_the_precision_of_the_exact_ones() {
        let mut rng = StdRng::seed_from_u64(15);
        for round in 0..40 {
            let n = rng.random_range(1..3_000);
            let mut h = Histogram::new();
            let mut v: Vec<u64> = (0..n)
                .map(|_| {
                    // Log-uniform from 1 µs to about 20 minutes, like latencies.
                    let exp: f64 = rng.random_range(0.0..30.0);
                    2f64.powf(exp) as u64
                })
                .collect();
            for &x in &v {
                h.record(x);
            }
            v.sort_unstable();
            for p in [0.0, 1.0, 50.0, 90.0, 95.0, 99.0, 99.9, 100.0] {
                let (want, got) = (exact(&v, p), h.percentile(p));
                assert!(
                    got >= want && got - want <= want / 128,
                    "round {round}, p{p}: exact {want}, histogram {got}"
                );
            }
            assert_eq!(h.count(), n);
            assert_eq!(h.max(), *v.last().unwrap());
            assert_eq!(h.min(), v[0]);
        }
    }

    #[test]
    fn memory_is_bounded_whatever_is_recorded() {
        let mut h = Histogram::new();
        for i in 0..200_000u64 {
            h.record(i.wrapping_mul(2_654_435_761) % 5_000);
        }
        // Five milliseconds need a few hundred counters.
        assert!(h.buckets() < 1_000, "{}", h.buckets());
        h.record(u64::MAX);
        h.record(3_600_000_000);
        assert_eq!(h.buckets(), MAX_BUCKETS);
        const { assert!(MAX_BUCKETS < 3_500) };
        assert_eq!(h.max(), u64::MAX);
        assert_eq!(h.percentile(100.0), u64::MAX);
        assert_eq!(h.count(), 200_002);
    }

    #[test]
    fn one_value_is_exact_and_an_empty_histogram_says_zero() {
        let mut h = Histogram::new();
        assert_eq!(
            (h.percentile(50.0), h.max(), h.min(), h.count()),
            (0, 0, 0, 0)
        );
        h.record(500_000);
        assert_eq!(h.percentile(50.0), 500_000);
        assert_eq!(h.percentile(99.0), 500_000);
    }

    #[test]
    fn merge_equals_recording_both_and_reset_forgets() {
        let (mut a, mut b, mut both) = (Histogram::new(), Histogram::new(), Histogram::new());
        for x in [3u64, 700, 12_000, 9] {
            a.record(x);
            both.record(x);
        }
        for x in [1u64, 5_000_000, 42] {
            b.record(x);
            both.record(x);
        }
        a.merge(&b);
        assert_eq!(a.count(), both.count());
        assert_eq!((a.min(), a.max()), (1, 5_000_000));
        for p in [10.0, 50.0, 90.0, 100.0] {
            assert_eq!(a.percentile(p), both.percentile(p));
        }
        let mut empty = Histogram::new();
        empty.merge(&b);
        assert_eq!((empty.min(), empty.max(), empty.count()), (1, 5_000_000, 3));
        a.reset();
        assert_eq!((a.count(), a.max(), a.percentile(50.0)), (0, 0, 0));
        a.record(77);
        assert_eq!((a.min(), a.max(), a.percentile(50.0)), (77, 77, 77));
    }
}

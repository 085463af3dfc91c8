//! The transposition table: bounds on what a position is still worth, kept for every question
//! asked about one hand.

/// Bounds on what the counted sides still gain from a position, and the card that gave them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Bounds {
    pub lower: i8,
    pub upper: i8,
    /// The card that gave the value last searched (its search bit), tried first next time.
    pub best: Option<u8>,
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    key: (u64, u64),
    /// The counts toward Game the bounds were found with (see [`Counts`]).
    counts: u64,
    /// The hand the entry belongs to (0: empty).
    stamp: u32,
    lower: i8,
    upper: i8,
    /// The best card's search bit plus one (0: none).
    best: u8,
}

/// The counts toward Game of a position, one byte per side, each turned so that a higher byte
/// is better for the counted sides: a counted side's count as it is, another's as 127 minus it.
///
/// With one side counted, the gain cannot fall when its count rises or another's falls (Game
/// goes to it when its count ends above every other's), so a lower bound found with counts
/// `e` holds for every position of the same cards whose counts are bytewise at least `e`, and
/// an upper bound for those at most `e`. With several sides counted (the claim's and a
/// revoke's questions) a rise may make a tie between two of them, so bounds hold for the same
/// counts only (`ordered` false).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Counts {
    pub bytes: u64,
    pub ordered: bool,
}

/// The high bit of every byte.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// Whether every byte of `a` is at least the same byte of `b` (bytes below 128).
fn at_least(a: u64, b: u64) -> bool {
    // no byte borrows from the high bit put above it
    (a | HIGH_BITS).wrapping_sub(b) & HIGH_BITS == HIGH_BITS
}

/// An open-addressing hash table keyed exactly (never by a hash alone), emptied for a new hand
/// by moving on a stamp rather than by clearing its memory, and grown as a hand needs. The
/// entries of one position with different counts toward Game share a key and a run of slots,
/// and a probe takes the bounds of every one that holds for its counts.
#[derive(Debug)]
pub(super) struct Table {
    slots: Vec<Slot>,
    stamp: u32,
    used: usize,
}

const FIRST_SIZE: usize = 1 << 12;

fn spread(key: (u64, u64)) -> u64 {
    // two multiply-xorshift rounds: the cards still out vary in few bits
    let mut h = key.0 ^ key.1.rotate_left(29);
    h = (h ^ (h >> 31)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    h = (h ^ (h >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ (h >> 32)
}

impl Table {
    pub fn new() -> Table {
        Table {
            slots: vec![Slot::default(); FIRST_SIZE],
            stamp: 1,
            used: 0,
        }
    }

    /// Forget every entry.
    pub fn clear(&mut self) {
        self.used = 0;
        if self.stamp == u32::MAX {
            self.slots.iter_mut().for_each(|s| s.stamp = 0);
            self.stamp = 0;
        }
        self.stamp += 1;
        // a table grown by one monstrous hand need not stay that big for the next thousands
        if self.slots.len() > 1 << 22 {
            self.slots = vec![Slot::default(); 1 << 22];
        }
    }

    /// Entries kept.
    pub fn len(&self) -> usize {
        self.used
    }

    /// The slot of `key` with `counts` (true), or the empty slot that ends its run (false).
    fn find(&self, key: (u64, u64), counts: u64) -> (usize, bool) {
        let mask = self.slots.len() - 1;
        let mut i = spread(key) as usize & mask;
        loop {
            match self.slots.get(i) {
                Some(s) if s.stamp == self.stamp => {
                    if s.key == key && s.counts == counts {
                        return (i, true);
                    }
                }
                _ => return (i, false),
            }
            i = (i + 1) & mask;
        }
    }

    /// The bounds kept for `key` that hold for `counts`: of every entry of the key whose counts
    /// are no better for the counted sides, the best lower bound, and of every one whose counts
    /// are no worse, the best upper bound; the card of the entry with these very counts (else
    /// of any that gave a bound).
    pub fn get(&self, key: (u64, u64), counts: Counts) -> Option<Bounds> {
        let mask = self.slots.len() - 1;
        let mut i = spread(key) as usize & mask;
        let mut out: Option<Bounds> = None;
        let mut exact_best = false;
        loop {
            match self.slots.get(i) {
                Some(s) if s.stamp == self.stamp => {
                    if s.key == key {
                        let same = s.counts == counts.bytes;
                        let lower = if same || (counts.ordered && at_least(counts.bytes, s.counts))
                        {
                            s.lower
                        } else {
                            i8::MIN
                        };
                        let upper = if same || (counts.ordered && at_least(s.counts, counts.bytes))
                        {
                            s.upper
                        } else {
                            i8::MAX
                        };
                        if lower > i8::MIN || upper < i8::MAX || same {
                            let b = out.get_or_insert(Bounds {
                                lower: i8::MIN,
                                upper: i8::MAX,
                                best: None,
                            });
                            b.lower = b.lower.max(lower);
                            b.upper = b.upper.min(upper);
                            if !exact_best && s.best > 0 && (same || b.best.is_none()) {
                                b.best = s.best.checked_sub(1);
                                exact_best = same;
                            }
                        }
                    }
                }
                _ => return out,
            }
            i = (i + 1) & mask;
        }
    }

    /// Narrow the bounds kept for `key` with `counts` to `lower..=upper` (a new entry when
    /// there is none).
    pub fn store(&mut self, key: (u64, u64), counts: u64, lower: i8, upper: i8, best: Option<u8>) {
        if (self.used + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let (i, found) = self.find(key, counts);
        let stamp = self.stamp;
        if let Some(s) = self.slots.get_mut(i) {
            if found {
                s.lower = s.lower.max(lower);
                s.upper = s.upper.min(upper);
                if let Some(b) = best {
                    s.best = b + 1;
                }
            } else {
                *s = Slot {
                    key,
                    counts,
                    stamp,
                    lower,
                    upper,
                    best: best.map_or(0, |b| b + 1),
                };
                self.used += 1;
            }
        }
    }

    fn grow(&mut self) {
        let size = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); size]);
        for s in old.into_iter().filter(|s| s.stamp == self.stamp) {
            let (i, _) = self.find(s.key, s.counts);
            if let Some(x) = self.slots.get_mut(i) {
                *x = s;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_at_least() {
        assert!(at_least(0x0505, 0x0505));
        assert!(at_least(0x0605, 0x0505));
        assert!(!at_least(0x0405, 0x0505));
        assert!(!at_least(0x0504, 0x0505));
        assert!(at_least(0x7f00, 0x0000));
        assert!(!at_least(0x0000_0000_0000_0001, 0x0100_0000_0000_0000));
    }

    #[test]
    fn bounds_of_better_and_worse_counts() {
        let mut t = Table::new();
        let key = (7, 9);
        // lower bound 3 found with counts 4 (counted side), 127-5 (the other)
        t.store(key, 0x7a04, 3, i8::MAX, Some(2));
        let c = |bytes| Counts {
            bytes,
            ordered: true,
        };
        // better counts: the lower bound holds
        assert_eq!(t.get(key, c(0x7b05)).map(|b| b.lower), Some(3));
        // worse: it does not
        assert_eq!(t.get(key, c(0x7903)).map(|b| b.lower), None);
        // unordered: only the same counts
        let u = |bytes| Counts {
            bytes,
            ordered: false,
        };
        assert_eq!(t.get(key, u(0x7b05)), None);
        assert_eq!(
            t.get(key, u(0x7a04)).map(|b| (b.lower, b.best)),
            Some((3, Some(2)))
        );
        t.store(key, 0x7903, i8::MIN, 5, None);
        assert_eq!(
            t.get(key, c(0x7903)).map(|b| (b.lower, b.upper)),
            Some((i8::MIN, 5))
        );
        assert_eq!(t.get(key, c(0x7802)).map(|b| b.upper), Some(5));
        assert_eq!(
            t.get(key, c(0x7a04)).map(|b| (b.lower, b.upper)),
            Some((3, i8::MAX))
        );
    }
}

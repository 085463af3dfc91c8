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
    /// The hand the entry belongs to (0: empty).
    stamp: u32,
    lower: i8,
    upper: i8,
    /// The best card's search bit plus one (0: none).
    best: u8,
}

/// An open-addressing hash table keyed exactly (never by a hash alone), emptied for a new hand
/// by moving on a stamp rather than by clearing its memory, and grown as a hand needs.
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

    fn find(&self, key: (u64, u64)) -> (usize, bool) {
        let mask = self.slots.len() - 1;
        let mut i = spread(key) as usize & mask;
        loop {
            match self.slots.get(i) {
                Some(s) if s.stamp == self.stamp => {
                    if s.key == key {
                        return (i, true);
                    }
                }
                _ => return (i, false),
            }
            i = (i + 1) & mask;
        }
    }

    pub fn get(&self, key: (u64, u64)) -> Option<Bounds> {
        match self.find(key) {
            (i, true) => self.slots.get(i).map(|s| Bounds {
                lower: s.lower,
                upper: s.upper,
                best: s.best.checked_sub(1),
            }),
            _ => None,
        }
    }

    /// Narrow the bounds kept for `key` to `lower..=upper` (a new entry when there is none).
    pub fn store(&mut self, key: (u64, u64), lower: i8, upper: i8, best: Option<u8>) {
        if (self.used + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let (i, found) = self.find(key);
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
            let (i, _) = self.find(s.key);
            if let Some(x) = self.slots.get_mut(i) {
                *x = s;
            }
        }
    }
}

//! What was said in the log already, so that a remote tool left out is said once, not on
//! every run.

use std::collections::HashSet;
use std::hash::{BuildHasher, Hash, RandomState};
use std::sync::{Mutex, PoisonError};

/// Things remembered at most: past it, they are forgotten and may be said once more. A server
/// that keeps listing new bad tools cannot grow it without bound.
const REMEMBERED: usize = 4096;

/// The log lines said already, by a key naming what they said. Each key is kept as its hash,
/// so a long name costs eight bytes.
#[derive(Debug, Default)]
pub(crate) struct Said {
    keys: Mutex<HashSet<u64>>,
    hasher: RandomState,
}

impl Said {
    /// Whether `key` is new: true the first time, false after (until forgotten).
    pub(crate) fn first(&self, key: impl Hash) -> bool {
        let key = self.hasher.hash_one(key);
        let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        if keys.len() >= REMEMBERED {
            keys.clear();
        }
        keys.insert(key)
    }
}

#[cfg(test)]
mod tests {
    use super::Said;

    #[test]
    fn a_key_is_new_once() {
        let said = Said::default();
        assert!(said.first("deep"));
        assert!(!said.first("deep"));
        assert!(said.first("huge"));
    }

    #[test]
    fn past_its_bound_it_forgets_rather_than_grows() {
        let said = Said::default();
        for key in 1..super::REMEMBERED {
            assert!(said.first(key.to_string()));
        }
        assert!(!said.first("1"), "remembered up to the bound");
        assert!(said.first("the last one"));
        assert!(said.first("1"), "past the bound, forgotten and said again");
    }
}

//! The sessions this process keeps, counted against their [`SessionBounds`].

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::SessionBounds;

/// The sessions kept by this process, by their store key: whose, how large, and when last used.
#[derive(Debug, Default)]
pub(crate) struct Ledger {
    bounds: SessionBounds,
    entries: Mutex<HashMap<String, Entry>>,
}

#[derive(Debug)]
struct Entry {
    principal: Option<String>,
    bytes: usize,
    used: Instant,
    expires: Instant,
}

/// A session that has room now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Room {
    /// It was kept already.
    Known,
    /// It was not: it is counted from now on.
    New,
}

/// No room for a session: the bound reached, and the sessions that could make room, oldest
/// first.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Full {
    pub(crate) bound: usize,
    pub(crate) oldest: Vec<String>,
}

impl Ledger {
    /// A ledger within `bounds`.
    pub(crate) fn new(bounds: SessionBounds) -> Self {
        Self {
            bounds,
            entries: Mutex::default(),
        }
    }

    /// The bounds it keeps within.
    pub(crate) fn bounds(&self) -> SessionBounds {
        self.bounds
    }

    fn entries(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Counts the session under `key`, `principal`'s, kept for `ttl`: it has room if it is
    /// counted already, or if neither its caller's bound nor the total is reached; else the
    /// sessions that could make room for it, its caller's own when it is their bound.
    pub(crate) fn reserve(
        &self,
        key: &str,
        principal: Option<&str>,
        ttl: Duration,
    ) -> Result<Room, Full> {
        let now = Instant::now();
        let mut entries = self.entries();
        entries.retain(|_, entry| entry.expires > now);
        if let Some(entry) = entries.get_mut(key) {
            entry.used = now;
            entry.expires = entry.expires.max(now + ttl);
            return Ok(Room::Known);
        }
        if let Some(principal) = principal {
            let theirs = |entry: &Entry| entry.principal.as_deref() == Some(principal);
            if entries.values().filter(|entry| theirs(entry)).count() >= self.bounds.per_caller {
                return Err(Full {
                    bound: self.bounds.per_caller,
                    oldest: oldest(&entries, theirs),
                });
            }
        }
        if entries.len() >= self.bounds.total {
            return Err(Full {
                bound: self.bounds.total,
                oldest: oldest(&entries, |_| true),
            });
        }
        let entry = Entry {
            principal: principal.map(str::to_owned),
            bytes: 0,
            used: now,
            expires: now + ttl,
        };
        entries.insert(key.to_owned(), entry);
        Ok(Room::New)
    }

    /// Notes that the session under `key` now keeps `bytes` for `ttl`; answers the sessions
    /// to let go, oldest first, to bring the total back within its bound.
    pub(crate) fn kept(
        &self,
        key: &str,
        principal: Option<&str>,
        bytes: usize,
        ttl: Duration,
    ) -> Vec<String> {
        let now = Instant::now();
        let mut entries = self.entries();
        let entry = entries.entry(key.to_owned()).or_insert_with(|| Entry {
            principal: principal.map(str::to_owned),
            bytes,
            used: now,
            expires: now + ttl,
        });
        (entry.bytes, entry.used, entry.expires) = (bytes, now, now + ttl);
        let mut over = entries
            .values()
            .map(|entry| entry.bytes)
            .sum::<usize>()
            .saturating_sub(self.bounds.total_bytes);
        let mut victims = Vec::new();
        for victim in oldest(&entries, |_| true) {
            if over == 0 {
                break;
            }
            if victim != key {
                over = over.saturating_sub(entries[&victim].bytes);
                victims.push(victim);
            }
        }
        victims
    }

    /// Stops counting the session under `key`: let go, or never kept.
    pub(crate) fn forget(&self, key: &str) {
        self.entries().remove(key);
    }

    /// How many sessions it counts, and their bytes.
    #[cfg(test)]
    fn size(&self) -> (usize, usize) {
        let entries = self.entries();
        (
            entries.len(),
            entries.values().map(|entry| entry.bytes).sum(),
        )
    }
}

/// The keys of the entries `chosen` keeps, least recently used first.
fn oldest(entries: &HashMap<String, Entry>, chosen: impl Fn(&Entry) -> bool) -> Vec<String> {
    let mut chosen: Vec<(&String, Instant)> = entries
        .iter()
        .filter(|(_, entry)| chosen(entry))
        .map(|(key, entry)| (key, entry.used))
        .collect();
    chosen.sort_by_key(|(_, used)| *used);
    chosen.into_iter().map(|(key, _)| key.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR: Duration = Duration::from_secs(3600);

    #[test]
    fn a_callers_bound_names_their_own_oldest_sessions() {
        let ledger = Ledger::new(SessionBounds::default().per_caller(2).total(10));
        assert_eq!(ledger.reserve("a1", Some("alice"), HOUR), Ok(Room::New));
        assert_eq!(ledger.reserve("b1", Some("bob"), HOUR), Ok(Room::New));
        assert_eq!(ledger.reserve("a2", Some("alice"), HOUR), Ok(Room::New));
        assert_eq!(ledger.reserve("a1", Some("alice"), HOUR), Ok(Room::Known));
        let full = ledger.reserve("a3", Some("alice"), HOUR).unwrap_err();
        assert_eq!(full.bound, 2);
        assert_eq!(
            full.oldest,
            ["a2", "a1"],
            "alice's own, least recently used first"
        );
        ledger.forget("a2");
        assert_eq!(ledger.reserve("a3", Some("alice"), HOUR), Ok(Room::New));
        assert_eq!(
            ledger.reserve("n1", None, HOUR),
            Ok(Room::New),
            "no caller: total only"
        );
    }

    #[test]
    fn the_total_bound_names_anyones_oldest_and_expired_ones_make_room() {
        let ledger = Ledger::new(SessionBounds::default().total(2));
        ledger.reserve("a", Some("alice"), Duration::ZERO).unwrap();
        ledger.reserve("b", Some("bob"), HOUR).unwrap();
        ledger.reserve("c", None, HOUR).expect("a's time ran out");
        let full = ledger.reserve("d", Some("dan"), HOUR).unwrap_err();
        assert_eq!(
            (full.bound, full.oldest),
            (2, vec!["b".to_owned(), "c".to_owned()])
        );
    }

    #[test]
    fn past_the_bytes_bound_the_oldest_others_are_named_until_it_holds() {
        let ledger = Ledger::new(SessionBounds::default().total_bytes(100));
        assert!(ledger.kept("a", None, 40, HOUR).is_empty());
        assert!(ledger.kept("b", None, 40, HOUR).is_empty());
        assert!(ledger.kept("c", None, 10, HOUR).is_empty());
        assert_eq!(ledger.kept("d", None, 50, HOUR), ["a"]);
        assert_eq!(ledger.size(), (4, 140), "counted until let go");
        assert_eq!(ledger.kept("a", None, 200, HOUR), ["b", "c", "d"]);
    }
}

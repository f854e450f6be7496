//! Where a run waits while its caller answers a question.
//!
//! Under MCP 2026-07-28 a question ends the tool call's round: the handler returns, and runs
//! again from the top when the caller calls again with the answer. What the run had done by
//! then (its conversation, turns, tokens, the answer whose calls wait for approval) must
//! outlive the round. It is kept here, under an id that the round's sealed `requestState`
//! carries, rather than in the `requestState` itself: neva bounds that to 8 KiB by default, and
//! sends it to the caller and back on every round, while a run's conversation grows to hundreds
//! of kilobytes. The sealed id is bound to the request and its principal, so a caller can
//! resume only its own run.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::store::Seal;
use crate::store::SessionBounds;
use crate::store::ledger::Ledger;

/// How long a paused run is kept: neva's default `requestState` lifetime (300 s), the time a
/// person has to answer, and 30 s more, so the state never outlives the run it points to.
pub const PAUSED_RUN_TTL: Duration = Duration::from_secs(330);

/// How often [`MemoryRuns`] sweeps what expired, at most: not on every put, which would read
/// every entry each time.
const SWEEP_EVERY: Duration = Duration::from_secs(1);

/// Why a [`RunStore`] failed.
pub type StoreError = Box<dyn std::error::Error + Send + Sync>;

/// A future a [`RunStore`] returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Keeps paused runs between the rounds of a tool call, each as opaque bytes under its run id.
///
/// [`MemoryRuns`] keeps them in the process, the default. A server whose rounds may land on
/// different replicas registers a shared one: `App::add_singleton(Runs::new(store))`.
pub trait RunStore: Send + Sync {
    /// Keeps `run` under `id` for `ttl`, replacing what was there.
    fn put<'a>(&'a self, id: &'a str, run: Vec<u8>, ttl: Duration) -> StoreFuture<'a, ()>;

    /// Removes and returns the run under `id`, if one is there and has not expired. A run is
    /// taken, not read: two retries of one round cannot both resume it.
    fn take<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<Vec<u8>>>;

    /// Whether the store answers now: a readiness probe asks this. A store in the process always
    /// does, the default.
    fn ping(&self) -> StoreFuture<'_, ()> {
        Box::pin(std::future::ready(Ok(())))
    }

    /// Whether what it keeps lives in this process only (and is lost when it stops), the
    /// default; a store every replica shares says `false`.
    fn is_local(&self) -> bool {
        true
    }

    /// How many runs it keeps in this process, when it knows: a server that stops waits for
    /// them to be answered within its grace period. Conversations kept for sessions
    /// ([`SESSION_PREFIX`]) are not runs and are not counted.
    fn held_here(&self) -> Option<usize> {
        None
    }

    /// Puts `value` under `id` for `ttl` unless another value is there, and answers whether
    /// `value` is there now (put now, or already there: its time to live is then renewed). A
    /// session's lock: one writer at a time.
    ///
    /// The default takes and puts, which is not atomic: two replicas may both claim one `id`.
    /// A store shared by replicas overrides it with one atomic command, as
    /// [`MemoryRuns`] and `RedisStore` do.
    fn claim<'a>(&'a self, id: &'a str, value: Vec<u8>, ttl: Duration) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            match self.take(id).await? {
                Some(there) if there != value => {
                    self.put(id, there, ttl).await?;
                    Ok(false)
                }
                _ => {
                    self.put(id, value, ttl).await?;
                    Ok(true)
                }
            }
        })
    }

    /// Adds `amount` to the counter under `key` (kept for `ttl` from its first booking) when
    /// the total stays at most `limit`, or when `amount` is not positive, and answers whether it
    /// did and the total after: the total as it was when it would pass `limit`. A quota's
    /// bookings ([`Quota`](crate::cost::Quota)), in billionths of a dollar.
    ///
    /// The default reads and puts back, which is not atomic: two replicas may both book the
    /// last of a quota. A store shared by replicas overrides it with one atomic command, as
    /// [`MemoryRuns`] and `RedisStore` do.
    fn book<'a>(
        &'a self,
        key: &'a str,
        amount: i64,
        limit: i64,
        ttl: Duration,
    ) -> StoreFuture<'a, (bool, i64)> {
        Box::pin(async move {
            let there = self.take(key).await?;
            let total = there.as_deref().map_or(0, counted);
            let booked = booked(total, amount, limit);
            let kept = booked.unwrap_or(total);
            self.put(key, kept.to_string().into_bytes(), ttl).await?;
            Ok((booked.is_some(), kept))
        })
    }
}

/// The total a counter holds, as [`RunStore::book`] keeps it: a number in ASCII.
fn counted(bytes: &[u8]) -> i64 {
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(0)
}

/// The total after booking `amount` on `total` under `limit`, if it may be booked.
pub(crate) fn booked(total: i64, amount: i64, limit: i64) -> Option<i64> {
    let after = total.saturating_add(amount);
    (amount <= 0 || after <= limit).then_some(after)
}

/// The start of every key a session keeps under in a [`RunStore`]: its conversation and its
/// lock, apart from the paused runs.
pub const SESSION_PREFIX: &str = "session/";

/// The start of every key a quota's counter is kept under in a [`RunStore`]
/// ([`RunStore::book`]), apart from the paused runs.
pub const QUOTA_PREFIX: &str = "quota/";

/// The [`RunStore`] an [`Orchestrator`](crate::Orchestrator) uses, as a server registers it in
/// neva's DI (`App::add_singleton(Runs::new(store))`); without one, the process's
/// [`MemoryRuns`].
///
/// A run is sealed before it goes into the store (ChaCha20-Poly1305, bound to its run id): the
/// store never reads a conversation, and a run altered there, or put under another run's id, is
/// refused, never resumed. The key is the process's own unless [`Self::with_secret`] gives one
/// that every replica shares.
#[derive(Clone)]
pub struct Runs {
    store: Arc<dyn RunStore>,
    seal: Arc<Seal>,
    /// The sessions this process keeps in the store, within their bounds.
    ledger: Arc<Ledger>,
}

impl Runs {
    /// Paused runs kept in `store`, sealed with a key of this process's own.
    pub fn new(store: impl RunStore + 'static) -> Self {
        Self {
            store: Arc::new(store),
            seal: Arc::new(Seal::random()),
            ledger: Arc::default(),
        }
    }

    /// Keeps the sessions within `bounds` ([`SessionBounds::default`] unless told otherwise).
    pub fn with_session_bounds(mut self, bounds: SessionBounds) -> Self {
        self.ledger = Arc::new(Ledger::new(bounds));
        self
    }

    /// The bounds its sessions are kept within.
    pub fn session_bounds(&self) -> SessionBounds {
        self.ledger.bounds()
    }

    /// The sessions this process keeps, counted.
    pub(crate) fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// Sealed with a key derived from `secret`, which every replica sharing the store must be
    /// given: a run one of them paused then goes on on any other.
    pub fn with_secret(mut self, secret: impl AsRef<[u8]>) -> Self {
        self.seal = Arc::new(Seal::from_secret(secret.as_ref()));
        self
    }

    /// Opens the runs sealed with `secret` too, still sealing with the one
    /// [`Self::with_secret`] gave: a secret being rotated. Give every replica the new secret
    /// this way first, then make it theirs with `with_secret` and accept the old one, and drop
    /// the old one once the runs it sealed have expired ([`PAUSED_RUN_TTL`]).
    pub fn accepting(mut self, secret: impl AsRef<[u8]>) -> Self {
        self.seal = Arc::new(Arc::unwrap_or_clone(self.seal).accepting(secret.as_ref()));
        self
    }

    /// The seal.
    pub(crate) fn seal(&self) -> &Seal {
        &self.seal
    }

    /// The process's own in-memory store.
    pub fn in_process() -> Self {
        static PROCESS: OnceLock<Runs> = OnceLock::new();
        PROCESS
            .get_or_init(|| Self::new(MemoryRuns::default()))
            .clone()
    }

    /// The store.
    pub(crate) fn store(&self) -> &dyn RunStore {
        &*self.store
    }

    /// Whether the store answers now ([`RunStore::ping`]), for a readiness probe.
    pub async fn ping(&self) -> Result<(), StoreError> {
        self.store.ping().await
    }

    /// Whether the runs paused here live in this process only ([`RunStore::is_local`]).
    pub fn is_local(&self) -> bool {
        self.store.is_local()
    }

    /// How many paused runs this process holds, when its store knows ([`RunStore::held_here`]).
    pub fn held_here(&self) -> Option<usize> {
        self.store.held_here()
    }
}

impl std::fmt::Debug for Runs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Runs")
    }
}

/// Paused runs in this process's memory: lost on restart, and not seen by other replicas.
#[derive(Debug, Default)]
pub struct MemoryRuns {
    runs: Mutex<HashMap<String, (Instant, Vec<u8>)>>,
    /// When it last swept what expired.
    swept: Mutex<Option<Instant>>,
}

impl MemoryRuns {
    fn runs(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Instant, Vec<u8>)>> {
        self.runs
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether it is time to sweep what expired, at `now`; if so, the time is noted.
    fn sweep_due(&self, now: Instant) -> bool {
        let mut swept = self
            .swept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let due = swept.is_none_or(|at| now.duration_since(at) >= SWEEP_EVERY);
        if due {
            *swept = Some(now);
        }
        due
    }

    /// How many runs are kept, expired ones not yet swept included.
    pub fn len(&self) -> usize {
        self.runs().len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl RunStore for MemoryRuns {
    fn put<'a>(&'a self, id: &'a str, run: Vec<u8>, ttl: Duration) -> StoreFuture<'a, ()> {
        let now = Instant::now();
        let mut runs = self.runs();
        // A put sweeps the runs nobody came back for, at most once a second.
        if self.sweep_due(now) {
            runs.retain(|_, (expires, _)| *expires > now);
        }
        runs.insert(id.to_owned(), (now + ttl, run));
        Box::pin(std::future::ready(Ok(())))
    }

    fn take<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        let taken = self.runs().remove(id);
        let run = taken
            .filter(|(expires, _)| *expires > Instant::now())
            .map(|(_, run)| run);
        Box::pin(std::future::ready(Ok(run)))
    }

    fn held_here(&self) -> Option<usize> {
        let now = Instant::now();
        Some(
            self.runs()
                .iter()
                .filter(|(id, (expires, _))| {
                    *expires > now
                        && !id.starts_with(SESSION_PREFIX)
                        && !id.starts_with(QUOTA_PREFIX)
                })
                .count(),
        )
    }

    fn book<'a>(
        &'a self,
        key: &'a str,
        amount: i64,
        limit: i64,
        ttl: Duration,
    ) -> StoreFuture<'a, (bool, i64)> {
        let now = Instant::now();
        let mut runs = self.runs();
        // Under one lock: bookings at once see each other's.
        let (expires, total) = match runs.get(key) {
            Some((expires, there)) if *expires > now => (*expires, counted(there)),
            _ => (now + ttl, 0),
        };
        let booked = booked(total, amount, limit);
        if let Some(after) = booked {
            runs.insert(key.to_owned(), (expires, after.to_string().into_bytes()));
        }
        Box::pin(std::future::ready(Ok((
            booked.is_some(),
            booked.unwrap_or(total),
        ))))
    }

    fn claim<'a>(&'a self, id: &'a str, value: Vec<u8>, ttl: Duration) -> StoreFuture<'a, bool> {
        let now = Instant::now();
        let mut runs = self.runs();
        let held = runs
            .get(id)
            .is_some_and(|(expires, there)| *expires > now && *there != value);
        if !held {
            runs.insert(id.to_owned(), (now + ttl, value));
        }
        Box::pin(std::future::ready(Ok(!held)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_run_is_taken_once_and_not_after_it_expires() {
        let runs = MemoryRuns::default();
        runs.put("a", b"one".to_vec(), Duration::from_secs(60))
            .await
            .unwrap();
        runs.put("b", b"two".to_vec(), Duration::ZERO)
            .await
            .unwrap();
        assert_eq!(runs.take("a").await.unwrap().as_deref(), Some(&b"one"[..]));
        assert_eq!(runs.take("a").await.unwrap(), None);
        assert_eq!(runs.take("b").await.unwrap(), None);
        runs.put("c", b"three".to_vec(), Duration::ZERO)
            .await
            .unwrap();
        tokio::time::sleep(SWEEP_EVERY).await;
        runs.put("d", b"four".to_vec(), Duration::from_secs(60))
            .await
            .unwrap();
        assert_eq!(runs.len(), 1, "the expired run was swept");
    }
}

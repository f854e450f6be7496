//! Final rounds whose lock could not be taken: the handler of such a round refuses to run.
//!
//! neva holds a lock on a final round (`RequestStateStore::reserve`) across its cache lookup, its
//! handler and the caching of its answer, so that two retries of one round never both run. The
//! lock cannot fail in neva's API: a store that could not take it (Redis did not answer) returns
//! a guard all the same, and neva runs the handler. A store of Ladoga's marks the round here
//! instead, for the task that runs it, and an orchestrator's handler, which runs in the same
//! task, refuses to go on: fail closed, with an error the caller may retry.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use tokio::task::Id;

/// The tasks whose final round runs without its lock.
fn unlocked() -> std::sync::MutexGuard<'static, HashSet<Id>> {
    static UNLOCKED: OnceLock<Mutex<HashSet<Id>>> = OnceLock::new();
    UNLOCKED
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Marks the final round the current task runs as going on without its lock (or without
/// knowing whether it ran before), until [`clear_here`].
#[cfg_attr(any(not(feature = "redis"), feature = "legacy-spec"), allow(dead_code))]
pub(crate) fn mark_here() {
    if let Some(id) = tokio::task::try_id() {
        unlocked().insert(id);
    }
}

/// The round the current task ran is over: its mark, if any, goes. The guard a store returns
/// from `reserve`, dropped by neva once the round's answer is cached, calls this.
#[cfg_attr(any(not(feature = "redis"), feature = "legacy-spec"), allow(dead_code))]
pub(crate) fn clear_here() {
    if let Some(id) = tokio::task::try_id() {
        unlocked().remove(&id);
    }
}

/// The guard of a round its store could not lock: it unmarks the round when neva drops it.
#[cfg_attr(any(not(feature = "redis"), feature = "legacy-spec"), allow(dead_code))]
pub(crate) struct Unlocked;

impl Unlocked {
    /// Marks the round the current task runs.
    #[cfg_attr(any(not(feature = "redis"), feature = "legacy-spec"), allow(dead_code))]
    pub(crate) fn mark() -> Self {
        mark_here();
        Self
    }
}

impl Drop for Unlocked {
    fn drop(&mut self) {
        clear_here();
    }
}

/// Whether the final round this task runs goes on without the lock its store should hold: a
/// handler that must not run twice refuses to go on, and asks its caller to retry.
///
/// `#[orchestrator]` tools check this themselves; a tool of your own that asks its caller
/// (`ctx.elicit`) and acts on the answer may check it too, with `RedisStore` (feature `redis`)
/// as neva's request-state store.
pub fn round_unlocked() -> bool {
    tokio::task::try_id().is_some_and(|id| unlocked().contains(&id))
}

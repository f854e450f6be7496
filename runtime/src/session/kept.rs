//! A session as it waits in the store between its calls.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use svir::Message;

/// A session's conversation and who it belongs to, sealed in the store.
#[derive(Serialize, Deserialize)]
pub(super) struct Kept {
    /// The caller that started it ([`principal::of`](super::principal::of)); `None` for one
    /// started with no caller known.
    pub(super) principal: Option<String>,
    /// The conversation: each call's brief, answers and results, in order.
    pub(super) messages: Vec<Message>,
    /// When its last call ended, in milliseconds since the epoch.
    pub(super) used_at: u64,
}

impl Kept {
    /// `messages` of `principal`'s session, as of now.
    pub(super) fn new(principal: Option<String>, messages: Vec<Message>) -> Self {
        Self {
            principal,
            messages,
            used_at: now_millis(),
        }
    }

    /// What is left of its time to live `ttl`, counted from its last call.
    pub(super) fn left_of(&self, ttl: Duration) -> Duration {
        let since = Duration::from_millis(now_millis().saturating_sub(self.used_at));
        ttl.saturating_sub(since).max(Duration::from_millis(1))
    }
}

/// Now, in milliseconds since the epoch.
fn now_millis() -> u64 {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}

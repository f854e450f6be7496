//! A session as it waits in the store between its calls.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use svir::{Message, Role};

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

/// `messages` within `bytes` of JSON: the oldest calls' exchanges dropped whole, from a brief
/// to the next call's brief, so what is left is still a valid conversation. The last call's is
/// always kept.
pub(super) fn within(mut messages: Vec<Message>, bytes: usize) -> (Vec<Message>, usize) {
    let size = |messages: &[Message]| serde_json::to_vec(messages).map_or(0, |json| json.len());
    let mut dropped = 0;
    while size(&messages) > bytes {
        // Where the next call began: a brief after an answer.
        let next_call = (1..messages.len()).find(|&at| {
            messages[at].role == Role::User && messages[at - 1].role == Role::Assistant
        });
        let Some(at) = next_call else { break };
        messages.drain(..at);
        dropped += at;
    }
    (messages, dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(brief: &str, answer: &str) -> [Message; 2] {
        [Message::user(brief), Message::assistant(answer)]
    }

    #[test]
    fn the_oldest_calls_go_first_and_the_last_one_stays() {
        let messages: Vec<Message> = [
            call("one", &"a".repeat(400)),
            call("two", "b"),
            call("three", "c"),
        ]
        .into_iter()
        .flatten()
        .collect();
        let (kept, dropped) = within(messages.clone(), 10_000);
        assert_eq!((kept.len(), dropped), (6, 0), "within the bound, all stay");
        let (kept, dropped) = within(messages.clone(), 200);
        assert_eq!(dropped, 2, "the first call's exchange went");
        assert_eq!(kept[0], Message::user("two"));
        let (kept, _) = within(messages, 1);
        assert_eq!(kept.len(), 2, "the last call stays, however large");
        assert_eq!(kept[0], Message::user("three"));
    }
}

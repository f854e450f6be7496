//! What a caller tells a run in flight: messages kept in order in the run store under the run's
//! session (or task), for the run to read at its next turn, whichever replica it runs on.
//!
//! Each message is numbered by one atomic count ([`RunStore::book`](crate::RunStore::book), a
//! single command on Redis) and kept sealed under its number; a run reads the messages past the
//! last it read. The inbox's key names the caller's principal: a message from another caller
//! goes to an inbox no run of this caller reads.

use std::time::Duration;

use crate::store::Runs;

/// The messages sent to the runs of one session (or task) by one caller.
pub(crate) struct Inbox {
    runs: Runs,
    key: String,
    ttl: Duration,
}

impl Inbox {
    /// The inbox under `key` in `runs`' store, its messages kept for `ttl`.
    pub(crate) fn new(runs: Runs, key: String, ttl: Duration) -> Self {
        Self { runs, key, ttl }
    }

    /// Keeps `text` as the next message: its number, from 1.
    pub(crate) async fn post(&self, text: &str) -> Result<u64, String> {
        let (_, number) = (self.runs.store())
            .book(&self.count_key(), 1, i64::MAX, self.ttl)
            .await
            .map_err(|error| error.to_string())?;
        let key = self.message_key(number);
        let sealed = self.runs.seal().seal(&key, text.as_bytes())?;
        (self.runs.store().put(&key, sealed, self.ttl).await).map_err(|error| error.to_string())?;
        Ok(u64::try_from(number).unwrap_or_default())
    }

    /// The messages past the `read`-th, in order, with their numbers; each taken from the store.
    /// A message numbered but not kept yet (its sender between the two commands) is left for the
    /// next read.
    pub(crate) async fn read_after(&self, read: u64) -> Result<Vec<(u64, String)>, String> {
        let store = self.runs.store();
        let count = self.count().await?;
        let mut messages = Vec::new();
        for number in read + 1..=count {
            let key = self.message_key(number as i64);
            let Some(sealed) = store.take(&key).await.map_err(|error| error.to_string())? else {
                break;
            };
            let text = (self.runs.seal().open(&key, &sealed))
                .and_then(|bytes| String::from_utf8(bytes).ok());
            match text {
                Some(text) => messages.push((number, text)),
                None => {
                    tracing::warn!(target: "ladoga", "a message to a run does not verify: left out")
                }
            }
        }
        Ok(messages)
    }

    /// How many messages were ever sent to it (within its time to live).
    pub(crate) async fn count(&self) -> Result<u64, String> {
        let (_, count) = (self.runs.store())
            .book(&self.count_key(), 0, i64::MAX, self.ttl)
            .await
            .map_err(|error| error.to_string())?;
        Ok(u64::try_from(count).unwrap_or_default())
    }

    fn count_key(&self) -> String {
        format!("{}/count", self.key)
    }

    fn message_key(&self, number: i64) -> String {
        format!("{}/{number}", self.key)
    }
}

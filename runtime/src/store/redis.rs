//! Paused runs and neva's cache of final rounds on a Redis server that every replica of an MCP
//! server shares (feature `redis`).
//!
//! Under MCP 2026-07-28 the rounds of one tool call may land on different replicas behind a
//! load balancer. A run paused on one must go on on another ([`RunStore`]), and the retry of a
//! final round must find the answer another replica committed, and wait while another replica
//! is still committing it (neva's `RequestStateStore`, whose `reserve` is a lock every replica
//! sees).
//!
//! Redis may restart under a running server. Every command is checked: one that fails on the
//! connection (Redis restarted, or is away) is sent once more on a new connection, and one that
//! still fails is an error the run reports, and a `warn` line, never silence.

use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Cmd, FromRedisValue, RedisError};

use crate::store::{QUOTA_PREFIX, RunStore, SESSION_PREFIX, StoreError, StoreFuture};

/// How long a command may wait for Redis's answer before it fails: a Redis that hangs is a
/// Redis that does not answer.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(3);

/// How long a new connection may take.
const CONNECTION_TIMEOUT: Duration = Duration::from_secs(2);

/// How many times a dropped connection is made again before a command fails: a few hundred
/// milliseconds in all, so that a Redis that is away fails a call at once rather than holding it.
const RECONNECTS: usize = 2;

/// A Redis server shared by an MCP server's replicas: it keeps the runs paused for their
/// caller's answer, as a [`RunStore`], and neva's final responses and their locks, as a
/// `RequestStateStore` (MCP 2026-07-28).
///
/// # Examples
/// ```no_run
/// # #[cfg(not(feature = "legacy-spec"))]
/// # async fn serve() -> Result<(), ladoga::StoreError> {
/// use ladoga::{RedisStore, Runs};
/// use neva::App;
///
/// let store = RedisStore::connect("redis://127.0.0.1:6379/").await?;
/// let app = App::new()
///     .with_request_state_store(store.clone())
///     .add_singleton(Runs::new(store));
/// # let _ = app;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisStore {
    connection: ConnectionManager,
    prefix: String,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

/// Why a command failed, without the server's address or anything else of the URL in it: this
/// text may reach a caller.
#[derive(Debug, thiserror::Error)]
#[error("Redis did not answer ({0})")]
struct NoAnswer(&'static str);

impl NoAnswer {
    fn of(error: &RedisError) -> Self {
        Self(if error.is_timeout() {
            "it timed out"
        } else if error.is_connection_refusal() {
            "the connection was refused"
        } else if error.is_io_error() || error.is_connection_dropped() {
            "the connection dropped"
        } else {
            "it answered with an error"
        })
    }
}

impl RedisStore {
    /// Connects to the Redis server at `url` (`redis://HOST:PORT/DB`), and reconnects by itself
    /// whenever the connection drops. Keys start with `ladoga:` unless [`Self::with_prefix`]
    /// says otherwise.
    ///
    /// A Redis that is not there yet is no error: the first command connects, and fails if it
    /// still is not there. A URL that is not one is.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let client = redis::Client::open(url)?;
        let config = ConnectionManagerConfig::new()
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_connection_timeout(Some(CONNECTION_TIMEOUT))
            .set_number_of_retries(RECONNECTS);
        let connection = ConnectionManager::new_lazy_with_config(client, config)?;
        Ok(Self {
            connection,
            prefix: "ladoga".to_owned(),
        })
    }

    /// Keys start with `prefix` and a colon: servers that share one Redis keep apart.
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    fn key(&self, kind: &str, id: &str) -> String {
        format!("{}:{kind}:{id}", self.prefix)
    }

    /// The key of what a [`RunStore`] keeps under `id`: `PREFIX:run:ID` for a paused run,
    /// `PREFIX:session:…` for a session's conversation and lock, `PREFIX:quota:…` for a quota's
    /// counter.
    fn run_key(&self, id: &str) -> String {
        if let Some(quota) = id.strip_prefix(QUOTA_PREFIX) {
            return self.key("quota", quota);
        }
        match id.strip_prefix(SESSION_PREFIX) {
            Some(session) => self.key("session", session),
            None => self.key("run", id),
        }
    }

    /// Sends `command`, and once more on a new connection when the first failed on its
    /// connection (a Redis restarted since the last command leaves a dead one behind).
    async fn query<T: FromRedisValue>(&self, command: &Cmd) -> Result<T, NoAnswer> {
        let mut connection = self.connection.clone();
        match command.query_async(&mut connection).await {
            Ok(answer) => Ok(answer),
            Err(error) if on_connection(&error) => {
                tracing::debug!(target: "ladoga", %error, "Redis dropped the connection: sending again");
                command.query_async(&mut connection).await.map_err(|error| {
                    tracing::debug!(target: "ladoga", %error, "Redis did not answer");
                    NoAnswer::of(&error)
                })
            }
            Err(error) => {
                tracing::debug!(target: "ladoga", %error, "Redis answered with an error");
                Err(NoAnswer::of(&error))
            }
        }
    }
}

/// Whether `error` is the connection's, not the command's.
fn on_connection(error: &RedisError) -> bool {
    error.is_unrecoverable_error()
        || error.is_io_error()
        || error.is_connection_dropped()
        || error.is_connection_refusal()
        || error.is_timeout()
}

/// [`RunStore::book`] in Redis: the total read, checked and added to in one script, its time to
/// live set at the first booking.
const BOOK: &str = r"
local total = tonumber(redis.call('GET', KEYS[1]) or '0')
local amount = tonumber(ARGV[1])
if amount > 0 and total + amount > tonumber(ARGV[2]) then
    return {0, total}
end
local after = redis.call('INCRBY', KEYS[1], amount)
if redis.call('PTTL', KEYS[1]) < 0 then
    redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return {1, after}
";

impl RunStore for RedisStore {
    fn put<'a>(&'a self, id: &'a str, run: Vec<u8>, ttl: Duration) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let millis = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
            let mut command = redis::cmd("SET");
            command.arg(self.run_key(id)).arg(run).arg("PX").arg(millis);
            self.query::<()>(&command).await?;
            Ok(())
        })
    }

    fn take<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        Box::pin(async move {
            // Read and removed in one command: two replicas cannot both take one run. Sent again
            // after a dropped connection, it finds nothing if the first one took it: the run is
            // then lost, never resumed twice.
            let mut command = redis::cmd("GETDEL");
            command.arg(self.run_key(id));
            Ok(self.query::<Option<Vec<u8>>>(&command).await?)
        })
    }

    fn ping(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            self.query::<()>(&redis::cmd("PING")).await?;
            Ok(())
        })
    }

    fn is_local(&self) -> bool {
        false
    }

    /// One script, so that replicas booking at once each see the others' bookings.
    fn book<'a>(
        &'a self,
        key: &'a str,
        amount: i64,
        limit: i64,
        ttl: Duration,
    ) -> StoreFuture<'a, (bool, i64)> {
        Box::pin(async move {
            let millis = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
            let mut command = redis::cmd("EVAL");
            command
                .arg(BOOK)
                .arg(1)
                .arg(self.run_key(key))
                .arg(amount)
                .arg(limit)
                .arg(millis);
            let (done, total): (i64, i64) = self.query(&command).await?;
            Ok((done == 1, total))
        })
    }

    fn claim<'a>(&'a self, id: &'a str, value: Vec<u8>, ttl: Duration) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let millis = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
            let key = self.run_key(id);
            // Set only where nothing is: one command, so two replicas cannot both claim it.
            let mut set = redis::cmd("SET");
            set.arg(&key).arg(&value).arg("NX").arg("PX").arg(millis);
            if self.query::<Option<String>>(&set).await?.is_some() {
                return Ok(true);
            }
            // Held: by this claimant (a later round of its run), whose claim is renewed.
            let mut get = redis::cmd("GET");
            get.arg(&key);
            if self.query::<Option<Vec<u8>>>(&get).await?.as_deref() != Some(&value[..]) {
                return Ok(false);
            }
            let mut renew = redis::cmd("PEXPIRE");
            renew.arg(&key).arg(millis);
            self.query::<()>(&renew).await?;
            Ok(true)
        })
    }
}

#[cfg(not(feature = "legacy-spec"))]
mod final_rounds {
    use super::*;

    use neva::app::mrtr_store::RequestStateStore;
    use neva::types::Response;

    use crate::metrics;
    use crate::store::Unlocked;

    /// How long a replica holds the lock on a final round before it lapses by itself: longer than
    /// any round runs, so it lapses only for a replica that died holding it.
    const LOCK_TTL: Duration = Duration::from_secs(60);

    /// How often a replica waiting for a round's lock tries again.
    const LOCK_RETRY: Duration = Duration::from_millis(25);

    /// How many times a replica tries to let go of a lock, a second apart.
    const RELEASES: usize = 10;

    /// How long it waits between two tries.
    const RELEASE_RETRY: Duration = Duration::from_secs(1);

    /// Deletes a lock only while it still holds this holder's token.
    const RELEASE: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

    impl RequestStateStore for RedisStore {
        async fn get(&self, tag: &str) -> Option<Response> {
            let mut command = redis::cmd("GET");
            command.arg(self.key("state", tag));
            match self.query::<Option<Vec<u8>>>(&command).await {
                Ok(kept) => kept.and_then(|bytes| serde_json::from_slice(&bytes).ok()),
                Err(error) => {
                    // The round cannot know whether it ran before: it must not run now. The
                    // handler finds the round marked, as for a lock not taken.
                    metrics::store_failed("get");
                    tracing::warn!(target: "ladoga", %error, "a final round's cached answer could not be read: the round is refused, and may be retried");
                    crate::store::mark_here();
                    None
                }
            }
        }

        async fn put(&self, tag: &str, response: Response, exp: u64) {
            let Ok(bytes) = serde_json::to_vec(&response) else {
                return;
            };
            let mut command = redis::cmd("SET");
            command
                .arg(self.key("state", tag))
                .arg(bytes)
                .arg("EXAT")
                .arg(exp.max(1));
            if let Err(error) = self.query::<()>(&command).await {
                metrics::store_failed("commit");
                tracing::warn!(target: "ladoga", %error, "a final round's answer was not kept: a retry of that round will be refused, not run again");
            }
        }

        async fn reserve(&self, tag: &str) -> Box<dyn Send> {
            let key = self.key("lock", tag);
            let token = uuid::Uuid::new_v4().simple().to_string();
            let millis = u64::try_from(LOCK_TTL.as_millis()).unwrap_or(u64::MAX);
            let mut take = redis::cmd("SET");
            take.arg(&key).arg(&token).arg("NX").arg("PX").arg(millis);
            let mut holder = redis::cmd("GET");
            holder.arg(&key);
            let started = tokio::time::Instant::now();
            let failure = loop {
                match self.query::<Option<String>>(&take).await {
                    Ok(Some(_)) => break None,
                    // Taken by a first attempt whose answer was lost on the connection?
                    Ok(None) => match self.query::<Option<String>>(&holder).await {
                        Ok(Some(held)) if held == token => break None,
                        Ok(_) if started.elapsed() < LOCK_TTL => {
                            tokio::time::sleep(LOCK_RETRY).await
                        }
                        Ok(_) => {
                            break Some("it stayed held longer than any round runs".to_owned());
                        }
                        Err(error) => break Some(error.to_string()),
                    },
                    Err(error) => break Some(error.to_string()),
                }
            };
            match failure {
                None => Box::new(Lock {
                    store: self.clone(),
                    key,
                    token,
                }),
                // Never a final round without its lock: the handler finds the round marked and
                // refuses to run, with an error its caller may retry.
                Some(reason) => {
                    metrics::store_failed("lock");
                    tracing::warn!(target: "ladoga", %reason, "a final round's lock could not be taken: the round is refused, and may be retried");
                    Box::new(Unlocked::mark())
                }
            }
        }
    }

    /// A replica's hold on a final round, released when dropped.
    struct Lock {
        store: RedisStore,
        key: String,
        token: String,
    }

    impl Drop for Lock {
        fn drop(&mut self) {
            // A cached answer that could not be read marked the round: it is over now.
            crate::store::clear_here();
            let Ok(runtime) = tokio::runtime::Handle::try_current() else {
                return; // it lapses after LOCK_TTL
            };
            let store = self.store.clone();
            let mut release = redis::cmd("EVAL");
            release
                .arg(RELEASE)
                .arg(1)
                .arg(std::mem::take(&mut self.key))
                .arg(std::mem::take(&mut self.token));
            // A Redis that restarts with its data keeps the lock: let go of it once it is back,
            // rather than make every retry of the round wait for it to lapse.
            runtime.spawn(async move {
                for attempt in 1..=RELEASES {
                    match store.query::<i64>(&release).await {
                        Ok(_) => return,
                        Err(_) if attempt < RELEASES => tokio::time::sleep(RELEASE_RETRY).await,
                        Err(error) => {
                            metrics::store_failed("unlock");
                            tracing::warn!(target: "ladoga", %error, "a final round's lock was not released: it lapses by itself within a minute");
                        }
                    }
                }
            });
        }
    }
}

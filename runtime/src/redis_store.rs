//! Paused runs and neva's cache of final rounds on a Redis server that every replica of an MCP
//! server shares (feature `redis`).
//!
//! Under MCP 2026-07-28 the rounds of one tool call may land on different replicas behind a
//! load balancer. A run paused on one must go on on another ([`RunStore`]), and the retry of a
//! final round must find the answer another replica committed, and wait while another replica
//! is still committing it (neva's `RequestStateStore`, whose `reserve` is a lock every replica
//! sees).

use std::time::Duration;

use redis::aio::ConnectionManager;

use crate::run_store::{RunStore, StoreError, StoreFuture};

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

impl RedisStore {
    /// Connects to the Redis server at `url` (`redis://HOST:PORT/DB`), and reconnects by itself
    /// whenever the connection drops. Keys start with `ladoga:` unless [`Self::with_prefix`]
    /// says otherwise.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let client = redis::Client::open(url)?;
        let connection = ConnectionManager::new(client).await?;
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
}

impl RunStore for RedisStore {
    fn put<'a>(&'a self, id: &'a str, run: Vec<u8>, ttl: Duration) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let millis = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
            redis::cmd("SET")
                .arg(self.key("run", id))
                .arg(run)
                .arg("PX")
                .arg(millis)
                .query_async::<()>(&mut connection)
                .await?;
            Ok(())
        })
    }

    fn take<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            // Read and removed in one command: two replicas cannot both take one run.
            let run = redis::cmd("GETDEL")
                .arg(self.key("run", id))
                .query_async::<Option<Vec<u8>>>(&mut connection)
                .await?;
            Ok(run)
        })
    }

    fn ping(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            redis::cmd("PING").query_async::<()>(&mut connection).await?;
            Ok(())
        })
    }

    fn is_local(&self) -> bool {
        false
    }
}

#[cfg(not(feature = "legacy-spec"))]
mod final_rounds {
    use super::*;

    use neva::app::mrtr_store::RequestStateStore;
    use neva::types::Response;

    /// How long a replica holds the lock on a final round before it lapses by itself: longer than
    /// any round runs, so it lapses only for a replica that died holding it.
    const LOCK_TTL: Duration = Duration::from_secs(60);

    /// How often a replica waiting for a round's lock tries again.
    const LOCK_RETRY: Duration = Duration::from_millis(25);

    /// Deletes a lock only while it still holds this holder's token.
    const RELEASE: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

    impl RequestStateStore for RedisStore {
        async fn get(&self, tag: &str) -> Option<Response> {
            let mut connection = self.connection.clone();
            let kept = redis::cmd("GET")
                .arg(self.key("state", tag))
                .query_async::<Option<Vec<u8>>>(&mut connection)
                .await;
            match kept {
                Ok(kept) => kept.and_then(|bytes| serde_json::from_slice(&bytes).ok()),
                Err(error) => {
                    tracing::warn!(target: "ladoga", %error, "Redis did not answer for a final round");
                    None
                }
            }
        }

        async fn put(&self, tag: &str, response: Response, exp: u64) {
            let Ok(bytes) = serde_json::to_vec(&response) else {
                return;
            };
            let mut connection = self.connection.clone();
            let kept = redis::cmd("SET")
                .arg(self.key("state", tag))
                .arg(bytes)
                .arg("EXAT")
                .arg(exp.max(1))
                .query_async::<()>(&mut connection)
                .await;
            if let Err(error) = kept {
                tracing::warn!(target: "ladoga", %error, "Redis did not keep a final round");
            }
        }

        async fn reserve(&self, tag: &str) -> Box<dyn Send> {
            let key = self.key("lock", tag);
            let token = uuid::Uuid::new_v4().simple().to_string();
            let mut connection = self.connection.clone();
            let millis = u64::try_from(LOCK_TTL.as_millis()).unwrap_or(u64::MAX);
            let started = tokio::time::Instant::now();
            loop {
                let taken = redis::cmd("SET")
                    .arg(&key)
                    .arg(&token)
                    .arg("NX")
                    .arg("PX")
                    .arg(millis)
                    .query_async::<Option<String>>(&mut connection)
                    .await;
                match taken {
                    Ok(Some(_)) => {
                        return Box::new(Lock {
                            connection,
                            key,
                            token,
                        });
                    }
                    Ok(None) if started.elapsed() < LOCK_TTL => {
                        tokio::time::sleep(LOCK_RETRY).await
                    }
                    // Held longer than any round runs, or Redis is away: go on unlocked, as
                    // neva's default store would, and say so.
                    Ok(None) | Err(_) => {
                        tracing::warn!(target: "ladoga", "a final round goes on without its lock");
                        return Box::new(());
                    }
                }
            }
        }
    }

    /// A replica's hold on a final round, released when dropped.
    struct Lock {
        connection: ConnectionManager,
        key: String,
        token: String,
    }

    impl Drop for Lock {
        fn drop(&mut self) {
            let Ok(runtime) = tokio::runtime::Handle::try_current() else {
                return; // it lapses after LOCK_TTL
            };
            let mut connection = self.connection.clone();
            let (key, token) = (
                std::mem::take(&mut self.key),
                std::mem::take(&mut self.token),
            );
            runtime.spawn(async move {
                let _ = redis::cmd("EVAL")
                    .arg(RELEASE)
                    .arg(1)
                    .arg(key)
                    .arg(token)
                    .query_async::<i64>(&mut connection)
                    .await;
            });
        }
    }
}

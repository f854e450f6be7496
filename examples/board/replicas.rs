//! What lets several replicas of the board answer the rounds of one call: the secret that seals
//! a round's `requestState`, the same on every replica, and a Redis server every replica keeps
//! its paused runs and its final rounds in (MCP 2026-07-28).

use neva::App;

/// The variable holding the request-state secret.
pub const SECRET_VAR: &str = "LADOGA_STATE_SECRET";

/// The variable naming a file that holds it instead.
pub const SECRET_FILE_VAR: &str = "LADOGA_STATE_SECRET_FILE";

/// The shortest secret accepted, in bytes.
const MIN_SECRET: usize = 32;

/// What the replicas share.
#[derive(Default)]
pub struct Shared {
    secret: Option<Vec<u8>>,
    redis: Option<ladoga::RedisStore>,
}

impl Shared {
    /// The secret from the environment (`LADOGA_STATE_SECRET`, else the file
    /// `LADOGA_STATE_SECRET_FILE` names, its ending newline left out), and the Redis server at
    /// `redis`; why not, when either is unusable.
    pub async fn from_env(redis: Option<&str>) -> Result<Self, String> {
        let secret = match (
            std::env::var_os(SECRET_VAR),
            std::env::var_os(SECRET_FILE_VAR),
        ) {
            (Some(secret), _) => Some(secret.into_encoded_bytes()),
            (None, Some(path)) => {
                let mut secret = std::fs::read(&path).map_err(|error| {
                    format!(
                        "{SECRET_FILE_VAR} names `{}`, which cannot be read: {error}",
                        path.display()
                    )
                })?;
                while secret
                    .last()
                    .is_some_and(|byte| matches!(byte, b'\n' | b'\r'))
                {
                    secret.pop();
                }
                Some(secret)
            }
            (None, None) => None,
        };
        if let Some(secret) = &secret
            && secret.len() < MIN_SECRET
        {
            return Err(format!(
                "the request-state secret ({SECRET_VAR} or {SECRET_FILE_VAR}) must be at least \
                 {MIN_SECRET} bytes; it has {}",
                secret.len()
            ));
        }
        let redis = match redis {
            Some(_) if secret.is_none() => {
                return Err(format!(
                    "--redis shares paused runs between replicas, which must also share the \
                     secret that seals them: set {SECRET_VAR} or {SECRET_FILE_VAR}"
                ));
            }
            Some(url) => Some(
                ladoga::RedisStore::connect(url)
                    .await
                    .map_err(|error| format!("cannot use the Redis server at `{url}`: {error}"))?,
            ),
            None => None,
        };
        Ok(Self { secret, redis })
    }

    /// `app` sealing its rounds with the shared secret, and keeping its paused runs (sealed with
    /// the same secret) and final rounds in Redis, where given. Under `legacy-spec` a run never
    /// pauses and there is no `requestState`: only the runs' store applies.
    pub fn apply(self, app: App) -> App {
        let Some(secret) = self.secret else {
            return app;
        };
        #[cfg(not(feature = "legacy-spec"))]
        let app = app.with_request_state_secret(&secret);
        let Some(redis) = self.redis else {
            return app;
        };
        let runs = ladoga::Runs::new(redis.clone()).with_secret(&secret);
        #[cfg(not(feature = "legacy-spec"))]
        let app = app.with_request_state_store(redis);
        #[cfg(feature = "legacy-spec")]
        drop(redis);
        app.add_singleton(runs)
    }
}

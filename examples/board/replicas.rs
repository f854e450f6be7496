//! What lets several replicas of the board answer the rounds of one call: the secret that seals
//! a round's `requestState`, the same on every replica (and, while it is rotated, the other one
//! they accept), and a Redis server every replica keeps its paused runs and its final rounds in
//! (MCP 2026-07-28).

use neva::App;

/// The variable holding the request-state secret.
pub const SECRET_VAR: &str = "LADOGA_STATE_SECRET";

/// The variable naming a file that holds it instead.
pub const SECRET_FILE_VAR: &str = "LADOGA_STATE_SECRET_FILE";

/// The variable holding a secret accepted too, not sealed with: while the secret is rotated.
pub const ACCEPTED_VAR: &str = "LADOGA_STATE_SECRET_ACCEPTED";

/// The variable naming a file that holds it instead.
pub const ACCEPTED_FILE_VAR: &str = "LADOGA_STATE_SECRET_ACCEPTED_FILE";

/// The shortest secret accepted, in bytes.
const MIN_SECRET: usize = 32;

/// What the replicas share.
#[derive(Default)]
pub struct Shared {
    secret: Option<Vec<u8>>,
    /// Accepted too, while the secret is rotated.
    accepted: Option<Vec<u8>>,
    redis: Option<ladoga::RedisStore>,
}

impl Shared {
    /// The secret from the environment (`LADOGA_STATE_SECRET`, else the file
    /// `LADOGA_STATE_SECRET_FILE` names, its ending newline left out), the one accepted too
    /// (`LADOGA_STATE_SECRET_ACCEPTED`, or its `_FILE`), and the Redis server at `redis`; why
    /// not, when any is unusable.
    pub async fn from_env(redis: Option<&str>) -> Result<Self, String> {
        let secret = read_secret(SECRET_VAR, SECRET_FILE_VAR)?;
        let accepted = read_secret(ACCEPTED_VAR, ACCEPTED_FILE_VAR)?;
        if accepted.is_some() && secret.is_none() {
            return Err(format!(
                "{ACCEPTED_VAR} is accepted beside the secret the board seals with: set \
                 {SECRET_VAR} or {SECRET_FILE_VAR} too"
            ));
        }
        let redis = match redis {
            Some(_) if secret.is_none() => {
                return Err(format!(
                    "--redis shares paused runs between replicas, which must also share the \
                     secret that seals them: set {SECRET_VAR} or {SECRET_FILE_VAR}"
                ));
            }
            Some(url) => {
                let store = ladoga::RedisStore::connect(url)
                    .await
                    .map_err(|error| format!("cannot use the Redis server at `{url}`: {error}"))?;
                // A Redis that is away now is no reason not to start: the board serves the calls
                // that need no store, reports itself unready, and uses Redis once it answers.
                if let Err(error) = ladoga::RunStore::ping(&store).await {
                    tracing::warn!(target: "ladoga", %error, "Redis does not answer yet: calls that pause for an answer fail until it does");
                }
                Some(store)
            }
            None => None,
        };
        Ok(Self {
            secret,
            accepted,
            redis,
        })
    }

    /// The shared secret, if given.
    pub fn secret(&self) -> Option<&[u8]> {
        self.secret.as_deref()
    }

    /// Where the board's runs wait while their callers answer: in Redis, sealed with the shared
    /// secret, when given; else in this process ([`ladoga::Runs::in_process`]).
    pub fn runs(&self) -> ladoga::Runs {
        let (Some(redis), Some(secret)) = (&self.redis, &self.secret) else {
            return ladoga::Runs::in_process();
        };
        let runs = ladoga::Runs::new(redis.clone()).with_secret(secret);
        match &self.accepted {
            Some(accepted) => runs.accepting(accepted),
            None => runs,
        }
    }

    /// `app` sealing its rounds with the shared secret, and keeping its paused runs (sealed with
    /// the same secret) and final rounds in Redis, where given. Under `legacy-spec` a run never
    /// pauses and there is no `requestState`: only the runs' store applies.
    pub fn apply(self, app: App) -> App {
        let runs = self.runs();
        let Some(secret) = self.secret else {
            return app;
        };
        #[cfg(feature = "legacy-spec")]
        drop(secret);
        #[cfg(not(feature = "legacy-spec"))]
        let app = {
            let mut keys = vec![(key_id(&secret), secret.as_slice())];
            keys.extend(
                self.accepted
                    .iter()
                    .map(|key| (key_id(key), key.as_slice())),
            );
            app.with_request_state_keys(key_id(&secret), keys)
        };
        let Some(redis) = self.redis else {
            return app;
        };
        #[cfg(not(feature = "legacy-spec"))]
        let app = app.with_request_state_store(redis);
        #[cfg(feature = "legacy-spec")]
        drop(redis);
        app.add_singleton(runs)
    }
}

/// A secret from the variable `var`, else from the file the variable `file_var` names (its
/// ending newline left out); none when neither is set, and why not when it is unusable.
fn read_secret(var: &str, file_var: &str) -> Result<Option<Vec<u8>>, String> {
    let secret = match (std::env::var_os(var), std::env::var_os(file_var)) {
        (Some(secret), _) => secret.into_encoded_bytes(),
        (None, Some(path)) => {
            let mut secret = std::fs::read(&path).map_err(|error| {
                format!(
                    "{file_var} names `{}`, which cannot be read: {error}",
                    path.display()
                )
            })?;
            while secret
                .last()
                .is_some_and(|byte| matches!(byte, b'\n' | b'\r'))
            {
                secret.pop();
            }
            secret
        }
        (None, None) => return Ok(None),
    };
    if secret.len() < MIN_SECRET {
        return Err(format!(
            "the request-state secret ({var} or {file_var}) must be at least {MIN_SECRET} \
             bytes; it has {}",
            secret.len()
        ));
    }
    Ok(Some(secret))
}

/// The id a sealed state names its key by: a digest of the key, so that every replica calls
/// the same key by the same id, whichever variable holds it.
#[cfg(not(feature = "legacy-spec"))]
fn key_id(secret: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest([b"ladoga:state-key-id\0".as_slice(), secret].concat());
    digest[..6]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

//! One call's hold on its session: the lock that makes it the session's one writer, the
//! conversation it goes on from, and the one it leaves.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use svir::Message;

use crate::error::RunError;
use crate::metrics;
use crate::session::kept::{self, Kept};
use crate::session::{MAX_SESSION_BYTES, Session, principal};
use crate::store::ledger::Room;
use crate::store::{Inbox, PAUSED_RUN_TTL, Runs, SESSION_PREFIX, new_id};

/// How often a call waiting for its session's lock tries again.
const RETRY: Duration = Duration::from_millis(50);

/// How long a lock outlives a run with no time bound, should its replica die holding it.
const UNBOUNDED_RUN_LOCK: Duration = Duration::from_secs(15 * 60);

/// How many times a call lets an idle session go to make room for its own before it is
/// refused: others may take the room first.
const ROOM_TRIES: usize = 8;

/// What a call asks of its session.
pub(crate) struct Asked<'a> {
    /// Which conversation.
    pub(crate) session: Session,
    /// The id the call passed (`Session::ById`).
    pub(crate) id: Option<&'a str>,
    /// The id a new session takes, if the call has one ready; else a new one.
    pub(crate) minted: Option<&'a str>,
    /// The orchestrating tool: sessions of two tools keep apart.
    pub(crate) agent: &'a str,
    /// Who holds the lock: the run's id, the same in each round of a paused run.
    pub(crate) holder: &'a str,
    /// Whether the call goes on from a paused run, which holds the lock and its conversation.
    pub(crate) resuming: bool,
    /// How long the session is kept after the call.
    pub(crate) ttl: Duration,
    /// How long the call waits for another call on the session.
    pub(crate) wait: Duration,
    /// The run's time bound, which its lock outlives.
    pub(crate) run_timeout: Option<Duration>,
}

/// A call's hold on its session, from its start to [`Lease::close`].
pub(crate) struct Lease {
    runs: Runs,
    /// The id the caller passes to go on, when it passes one.
    id: Option<String>,
    key: String,
    holder: Vec<u8>,
    principal: Option<String>,
    ttl: Duration,
    /// Whether the session was first counted by this call, so not kept unless the call keeps it.
    counted_here: Mutex<bool>,
    /// The earlier conversation, until the run takes it.
    history: Mutex<Option<Vec<Message>>>,
    /// The conversation the run leaves, once it ended well.
    left: Mutex<Option<Vec<Message>>>,
}

impl Lease {
    /// The session `asked` names for `ctx`'s caller, locked for this call, with its
    /// conversation; a new one if it names none.
    pub(crate) async fn open(
        ctx: &neva::Context,
        runs: Runs,
        asked: Asked<'_>,
    ) -> Result<Self, RunError> {
        let (lease, continuing) = Self::placed(ctx, runs, &asked)?;
        // The run, its one last request after its deadline (`on_limit = "answer"`), and the wait.
        let run_lock = asked.run_timeout.unwrap_or(UNBOUNDED_RUN_LOCK)
            + crate::model::DEFAULT_RESPONSE_TIMEOUT
            + asked.wait;
        lease.lock(asked.wait, run_lock).await?;
        if continuing && !asked.resuming {
            match lease.load().await {
                Ok(Some(history)) => *lease.history.lock().expect("not poisoned") = Some(history),
                // A caller's first call starts its conversation.
                Ok(None) if asked.session == Session::PerCaller => {}
                Ok(None) => {
                    lease.unlock().await;
                    return Err(RunError::SessionUnknown);
                }
                Err(error) => {
                    lease.unlock().await;
                    return Err(error);
                }
            }
        }
        // Counted once it is known to be there (or new): a session id that names none makes
        // room for nothing.
        match lease.make_room().await {
            Ok(room) => *lease.counted_here.lock().expect("not poisoned") = room == Room::New,
            Err(error) => {
                lease.unlock().await;
                return Err(error);
            }
        }
        Ok(lease)
    }

    /// Steering: the inbox of the run in flight on the session `asked` names for `ctx`'s caller,
    /// if one is (its lock is held); `None` when the session is idle, and the call runs as any.
    pub(crate) async fn busy(
        ctx: &neva::Context,
        runs: Runs,
        asked: Asked<'_>,
    ) -> Result<Option<Inbox>, RunError> {
        let (lease, continuing) = Self::placed(ctx, runs, &asked)?;
        if lease.claim(RETRY).await? {
            lease.unlock().await;
            return Ok(None);
        }
        // Only the session's own caller steers its run: another is told what a call naming a
        // session it does not have is told.
        if continuing && asked.session == Session::ById && lease.load().await?.is_none() {
            return Err(RunError::SessionUnknown);
        }
        Ok(Some(lease.inbox()))
    }

    /// Steering: the inbox of this call's caller on the session, which the run reads at each
    /// turn. Keyed by the caller's principal: another caller's messages are in another inbox.
    pub(crate) fn inbox(&self) -> Inbox {
        let from = self.principal.as_deref().map(principal::digest);
        let key = format!("{}/inbox/{}", self.key, from.as_deref().unwrap_or("anyone"));
        Inbox::new(self.runs.clone(), key, self.ttl)
    }

    /// The session `asked` names for `ctx`'s caller, not locked yet, and whether it goes on
    /// from an earlier call.
    fn placed(
        ctx: &neva::Context,
        runs: Runs,
        asked: &Asked<'_>,
    ) -> Result<(Self, bool), RunError> {
        let principal = match asked.session {
            Session::PerCaller => principal::caller(ctx),
            Session::ById => principal::of(ctx),
        };
        let (id, continuing) = match (asked.session, asked.id) {
            (Session::PerCaller, _) => {
                let Some(principal) = &principal else {
                    return Err(RunError::NoCaller);
                };
                (principal::digest(principal), true)
            }
            (Session::ById, Some(id)) => (id.to_owned(), true),
            (Session::ById, None) => (asked.minted.map_or_else(new_id, str::to_owned), false),
        };
        // A store key spells nothing of a session's id: a reader of the store cannot continue
        // a session started without a token. A caller's own session is keyed by a digest
        // already.
        let stored = match asked.session {
            Session::ById => principal::digest(&format!("session id:{id}")),
            Session::PerCaller => id.clone(),
        };
        let lease = Self {
            runs,
            key: format!("{SESSION_PREFIX}{}/{stored}", asked.agent),
            id: (asked.session == Session::ById).then_some(id),
            holder: asked.holder.as_bytes().to_vec(),
            principal,
            ttl: asked.ttl,
            counted_here: Mutex::new(false),
            history: Mutex::new(None),
            left: Mutex::new(None),
        };
        Ok((lease, continuing))
    }

    /// The id a caller passes to go on, for a session it names by id.
    pub(crate) fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// The earlier conversation, once: the run goes on from it.
    pub(crate) fn history(&self) -> Vec<Message> {
        self.history
            .lock()
            .expect("not poisoned")
            .take()
            .unwrap_or_default()
    }

    /// Notes the conversation the run leaves, kept when the call ends.
    pub(crate) fn leave(&self, messages: &[Message]) {
        *self.left.lock().expect("not poisoned") = Some(messages.to_vec());
    }

    /// Ends the call's hold: the conversation it left is kept for the session's time to live,
    /// and the lock let go. A run that failed left none, and the session stays as it was; a run
    /// paused for its caller's answer keeps the lock for its next round.
    pub(crate) async fn close(&self, paused: bool) -> Result<(), RunError> {
        if paused {
            // The lock outlives the paused run, which is kept as long.
            let renewed = self.claim(PAUSED_RUN_TTL + RETRY).await;
            return renewed.map(drop);
        }
        let left = self.left.lock().expect("not poisoned").take();
        let kept = match left {
            Some(messages) => self.keep(messages).await,
            None => Ok(()),
        };
        // A session kept is counted on; one this call counted and kept nowhere is not.
        self.uncount();
        self.unlock().await;
        kept
    }

    /// Counts the session against the server's [`SessionBounds`](super::SessionBounds): when a
    /// bound is reached, the oldest idle session it counts is let go to make room; refused when
    /// every one of them is in use.
    async fn make_room(&self) -> Result<Room, RunError> {
        let ledger = self.runs.ledger();
        for _ in 0..ROOM_TRIES {
            let full = match ledger.reserve(&self.key, self.principal.as_deref(), self.ttl) {
                Ok(room) => return Ok(room),
                Err(full) => full,
            };
            let mut freed = false;
            for oldest in &full.oldest {
                if let_go(&self.runs, oldest).await {
                    freed = true;
                    break;
                }
            }
            if !freed {
                tracing::info!(target: "ladoga", bound = full.bound, "a call is refused: the sessions it would count against are all in use");
                return Err(RunError::SessionLimit { bound: full.bound });
            }
        }
        Err(RunError::SessionLimit {
            bound: ledger.bounds().per_caller,
        })
    }

    /// Stops counting the session, if this call first counted it and kept nothing.
    fn uncount(&self) {
        if std::mem::take(&mut *self.counted_here.lock().expect("not poisoned")) {
            self.runs.ledger().forget(&self.key);
        }
    }

    /// Takes the lock, waiting up to `wait` for another call to let it go; held for `ttl`.
    async fn lock(&self, wait: Duration, ttl: Duration) -> Result<(), RunError> {
        let until = Instant::now() + wait;
        while !self.claim(ttl).await? {
            if Instant::now() >= until {
                tracing::info!(target: "ladoga", "a call is refused: its session is busy with another");
                return Err(RunError::SessionBusy { waited: wait });
            }
            tokio::time::sleep(RETRY).await;
        }
        Ok(())
    }

    /// Claims the lock for `ttl`: whether this call holds it now.
    async fn claim(&self, ttl: Duration) -> Result<bool, RunError> {
        let store = self.runs.store();
        store
            .claim(&self.lock_key(), self.holder.clone(), ttl)
            .await
            .map_err(|error| {
                metrics::store_failed("claim");
                tracing::warn!(target: "ladoga", %error, "the session's lock could not be taken");
                RunError::SessionStore
            })
    }

    /// Lets the lock go, if this call still holds it.
    async fn unlock(&self) {
        let store = self.runs.store();
        let key = self.lock_key();
        match store.take(&key).await {
            // Lapsed, and taken by another call since: it stays theirs.
            Ok(Some(there)) if there != self.holder => {
                let _ = store.put(&key, there, RETRY * 20).await;
            }
            Ok(_) => {}
            Err(error) => {
                metrics::store_failed("take");
                tracing::warn!(target: "ladoga", %error, "the session's lock could not be let go: it lapses by itself");
            }
        }
    }

    /// The session's conversation, if it is there (`None` if not); refused if it is not this
    /// caller's. Put back at once, so a replica that dies in the run loses nothing of it.
    async fn load(&self) -> Result<Option<Vec<Message>>, RunError> {
        let store = self.runs.store();
        let sealed = store.take(&self.key).await.map_err(|error| {
            metrics::store_failed("take");
            tracing::warn!(target: "ladoga", %error, "the session could not be read");
            RunError::SessionStore
        })?;
        let Some(sealed) = sealed else {
            return Ok(None);
        };
        let kept = self
            .runs
            .seal()
            .open(&self.key, &sealed)
            .and_then(|bytes| serde_json::from_slice::<Kept>(&bytes).ok());
        let Some(kept) = kept else {
            // Altered, or sealed with another secret: never continued, and left for its owner.
            tracing::warn!(target: "ladoga", "a session does not verify: refused");
            let _ = store.put(&self.key, sealed, self.ttl).await;
            return Err(RunError::SessionUnknown);
        };
        let left = kept.left_of(self.ttl);
        if store.put(&self.key, sealed, left).await.is_err() {
            metrics::store_failed("put");
        }
        if kept.principal != self.principal {
            tracing::warn!(target: "ladoga", "a call names another caller's session: refused");
            return Err(RunError::SessionUnknown);
        }
        Ok(Some(kept.messages))
    }

    /// Keeps `messages` as the session's conversation for its time to live.
    async fn keep(&self, messages: Vec<Message>) -> Result<(), RunError> {
        let (messages, dropped) = kept::within(messages, MAX_SESSION_BYTES);
        if dropped > 0 {
            tracing::info!(target: "ladoga", dropped, "the session's oldest calls were dropped: it outgrew its bound");
        }
        let kept = Kept::new(self.principal.clone(), messages);
        let bytes = serde_json::to_vec(&kept).map_err(|_| RunError::SessionStore)?;
        let sealed =
            (self.runs.seal().seal(&self.key, &bytes)).map_err(|_| RunError::SessionStore)?;
        let size = sealed.len();
        self.runs
            .store()
            .put(&self.key, sealed, self.ttl)
            .await
            .map_err(|error| {
                metrics::store_failed("put");
                tracing::warn!(target: "ladoga", %error, "the session could not be kept");
                RunError::SessionStore
            })?;
        *self.counted_here.lock().expect("not poisoned") = false;
        let ledger = self.runs.ledger();
        for oldest in ledger.kept(&self.key, self.principal.as_deref(), size, self.ttl) {
            let_go(&self.runs, &oldest).await;
        }
        Ok(())
    }

    fn lock_key(&self) -> String {
        format!("{}/lock", self.key)
    }
}

/// Lets the idle session under `key` go, to make room: its lock is taken first, so a session a
/// call is using stays. Answers whether it went.
async fn let_go(runs: &Runs, key: &str) -> bool {
    let store = runs.store();
    let lock = format!("{key}/lock");
    let holder = format!("letting go: {}", new_id()).into_bytes();
    if !matches!(store.claim(&lock, holder, RETRY * 20).await, Ok(true)) {
        return false;
    }
    let gone = store.take(key).await.is_ok();
    let _ = store.take(&lock).await;
    if gone {
        runs.ledger().forget(key);
        metrics::session_let_go();
        tracing::info!(target: "ladoga", "the oldest idle session was let go: a session bound was reached");
    }
    gone
}

//! A run paused for its caller's answer, and how it is kept and found again. The keeper holds
//! the run as sealed bytes: what a run is, is the loop's business.

use std::sync::Mutex;

use crate::error::RunError;
use crate::metrics;
use crate::store::ran::{self, Ran};
use crate::store::{PAUSED_RUN_TTL, Runs};

/// Keeps one run across the rounds of its tool call: its id, sealed in the round's
/// `requestState`, and the run itself in a [`RunStore`](crate::RunStore).
pub(crate) struct Keeper {
    runs: Runs,
    id: String,
    resumed: Mutex<Option<Vec<u8>>>,
    /// The tool call whose rounds the run pauses between, and the orchestrating tool's name:
    /// each round's sealed state notes the calls that ran, so a round that finds its run lost
    /// can still name them.
    #[cfg(not(feature = "legacy-spec"))]
    call: Option<(neva::Context, String)>,
}

impl Keeper {
    /// A keeper for a run that starts now, under a new id, which no later round can resume: a
    /// run that waits for its answers in place.
    fn fresh(runs: Runs) -> Self {
        Self {
            runs,
            id: new_id(),
            resumed: Mutex::new(None),
            #[cfg(not(feature = "legacy-spec"))]
            call: None,
        }
    }

    /// The keeper of the durable run `key`, which waits for its answers in place, under an id
    /// made from its key: the same in every attempt of the run, so that its runs below are kept
    /// under the same ids too (see [`tree`](crate::tree)).
    pub(crate) fn durable(runs: Runs, key: &str) -> Self {
        Self {
            id: crate::tree::digest(&["durable run", key]),
            ..Self::fresh(runs)
        }
    }

    /// The keeper of the run of `ctx`'s tool call, for the orchestrating tool `agent`: one that
    /// pauses between the call's rounds, or, for a call that is an MCP task and under
    /// `legacy-spec`, where the run waits for its answers in place, a fresh one.
    pub(crate) async fn for_call(
        ctx: &neva::Context,
        runs: Runs,
        agent: &str,
    ) -> Result<Self, RunError> {
        #[cfg(not(feature = "legacy-spec"))]
        if !ctx.is_task() {
            return Self::of_call(ctx, runs, agent).await;
        }
        let _ = (ctx, agent);
        Ok(Self::fresh(runs))
    }

    /// The keeper of a run started by another run's call, under `id`, which that call's next
    /// round makes again (see [`tree`](crate::tree)): the run it paused when the call is
    /// `resumed`, else a new one. A paused run that cannot be found is an error, as for
    /// [`Self::for_call`]; a new one under an id the store holds already is not: that state is
    /// what an earlier call of the same id left, and is replaced when the run pauses.
    pub(crate) async fn below(runs: Runs, id: String, resumed: bool) -> Result<Self, RunError> {
        let kept = match resumed {
            false => None,
            true => match runs.store().take(&id).await {
                Ok(Some(kept)) => Some(kept),
                Ok(None) => {
                    tracing::warn!(target: "ladoga", run = %id, "the paused run below is not in its store: the call that goes on with it ends");
                    return Err(RunError::Gone);
                }
                Err(error) => {
                    metrics::store_failed("take");
                    tracing::warn!(target: "ladoga", run = %id, %error, "the paused run below could not be read");
                    return Err(RunError::Unread { ran: Vec::new() });
                }
            },
        };
        let kept = match kept {
            Some(kept) => Some(runs.seal().open(&id, &kept).ok_or_else(|| {
                RunError::Store("the paused run below does not verify".to_owned())
            })?),
            None => None,
        };
        Ok(Self {
            runs,
            id,
            resumed: Mutex::new(kept),
            #[cfg(not(feature = "legacy-spec"))]
            call: None,
        })
    }

    /// The keeper of the run of `ctx`'s tool call, for the orchestrating tool `agent`: a new
    /// run on the call's first round, else the paused run the round's sealed state names.
    /// A run that cannot be found (it ended, expired, or another retry of the round resumed
    /// it) is an error: it is never started again, so nothing it did is done twice.
    #[cfg(not(feature = "legacy-spec"))]
    async fn of_call(ctx: &neva::Context, runs: Runs, agent: &str) -> Result<Self, RunError> {
        use std::sync::atomic::{AtomicBool, Ordering};

        let minted = AtomicBool::new(false);
        let id: String = ctx
            .memo(format!("ladoga/run/{agent}"), async {
                minted.store(true, Ordering::Relaxed);
                Ok(new_id())
            })
            .await
            .map_err(|error| RunError::Store(error.to_string()))?;
        let call = Some((ctx.clone(), agent.to_owned()));
        if minted.load(Ordering::Relaxed) {
            return Ok(Self {
                runs,
                id,
                resumed: Mutex::new(None),
                call,
            });
        }
        // A round whose store could not lock it against its retries never runs.
        if crate::store::round_unlocked() {
            tracing::warn!(target: "ladoga", run = %id, "a round of the run is refused: its lock could not be taken; the caller may retry it");
            return Err(RunError::Unlocked);
        }
        let kept = match runs.store().take(&id).await {
            Ok(Some(kept)) => kept,
            Ok(None) => {
                let ran = noted(ctx, agent).await;
                tracing::warn!(target: "ladoga", run = %id, ran = ?ran, "the paused run is not in its store: the store lost it (a restart that kept nothing?), or another retry of this round took it; the round ends");
                return Err(if ran.is_empty() {
                    RunError::Gone
                } else {
                    RunError::Lost { ran }
                });
            }
            Err(error) => {
                metrics::store_failed("take");
                let ran = noted(ctx, agent).await;
                tracing::warn!(target: "ladoga", run = %id, %error, ran = ?ran, "the paused run could not be read: the round ends, and may be retried");
                return Err(RunError::Unread { ran });
            }
        };
        let kept = runs.seal().open(&id, &kept).ok_or_else(|| {
            RunError::Store(
                "the paused run does not verify: it was altered in the store, or sealed by a \
                 replica with another secret"
                    .to_owned(),
            )
        })?;
        tracing::info!(target: "ladoga", run = %id, "the run resumes with its caller's answer");
        Ok(Self {
            runs,
            id,
            resumed: Mutex::new(Some(kept)),
            call,
        })
    }

    /// The run's id.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// Whether this round goes on with a paused run.
    pub(crate) fn resuming(&self) -> bool {
        self.lock().is_some()
    }

    /// The paused run to go on with, once, as the loop wrote it.
    pub(crate) fn take_resumed(&self) -> Option<Vec<u8>> {
        self.lock().take()
    }

    /// Keeps `run`, paused, until the caller's next round, before the caller is asked: a run whose
    /// state could not be kept ends, and its caller is never asked a question whose answer could
    /// not be used.
    pub(crate) async fn keep(&self, run: Vec<u8>, ran: &[Ran]) -> Result<(), RunError> {
        let bytes = self
            .runs
            .seal()
            .seal(&self.id, &run)
            .map_err(RunError::Store)?;
        let size = bytes.len();
        if let Err(error) = self.runs.store().put(&self.id, bytes, PAUSED_RUN_TTL).await {
            metrics::store_failed("put");
            let ran = ran::named(ran);
            tracing::warn!(target: "ladoga", run = %self.id, %error, ran = ?ran, "the run's state could not be kept: its caller is not asked, and the run ends");
            return Err(RunError::NotKept { ran });
        }
        #[cfg(not(feature = "legacy-spec"))]
        if let Some((ctx, agent)) = &self.call {
            note(ctx, agent, ran).await;
        }
        tracing::info!(target: "ladoga", run = %self.id, bytes = size, "the run waits for its caller's answer");
        Ok(())
    }

    /// Lets go of the state [`Self::keep`] kept, when the run went on without pausing after all.
    pub(crate) async fn discard(&self) {
        if let Err(error) = self.runs.store().take(&self.id).await {
            metrics::store_failed("take");
            tracing::warn!(target: "ladoga", run = %self.id, %error, "a state kept for a question that was not asked could not be removed: it expires by itself");
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Vec<u8>>> {
        self.resumed
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A run id nobody can guess: 128 random bits.
pub(crate) fn new_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// The sealed-state key under which a round notes the calls that ran from the `from`-th on.
#[cfg(not(feature = "legacy-spec"))]
fn ran_key(agent: &str, from: usize) -> String {
    format!("ladoga/ran/{agent}/{from}")
}

/// Notes in the round's sealed state the calls of `ran` that earlier rounds have not (at most
/// [`ran::NOTED`] in all): each round adds the calls since the last, under the key of the first.
#[cfg(not(feature = "legacy-spec"))]
async fn note(ctx: &neva::Context, agent: &str, ran: &[Ran]) {
    use std::sync::atomic::{AtomicBool, Ordering};

    let ran = &ran[..ran.len().min(ran::NOTED)];
    let mut from = 0;
    while from < ran.len() {
        let added = AtomicBool::new(false);
        let noted: Vec<Ran> = ctx
            .memo(ran_key(agent, from), async {
                added.store(true, Ordering::Relaxed);
                Ok(ran[from..].to_vec())
            })
            .await
            .unwrap_or_default();
        if added.load(Ordering::Relaxed) || noted.is_empty() {
            return;
        }
        from += noted.len();
    }
}

/// The calls the rounds before this one noted, as a caller reads them.
#[cfg(not(feature = "legacy-spec"))]
async fn noted(ctx: &neva::Context, agent: &str) -> Vec<String> {
    let mut ran = Vec::new();
    loop {
        let noted: Vec<Ran> = ctx
            .memo(ran_key(agent, ran.len()), async { Ok(Vec::new()) })
            .await
            .unwrap_or_default();
        if noted.is_empty() {
            return ran::named(&ran);
        }
        ran.extend(noted);
    }
}

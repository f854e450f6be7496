//! A run paused for its caller's answer, and how it is kept and found again.

use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use svir::{Completion, Request};

use crate::RunError;
use crate::approvals::Approval;
use crate::orchestration::AnsweredBy;
use crate::repeats::Repeats;
use crate::run_store::{PAUSED_RUN_TTL, Runs};

/// What a paused run had done: everything it needs to go on where it stopped, and nothing it
/// can rebuild. The conversation is its one copy of the tool results.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Paused {
    /// The conversation so far, with the tools offered.
    pub(crate) request: Request,
    /// Where the run's own messages begin in `request`.
    pub(crate) opened: usize,
    pub(crate) turns: usize,
    /// Tokens used so far: input, output.
    pub(crate) usage: (u64, u64),
    pub(crate) repeats: Repeats,
    /// The model's answer whose calls wait for approval: it is never asked for again.
    pub(crate) pending: Option<Completion>,
    /// The questions answered so far.
    pub(crate) approvals: Vec<Approval>,
    /// The part of the run's time bound used so far; the time a person takes to answer is not.
    pub(crate) spent: Option<Duration>,
    pub(crate) answered_by: Option<AnsweredBy>,
}

/// Keeps one run across the rounds of its tool call: its id, sealed in the round's
/// `requestState`, and the run itself in a [`RunStore`](crate::RunStore).
pub(crate) struct Keeper {
    runs: Runs,
    id: String,
    resumed: Mutex<Option<Paused>>,
}

impl Keeper {
    /// A keeper for a run that starts now, under a new id, which no later round can resume: a
    /// run that waits for its answers in place.
    pub(crate) fn fresh(runs: Runs) -> Self {
        Self {
            runs,
            id: new_id(),
            resumed: Mutex::new(None),
        }
    }

    /// The keeper of the run of `ctx`'s tool call, for the orchestrating tool `agent`: a new
    /// run on the call's first round, else the paused run the round's sealed state names.
    /// A run that cannot be found (it ended, expired, or another retry of the round resumed
    /// it) is an error: it is never started again, so nothing it did is done twice.
    #[cfg(not(feature = "legacy-spec"))]
    pub(crate) async fn of_call(
        ctx: &neva::Context,
        runs: Runs,
        agent: &str,
    ) -> Result<Self, RunError> {
        use std::sync::atomic::{AtomicBool, Ordering};

        let minted = AtomicBool::new(false);
        let id: String = ctx
            .memo(format!("ladoga/run/{agent}"), async {
                minted.store(true, Ordering::Relaxed);
                Ok(new_id())
            })
            .await
            .map_err(|error| RunError::Store(error.to_string()))?;
        if minted.load(Ordering::Relaxed) {
            return Ok(Self {
                runs,
                id,
                resumed: Mutex::new(None),
            });
        }
        let kept = runs
            .store()
            .take(&id)
            .await
            .map_err(|error| RunError::Store(error.to_string()))?
            .ok_or(RunError::Gone)?;
        let kept = runs.seal().open(&id, &kept).ok_or_else(|| {
            RunError::Store(
                "the paused run does not verify: it was altered in the store, or sealed by a \
                 replica with another secret"
                    .to_owned(),
            )
        })?;
        let paused = serde_json::from_slice(&kept).map_err(|error| {
            RunError::Store(format!("the paused run does not read back: {error}"))
        })?;
        tracing::info!(target: "ladoga", run = %id, "the run resumes with its caller's answer");
        Ok(Self {
            runs,
            id,
            resumed: Mutex::new(Some(paused)),
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

    /// The paused run to go on with, once.
    pub(crate) fn take_resumed(&self) -> Option<Paused> {
        self.lock().take()
    }

    /// Keeps `paused` until the caller's next round.
    pub(crate) async fn keep(&self, paused: &Paused) -> Result<(), RunError> {
        let bytes = serde_json::to_vec(paused)
            .map_err(|error| RunError::Store(format!("the run could not be written: {error}")))?;
        let bytes = self
            .runs
            .seal()
            .seal(&self.id, &bytes)
            .map_err(RunError::Store)?;
        tracing::info!(target: "ladoga", run = %self.id, bytes = bytes.len(), "the run waits for its caller's answer");
        self.runs
            .store()
            .put(&self.id, bytes, PAUSED_RUN_TTL)
            .await
            .map_err(|error| RunError::Store(error.to_string()))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Paused>> {
        self.resumed
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A run id nobody can guess: 128 random bits.
pub(crate) fn new_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

//! The journal a durable run records its steps in: a Restate handler's context.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures_util::future::BoxFuture;
use restate_sdk::context::{ContextSideEffects, RunFuture, WorkflowContext};
use restate_sdk::errors::{HandlerError, TerminalError};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::sync::oneshot;

/// The journal of one durable run: the context of the Restate handler the run is in, and which
/// tools may be called again when a crash cut their turn.
///
/// # Examples
/// ```no_run
/// use ladoga::Orchestration;
/// use ladoga::durable::Journal;
/// use restate_sdk::prelude::*;
///
/// struct Planner {
///     model: ladoga::Model,
///     tools: svir::Tools,
/// }
///
/// #[restate_sdk::workflow]
/// impl Planner {
///     #[handler]
///     async fn run(&self, ctx: WorkflowContext<'_>, focus: String) -> Result<String, HandlerError> {
///         let journal = Journal::new(&ctx).retry_safe(["list_tasks"]);
///         let outcome = Orchestration::new(&self.model, &self.tools)
///             .journal(&journal)
///             .run(format!("Plan my week around {focus}."))
///             .await
///             .map_err(|error| TerminalError::new(error.to_string()))?;
///         Ok(outcome.text)
///     }
/// }
/// # fn main() {}
/// ```
pub struct Journal<'j> {
    steps: Box<dyn Steps + 'j>,
    retry_safe: HashSet<String>,
    /// How many steps the run has taken, which names the next.
    taken: AtomicUsize,
}

impl<'j> Journal<'j> {
    /// The journal of the workflow handler whose context is `ctx`.
    pub fn new<'ctx: 'j>(ctx: &'j WorkflowContext<'ctx>) -> Self {
        Self::on(Box::new(ctx))
    }

    /// The journal `steps` records in.
    pub(super) fn on(steps: Box<dyn Steps + 'j>) -> Self {
        Self {
            steps,
            retry_safe: HashSet::new(),
            taken: AtomicUsize::new(0),
        }
    }

    /// Names tools whose calls may run again when a crash cut their turn: read-only or
    /// idempotent ones (MCP's `readOnlyHint` or `idempotentHint`). Adds to those named before.
    #[must_use]
    pub fn retry_safe(mut self, tools: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.retry_safe.extend(tools.into_iter().map(Into::into));
        self
    }

    /// Whether a call to `tool` may run again after a crash.
    pub(crate) fn is_retry_safe(&self, tool: &str) -> bool {
        self.retry_safe.contains(tool)
    }

    /// `work`'s value, recorded as the step `what`: run now, or, when the journal holds it,
    /// read back without running `work`. Says too whether `work` ran in this attempt.
    pub(crate) async fn step<T, F>(&self, what: &str, work: F) -> Result<(T, bool), String>
    where
        T: Serialize + DeserializeOwned,
        F: Future<Output = T>,
    {
        let name = format!("{what} {}", self.taken.fetch_add(1, Ordering::Relaxed) + 1);
        let (start, started) = oneshot::channel();
        let (finish, finished) = oneshot::channel();
        let recorded = self.steps.record(name, start, finished);
        // The step's closure runs only when the journal does not hold the step: it signals
        // `started`, and records what `work`, run here, sends back.
        let worker = async {
            if started.await.is_ok() {
                let value = serde_json::to_vec(&work.await).map_err(|error| error.to_string());
                let _ = finish.send(value);
                return true;
            }
            false
        };
        let (recorded, ran) = futures_util::future::join(recorded, worker).await;
        let bytes = recorded.map_err(|error| format!("the journal refused the step: {error}"))?;
        let value = serde_json::from_slice(&bytes)
            .map_err(|error| format!("a recorded step does not read back: {error}"))?;
        Ok((value, ran))
    }
}

/// What records a step: a Restate handler's context, or a relay to one.
pub(super) trait Steps: Send + Sync {
    /// Records the step `name`: when the journal does not hold it, signals `start` and records
    /// what `finished` brings.
    fn record<'s>(
        &'s self,
        name: String,
        start: oneshot::Sender<()>,
        finished: oneshot::Receiver<Result<Vec<u8>, String>>,
    ) -> BoxFuture<'s, Result<Vec<u8>, TerminalError>>;
}

impl<S: Steps + ?Sized> Steps for &S {
    fn record<'s>(
        &'s self,
        name: String,
        start: oneshot::Sender<()>,
        finished: oneshot::Receiver<Result<Vec<u8>, String>>,
    ) -> BoxFuture<'s, Result<Vec<u8>, TerminalError>> {
        (**self).record(name, start, finished)
    }
}

impl Steps for WorkflowContext<'_> {
    fn record<'s>(
        &'s self,
        name: String,
        start: oneshot::Sender<()>,
        finished: oneshot::Receiver<Result<Vec<u8>, String>>,
    ) -> BoxFuture<'s, Result<Vec<u8>, TerminalError>> {
        let closure = move || async move {
            let _ = start.send(());
            match finished.await {
                Ok(Ok(bytes)) => Ok(bytes),
                Ok(Err(error)) => Err(HandlerError::from(TerminalError::new(error))),
                Err(_) => Err(HandlerError::from(TerminalError::new(
                    "the step was dropped",
                ))),
            }
        };
        Box::pin(self.run(closure).name(name))
    }
}

//! A journal kept across a task boundary: the run goes on in the tool handler neva calls, and
//! the workflow handler that holds the Restate context records each of its steps.

use std::pin::pin;

use futures_util::future::BoxFuture;
use restate_sdk::context::{ContextPromises, WorkflowContext};
use restate_sdk::errors::TerminalError;
use restate_sdk::serde::Json;
use tokio::sync::{mpsc, oneshot};

use super::journal::Steps;

/// The steps of a run, and the durable promises it waits on, sent to the workflow handler that
/// records them ([`recording`]).
#[derive(Clone)]
pub(super) struct Relay(mpsc::UnboundedSender<Entry>);

/// What the run asks of the journal.
pub(super) enum Entry {
    /// A step to record.
    Step(Step),
    /// A durable promise's value, once it has one.
    Promise(Promise),
}

/// A step to record: its name, the signal that starts its work, what the work brings, and where
/// the recorded value goes.
pub(super) struct Step {
    name: String,
    start: oneshot::Sender<()>,
    finished: oneshot::Receiver<Result<Vec<u8>, String>>,
    recorded: oneshot::Sender<Result<Vec<u8>, TerminalError>>,
}

/// A durable promise to wait on: its name, and where its value goes.
pub(super) struct Promise {
    name: String,
    resolved: oneshot::Sender<Result<serde_json::Value, TerminalError>>,
}

impl Relay {
    /// A relay, and what it sends.
    pub(super) fn new() -> (Self, mpsc::UnboundedReceiver<Entry>) {
        let (send, entries) = mpsc::unbounded_channel();
        (Self(send), entries)
    }

    /// The value of the workflow's durable promise `name`, once it is resolved.
    pub(super) async fn promise(&self, name: String) -> Result<serde_json::Value, TerminalError> {
        let gone = || TerminalError::new("the run's workflow handler is gone");
        let (resolved, value) = oneshot::channel();
        self.0
            .send(Entry::Promise(Promise { name, resolved }))
            .map_err(|_| gone())?;
        value.await.unwrap_or_else(|_| Err(gone()))
    }
}

impl Steps for Relay {
    fn record<'s>(
        &'s self,
        name: String,
        start: oneshot::Sender<()>,
        finished: oneshot::Receiver<Result<Vec<u8>, String>>,
    ) -> BoxFuture<'s, Result<Vec<u8>, TerminalError>> {
        let (recorded, answer) = oneshot::channel();
        let sent = self.0.send(Entry::Step(Step {
            name,
            start,
            finished,
            recorded,
        }));
        Box::pin(async move {
            let gone = || TerminalError::new("the run's workflow handler is gone");
            sent.map_err(|_| gone())?;
            answer.await.unwrap_or_else(|_| Err(gone()))
        })
    }
}

/// The status of a step restate-server refuses because the invocation was cancelled.
const CANCELLED: u16 = 409;

/// Runs `work`, recording in `ctx`'s journal each step it sends through its relay and waiting
/// on each promise, one at a time and in the order sent, as the journal wants them. Says too
/// whether restate-server refused an entry because the run was cancelled.
pub(super) async fn recording<T>(
    ctx: &WorkflowContext<'_>,
    mut entries: mpsc::UnboundedReceiver<Entry>,
    work: impl Future<Output = T>,
) -> (T, bool) {
    let mut work = pin!(work);
    let mut cancelled = false;
    loop {
        let entry = tokio::select! {
            done = &mut work => return (done, cancelled),
            Some(entry) = entries.recv() => entry,
        };
        match entry {
            Entry::Step(step) => {
                // The work goes on while its step records: the step waits for what it brings.
                let mut recorded = pin!(Steps::record(ctx, step.name, step.start, step.finished));
                let recorded = tokio::select! {
                    recorded = &mut recorded => recorded,
                    // Work that ends inside a step gave the step up (a run timeout, say).
                    done = &mut work => return (done, cancelled),
                };
                cancelled |= recorded
                    .as_ref()
                    .is_err_and(|error| error.code() == CANCELLED);
                let _ = step.recorded.send(recorded);
            }
            Entry::Promise(promise) => {
                let mut resolved = pin!(ctx.promise::<Json<serde_json::Value>>(&promise.name));
                let resolved = tokio::select! {
                    resolved = &mut resolved => resolved.map(|Json(value)| value),
                    done = &mut work => return (done, cancelled),
                };
                cancelled |= resolved
                    .as_ref()
                    .is_err_and(|error| error.code() == CANCELLED);
                let _ = promise.resolved.send(resolved);
            }
        }
    }
}

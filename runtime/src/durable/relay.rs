//! A journal kept across a task boundary: the run goes on in the tool handler neva calls, and
//! the workflow handler that holds the Restate context records each of its steps.

use std::pin::pin;

use futures_util::future::BoxFuture;
use restate_sdk::context::WorkflowContext;
use restate_sdk::errors::TerminalError;
use tokio::sync::{mpsc, oneshot};

use super::journal::Steps;

/// The steps of a run, sent to the workflow handler that records them ([`recording`]).
pub(super) struct Relay(mpsc::UnboundedSender<Step>);

/// A step to record: its name, the signal that starts its work, what the work brings, and where
/// the recorded value goes.
pub(super) struct Step {
    name: String,
    start: oneshot::Sender<()>,
    finished: oneshot::Receiver<Result<Vec<u8>, String>>,
    recorded: oneshot::Sender<Result<Vec<u8>, TerminalError>>,
}

impl Relay {
    /// A relay, and the steps it sends.
    pub(super) fn new() -> (Self, mpsc::UnboundedReceiver<Step>) {
        let (send, steps) = mpsc::unbounded_channel();
        (Self(send), steps)
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
        let sent = self.0.send(Step {
            name,
            start,
            finished,
            recorded,
        });
        Box::pin(async move {
            let gone = || TerminalError::new("the run's workflow handler is gone");
            sent.map_err(|_| gone())?;
            answer.await.unwrap_or_else(|_| Err(gone()))
        })
    }
}

/// The status of a step restate-server refuses because the invocation was cancelled.
const CANCELLED: u16 = 409;

/// Runs `work`, recording in `ctx`'s journal each step it sends through its relay, one at a
/// time and in the order sent, as the journal wants them. Says too whether restate-server
/// refused a step because the run was cancelled.
pub(super) async fn recording<T>(
    ctx: &WorkflowContext<'_>,
    mut steps: mpsc::UnboundedReceiver<Step>,
    work: impl Future<Output = T>,
) -> (T, bool) {
    let mut work = pin!(work);
    let mut cancelled = false;
    loop {
        let step = tokio::select! {
            done = &mut work => return (done, cancelled),
            Some(step) = steps.recv() => step,
        };
        // The work goes on while its step records: the step waits for what the work brings.
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
}

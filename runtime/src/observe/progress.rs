//! MCP progress for a run: a notification per turn and per tool call, and a line a person can
//! read beside each.
//!
//! neva turns `tracing` events of target `progress` into `notifications/progress` on the
//! request's own stream, and other events into `notifications/message` for a client that asked
//! for log messages; the server installs its layer (`neva::types::notification::fmt::layer`).

use crate::toolbox::Escaped;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
#[cfg(feature = "legacy-spec")]
use std::time::Duration;

use neva::types::ProgressToken;
use svir::ToolCall;

use crate::observe::TaskLine;

/// Where a run reports its progress, if its caller asked for it.
#[derive(Debug, Default)]
pub(crate) struct Progress {
    token: Option<ProgressToken>,
    total: usize,
    /// Calls of the current turn answered so far.
    answered: AtomicUsize,
    /// The MCP task the run is, told each readable line.
    task: Option<Arc<TaskLine>>,
}

impl Progress {
    /// Reports to `token` (none: nothing but the log lines), out of `total` turns.
    pub(crate) fn new(token: Option<ProgressToken>, total: usize) -> Self {
        Self {
            token,
            total,
            answered: AtomicUsize::new(0),
            task: None,
        }
    }

    /// Tells `task`, the MCP task the run is, each readable line too.
    pub(crate) fn telling(mut self, task: Option<Arc<TaskLine>>) -> Self {
        self.task = task;
        self
    }

    /// The model answered turn `turn` with `calls`: progress `turn - 1` and a step.
    pub(crate) fn turn(&self, turn: usize, calls: &[ToolCall]) {
        self.answered.store(0, Ordering::Relaxed);
        // Written only for a line that is logged or told.
        let names = || {
            let names: Vec<_> = (calls.iter())
                .map(|call| Escaped(&call.name).to_string())
                .collect();
            names.join(", ")
        };
        tracing::info!(target: "ladoga", "turn {turn}/{}: {}", self.total, names());
        let line = || format!("turn {turn}/{}: {}", self.total, names());
        self.step(line, turn - 1, 1, calls.len() + 1);
    }

    /// One call of turn `turn` (of `calls`) answered; the last one brings progress to `turn`.
    pub(crate) fn call_answered(&self, turn: usize, calls: usize, call: &ToolCall, error: bool) {
        let answered = self.answered.fetch_add(1, Ordering::Relaxed) + 1;
        let how = if error { "failed" } else { "answered" };
        let name = Escaped(&call.name);
        tracing::info!(target: "ladoga", "turn {turn}/{}: {name} {how}", self.total);
        let line = || format!("turn {turn}/{}: {name} {how}", self.total);
        self.step(line, turn - 1, answered + 1, calls + 1);
    }

    /// The model answered at turn `turn`: progress `turn`, let out before the result.
    pub(crate) async fn answered(&self, turn: usize) {
        tracing::info!(target: "ladoga", "turn {turn}/{}: answered", self.total);
        let line = || format!("turn {turn}/{}: answered", self.total);
        self.step(line, turn, 0, 1);
        settle(self.token.as_ref()).await;
    }

    /// Progress `done` turns and `step / steps` of the next, which the readable `line` says:
    /// notified to the caller's token, and told to the MCP task the run is, if it is one.
    fn step(&self, line: impl FnOnce() -> String, done: usize, step: usize, steps: usize) {
        let value = done as f64 + step as f64 / steps as f64;
        let total = self.total as f64;
        if let Some(task) = &self.task {
            task.say(line(), value, total);
        }
        if let Some(token) = &self.token {
            notify(token, value, total);
        }
    }
}

/// The progress notification `value` of `total` for `token`, which neva sends on the stream of
/// the request whose span it is emitted in.
pub(crate) fn notify(token: &ProgressToken, value: f64, total: f64) {
    // neva reads the token back from the event: a number as a number, any other token from
    // its text.
    match token {
        ProgressToken::Number(token) => {
            tracing::info!(target: "progress", token = *token, value, total);
        }
        other => {
            let token = crate::toolbox::printable(&other.to_string());
            tracing::info!(target: "progress", token = %token, value, total);
        }
    }
}

/// How long a run of the `legacy-spec` build that reported progress waits before its result.
#[cfg(feature = "legacy-spec")]
const SETTLE: Duration = Duration::from_millis(25);

/// Lets a run's last notifications reach its caller before its result does.
///
/// Under MCP 2025-11-25 over HTTP, neva 0.9 sends a request's notifications on the session's
/// `GET` stream and its result as the `POST`'s body: nothing orders the two, and the official
/// SDKs drop a progress notification that comes after its result (measured: the last one came
/// 0.1 to 3 ms late in 7 of 60 calls). A run that reported progress waits [`SETTLE`] before it
/// answers. MCP 2026-07-28 sends both on the request's own stream, in order: nothing to wait for.
async fn settle(token: Option<&ProgressToken>) {
    #[cfg(feature = "legacy-spec")]
    if token.is_some() {
        tokio::time::sleep(SETTLE).await;
    }
    #[cfg(not(feature = "legacy-spec"))]
    let _ = token;
}

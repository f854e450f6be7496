//! Questions asked below a durable run: the top of the agent tree its calls start
//! ([`tree`](crate::tree)) when the run is an MCP task.
//!
//! A run below (an orchestrator the durable run's model called, in process) asks what it would
//! have asked its caller: the question pauses its call, as a round of a plain call would, and the
//! turn's recorded step keeps the question and the paused run's state. Once the step is
//! recorded, the durable run asks the question through its task (a durable promise, as its own
//! approvals), files the answer, and makes the paused calls again: the runs below take their
//! state back and find their answers. A replay after a crash reads the step back, waits on the
//! same promises, and goes on the same way: the person is asked once, and nothing below is made
//! twice.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use futures_util::future::BoxFuture;
use neva::Context;
use neva::error::Error;
use neva::types::elicitation::{ElicitRequestParams, ElicitResult};
use serde::{Deserialize, Serialize};
use svir::ToolResult;

use super::approval::Approver;
use crate::store::{PAUSED_RUN_TTL, Runs};
use crate::tree::{Heard, Journaled, Top, Turn, waiting};

/// The reserved call id of a durable turn's result that names a call that paused.
const PAUSED: &str = "ladoga/below-paused/";

/// The reserved call id of a durable turn's result that holds a paused run's state.
const KEPT: &str = "ladoga/below-kept/";

/// The reserved call id of a durable turn's result that holds a question asked below.
const ASKED: &str = "ladoga/below-asked/";

/// The reserved call id of a durable turn's result that holds the report of a run below that
/// ended, after the id of the call it answered.
const REPORT: &str = "ladoga/below-report/";

/// The top of the tree a durable task's run is: its caller, asked through the task.
pub(crate) struct DurableTop {
    ctx: Context,
    approver: Approver,
    /// Where the runs below keep their state while their questions wait.
    runs: Runs,
    /// The questions asked below in the turn being made, for its step to record.
    asked: Mutex<Vec<Question>>,
    /// The answers the person gave, by their questions' keys, for the calls made again.
    answers: Mutex<HashMap<String, ElicitResult>>,
}

/// A question asked below, as a turn's step records it.
#[derive(Serialize, Deserialize)]
struct Question {
    key: String,
    params: ElicitRequestParams,
}

impl DurableTop {
    /// The top of the durable run whose call is `ctx`'s, asking through `approver`, the runs
    /// below kept in `runs`.
    pub(crate) fn new(ctx: &Context, approver: Approver, runs: Runs) -> Self {
        Self {
            ctx: ctx.clone(),
            approver,
            runs,
            asked: Mutex::default(),
            answers: Mutex::default(),
        }
    }
}

impl Top for DurableTop {
    fn context(&self) -> &Context {
        &self.ctx
    }

    fn answers_forms(&self) -> bool {
        true
    }

    fn answers_later(&self) -> bool {
        true
    }

    fn elicit(
        &self,
        key: String,
        params: ElicitRequestParams,
    ) -> BoxFuture<'_, Result<ElicitResult, Error>> {
        Box::pin(async move {
            if let Some(answer) = lock(&self.answers).get(&key) {
                return Ok(answer.clone());
            }
            lock(&self.asked).push(Question { key, params });
            Err(waiting())
        })
    }

    fn journaled(&self) -> Option<&dyn Journaled> {
        Some(self)
    }
}

impl Journaled for DurableTop {
    fn recorded<'a>(&'a self, turn: &'a Turn) -> BoxFuture<'a, Vec<ToolResult>> {
        Box::pin(async move {
            let mut left = Vec::new();
            for (call, run) in turn.paused_runs() {
                left.push(ToolResult::new(format!("{PAUSED}{call}"), ""));
                // Taken into the journal, sealed with the replicas' secret, whichever replica
                // replays it: put back once the step is recorded.
                match self.runs.store().take(&run).await {
                    Ok(Some(state)) => {
                        let state = self.runs.seal().open(&run, &state);
                        let sealed =
                            state.and_then(|state| self.approver.seal.seal(&run, &state).ok());
                        left.extend(sealed.map(|sealed| {
                            ToolResult::new(format!("{KEPT}{run}"), STANDARD.encode(sealed))
                        }));
                    }
                    Ok(None) => {}
                    Err(error) => {
                        tracing::warn!(target: "ladoga", %error, "a paused run below could not be read into the journal");
                    }
                }
            }
            for (call, report) in turn.reports() {
                left.push(ToolResult::new(
                    format!("{REPORT}{call}"),
                    report.to_string(),
                ));
            }
            let asked = std::mem::take(&mut *lock(&self.asked));
            for (number, question) in asked.iter().enumerate() {
                let question = serde_json::to_string(question).unwrap_or_default();
                left.push(ToolResult::new(format!("{ASKED}{number}"), question));
            }
            left
        })
    }

    fn answered<'a>(&'a self, results: &'a mut Vec<ToolResult>) -> BoxFuture<'a, Heard> {
        Box::pin(async move {
            let (mut paused, mut kept, mut asked) = (Vec::new(), Vec::new(), Vec::new());
            let mut reports = Vec::new();
            results.retain(|result| {
                let id = &result.call_id;
                if let Some(call) = id.strip_prefix(PAUSED) {
                    paused.push(call.to_owned());
                } else if let Some(call) = id.strip_prefix(REPORT) {
                    let report = serde_json::from_str(&result.content).unwrap_or_default();
                    reports.push((call.to_owned(), report));
                } else if let Some(run) = id.strip_prefix(KEPT) {
                    kept.push((run.to_owned(), result.content.clone()));
                } else if id.starts_with(ASKED) {
                    asked.extend(serde_json::from_str::<Question>(&result.content).ok());
                } else {
                    return true;
                }
                false
            });
            for (run, state) in kept {
                let state = STANDARD.decode(state).ok();
                let state = state.and_then(|state| self.approver.seal.open(&run, &state));
                let Some(state) = state.and_then(|state| self.runs.seal().seal(&run, &state).ok())
                else {
                    tracing::warn!(target: "ladoga", run = %run, "a paused run below does not verify in the journal");
                    continue;
                };
                if let Err(error) = self.runs.store().put(&run, state, PAUSED_RUN_TTL).await {
                    tracing::warn!(target: "ladoga", %error, "a paused run below could not be put back");
                }
            }
            // A call made again only finds an answer if a question was asked: without one, the
            // calls that paused end with what they answered, rather than pause again for ever.
            if asked.is_empty() && !paused.is_empty() {
                tracing::warn!(target: "ladoga", "calls paused below a durable run with no question asked: they end as they are");
                paused.clear();
            }
            for question in asked {
                let answer = self.ask(&question).await;
                lock(&self.answers).insert(question.key, answer);
            }
            Heard { paused, reports }
        })
    }
}

impl DurableTop {
    /// The person's answer to `question`, through the task: a cancel when none came, which the
    /// run below takes as it would its own caller's.
    async fn ask(&self, question: &Question) -> ElicitResult {
        let message = match &question.params {
            ElicitRequestParams::Form(form) => form.message.clone(),
            ElicitRequestParams::Url(url) => url.message.clone(),
        };
        let params = serde_json::to_value(&question.params).ok();
        let answer = self.approver.ask_form(&question.key, message, params).await;
        answer
            .and_then(|answer| serde_json::from_value(answer).ok())
            .unwrap_or_else(ElicitResult::cancel)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

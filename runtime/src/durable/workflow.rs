//! The Restate workflow a durable run is: `LadogaRun`, keyed by the run's id, whose `run`
//! handler calls the orchestrator in this process on a journal its steps are recorded in.

use std::sync::Arc;

use neva::svir::LocalTools;
use restate_sdk::prelude::*;
use serde::{Deserialize, Serialize};
use svir::{ToolCall, Toolbox};
use tracing::Instrument;

use super::Journal;
use super::approval::Approver;
use super::entry::Entry;
use super::relay::{Relay, recording};
use super::sealed::{Carried, Sealed};
use crate::store::Seal;

/// The name the workflow is registered under.
pub(super) const SERVICE: &str = "LadogaRun";

/// What a durable run's invocation carries: the orchestrator's tool and its call's arguments,
/// and whether the call is an MCP task, whose `tasks/get` tells the run's lines.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Call {
    pub(super) tool: String,
    pub(super) arguments: serde_json::Map<String, serde_json::Value>,
    #[serde(default)]
    pub(super) task: bool,
    /// The caller's claims, which the run's tools are called with.
    #[serde(default)]
    pub(super) claims: Option<Carried>,
    /// Whether the caller, waiting without a task, asked for progress: the run tells its lines
    /// as a task's run does, for the replica it waits on.
    #[serde(default)]
    pub(super) progress: bool,
    /// The W3C trace context of the caller's span (`_meta.traceparent` and `tracestate`): each
    /// attempt of the run, on whichever replica, is a span of the caller's trace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) trace: Option<Trace>,
}

/// The caller's W3C trace context, as its call's `_meta` carried it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Trace {
    pub(super) parent: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) state: Option<String>,
}

/// The workflow: the server's own tools, to call the run's orchestrator with, and
/// restate-server's ingress, which a task's lines and questions are told to.
pub(super) struct Runs {
    pub(super) tools: Arc<LocalTools>,
    pub(super) ingress: Arc<super::restate::Ingress>,
    /// What the calls are sealed with.
    pub(super) seal: Arc<Seal>,
}

// A step may wait long (a model's answer, a sub-agent's call): a minute without one is not
// taken for a dead replica's, only an hour is.
#[restate_sdk::workflow(name = "LadogaRun", inactivity_timeout = "1m", abort_timeout = "1h")]
impl Runs {
    /// Runs the orchestrator on the call, and answers as it answered.
    #[handler]
    async fn run(
        &self,
        ctx: WorkflowContext<'_>,
        call: Json<Sealed>,
    ) -> Result<Json<serde_json::Value>, HandlerError> {
        let Some(Call {
            tool,
            arguments,
            task,
            claims,
            progress,
            trace,
        }) = call.0.open(&self.seal, ctx.key())
        else {
            return Err(TerminalError::new(
                "the run's call does not open: it was not started by a replica of this server, \
                 or the replicas do not share the secret it is sealed with",
            )
            .into());
        };
        let (relay, steps) = Relay::new();
        // A task's run tells its lines, and asks its caller through the task (MCP 2026-07-28:
        // under 2025-11-25 a question is a request on the caller's session, which no replica
        // but the one holding it can send, so such a run asks nothing).
        let (lines, approver) = match (task, progress) {
            (true, _) => (
                Some(self.ingress.lines(ctx.key())),
                cfg!(not(feature = "legacy-spec")).then(|| {
                    let seal = self.seal.clone();
                    Approver::new(relay.clone(), self.ingress.clone(), ctx.key(), seal)
                }),
            ),
            (false, true) => (Some(self.ingress.lines(ctx.key())), None),
            (false, false) => (None, None),
        };
        let lines_told = lines.clone();
        let claims = claims.as_ref().and_then(Carried::claims);
        // Each attempt a span of the caller's trace: the replay on another replica's too.
        let span = trace.and_then(|trace| {
            let names = crate::trace::CallNames {
                tool: &tool,
                ..Default::default()
            };
            crate::trace::call_span(names, &trace.parent, trace.state.as_deref())
        });
        let entry = Arc::new(Entry::new(
            tool,
            ctx.key().to_owned(),
            Journal::on(Box::new(relay)),
            lines,
            approver,
            claims,
        ));
        // The snapshot the call is made through: the tools the server has now.
        self.tools
            .refresh()
            .await
            .map_err(|error| TerminalError::new(error.to_string()))?;
        // Through the door: the middleware makes it the call of `tool`, with the claims.
        let call = ToolCall::new(
            "durable run",
            super::door::DOOR,
            serde_json::Value::Object(arguments).to_string(),
        );
        let work = entry.clone().scope(self.tools.call(&call));
        let (called, cancelled) = match span {
            Some(span) => recording(&ctx, steps, work.instrument(span)).await,
            None => recording(&ctx, steps, work).await,
        };
        if let Some(lines) = &lines_told {
            lines.flushed(std::time::Duration::from_secs(5)).await;
        }
        if cancelled {
            return Err(TerminalError::new_with_code(409, "the run was cancelled").into());
        }
        match entry.answer() {
            Some(answer) => Ok(Json(serde_json::to_value(answer).map_err(|error| {
                TerminalError::new(format!("the run's answer does not serialize: {error}"))
            })?)),
            // The call did not reach the orchestrator: the server refused it, and says why.
            None => Err(TerminalError::new(called.content).into()),
        }
    }

    /// The caller's answer to the run's question: resolves the promise it waits on.
    #[handler]
    async fn answer(
        &self,
        ctx: SharedWorkflowContext<'_>,
        answer: Json<Answer>,
    ) -> Result<(), HandlerError> {
        let Json(Answer { promise, response }) = answer;
        ctx.resolve_promise(&promise, Json(response));
        Ok(())
    }
}

/// The caller's answer to a durable run's question: the promise it resolves, and the answer.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Answer {
    pub(super) promise: String,
    pub(super) response: serde_json::Value,
}

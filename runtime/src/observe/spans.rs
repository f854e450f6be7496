//! `tracing` spans for a run, its model requests and its tool calls, with the OpenTelemetry
//! GenAI semantic conventions' attribute names, so an OpenTelemetry layer exports them as
//! agent, chat and tool spans. `otel.name` and `otel.kind` give `tracing-opentelemetry` the
//! conventions' span names (`invoke_agent plan_week`, `chat gpt-4o-mini`, `execute_tool
//! add_task`) and kinds.

use std::sync::Arc;

use svir::{Completion, ToolCall};
use tracing::Span;
use tracing::field::Empty;

use crate::context::Compacted;
use crate::error::RunError;
use crate::metrics;
use crate::outcome::{Outcome, TokenUsage};
use crate::usage::SharedUsage;

/// The whole run: `invoke_agent`, with the model, the agent's name (the orchestrating tool's)
/// and, at the end, the usage, the turns and how it stopped.
pub(crate) fn run(model: &str, agent: Option<&str>) -> Span {
    let name = match agent {
        Some(agent) => format!("invoke_agent {agent}"),
        None => "invoke_agent".to_owned(),
    };
    tracing::info_span!(
        target: "ladoga",
        "invoke_agent",
        otel.name = name,
        otel.kind = "internal",
        gen_ai.operation.name = "invoke_agent",
        gen_ai.provider.name = "openai",
        gen_ai.request.model = model,
        gen_ai.agent.name = agent,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        ladoga.turns = Empty,
        ladoga.stop = Empty,
        ladoga.compactions = Empty,
        ladoga.compacted_tokens = Empty,
        ladoga.cost_usd = Empty,
        error.type = Empty,
    )
}

/// A run being watched: how it ends is recorded on its span, and a run dropped before it
/// ends (its caller cancelled or went away, or a caller's bound dropped it) is recorded as
/// `cancelled`, with the tokens it had used.
pub(crate) struct Watch {
    span: Span,
    usage: Arc<SharedUsage>,
    ended: bool,
}

impl Watch {
    pub(crate) fn new(span: Span, usage: Arc<SharedUsage>) -> Self {
        metrics::run_began();
        Self {
            span,
            usage,
            ended: false,
        }
    }

    /// Records how the run ended: its outcome, or its error and the bound it stopped at.
    pub(crate) fn ended(mut self, run: Result<&Outcome, &RunError>) {
        self.ended = true;
        record_usage(&self.span, self.usage.get());
        crate::cost::reckon(self.usage.spent());
        match run {
            Ok(outcome) => {
                self.span.record("ladoga.turns", outcome.turns);
                if let Some(cost) = outcome.cost_usd {
                    self.span.record("ladoga.cost_usd", cost);
                }
                self.span.record("ladoga.stop", outcome.stop.name());
                metrics::round_over(Some(outcome.stop.name()), None);
                metrics::run_turns(outcome.stop.name(), outcome.turns);
            }
            Err(error) => {
                if let Some(stop) = error.stop() {
                    self.span.record("ladoga.stop", stop.name());
                }
                self.span.record("error.type", error_type(error));
                // A round that pauses for its caller's answer ends no run.
                let stop = match error {
                    RunError::Paused(_) => None,
                    _ => Some(error.stop().map_or("error", |stop| stop.name())),
                };
                metrics::round_over(stop, Some(error_type(error)));
            }
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if self.ended {
            return;
        }
        let usage = self.usage.get();
        record_usage(&self.span, usage);
        self.span.record("ladoga.stop", "cancelled");
        metrics::round_over(Some("cancelled"), None);
        tracing::info!(
            target: "ladoga",
            parent: &self.span,
            input_tokens = usage.input,
            output_tokens = usage.output,
            "the run was cancelled"
        );
    }
}

/// A short, stable name of why a run failed, for `error.type`.
fn error_type(error: &RunError) -> &'static str {
    match error {
        RunError::Brief(_) => "brief",
        RunError::Toolbox(_) => "toolbox",
        RunError::Model(_) => "model",
        RunError::Output { .. } => "output",
        RunError::Paused(_) => "paused",
        RunError::Gone | RunError::Lost { .. } => "gone",
        RunError::NotKept { .. } | RunError::Unread { .. } | RunError::Unlocked => "store",
        RunError::Store(_) => "store",
        RunError::Tripped { .. } => "guard",
        RunError::Stopped { .. } => "stopped",
        RunError::TooLong { .. } => "context",
        RunError::Unpriced { .. } => "unpriced",
        RunError::SessionUnknown
        | RunError::SessionBusy { .. }
        | RunError::SessionLimit { .. }
        | RunError::SessionStore
        | RunError::NoCaller => "session",
        RunError::TurnLimit { .. }
        | RunError::Deadline { .. }
        | RunError::Budget { .. }
        | RunError::BudgetUsd { .. }
        | RunError::OverQuota { .. }
        | RunError::Stuck { .. } => error.stop().map_or("bound", |stop| stop.name()),
    }
}

/// One model request: `chat`, with the model and, once answered, the model that answered (a
/// [`Fallback`](crate::Fallback)'s may be another), the usage and the finish reason.
pub(crate) fn chat(model: &str) -> Span {
    tracing::info_span!(
        target: "ladoga",
        "chat",
        otel.name = format!("chat {model}"),
        otel.kind = "client",
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = "openai",
        gen_ai.request.model = model,
        gen_ai.response.model = Empty,
        gen_ai.response.finish_reasons = Empty,
        gen_ai.response.time_to_first_chunk = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
    )
}

/// Records on a model request's span how long after it was sent its first piece came, in
/// seconds.
pub(crate) fn first_piece(span: &Span, after: std::time::Duration) {
    span.record("gen_ai.response.time_to_first_chunk", after.as_secs_f64());
}

/// Records the answer of a model request, and the model that gave it, on its span.
pub(crate) fn answered(span: &Span, done: &Completion, model: &str) {
    span.record("gen_ai.response.model", model);
    span.record(
        "gen_ai.response.finish_reasons",
        tracing::field::debug(&done.finish),
    );
    if let Some(usage) = done.usage {
        span.record("gen_ai.usage.input_tokens", usage.input);
        span.record("gen_ai.usage.output_tokens", usage.output);
    }
}

/// One tool call: `execute_tool`, with the tool's name and the call's id.
pub(crate) fn tool(call: &ToolCall) -> Span {
    tracing::info_span!(
        target: "ladoga",
        "execute_tool",
        otel.name = format!("execute_tool {}", call.name),
        otel.kind = "internal",
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = %crate::toolbox::Escaped(&call.name),
        gen_ai.tool.call.id = %crate::toolbox::Escaped(&call.id),
        gen_ai.tool.type = "function",
        error.type = Empty,
    )
}

/// Records on the run's span how often its conversation was compacted, and the tokens that
/// removed, over the run so far.
pub(crate) fn compacted(span: &Span, total: &Compacted) {
    span.record("ladoga.compactions", total.times);
    span.record("ladoga.compacted_tokens", total.removed);
}

/// Marks a tool call's span as failed.
pub(crate) fn tool_failed(span: &Span) {
    span.record("error.type", "tool_error");
}

fn record_usage(span: &Span, usage: TokenUsage) {
    span.record("gen_ai.usage.input_tokens", usage.input);
    span.record("gen_ai.usage.output_tokens", usage.output);
}

//! `tracing` spans for a run, its model requests and its tool calls, with the OpenTelemetry
//! GenAI semantic conventions' attribute names, so an OpenTelemetry layer exports them as
//! agent, chat and tool spans.

use svir::{Completion, ToolCall};
use tracing::Span;
use tracing::field::Empty;

use crate::{Outcome, TokenUsage};

/// The whole run: `invoke_agent`, with the model and, at the end, the usage and the stop.
pub(crate) fn run(model: &str) -> Span {
    tracing::info_span!(
        target: "ladoga",
        "invoke_agent",
        gen_ai.operation.name = "invoke_agent",
        gen_ai.provider.name = "openai",
        gen_ai.request.model = model,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        ladoga.turns = Empty,
        ladoga.stop = Empty,
    )
}

/// Records how the run ended on its span.
pub(crate) fn ran(span: &Span, outcome: &Outcome) {
    record_usage(span, outcome.usage);
    span.record("ladoga.turns", outcome.turns);
    span.record("ladoga.stop", outcome.stop.name());
}

/// One model request: `chat`, with the model and, once answered, the usage and finish reason.
pub(crate) fn chat(model: &str) -> Span {
    tracing::info_span!(
        target: "ladoga",
        "chat",
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = "openai",
        gen_ai.request.model = model,
        gen_ai.response.finish_reasons = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
    )
}

/// Records the answer of a model request on its span.
pub(crate) fn answered(span: &Span, done: &Completion) {
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
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = %call.name,
        gen_ai.tool.call.id = %call.id,
        gen_ai.tool.type = "function",
        error.type = Empty,
    )
}

/// Marks a tool call's span as failed.
pub(crate) fn tool_failed(span: &Span) {
    span.record("error.type", "tool_error");
}

fn record_usage(span: &Span, usage: TokenUsage) {
    span.record("gen_ai.usage.input_tokens", usage.input);
    span.record("gen_ai.usage.output_tokens", usage.output);
}

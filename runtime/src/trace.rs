//! W3C trace context as it crosses MCP: a call's `_meta.traceparent` (and `tracestate`, MCP
//! 2026-07-28's SEP-414, which neva keeps in every request's `_meta`) makes the call a span that
//! is a child of the caller's, which its handler runs in, and a call a run makes to a `with`
//! server carries the context of the span it is made in. A host's trace, an orchestrator's run,
//! the runs nested in it and the runs of the servers it calls are one trace.
//!
//! It takes the `otel` feature and a `tracing-opentelemetry` layer (0.34, on `opentelemetry`
//! 0.33) in the server's subscriber, the one that exports Ladoga's spans (see
//! `docs/operating.md`). Without either, a `traceparent` changes nothing.

/// A W3C trace context: the `traceparent` of the span a call is made in, and its vendors'
/// `tracestate`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TraceContext {
    /// `00-<trace id>-<span id>-<flags>`.
    pub(crate) parent: String,
    /// The vendors' state, `vendor=value` pairs, if any.
    pub(crate) state: Option<String>,
}

/// `traceparent` checked as W3C Trace Context's version 00 writes it: the trace id (32 lowercase
/// hex digits, not all zero), the parent span id (16, not all zero) and the flags (2).
fn well_formed(traceparent: &str) -> Option<(&str, &str, &str)> {
    let mut parts = traceparent.trim().split('-');
    let (version, trace, span, flags) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let hex = |part: &str, len: usize| {
        part.len() == len
            && part
                .bytes()
                .all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f'))
    };
    let not_zero = |part: &str| part.bytes().any(|byte| byte != b'0');
    (parts.next().is_none()
        && version == "00"
        && hex(trace, 32)
        && not_zero(trace)
        && hex(span, 16)
        && not_zero(span)
        && hex(flags, 2))
    .then_some((trace, span, flags))
}

/// What a traced `tools/call` is, as OpenTelemetry's MCP conventions record it on its span.
#[derive(Debug, Default, Clone, Copy)]
#[cfg_attr(
    not(feature = "otel"),
    allow(dead_code, reason = "recorded on a span with the otel feature only")
)]
pub(crate) struct CallNames<'a> {
    /// The tool called: `gen_ai.tool.name`, and the span's name, `tools/call {tool}`.
    pub(crate) tool: &'a str,
    /// The request's JSON-RPC id, `jsonrpc.request.id`, when it came as a request.
    pub(crate) request: Option<&'a str>,
    /// The MCP version the request says it speaks, `mcp.protocol.version` (2026-07-28 says it
    /// in each request's `_meta`).
    pub(crate) protocol: Option<&'a str>,
}

/// The span of a `tools/call` (`call`) whose `_meta` carries `traceparent` and `tracestate`:
/// an MCP server span (`tools/call plan_week`, as OpenTelemetry's MCP conventions name it, with
/// their attributes), a child of the caller's span, which the call's handler runs in. `None`
/// without the `otel` feature, or for a `traceparent` that is not well formed (ignored, as W3C
/// Trace Context has it).
pub(crate) fn call_span(
    call: CallNames<'_>,
    traceparent: &str,
    tracestate: Option<&str>,
) -> Option<tracing::Span> {
    let Some(parts) = well_formed(traceparent) else {
        tracing::debug!(target: "ladoga", traceparent, "a call's traceparent is not well formed: ignored");
        return None;
    };
    #[cfg(feature = "otel")]
    return otel::call_span(call, parts, tracestate);
    #[cfg(not(feature = "otel"))]
    {
        let _ = (call, parts, tracestate);
        None
    }
}

/// The trace context of the current span, to send with a call: `None` without the `otel`
/// feature, or when the current span is in no trace.
pub(crate) fn current() -> Option<TraceContext> {
    #[cfg(feature = "otel")]
    return otel::current();
    #[cfg(not(feature = "otel"))]
    None
}

#[cfg(feature = "otel")]
mod otel {
    use std::str::FromStr;

    use opentelemetry::trace::{
        SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState,
    };
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    use super::{CallNames, TraceContext};

    pub(super) fn call_span(
        names: CallNames<'_>,
        (trace, span, flags): (&str, &str, &str),
        tracestate: Option<&str>,
    ) -> Option<tracing::Span> {
        let (Ok(trace), Ok(span), Ok(flags)) = (
            TraceId::from_hex(trace),
            SpanId::from_hex(span),
            u8::from_str_radix(flags, 16),
        ) else {
            return None;
        };
        let state = tracestate
            .and_then(|state| TraceState::from_str(state).ok())
            .unwrap_or_default();
        let remote = SpanContext::new(trace, span, TraceFlags::new(flags), true, state);
        let parent = opentelemetry::Context::new().with_remote_span_context(remote);
        let call = tracing::info_span!(
            target: "ladoga",
            "tools/call",
            otel.name = format!("tools/call {}", names.tool),
            otel.kind = "server",
            mcp.method.name = "tools/call",
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = names.tool,
            jsonrpc.request.id = tracing::field::Empty,
            mcp.protocol.version = tracing::field::Empty,
        );
        if let Some(request) = names.request {
            call.record("jsonrpc.request.id", request);
        }
        if let Some(protocol) = names.protocol {
            call.record("mcp.protocol.version", protocol);
        }
        // A new span, not entered yet: its parent can still be set.
        if let Err(error) = call.set_parent(parent) {
            tracing::debug!(target: "ladoga", %error, "a call's traceparent could not be adopted");
            return None;
        }
        Some(call)
    }

    pub(super) fn current() -> Option<TraceContext> {
        let context = tracing::Span::current().context();
        let span = context.span();
        let span = span.span_context();
        if !span.is_valid() {
            return None;
        }
        let state = span.trace_state().header();
        Some(TraceContext {
            parent: format!(
                "00-{}-{}-{:02x}",
                span.trace_id(),
                span.span_id(),
                span.trace_flags().to_u8()
            ),
            state: (!state.is_empty()).then_some(state),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traceparent_is_taken_only_as_version_00_writes_it() {
        let good = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        assert_eq!(
            well_formed(good),
            Some(("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", "01"))
        );
        for bad in [
            "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-00",
            "",
        ] {
            assert_eq!(well_formed(bad), None, "{bad}");
        }
    }
}

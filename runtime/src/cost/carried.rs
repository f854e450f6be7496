//! A budget and a spend as they cross MCP: what a call may spend, in its request's `_meta`, and
//! what it spent, in its result's report.
//!
//! - A call's request carries the dollars its caller lets it spend under [`BUDGET_KEY`]
//!   (`"io.github.ladoga-rs/budget_usd": 0.25`). A Ladoga server's orchestrator takes it as its
//!   run's dollar budget when that is lower than its own: a caller can lower a tool's budget,
//!   never raise it. `0` or less leaves it nothing to spend.
//! - The result carries what the run spent, nested runs included, in its report
//!   ([`REPORT_KEY`](crate::REPORT_KEY)), as `cost_usd`: a number of dollars, or `null` when a
//!   price was unknown. A failed run's result carries it too.
//!
//! neva 0.9 keeps a request's `_meta` keys it knows only, so the key reaches an orchestrator as
//! a member of the request's W3C `baggage` ([`BAGGAGE_MEMBER`]): a middleware every Ladoga
//! server has copies it there as a request comes in, and a run that calls a `with` server
//! ([`LiveTools`](crate::LiveTools)) sends it that way. A caller may set either.

use neva::middleware::{MwContext, Next};
use neva::types::{CallToolResponse, Message, RequestId, RequestParamsMeta, Response};
use serde_json::Value;
use tracing::Instrument;

use super::Dollars;

use crate::trace::CallNames;
pub use crate::wire::{BAGGAGE_MEMBER, BUDGET_KEY};
use crate::wire::{STEER_KEY, STEER_MEMBER};

/// Where MCP 2026-07-28 says, in each request's `_meta`, the version the request speaks.
const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// What a budget of nothing left is taken as: no request that costs anything fits it.
const NOTHING_LEFT: f64 = 1e-12;

/// The dollars the request whose `_meta` is `meta` lets its call spend, if it says: the lowest
/// its baggage names.
///
/// # Examples
/// ```
/// let mut meta = neva::types::RequestParamsMeta::default();
/// meta.baggage = Some("userId=7,io.github.ladoga-rs.budget_usd=0.25".into());
/// assert_eq!(ladoga::cost::caller_budget(&meta).unwrap().get(), 0.25);
/// ```
pub fn caller_budget(meta: &RequestParamsMeta) -> Option<Dollars> {
    let baggage = meta.baggage.as_deref()?;
    baggage
        .split(',')
        .filter_map(|member| {
            let (key, value) = member.split_once('=')?;
            let value = value.split(';').next()?.trim();
            (key.trim() == BAGGAGE_MEMBER).then(|| value.parse::<f64>().ok())?
        })
        .filter_map(|amount| Dollars::new(amount.max(NOTHING_LEFT)))
        .min_by(|one, other| one.get().total_cmp(&other.get()))
}

/// `baggage` with the member that lets a call spend `left` dollars.
pub(crate) fn with_budget(baggage: Option<&str>, left: f64) -> String {
    with_member(baggage, BAGGAGE_MEMBER, &left.max(0.0).to_string())
}

/// `baggage` with the member `name=value` added.
fn with_member(baggage: Option<&str>, name: &str, value: &str) -> String {
    let member = format!("{name}={value}");
    match baggage.filter(|baggage| !baggage.trim().is_empty()) {
        Some(baggage) => format!("{baggage},{member}"),
        None => member,
    }
}

/// The middleware every Ladoga server runs on `tools/call`: a [`BUDGET_KEY`] in the request's
/// `_meta` becomes a member of its baggage, where the handler reads it, as does a `true` under
/// [`STEER_KEY`](crate::wire::STEER_KEY); and with a `traceparent`
/// the call runs in a span that is a child of the caller's ([`trace`](crate::trace)).
pub(crate) async fn carried_in(mut ctx: MwContext, next: Next) -> Response {
    let mut traced = None;
    if let Message::Request(request) = &mut ctx.msg
        && let Some(params) = request.params.as_mut()
    {
        let meta = params.get("_meta");
        if let Some(traceparent) = meta.and_then(|meta| meta.get("traceparent")?.as_str()) {
            let tracestate = meta.and_then(|meta| meta.get("tracestate")?.as_str());
            // The request's own id, not the path neva makes of it with the session's.
            let id = match &request.id {
                RequestId::Slice(path) => path.last().map(ToString::to_string),
                RequestId::Null => None,
                id => Some(id.to_string()),
            };
            let names = CallNames {
                tool: params
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
                request: id.as_deref(),
                protocol: meta.and_then(|meta| meta.get(PROTOCOL_VERSION)?.as_str()),
            };
            traced = crate::trace::call_span(names, traceparent, tracestate);
        }
        if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
            if let Some(budget) = meta.get(BUDGET_KEY).and_then(Value::as_f64) {
                let baggage = with_budget(meta.get("baggage").and_then(Value::as_str), budget);
                meta.insert("baggage".into(), Value::String(baggage));
            }
            // Steering: `session::steers` reads it from the baggage.
            if meta.get(STEER_KEY).and_then(Value::as_bool) == Some(true) {
                let baggage = with_member(
                    meta.get("baggage").and_then(Value::as_str),
                    STEER_MEMBER,
                    "1",
                );
                meta.insert("baggage".into(), Value::String(baggage));
            }
        }
    }
    match traced {
        Some(span) => next(ctx).instrument(span).await,
        None => next(ctx).await,
    }
}

neva::macros::inventory::submit! {
    neva::macros::server::ItemRegistrar(|app| {
        app.wrap_command(neva::types::tool::commands::CALL, carried_in);
    })
}

/// What the run behind a tool result says it spent, when it is a Ladoga run: its dollars, or
/// `None` inside when a price was unknown.
pub(crate) fn spent_by(result: &CallToolResponse) -> Option<Option<f64>> {
    let block = serde_json::to_value(result.content.first()?).ok()?;
    let cost = block
        .get("_meta")?
        .get(crate::wire::REPORT_KEY)?
        .get("cost_usd")?;
    Some(cost.as_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(baggage: &str) -> RequestParamsMeta {
        let mut meta = RequestParamsMeta::default();
        meta.baggage = Some(baggage.into());
        meta
    }

    #[test]
    fn the_lowest_budget_the_baggage_names_is_the_calls() {
        let both = meta("io.github.ladoga-rs.budget_usd=0.5, io.github.ladoga-rs.budget_usd=0.2");
        assert_eq!(caller_budget(&both).unwrap().get(), 0.2);
        assert!(caller_budget(&meta("other=1")).is_none());
        assert!(caller_budget(&meta("io.github.ladoga-rs.budget_usd=lots")).is_none());
    }

    #[test]
    fn nothing_left_is_a_budget_no_request_fits() {
        let none = caller_budget(&meta("io.github.ladoga-rs.budget_usd=0")).unwrap();
        assert!(none.get() > 0.0 && none.get() < 1e-9);
    }

    #[test]
    fn the_budget_joins_the_baggage_a_call_has() {
        assert_eq!(
            with_budget(None, 0.25),
            "io.github.ladoga-rs.budget_usd=0.25"
        );
        assert_eq!(
            with_budget(Some("userId=7"), 0.25),
            "userId=7,io.github.ladoga-rs.budget_usd=0.25"
        );
    }
}

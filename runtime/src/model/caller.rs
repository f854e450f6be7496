//! The caller's model: an orchestrator that needs no model of its own asks the MCP client that
//! called it, through sampling.

use std::sync::{Arc, Mutex};

use futures_util::future::Either;
use neva::Context;
use svir::{Completion, ErrorKind, Request};

use super::sampling;
use crate::model::CompletionModel;

tokio::task_local! {
    /// The tool call whose caller a [`CallerModel`] asks.
    static CALLER: Arc<Caller>;
}

/// The tool call a run answers, whose caller a [`CallerModel`] asks, and the question that
/// paused the run, when the caller answers in a later round (MCP 2026-07-28).
#[derive(Debug)]
pub(crate) struct Caller {
    ctx: Context,
    paused: Mutex<Option<neva::error::Error>>,
    /// Why the caller may not be asked, when it may not.
    refusal: Option<&'static str>,
}

impl Caller {
    /// The caller of `ctx`'s tool call.
    pub(crate) fn of(ctx: &Context) -> Arc<Self> {
        Arc::new(Self {
            ctx: ctx.clone(),
            paused: Mutex::new(None),
            refusal: None,
        })
    }

    /// The caller of a durable run, which a [`CallerModel`] may not ask: a round would be
    /// journaled as a failed model request, and a replayed run could not find its sample.
    #[cfg(feature = "restate")]
    pub(crate) fn in_durable_run(&self) -> Arc<Self> {
        Arc::new(Self {
            ctx: self.ctx.clone(),
            paused: Mutex::new(None),
            refusal: Some("a durable run cannot sample its caller"),
        })
    }

    /// The question the last model request put to the caller for a later round, once.
    pub(crate) fn take_pause(&self) -> Option<neva::error::Error> {
        self.paused.lock().ok()?.take()
    }

    #[cfg_attr(feature = "legacy-spec", allow(dead_code))]
    fn pause(&self, question: neva::error::Error) {
        if let Ok(mut paused) = self.paused.lock() {
            *paused = Some(question);
        }
    }
}

/// `request`, a model request of the run of `caller`'s tool call if there is one: a
/// [`CallerModel`] asks that call's caller.
///
/// Not an `async fn`: one would hold `request` twice, as its argument and as what it awaits.
pub(crate) fn serving<F: Future>(
    caller: Option<&Arc<Caller>>,
    request: F,
) -> impl Future<Output = F::Output> {
    match caller {
        Some(caller) => Either::Left(CALLER.scope(caller.clone(), request)),
        None => Either::Right(request),
    }
}

/// The bound on neva's sealed `requestState` a server that runs orchestrators on the
/// [`CallerModel`] sets with `App::with_max_state_bytes`: 1 MiB.
///
/// Under MCP 2026-07-28 each model request of such a run is a round of its tool call, and neva
/// seals every answer of a call's rounds into the state of each later round (neva 0.9 has no way
/// to leave out an answer the handler has read): at its default of 8 KiB, the third sample of
/// 4,000 characters fails the call with `requestState too large`. Ladoga keeps the run itself in
/// its run store between rounds; the samples' copies in the state are neva's. A sample of 4,000
/// characters takes some 5.5 KB of the state, so 1 MiB holds a run of some 180 such samples; the
/// client sends the state back with each round. Nothing to set under `legacy-spec`, where each
/// sample is a request to the client.
///
/// # Examples
/// ```
/// use neva::App;
///
/// let app = App::new().add_singleton(ladoga::CallerModel::new());
/// # #[cfg(not(feature = "legacy-spec"))]
/// let app = app.with_max_state_bytes(ladoga::CALLER_MODEL_STATE_BYTES);
/// # let _ = app;
/// ```
pub const CALLER_MODEL_STATE_BYTES: usize = 1 << 20;

/// The MCP caller's own model: every request of a run is put to the client that called the
/// orchestrator, as `sampling/createMessage`, with the system prompt, the conversation, the
/// tools and `toolChoice`; the client's sample (its text and `tool_use` blocks) is the model's
/// answer. For a server with no model and no API key of its own, handed to a person's desktop or
/// IDE host that has both (what FastMCP's `ctx.sample` is used for).
///
/// Register it with `App::add_singleton` and name it with
/// `#[orchestrator(model = ladoga::CallerModel)]`; a [`Fallback`](crate::Fallback) may list it
/// first, the server's own model after it, for a caller that cannot sample. The run's report
/// says `"model": "caller"`.
///
/// Under MCP 2026-07-28, which keeps sampling only for migration (deprecated, an input request
/// of a round), each model request is a round of the tool call: the run waits in the run store
/// between rounds, as it does for an approval, and goes on when the caller calls again with its
/// sample; nothing is asked or called twice, and with a shared store any replica takes the next
/// round. A call that runs as an MCP task cannot be sampled (neva 0.9 samples no task's caller).
/// Under `legacy-spec` (MCP 2025-11-25) each request is a request to the client, bounded by the
/// run's `timeout` and neva's request timeout.
///
/// A caller that cannot sample fails the run at its first model request, before any tool is
/// called, with a tool error that says so. A sample carries no token counts: the run's usage,
/// and its `budget`, count Ladoga's estimate of each request and sample
/// ([`estimate_tokens`](crate::context::estimate_tokens) of their JSON).
///
/// # Examples
/// ```
/// use neva::App;
///
/// let app = App::new().add_singleton(ladoga::CallerModel::new());
/// # let _ = app;
/// ```
#[derive(Debug, Clone, Default)]
pub struct CallerModel;

impl CallerModel {
    /// The caller's model.
    pub fn new() -> Self {
        Self
    }
}

impl CompletionModel for CallerModel {
    /// `caller`: the model is the caller's choice, and its name is what its sample says.
    fn name(&self) -> &str {
        "caller"
    }

    async fn complete(&self, request: &Request) -> Result<Completion, svir::Error> {
        let caller = CALLER.try_with(Clone::clone).map_err(|_| {
            unreachable("the caller's model answers only an orchestrator's run: there is no caller")
        })?;
        if let Some(refusal) = caller.refusal {
            return Err(unreachable(refusal));
        }
        let params = sampling::params(request)?;
        let asked = estimate_json(&params);
        let sample = sample(&caller, params).await?;
        let mut done = sampling::completion(&sample)?;
        // A sample carries no token counts: the run counts Ladoga's estimate of the request and
        // the sample, so that its usage, and a budget, mean something.
        done.usage = Some(svir::Usage::new(asked, estimate_json(&sample)));
        Ok(done)
    }

    fn asks_caller(&self) -> bool {
        true
    }
}

/// The caller's sample for `params`: a request to it (MCP 2025-11-25).
#[cfg(feature = "legacy-spec")]
async fn sample(
    caller: &Caller,
    params: neva::types::sampling::CreateMessageRequestParams,
) -> Result<neva::types::sampling::CreateMessageResult, svir::Error> {
    caller.ctx.sample(params).await.map_err(|error| {
        tracing::warn!(target: "ladoga", error = %crate::toolbox::printable(&error.to_string()), "the caller did not sample");
        unreachable("the caller did not answer the sampling request (it may not support sampling)")
    })
}

/// The caller's sample for `params`: in this round, when the caller sent it with its call,
/// else the question that pauses the run until the next (MCP 2026-07-28).
#[cfg(not(feature = "legacy-spec"))]
async fn sample(
    caller: &Caller,
    params: neva::types::sampling::CreateMessageRequestParams,
) -> Result<neva::types::sampling::CreateMessageResult, svir::Error> {
    let ctx = &caller.ctx;
    let key = key_of(&params);
    if !ctx.client_capabilities().sampling {
        return Err(unreachable("the caller did not declare sampling"));
    }
    if ctx.is_task() {
        return Err(unreachable(
            "a call that runs as an MCP task cannot sample its caller",
        ));
    }
    #[allow(deprecated)] // sampling, kept in MCP 2026-07-28 for migration
    let sampled = ctx.sample(key, params).await;
    match sampled {
        Ok(sample) => Ok(sample),
        Err(question) if question.code() == neva::error::ErrorCode::InputRequired => {
            caller.pause(question);
            // Not a failure a `Fallback` moves on from: the run pauses.
            Err(svir::Error::new(ErrorKind::Unsupported)
                .with_detail("the caller answers in the next round"))
        }
        Err(error) => {
            tracing::warn!(target: "ladoga", error = %crate::toolbox::printable(&error.to_string()), "the caller did not sample");
            Err(unreachable(
                "the caller did not answer the sampling request",
            ))
        }
    }
}

/// The estimate of how many tokens `value` is, written as JSON.
fn estimate_json(value: &impl serde::Serialize) -> u64 {
    let text = serde_json::to_string(value).unwrap_or_default();
    crate::context::estimate_tokens(&text)
}

/// The error of a caller that could not be asked: as a model server that could not be reached,
/// so a [`Fallback`](crate::Fallback) moves on to the next model.
fn unreachable(what: &'static str) -> svir::Error {
    svir::Error::new(ErrorKind::Transport).with_detail(what)
}

/// The key a sample of `params` is filed under: the request's own digest, so the same request
/// made again after a pause finds its answer in the round, and no other request does. Digested
/// in canonical form: neva keeps a `tool_use` block's arguments in a `HashMap`, so the same
/// request, made again in the next round or on another replica, may list them in another order.
#[cfg(not(feature = "legacy-spec"))]
fn key_of(params: &neva::types::sampling::CreateMessageRequestParams) -> String {
    let text = serde_json::to_string(params).unwrap_or_default();
    let digest = crate::toolbox::arguments::digest(&crate::toolbox::arguments::canonical(&text));
    format!("ladoga/sample/{}", &digest[..16])
}

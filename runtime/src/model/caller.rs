//! The caller's model: an orchestrator that needs no model of its own asks the MCP client that
//! called it, through sampling.

use neva::Context;
use svir::{Completion, ErrorKind, Request};

use super::sampling;
use crate::model::CompletionModel;

tokio::task_local! {
    /// The request whose caller a [`CallerModel`] asks: the orchestrator's tool call.
    static CALLER: Context;
}

/// `request`, a model request of the run of `ctx`'s tool call if there is one: a
/// [`CallerModel`] asks that call's caller.
pub(crate) async fn serving<T>(ctx: Option<&Context>, request: impl Future<Output = T>) -> T {
    match ctx {
        Some(ctx) => CALLER.scope(ctx.clone(), request).await,
        None => request.await,
    }
}

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
/// Under `legacy-spec` (MCP 2025-11-25) each request is a request to the client, bounded by the
/// run's `timeout` and neva's request timeout. MCP 2026-07-28 keeps sampling only for migration
/// (deprecated, an input request of a round): this generation does not ask through it yet, and
/// a run on the caller's model fails at its first request, saying so (a `Fallback` then asks
/// its next model).
///
/// A caller that cannot sample fails the run at its first model request, before any tool is
/// called, with a tool error that says so.
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
        let ctx = CALLER.try_with(Clone::clone).map_err(|_| {
            unreachable("the caller's model answers only an orchestrator's run: there is no caller")
        })?;
        let params = sampling::params(request)?;
        let sample = sample(&ctx, params).await?;
        sampling::completion(&sample)
    }
}

/// The caller's sample for `params`: a request to it (MCP 2025-11-25).
#[cfg(feature = "legacy-spec")]
async fn sample(
    ctx: &Context,
    params: neva::types::sampling::CreateMessageRequestParams,
) -> Result<neva::types::sampling::CreateMessageResult, svir::Error> {
    ctx.sample(params).await.map_err(|error| {
        tracing::warn!(target: "ladoga", %error, "the caller did not sample");
        unreachable("the caller did not answer the sampling request (it may not support sampling)")
    })
}

/// Not yet under MCP 2026-07-28, where sampling is an input request of a round.
#[cfg(not(feature = "legacy-spec"))]
async fn sample(
    ctx: &Context,
    params: neva::types::sampling::CreateMessageRequestParams,
) -> Result<neva::types::sampling::CreateMessageResult, svir::Error> {
    let _ = (ctx, params);
    Err(unreachable(
        "the caller's model is not asked under MCP 2026-07-28 yet (only under `legacy-spec`)",
    ))
}

/// The error of a caller that could not be asked: as a model server that could not be reached,
/// so a [`Fallback`](crate::Fallback) moves on to the next model.
fn unreachable(what: &'static str) -> svir::Error {
    svir::Error::new(ErrorKind::Transport).with_detail(what)
}

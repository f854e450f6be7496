//! The door a durable run's workflow enters its orchestrator through: a tool of its own, open to
//! every caller, that the `tools/call` middleware turns into the call of the run's orchestrator,
//! made with the caller's claims.
//!
//! The workflow calls through the server's in-process toolbox, which holds no claims: its
//! snapshot leaves out a tool the caller's roles or scopes open (an orchestrator behind an OAuth
//! scope, say), and it could not call it. The door is in every snapshot; inside the run's entry,
//! the middleware names the orchestrator in its place and gives the call the claims sealed in
//! the run's invocation, which neva then checks as it checks any caller's.
//!
//! The door is no tool of anyone's: it refuses a call that is no run's entry, an orchestrator's
//! toolbox leaves it out, and `tools/list` does not list it. neva sends the reply its handler
//! gave, whatever a middleware returns after it, so this server's `tools/list` is answered here,
//! as neva answers it (the same order, pages and cache fields) but for the door: from the
//! server's live tools, read through a [`Context`] the door keeps of one call made for it.

use std::sync::Arc;
use std::time::Duration;

use neva::Context;
use neva::error::{Error, ErrorCode};
use neva::middleware::{MwContext, Next};
use neva::types::{Cursor, IntoResponse, ListToolsRequestParams, ListToolsResult, Response};
use neva::{App, svir::LocalTools};
use svir::{ToolCall, Toolbox};
use tokio::sync::SetOnce;

use super::Restate;

/// The door's name: one a model API can carry, as every tool in a snapshot must have.
pub(crate) const DOOR: &str = "ladoga_durable_entry";

/// How many tools a page of `tools/list` holds: neva's own page.
const PAGE: usize = 10;

tokio::task_local! {
    /// Set around the one call the door keeps the [`Context`] of.
    static KEEP: ();
}

/// A [`Context`] of this server's, kept to read its live tools from.
pub(super) type Lister = Arc<SetOnce<Context>>;

/// Adds the door to `app`, and answers its `tools/list` without it.
pub(super) fn install(mut app: App) -> App {
    app.map_tool(DOOR, door)
        .with_description("The entry of a durable run: not a tool to call.");
    app.wrap_command(neva::types::tool::commands::LIST, list);
    app
}

/// Calls the door once through `tools`, for it to keep a [`Context`] in `lister`.
pub(super) async fn keep(tools: &LocalTools) {
    if let Err(error) = tools.refresh().await {
        tracing::error!(target: "ladoga::durable", %error, "the server's tools could not be read");
        return;
    }
    let call = ToolCall::new("keep", DOOR, "{}");
    KEEP.scope((), tools.call(&call)).await;
}

/// The door's own handler: reached only by a call that is no run's entry, which it refuses,
/// and by the one that it keeps the [`Context`] of.
async fn door(ctx: Context) -> Result<String, Error> {
    if KEEP.try_with(|_| ()).is_ok()
        && let Ok(restate) = ctx.resolve_shared::<Restate>()
    {
        let _ = restate.lister.set(ctx);
        return Ok("kept".to_owned());
    }
    Err(Error::new(
        ErrorCode::InvalidParams,
        "Tool not found: this is the entry of a durable run, which no one else calls",
    ))
}

/// A `tools/list`: the server's tools but the door, paged as neva pages them.
#[cfg_attr(feature = "legacy-spec", allow(clippy::needless_update))] // no cache fields there
async fn list(ctx: MwContext, next: Next) -> Response {
    let Ok(restate) = ctx.resolve_shared::<Restate>() else {
        return next(ctx).await;
    };
    // Kept as soon as the server runs; a list asked before that is neva's.
    let Ok(kept) = tokio::time::timeout(Duration::from_secs(2), restate.lister.wait()).await else {
        return next(ctx).await;
    };
    let asked: ListToolsRequestParams = ctx
        .request()
        .and_then(|request| request.params.clone())
        .and_then(|params| serde_json::from_value(params).ok())
        .unwrap_or_default();
    let start = asked.cursor.map_or(0, |cursor| cursor.0);
    let mut tools = kept
        .tools()
        .list()
        .await
        .into_iter()
        .filter(|tool| tool.name != DOOR)
        .skip(start);
    let page: Vec<_> = tools.by_ref().take(PAGE).collect();
    let next_cursor = tools.next().map(|_| Cursor(start + page.len()));
    ListToolsResult {
        tools: page,
        next_cursor,
        ..Default::default()
    }
    .into_response(ctx.id())
}

//! Steering a run that is an MCP task: a `tasks/update` whose `inputResponses` hold an answer
//! under [`STEER_KEY`](crate::session::STEER_KEY), `{"text": "…"}`, gives that text to the task's
//! run, which reads it before its next turn (MCP 2026-07-28).
//!
//! neva ignores a response whose key no question of the task's is under, so the update stays a
//! valid one for any server; a middleware a server that serves
//! [`TaskProgress`](crate::TaskProgress) has takes the message first (after
//! [`TaskOwners`](crate::TaskOwners) let the caller reach the task), into
//! the task's inbox in the run store ([`Runs`]), where the run reads it on whichever replica it
//! runs. The inbox is the caller's own: another caller's message is never read by the run.

use neva::middleware::{MwContext, Next};
use neva::types::{Message, Response};

use crate::session::{STEER_KEY, principal, task_inbox};
use crate::store::Runs;

/// The middleware on `tasks/update`: a steering message goes to the task's run, then the update
/// goes on to neva as it came.
pub(crate) async fn steered(ctx: MwContext, next: Next) -> Response {
    if let Some((task, text)) = message_of(&ctx) {
        let runs = ctx
            .resolve_shared::<Runs>()
            .map_or_else(|_| Runs::in_process(), |runs| (*runs).clone());
        let from = ctx.claims().and_then(principal::of_claims);
        match task_inbox(runs, &task, from.as_deref()).post(&text).await {
            Ok(_) => tracing::info!(target: "ladoga", "a message is given to a task's run"),
            Err(error) => {
                tracing::warn!(target: "ladoga", %error, "a message to a task's run could not be kept");
            }
        }
    }
    next(ctx).await
}

/// The task and the text of a steering `tasks/update`.
fn message_of(ctx: &MwContext) -> Option<(String, String)> {
    let Message::Request(request) = &ctx.msg else {
        return None;
    };
    let params = request.params.as_ref()?;
    let task = params.get("taskId")?.as_str()?;
    let text = params.get("inputResponses")?.get(STEER_KEY)?.get("text")?;
    let text = text
        .as_str()
        .map(str::trim)
        .filter(|text| !text.is_empty())?;
    Some((task.to_owned(), text.to_owned()))
}

//! How a durable orchestrator answers its call: from outside, by starting its run on Restate;
//! as the run's entry, by running on the run's journal.

use neva::Context;
use neva::error::Error;
use neva::types::{CallToolResponse, ProgressToken};

use super::Restate;
use super::entry::{Called, called};

/// The answer to a call of a durable orchestrator, which `run` gives when run here.
///
/// A call from outside starts a durable run when the server has a [`Restate`], keyed by a new
/// id, and answers with the run's answer, notifying `progress` of the run's lines meanwhile;
/// without one, it runs here, as any orchestrator does.
/// The run's own call, the workflow's entry, runs here on the journal and hands its answer to
/// the workflow. A call its model makes runs as any call does.
pub(crate) async fn answer(
    ctx: &Context,
    progress: Option<ProgressToken>,
    run: impl Future<Output = Result<CallToolResponse, Error>>,
) -> Result<CallToolResponse, Error> {
    match called() {
        Called::Entry(entry) => {
            let answer = run.await;
            if let Ok(answer) = &answer {
                entry.answered(answer);
            }
            answer
        }
        Called::Inside => run.await,
        Called::Outside => match (ctx.resolve_shared::<Restate>(), Restate::called()) {
            (Ok(restate), Some(call)) => {
                let key = uuid::Uuid::new_v4().to_string();
                restate.run(&key, &call, progress).await
            }
            _ => {
                not_durable();
                run.await
            }
        },
    }
}

/// Says, once, that a durable orchestrator ran as a plain one: on a server without Restate, or
/// as a task neva keeps (under `legacy-spec`).
fn not_durable() {
    static TOLD: std::sync::Once = std::sync::Once::new();
    TOLD.call_once(|| {
        // A root event of its own target: not one of the call's lines, which a server may send
        // its caller.
        tracing::info!(
            target: "ladoga::durable",
            parent: None,
            "a durable orchestrator ran as a plain one: the server has no Restate \
             (`ladoga::durable::Restate::serve`), or the call was a task neva keeps"
        );
    });
}

//! What the durable tests share: the replicas' secret, the model they run, and the wait for its
//! requests.

use std::time::Duration;

use ladoga::testing::{Reply, ScriptedModel};
use serde_json::json;

/// The secret the replicas seal their runs' calls with.
pub const STATE_SECRET: (&str, &str) = (
    "LADOGA_STATE_SECRET",
    "the replicas' secret, 32 bytes or more",
);

/// What [`adding_then_answering`]'s model answers at last.
pub const PLANNED: &str = "Planned: tag v1.0 first.";

/// A model that adds one task, then answers [`PLANNED`] after `thinking`.
pub fn adding_then_answering(thinking: Duration) -> ScriptedModel {
    ScriptedModel::from_fn(move |seen| match seen.tool_results().len() {
        0 => Reply::call("add_task", json!({"title": "Tag v1.0"})),
        _ => Reply::text(PLANNED).after(thinking),
    })
}

/// A model that adds a task, asks to clear the board, then answers that it is clear.
pub fn adding_then_clearing() -> ScriptedModel {
    ScriptedModel::from_fn(|seen| match seen.tool_results().len() {
        0 => Reply::call("add_task", json!({"title": "Tag v1.0"})),
        1 => Reply::call("clear_board", json!({})).with_text("Now the board can go."),
        _ => Reply::text("The board is clear."),
    })
}

/// Waits, for at most 30 s, until `script` has been asked `count` times.
pub async fn asked(script: &ScriptedModel, count: usize) {
    for _ in 0..300 {
        if script.requests().len() >= count {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the model was not asked {count} times in 30 s");
}

//! `tools`, `exclude`, and the caller's roles decide what the model is offered.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use common::{Server, text};
use ladoga::orchestrator;
use ladoga::testing::{Reply, ScriptedModel};
use neva::prelude::*;
use serde_json::json;

static LISTS: AtomicUsize = AtomicUsize::new(0);

#[tool(descr = "Adds a task")]
async fn add_task(title: String) -> String {
    format!("added {title}")
}

#[tool(descr = "Adds a note")]
async fn add_note(text: String) -> String {
    format!("noted {text}")
}

#[tool(descr = "Lists the tasks")]
async fn list_tasks() -> String {
    LISTS.fetch_add(1, Ordering::SeqCst);
    "nothing yet".to_owned()
}

#[tool(descr = "Removes every task", roles = ["admin"])]
async fn clear_board() -> String {
    "cleared".to_owned()
}

/// Only adds.
#[orchestrator(tools = ["add_*"])]
async fn only_adds(task: String) -> String {
    task
}

/// Everything but adds.
#[orchestrator(exclude = ["add_*", "*_notes"])]
async fn no_adds(task: String) -> String {
    task
}

/// Tasks, not listing them.
#[orchestrator(tools = ["*_task*", "*_note"], exclude = ["list_*"])]
async fn task_writer(task: String) -> String {
    task
}

async fn offered(tool: &str, script: ScriptedModel) -> Vec<String> {
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    let client = server.client().await;
    let result = client
        .tools()
        .call(tool, [("task", "x")])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{result:?}");
    server.stop().await;
    let mut names = script.requests()[0].tool_names();
    names.sort_unstable();
    names
}

#[tokio::test]
async fn tools_offers_only_the_matching_ones() {
    let names = offered("only_adds", ScriptedModel::new([Reply::text("ok")])).await;
    assert_eq!(names, ["add_note", "add_task"]);
}

#[tokio::test]
async fn exclude_leaves_the_matching_ones_out() {
    let names = offered("no_adds", ScriptedModel::new([Reply::text("ok")])).await;
    assert_eq!(names, ["list_tasks", "only_adds", "task_writer"]);
}

#[tokio::test]
async fn exclude_wins_over_tools() {
    let names = offered("task_writer", ScriptedModel::new([Reply::text("ok")])).await;
    assert_eq!(names, ["add_note", "add_task"]);
}

#[tokio::test]
async fn a_role_protected_tool_is_not_offered_to_a_caller_without_the_role() {
    let names = offered("no_adds", ScriptedModel::new([Reply::text("ok")])).await;
    assert!(!names.contains(&"clear_board".to_owned()), "{names:?}");
}

#[tokio::test]
async fn a_call_to_a_tool_left_out_is_told_to_the_model_and_nothing_runs() {
    let lists_before = LISTS.load(Ordering::SeqCst);
    let script = ScriptedModel::new([
        Reply::call("list_tasks", json!({})),
        Reply::call("clear_board", json!({})),
        Reply::text("I cannot list or clear."),
    ]);
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    let client = server.client().await;

    let result = client
        .tools()
        .call("only_adds", [("task", "x")])
        .await
        .expect("tools/call");
    assert_eq!(text(&result), "I cannot list or clear.");
    let told = script.requests()[2].tool_results();
    assert!(told[0].1.contains("no tool named `list_tasks`"), "{told:?}");
    assert!(
        told[1].1.contains("no tool named `clear_board`"),
        "{told:?}"
    );
    assert_eq!(
        LISTS.load(Ordering::SeqCst),
        lists_before,
        "list_tasks never ran"
    );
    server.stop().await;
}

//! Caller exclusion, `recurse`, and the depth bound, through a real neva server and client.

mod common;

use common::{Server, text};
use ladoga::orchestrator;
use ladoga::testing::{Reply, ScriptedModel, SeenRequest};
use neva::prelude::*;
use serde_json::json;

/// Hands its task to `delegate_b`.
#[orchestrator(depth = 1)]
async fn delegate_a(task: String) -> String {
    format!("A: {task}")
}

/// Hands its task back to `delegate_a`.
#[orchestrator(depth = 1)]
async fn delegate_b(task: String) -> String {
    format!("B: {task}")
}

/// Digs one level deeper, two calls deep at most.
#[orchestrator(recurse, depth = 2)]
async fn dig(level: String) -> String {
    format!("D: {level}")
}

/// May hand a branch to a nested `explore`.
#[orchestrator(recurse)]
async fn explore(branch: String) -> String {
    format!("E: {branch}")
}

/// The model behind every orchestrator here: a calls b, b calls a, and each answers with the
/// result it got back; offered no tool, it says so.
fn chain() -> ScriptedModel {
    ScriptedModel::from_fn(|request: &SeenRequest| {
        if let Some((_, result)) = request.tool_results().last() {
            return Reply::text(format!("got: {result}"));
        }
        if request.tool_names().is_empty() {
            return Reply::text("answered without tools");
        }
        match request.first_user_text().as_deref() {
            Some(brief) if brief.starts_with("A:") => {
                Reply::call("delegate_b", json!({"task": "from a"}))
            }
            Some(brief) if brief.starts_with("B:") => {
                Reply::call("delegate_a", json!({"task": "from b"}))
            }
            _ => Reply::text("explored"),
        }
    })
}

#[tokio::test]
async fn a_run_as_deep_as_its_bound_is_offered_no_tool_and_told_why() {
    let script = chain();
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    let client = server.client().await;

    let result = client
        .tools()
        .call("delegate_a", [("task", "plan")])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{result:?}");

    let requests = script.requests();
    assert_eq!(
        requests.len(),
        3,
        "a asks, b answers at once, a answers: {requests:#?}"
    );
    // a's model is offered b and explore, never a itself.
    let offered_to_a = requests[0].tool_names();
    assert!(
        offered_to_a.contains(&"delegate_b".to_owned()),
        "{offered_to_a:?}"
    );
    assert!(
        !offered_to_a.contains(&"delegate_a".to_owned()),
        "{offered_to_a:?}"
    );
    // b runs one call deep, its bound: any call it made would be refused, so it is offered
    // none, and its system prompt says why.
    let b = &requests[1];
    assert_eq!(b.first_user_text().as_deref(), Some("B: from a"));
    assert!(b.tool_names().is_empty(), "{:?}", b.tool_names());
    let told = b.system().unwrap_or_default();
    assert!(told.contains("No tools are available"), "{told}");
    assert!(told.contains("1 tool call deep"), "{told}");
    assert_eq!(text(&result), "got: answered without tools");
    server.stop().await;
}

#[tokio::test]
async fn a_recursing_orchestrator_nests_until_its_depth_bound() {
    let script = ScriptedModel::from_fn(|request: &SeenRequest| {
        if let Some((_, result)) = request.tool_results().last() {
            return Reply::text(format!("({result})"));
        }
        if request.tool_names().is_empty() {
            return Reply::text("leaf");
        }
        Reply::call("dig", json!({"level": "deeper"}))
    });
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    let client = server.client().await;

    let result = client
        .tools()
        .call("dig", [("level", "top")])
        .await
        .expect("tools/call");
    // dig at 0 and 1 call deep calls dig; dig at 2, its bound, answers without tools.
    assert_eq!(text(&result), "((leaf))");
    let offered: Vec<usize> = script
        .requests()
        .iter()
        .map(|request| request.tool_names().len())
        .collect();
    assert_eq!(offered.len(), 5, "{offered:?}");
    assert_eq!(offered.iter().filter(|&&tools| tools == 0).count(), 1);
    server.stop().await;
}

#[tokio::test]
async fn an_orchestrator_is_not_offered_to_its_own_model_unless_it_recurses() {
    let script = chain();
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    let client = server.client().await;

    let result = client
        .tools()
        .call("explore", [("branch", "north")])
        .await
        .expect("tools/call");
    assert_eq!(text(&result), "explored");
    let offered = script.requests()[0].tool_names();
    assert!(offered.contains(&"explore".to_owned()), "{offered:?}");
    assert!(offered.contains(&"delegate_a".to_owned()), "{offered:?}");
    server.stop().await;
}

/// Descends a level, twelve at most.
#[orchestrator(recurse, depth = 12)]
async fn descend(level: String) -> String {
    level
}

/// A tree of runs nested twelve deep in process, on a tokio worker with tokio's default 2 MiB of
/// stack. Each run is polled inside its parent's poll; in a debug build a level's frames are
/// about 300 KiB, so the tree needs twice the worker's stack: a run polls on a new segment once
/// its thread's is nearly used up, and the tree answers instead of aborting the process.
#[test]
fn a_tree_nested_deeper_than_a_workers_stack_holds_answers() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_stack_size(2 * 1024 * 1024)
        .enable_all()
        .build()
        .expect("a runtime");
    let tree = async {
        let script = ScriptedModel::from_fn(|request: &SeenRequest| {
            if let Some((_, result)) = request.tool_results().last() {
                return Reply::text(format!("({result})"));
            }
            match request.tool_names().iter().any(|tool| tool == "descend") {
                true => Reply::call("descend", json!({"level": "deeper"})),
                false => Reply::text("floor"),
            }
        });
        let model = script.serve().await.expect("serves");
        let server = Server::start(App::new().add_singleton(model.model())).await;
        let client = server.client().await;
        let result = client
            .tools()
            .call("descend", [("level", "top")])
            .await
            .expect("tools/call");
        server.stop().await;
        (text(&result), script.requests().len())
    };
    // On a worker, as a server's handlers run, not on the test's own thread.
    let (answer, requests) = runtime
        .block_on(async { tokio::spawn(tree).await })
        .expect("the tree answers");

    assert_eq!(answer, format!("{}floor{}", "(".repeat(12), ")".repeat(12)));
    assert_eq!(requests, 25, "two requests a level, one at the floor");
}

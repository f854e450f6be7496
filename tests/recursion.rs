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

/// May hand a branch to a nested `explore`.
#[orchestrator(recurse)]
async fn explore(branch: String) -> String {
    format!("E: {branch}")
}

/// The model behind every orchestrator here: a calls b, b calls a, and each answers with the
/// result it got back.
fn chain() -> ScriptedModel {
    ScriptedModel::from_fn(|request: &SeenRequest| {
        if let Some((_, result)) = request.tool_results().last() {
            return Reply::text(format!("got: {result}"));
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
async fn a_chain_a_b_a_is_refused_at_the_depth_bound_and_the_model_is_told_why() {
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
        4,
        "a asks, b asks, b answers, a answers: {requests:#?}"
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
    // b's call of a was not made: b's model is told the bound.
    let told_b = requests[2].tool_results();
    assert_eq!(told_b.len(), 1);
    assert!(told_b[0].1.contains("nest at most 1 deep"), "{told_b:?}");
    assert!(told_b[0].1.starts_with("error"), "{told_b:?}");
    assert!(
        text(&result).contains("nest at most 1 deep"),
        "{}",
        text(&result)
    );
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

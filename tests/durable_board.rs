//! `board --restate-endpoint … --restate-ingress …`: its `plan_week` runs durable on a real
//! restate-server, through the Restate endpoint the board serves. A board killed (`SIGKILL`)
//! while the model writes its second answer is started again, and restate-server goes on with
//! the run from its journal: nothing recorded is asked or called again.
//!
//! Ignored by a plain `cargo test`, since it needs restate-server: `scripts/test` installs it
//! with `scripts/peers install` and runs these with `--ignored`.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::restate::Restate;
use common::scratch::Scratch;
use common::{answer, board_at, connect, free_addr};
use ladoga::testing::{Reply, ScriptedModel};
use serde_json::json;

/// A model that adds one task, then answers, after `thinking`.
fn adding_then_answering(thinking: Duration) -> ScriptedModel {
    ScriptedModel::from_fn(move |seen| match seen.tool_results().len() {
        0 => Reply::call("add_task", json!({"title": "Tag v1.0"})),
        _ => Reply::text("Planned: tag v1.0 first.").after(thinking),
    })
}

/// A durable board: MCP at `http`, the Restate endpoint at `endpoint`, its tasks in `db`.
async fn durable_board(
    http: SocketAddr,
    endpoint: SocketAddr,
    restate: &Restate,
    model_url: &str,
    db: &std::path::Path,
) -> tokio::process::Child {
    let endpoint = endpoint.to_string();
    let db = db.display().to_string();
    let args = [
        "--restate-endpoint",
        &endpoint,
        "--restate-ingress",
        &restate.ingress(),
        "--restate-admin",
        &restate.admin(),
        "--db",
        &db,
    ];
    let (board, _) = board_at(
        http,
        model_url,
        "scripted",
        &args,
        &[],
        std::process::Stdio::null(),
    )
    .await;
    board
}

/// The tasks on the board at `addr`, as `list_tasks` says them.
async fn tasks(addr: SocketAddr) -> String {
    let client = connect(addr).await;
    let listed = client
        .tools()
        .call("list_tasks", ())
        .await
        .expect("tools/call");
    answer(&listed)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server: LADOGA_RESTATE (scripts/peers install)"]
async fn a_durable_plan_week_answers_as_a_plain_one_with_its_run_on_restate() {
    let restate = Restate::start().await;
    let script = adding_then_answering(Duration::ZERO);
    let model = script.serve().await.expect("the model's server");
    let scratch = Scratch::new("durable-board-plain");
    let http = free_addr();
    let _board = durable_board(http, free_addr(), &restate, &model.url(), &scratch.path).await;
    restate.wait_for_service("LadogaRun").await;

    let client = connect(http).await;
    let result = client
        .tools()
        .call("plan_week", [("focus", "the release")])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{result:?}");
    assert_eq!(answer(&result), "Planned: tag v1.0 first.");
    let block = serde_json::to_value(&result.content[0]).expect("JSON");
    let report = &block["_meta"][ladoga::REPORT_KEY];
    assert_eq!(report["turns"], 2, "{report}");
    assert_eq!(script.requests().len(), 2);
    assert!(tasks(http).await.contains("Tag v1.0"));

    let runs = restate.invocations("LadogaRun").await;
    assert_eq!(runs.len(), 1, "one durable run: {runs:?}");
    assert_eq!(runs[0]["status"], "completed", "{runs:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server: LADOGA_RESTATE (scripts/peers install)"]
async fn a_board_killed_while_the_model_answers_goes_on_from_the_journal_once_restarted() {
    let restate = Restate::start().await;
    let script = adding_then_answering(Duration::from_secs(3));
    let model = script.serve().await.expect("the model's server");
    let scratch = Scratch::new("durable-board-killed");
    let db = scratch.path.clone();
    let (http, endpoint) = (free_addr(), free_addr());
    let mut board = durable_board(http, endpoint, &restate, &model.url(), &db).await;
    restate.wait_for_service("LadogaRun").await;

    let client = connect(http).await;
    let call = tokio::spawn(async move {
        client
            .tools()
            .call("plan_week", [("focus", "the release")])
            .await
    });
    for _ in 0..300 {
        if script.requests().len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        script.requests().len(),
        2,
        "the second model request was made"
    );
    board.kill().await.expect("the board is killed");
    let cut = call.await.expect("the caller's task");
    assert!(
        cut.as_ref().map_or(true, |result| result.is_error),
        "the caller whose replica died gets no answer: {cut:?}"
    );

    let _board = durable_board(http, endpoint, &restate, &model.url(), &db).await;
    let runs = restate.invocations("LadogaRun").await;
    assert_eq!(runs.len(), 1, "one durable run: {runs:?}");
    let key = runs[0]["target_service_key"]
        .as_str()
        .expect("the run's key")
        .to_owned();
    let answered = restate.output("LadogaRun", &key).await;
    let text = answered["content"][0]["text"].as_str().unwrap_or_default();
    assert_eq!(text, "Planned: tag v1.0 first.", "{answered}");

    assert_eq!(
        script.requests().len(),
        3,
        "the first turn asked once, the cut one once more"
    );
    let listed = tasks(http).await;
    assert_eq!(
        listed.matches("Tag v1.0").count(),
        1,
        "add_task ran once: {listed}"
    );
}

#[test]
fn a_durable_board_refuses_the_callers_claims_it_cannot_carry() {
    for guard in [vec!["--auth"], vec!["--oauth", "http://127.0.0.1:1/"]] {
        let refused = std::process::Command::new(common::exe::exe("board"))
            .args([
                "--restate-endpoint",
                "127.0.0.1:1",
                "--restate-ingress",
                "http://127.0.0.1:1",
            ])
            .args(&guard)
            .output()
            .expect("the board runs");
        assert_eq!(refused.status.code(), Some(2), "{guard:?}");
        let told = String::from_utf8_lossy(&refused.stderr);
        assert!(told.contains("cannot be used with"), "{guard:?}: {told}");
    }
}

/// `plan_week` started as an MCP task at `addr`: the task's id.
#[cfg(not(feature = "legacy-spec"))]
async fn start_task(addr: SocketAddr) -> String {
    let params = json!({
        "name": "plan_week", "arguments": {"focus": "the release"}, "task": {"ttl": 60000},
    });
    let started = common::rounds::request(addr, "", "tools/call", params).await;
    assert_eq!(started["result"]["resultType"], "task", "{started}");
    assert_eq!(started["result"]["status"], "working", "{started}");
    started["result"]["taskId"]
        .as_str()
        .expect("a task id")
        .to_owned()
}

/// `tasks/get` of `id` at `addr` every 100 ms until the task ends (for at most 60 s): every
/// answer seen, the last one the end.
#[cfg(not(feature = "legacy-spec"))]
async fn follow(addr: SocketAddr, id: &str) -> Vec<serde_json::Value> {
    let mut seen = Vec::new();
    for _ in 0..600 {
        let got = common::rounds::request(addr, "", "tasks/get", json!({"taskId": id})).await;
        let result = got["result"].clone();
        assert!(result.is_object(), "{got}");
        let status = result["status"].as_str().unwrap_or_default().to_owned();
        seen.push(result);
        if ["completed", "failed", "cancelled"].contains(&status.as_str()) {
            return seen;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the task {id} did not end in 60 s: {seen:?}");
}

#[cfg(not(feature = "legacy-spec"))]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server: LADOGA_RESTATE (scripts/peers install)"]
async fn a_durable_task_started_on_one_replica_is_followed_on_another() {
    let restate = Restate::start().await;
    let script = adding_then_answering(Duration::from_secs(2));
    let model = script.serve().await.expect("the model's server");
    let scratch = Scratch::new("durable-board-task");
    let (one, other) = (free_addr(), free_addr());
    let _one = durable_board(one, free_addr(), &restate, &model.url(), &scratch.path).await;
    let _other = durable_board(other, free_addr(), &restate, &model.url(), &scratch.path).await;
    restate.wait_for_service("LadogaRun").await;

    let id = start_task(one).await;
    let seen = follow(other, &id).await;
    let last = seen.last().expect("an end");
    assert_eq!(last["status"], "completed", "{seen:?}");
    assert_eq!(last["taskId"], id.as_str());
    assert_eq!(last["ttlMs"], 60000, "{last}");
    assert_eq!(
        last["result"]["content"][0]["text"], "Planned: tag v1.0 first.",
        "{last}"
    );
    let report = &last["result"]["content"][0]["_meta"][ladoga::REPORT_KEY];
    assert_eq!(report["turns"], 2, "{last}");
    let lines: Vec<_> = seen
        .iter()
        .filter(|task| task["status"] == "working")
        .filter_map(|task| task["statusMessage"].as_str())
        .collect();
    assert!(
        lines.iter().any(|line| line.contains("add_task")),
        "a working task's status message is its run's line: {seen:?}"
    );
    assert_eq!(script.requests().len(), 2);

    let unknown =
        common::rounds::request(other, "", "tasks/get", json!({"taskId": "no-such-task"})).await;
    assert!(
        unknown["error"].is_object(),
        "a task no one has is neva's error: {unknown}"
    );
}

#[cfg(not(feature = "legacy-spec"))]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server: LADOGA_RESTATE (scripts/peers install)"]
async fn a_durable_task_cancelled_through_another_replica_stops_its_run() {
    let restate = Restate::start().await;
    let script = adding_then_answering(Duration::from_secs(3));
    let model = script.serve().await.expect("the model's server");
    let scratch = Scratch::new("durable-board-cancel");
    let (one, other) = (free_addr(), free_addr());
    let _one = durable_board(one, free_addr(), &restate, &model.url(), &scratch.path).await;
    let _other = durable_board(other, free_addr(), &restate, &model.url(), &scratch.path).await;
    restate.wait_for_service("LadogaRun").await;

    let id = start_task(one).await;
    for _ in 0..300 {
        if script.requests().len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        script.requests().len(),
        2,
        "the second model request was made"
    );
    let cancelled = common::rounds::request(other, "", "tasks/cancel", json!({"taskId": id})).await;
    assert!(cancelled["result"].is_object(), "{cancelled}");
    let seen = follow(other, &id).await;
    assert_eq!(
        seen.last().expect("an end")["status"],
        "cancelled",
        "{seen:?}"
    );
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(
        script.requests().len(),
        2,
        "no model request after the cancel"
    );
    assert_eq!(tasks(one).await.matches("Tag v1.0").count(), 1);
}

//! Orchestrators run as MCP tasks, by bare MCP 2026-07-28 requests: `plan_week` on the real
//! `board` binary (its `TaskProgress` registered), what `tasks/get` says while the run works
//! against what the task's creation said; and an orchestrator that runs only as a task. The
//! scripted model over HTTP.
#![cfg(not(feature = "legacy-spec"))]

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::auth::admin;
use common::rounds::request;
use ladoga::testing::{Reply, ScriptedModel};
use ladoga::{TaskProgress, orchestrator};
use neva::App;
use neva::types::Task;
use serde_json::{Value, json};

/// Plans around a focus, only ever as an MCP task.
#[orchestrator(task_support = "required")]
async fn plan_as_task(focus: String) -> String {
    format!("Plan around {focus}.")
}

#[neva::tool(descr = "Looks the calendar up, slowly")]
async fn slow_lookup(day: String) -> String {
    tokio::time::sleep(Duration::from_millis(1500)).await;
    format!("{day} is free")
}

/// Plans with the calendar, only as an MCP task, which its caller may steer.
#[orchestrator(task_support = "required", tools = ["slow_lookup"])]
async fn plan_steered(say: String) -> String {
    say
}

/// A model that adds a task, thinks for a second and a half, and answers.
fn slow_planner() -> ScriptedModel {
    ScriptedModel::from_fn(|seen| match seen.tool_results().len() {
        0 => Reply::call("add_task", json!({"title": "Tag v1.0"})),
        _ => Reply::text("Tag v1.0 is on the board.").after(Duration::from_millis(1500)),
    })
}

/// `plan_week` started as a task with `task` as its `task` parameter: its creation's result.
async fn start(addr: SocketAddr, task: Value) -> Value {
    let params = json!({"name": "plan_week", "arguments": {"focus": "the release"}, "task": task});
    let started = request(addr, &admin("alice"), "tools/call", params).await;
    assert_eq!(started["result"]["resultType"], "task", "{started}");
    started["result"].clone()
}

/// `tasks/get` of `id` every 50 ms until one says `message`, then that one.
async fn saying(addr: SocketAddr, id: &str, message: &str) -> Value {
    for _ in 0..60 {
        let got = request(addr, &admin("alice"), "tasks/get", json!({"taskId": id})).await;
        if got["result"]["statusMessage"] == message {
            return got["result"].clone();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no tasks/get of {id} said {message:?}");
}

/// The task a result is, read as neva reads one.
fn task(result: &Value) -> Task {
    serde_json::from_value(result.clone()).expect("a task")
}

#[tokio::test]
async fn a_working_tasks_status_message_is_its_runs_progress_and_the_rest_is_as_created() {
    let script = slow_planner();
    let model = script.serve().await.expect("serves");
    let (_board, addr) = common::auth::board_with_auth(&model.url()).await;

    for asked in [json!({}), json!({"ttl": 90_000})] {
        let created = start(addr, asked.clone()).await;
        let id = created["taskId"].as_str().expect("an id");
        // The turn's line, then its call's, which stays while the model thinks.
        let working = saying(addr, id, "turn 1/8: add_task answered").await;

        assert_eq!(working["status"], "working", "{working}");
        assert_eq!(working["resultType"], "complete", "{working}");
        assert_eq!(working["taskId"], created["taskId"]);
        // neva's own `ttlMs` for the task, whether the caller asked for one or not.
        assert_eq!(working["ttlMs"], created["ttlMs"], "asked {asked}");
        let (working, created) = (task(&working), task(&created));
        let skew = (working.created_at - created.created_at).num_milliseconds();
        assert!(skew.abs() <= 5, "createdAt {skew} ms off");
        assert!(working.last_updated_at >= created.created_at);
    }
}

#[tokio::test]
async fn once_the_run_answers_tasks_get_is_nevas_with_the_result() {
    let script = slow_planner();
    let model = script.serve().await.expect("serves");
    let (_board, addr) = common::auth::board_with_auth(&model.url()).await;

    let created = start(addr, json!({"ttl": 60_000})).await;
    let id = created["taskId"].as_str().expect("an id");
    for _ in 0..100 {
        let got = request(addr, &admin("alice"), "tasks/get", json!({"taskId": id})).await;
        if got["result"]["status"] == "completed" {
            let result = &got["result"]["result"];
            assert_eq!(result["content"][0]["text"], "Tag v1.0 is on the board.");
            assert_eq!(
                result["content"][0]["_meta"][ladoga::REPORT_KEY]["turns"],
                2
            );
            assert!(got["result"]["statusMessage"].is_null(), "{got}");
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the task did not complete");
}

#[tokio::test]
async fn a_required_task_orchestrator_refuses_a_plain_call_and_runs_as_a_task() {
    let script = ScriptedModel::new([Reply::text("Planned.")]);
    let model = script.serve().await.expect("serves");
    let app = App::new()
        .with_options(|opt| opt.with_tasks())
        .add_singleton(model.model());
    let server = common::Server::start(TaskProgress::new().serve(app)).await;
    let (addr, token) = (server.addr, "no auth here");
    let call = |task: Option<Value>| {
        let mut params = json!({"name": "plan_as_task", "arguments": {"focus": "the release"}});
        if let Some(task) = task {
            params["task"] = task;
        }
        request(addr, token, "tools/call", params)
    };

    let plain = call(None).await;
    let refusal = plain["error"]["message"].as_str().unwrap_or_default();
    assert!(refusal.contains("task augmented"), "{plain}");
    assert!(script.requests().is_empty(), "the model was not asked");

    let started = call(Some(json!({}))).await;
    assert_eq!(started["result"]["resultType"], "task", "{started}");
    let id = started["result"]["taskId"].as_str().expect("an id");
    for _ in 0..100 {
        let got = request(addr, token, "tasks/get", json!({"taskId": id})).await;
        if got["result"]["status"] == "completed" {
            assert_eq!(got["result"]["result"]["content"][0]["text"], "Planned.");
            assert_eq!(script.requests().len(), 1);
            server.stop().await;
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the task did not complete");
}

/// A task's run is steered by a `tasks/update` whose `inputResponses` hold a message under
/// `io.github.ladoga-rs/steer`: neva takes the update as any (no question waits under that key),
/// and the run reads the message before its next turn, as the person's words, and lists it.
#[tokio::test]
async fn a_tasks_run_reads_the_message_a_tasks_update_gives_it() {
    let script = ScriptedModel::from_fn(|seen| {
        // The person's last words, a message sent to the run in flight included.
        let last = seen.last_user_text().unwrap_or_default();
        match seen.tool_results().len() {
            0 => Reply::call("slow_lookup", json!({"day": "Thursday"})),
            _ => Reply::text(format!("Planned, as you said last: {last}")),
        }
    });
    let model = script.serve().await.expect("serves");
    let app = App::new()
        .with_options(|opt| opt.with_tasks())
        .add_singleton(model.model());
    let server = common::Server::start(TaskProgress::new().serve(app)).await;
    let addr = server.addr;
    let params =
        json!({"name": "plan_steered", "arguments": {"say": "Plan the offsite."}, "task": {}});
    let started = request(addr, "", "tools/call", params).await;
    let id = started["result"]["taskId"]
        .as_str()
        .expect("an id")
        .to_owned();

    tokio::time::sleep(Duration::from_millis(500)).await;
    let message = json!({ ladoga::session::STEER_KEY: {"text": "Make it Friday, not Thursday."} });
    let update = json!({"taskId": id, "inputResponses": message});
    let updated = request(addr, "", "tasks/update", update).await;
    assert!(updated.get("error").is_none(), "{updated}");

    for _ in 0..100 {
        let got = request(addr, "", "tasks/get", json!({"taskId": id})).await;
        if got["result"]["status"] == "completed" {
            let result = &got["result"]["result"];
            assert_eq!(
                result["content"][0]["text"],
                "Planned, as you said last: Make it Friday, not Thursday.",
                "{got}"
            );
            let report = &result["content"][0]["_meta"][ladoga::REPORT_KEY];
            assert_eq!(
                report["steered"],
                json!([{"turn": 1, "text": "Make it Friday, not Thursday."}]),
                "{report}"
            );
            server.stop().await;
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the task did not complete");
}

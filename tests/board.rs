//! The `board` example as a user runs it: the real binary, a real MCP client, and the scripted
//! model behind real HTTP; with `--remote`, another neva server run by the test, whose tools
//! `plan_week` offers too.

mod common;

use std::process::Stdio;
use std::time::Duration;

use common::{Server, board_over_http, board_over_http_with, connect, text};
use ladoga::testing::{Reply, ScriptedModel};
use neva::prelude::*;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;

/// The remote server's tool (`--remote`): every neva server this test runs has it.
#[tool(descr = "Tells how many hours a day the user can work this week")]
async fn hours() -> String {
    "6 hours a day".to_owned()
}

/// The week a scripted model plans: two tasks added at once, one completed and the board
/// listed at once, then the answer.
fn planning_script() -> ScriptedModel {
    ScriptedModel::new([
        Reply::calls([
            ("add_task", json!({"title": "Write the release notes"})),
            ("add_task", json!({"title": "Tag v1.0"})),
        ]),
        Reply::calls([
            ("complete_task", json!({"id": 1})),
            ("list_tasks", json!({})),
        ]),
        Reply::text("This week: one task done, one to go."),
    ])
}

#[tokio::test]
async fn plan_week_is_listed_with_a_schema_made_from_its_parameters() {
    let script = ScriptedModel::new([]);
    let model = script.serve().await.expect("the scripted model serves");
    let (_board, addr) = board_over_http(&model.url(), "scripted").await;
    let client = connect(addr).await;

    let tools = client.tools().list_all().await.expect("tools/list");
    let mut names: Vec<_> = tools.iter().map(|tool| tool.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "add_task",
            "clear_board",
            "complete_task",
            "list_tasks",
            "plan_week",
            "review"
        ]
    );
    let plan_week = tools.iter().find(|tool| tool.name == "plan_week").unwrap();
    let listed = serde_json::to_value(plan_week).unwrap();
    assert_eq!(
        listed["inputSchema"]["properties"]["focus"]["type"],
        "string"
    );
    assert_eq!(listed["inputSchema"]["required"], json!(["focus"]));
    assert!(
        listed["description"]
            .as_str()
            .unwrap()
            .starts_with("Plans the week"),
        "the doc comment is the description: {listed}"
    );
    assert!(script.requests().is_empty(), "listing asks no model");
}

#[tokio::test]
async fn plan_week_runs_the_model_over_the_boards_tools() {
    let script = planning_script();
    let model = script.serve().await.expect("the scripted model serves");
    let (_board, addr) = board_over_http(&model.url(), "scripted").await;
    let client = connect(addr).await;

    assert_eq!(
        common::plan_week(&client).await,
        "This week: one task done, one to go."
    );

    let requests = script.requests();
    assert_eq!(requests.len(), 3, "one request per model answer");
    let first = &requests[0];
    assert_eq!(first.model(), "scripted");
    assert!(first.system().unwrap().contains("task board"), "{first:?}");
    assert_eq!(
        first.first_user_text().unwrap(),
        "Plan my week around the release. Add the tasks to my board."
    );
    let mut offered = first.tool_names();
    offered.sort_unstable();
    assert_eq!(
        offered,
        ["add_task", "complete_task", "list_tasks", "review"],
        "neither plan_week itself nor the admin-only clear_board is offered"
    );

    // Every call got a result, in the order of the calls.
    let added = requests[1].tool_results();
    assert_eq!(added.len(), 2);
    assert_eq!(added[0].0, "call_1_0");
    assert_eq!(added[1].0, "call_1_1");
    assert!(added[0].1.ends_with("Write the release notes"), "{added:?}");
    assert!(added[1].1.ends_with("Tag v1.0"), "{added:?}");

    let answered = requests[2].tool_results();
    assert_eq!(answered.len(), 4, "the whole history goes back each turn");
    assert!(
        answered[2].1.starts_with("Completed task 1"),
        "{answered:?}"
    );
    assert!(answered[3].1.contains("[x]"), "{answered:?}");
    assert!(answered[3].1.contains("[ ]"), "{answered:?}");

    // The board a client sees afterwards is the one the model kept.
    let board = client.tools().call("list_tasks", ()).await.expect("list");
    assert_eq!(text(&board).lines().count(), 2, "{board:?}");
    assert!(text(&board).contains("[x]"));
}

#[tokio::test]
async fn over_stdio_plan_week_answers_and_the_server_exits_when_stdin_closes() {
    let script = planning_script();
    let model = script.serve().await.expect("the scripted model serves");
    let url: &'static str = Box::leak(model.url().into_boxed_str());

    let mut client = Client::new().with_options(|opt| {
        opt.with_stdio(
            common::exe("board"),
            ["--stdio", "--model-url", url, "--model", "scripted"],
        )
        .with_timeout(Duration::from_secs(60))
    });
    client.connect().await.expect("connects over stdio");
    assert_eq!(
        common::plan_week(&client).await,
        "This week: one task done, one to go."
    );
    client.disconnect().await.expect("disconnects");
    assert_eq!(script.requests().len(), 3);
}

#[tokio::test]
async fn a_stdio_board_exits_promptly_when_its_client_closes_stdin() {
    let mut board = Command::new(common::exe("board"))
        .args(["--stdio", "--model-url", "http://127.0.0.1:9"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the board binary starts");

    // It serves: a tools/list line gets its answer.
    let mut stdin = board.stdin.take().unwrap();
    let list = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }},
    });
    stdin
        .write_all(format!("{list}\n").as_bytes())
        .await
        .unwrap();
    let mut stdout = BufReader::new(board.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(Duration::from_secs(10), stdout.next_line())
        .await
        .expect("an answer within 10 s")
        .unwrap()
        .expect("a line");
    assert!(line.contains("plan_week"), "{line}");

    // The client goes away: the server follows, well within a second.
    drop(stdin);
    let started = std::time::Instant::now();
    let status = tokio::time::timeout(Duration::from_secs(5), board.wait())
        .await
        .expect("the board exits after stdin closes")
        .unwrap();
    assert!(status.success(), "{status:?}");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn with_remote_plan_week_offers_the_remote_servers_tools_too() {
    let remote = Server::start(App::new()).await;
    let script = ScriptedModel::new([
        Reply::call("remote_hours", json!({})),
        Reply::text("Six hours a day: two tasks."),
    ]);
    let model = script.serve().await.expect("the scripted model serves");
    let url = format!("http://{}/mcp", remote.addr);
    let (_board, addr) = board_over_http_with(&model.url(), "scripted", &["--remote", &url]).await;
    // A remote tool says nothing of itself, so `plan_week` asks before calling it: approved.
    let mut client = common::client_for(addr);
    let asked = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = asked.clone();
    client.map_elicitation(move |_: neva::types::elicitation::ElicitRequestParams| {
        counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        neva::types::elicitation::ElicitResult::accept()
    });
    client.connect().await.expect("connects");

    assert_eq!(
        common::plan_week(&client).await,
        "Six hours a day: two tasks."
    );

    let requests = script.requests();
    let mut offered = requests[0].tool_names();
    offered.sort_unstable();
    assert_eq!(
        offered,
        [
            "add_task",
            "complete_task",
            "list_tasks",
            "remote_hours",
            "review"
        ]
    );
    assert_eq!(requests[1].tool_results()[0].1, "6 hours a day");
    assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 1);
    remote.stop().await;
}

//! `board --auth` as a user runs it: the real binary over HTTP, bearer JWTs minted here, neva's
//! client, and the scripted model behind real HTTP. What the model was offered tells which tools
//! the caller's roles reach; a caller without a valid token never gets as far as the model.

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use crate::common::auth::{
    SECRET, SECRET_VAR, board_with_auth, client_with, connect_as, now, token, valid_token,
};
use crate::common::{self, free_addr};
use ladoga::testing::{Reply, ScriptedModel};
use neva::prelude::*;
use neva::types::elicitation::{ElicitRequestParams, ElicitResult};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

/// The tools `plan_week` offers every caller, sorted.
const EVERYONE: [&str; 4] = ["add_task", "complete_task", "list_tasks", "review"];

/// `plan_week` called by a caller holding `token`: its answer.
async fn plan_week_as(addr: SocketAddr, token: &str) -> String {
    let client = connect_as(addr, token).await;
    plan_week_with(client).await
}

/// `plan_week` called by a caller holding `token` who approves every call it is asked about:
/// its answer, and the questions.
async fn plan_week_approving(addr: SocketAddr, token: &str) -> (String, Vec<String>) {
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut client = client_with(addr, Some(token));
    let questions = asked.clone();
    client.map_elicitation(move |params: ElicitRequestParams| {
        let message = serde_json::to_value(&params).unwrap()["message"].to_string();
        questions.lock().unwrap().push(message);
        async { ElicitResult::accept() }
    });
    client.connect().await.expect("the MCP client connects");
    let answer = plan_week_with(client).await;
    let asked = asked.lock().unwrap().clone();
    (answer, asked)
}

/// `plan_week` called by `client`: its answer.
async fn plan_week_with(client: Client) -> String {
    let answer = common::plan_week(&client).await;
    client.disconnect().await.expect("disconnects");
    answer
}

/// The status line and headers of the board's answer to a bare HTTP `POST /mcp` calling
/// `plan_week`, with `authorization` as the `Authorization` header if given.
async fn raw_plan_week(addr: SocketAddr, authorization: Option<&str>) -> String {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "plan_week", "arguments": {"focus": "the release"}},
    })
    .to_string();
    let authorization = authorization
        .map(|value| format!("Authorization: {value}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{authorization}\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(addr)
        .await
        .expect("connects");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("an answer within 10 s")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer);
    answer
        .split("\r\n\r\n")
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// Asserts that a caller with `token` (none if `None`) is refused with `401` before anything
/// runs: by a bare HTTP request, and by neva's client, whose connection or call fails.
async fn assert_refused(addr: SocketAddr, token: Option<&str>) {
    let bearer = token.map(|token| format!("Bearer {token}"));
    let head = raw_plan_week(addr, bearer.as_deref()).await;
    assert!(head.starts_with("HTTP/1.1 401"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("www-authenticate: bearer"),
        "{head}"
    );

    let mut client = client_with(addr, token);
    let refused = match client.connect().await {
        Err(error) => format!("connect: {error}"),
        Ok(()) => match client
            .tools()
            .call("plan_week", [("focus", "the release")])
            .await
        {
            Err(error) => format!("tools/call: {error}"),
            Ok(result) => panic!("a caller without a valid token got an answer: {result:?}"),
        },
    };
    // neva's legacy client reports its refused `initialize` as a closed connection, without the
    // status; the bare request above checks the `401` in both builds.
    #[cfg(not(feature = "legacy-spec"))]
    assert!(refused.contains("401"), "{refused}");
    #[cfg(feature = "legacy-spec")]
    assert!(refused.starts_with("connect: "), "{refused}");
}

#[tokio::test]
async fn a_caller_without_admin_is_never_offered_clear_board_and_cannot_call_it() {
    let script = ScriptedModel::new([Reply::text("Planned, without clearing anything.")]);
    let model = script.serve().await.expect("the scripted model serves");
    let (_board, addr) = board_with_auth(&model.url()).await;
    let user = valid_token("bob", json!({"role": "user"}));

    assert_eq!(
        plan_week_as(addr, &user).await,
        "Planned, without clearing anything."
    );
    let requests = script.requests();
    assert_eq!(requests.len(), 1);
    let mut offered = requests[0].tool_names();
    offered.sort_unstable();
    assert_eq!(offered, EVERYONE, "clear_board needs `admin`");

    // Called directly, it is refused as well.
    let client = connect_as(addr, &user).await;
    let refused = client
        .tools()
        .call("clear_board", ())
        .await
        .expect_err("a user cleared the board");
    assert!(refused.to_string().contains("not authorized"), "{refused}");
    assert_eq!(script.requests().len(), 1, "no model was asked");
}

#[tokio::test]
async fn a_caller_with_admin_in_role_or_roles_is_offered_clear_board_and_still_asked() {
    let script = ScriptedModel::new([
        Reply::call("clear_board", json!({})),
        Reply::text("The board is clear."),
        Reply::text("Planned."),
        Reply::call("clear_board", json!({})),
        Reply::text("I could not clear the board."),
    ]);
    let model = script.serve().await.expect("the scripted model serves");
    let (_board, addr) = board_with_auth(&model.url()).await;

    // `role`: one string. The admin is asked before `clear_board` runs, and approves.
    let admin = valid_token("alice", json!({"role": "admin"}));
    let (answer, asked) = plan_week_approving(addr, &admin).await;
    assert_eq!(answer, "The board is clear.");
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].contains("`clear_board`"), "{asked:?}");
    // `roles`: an array, `admin` among others.
    let admin = valid_token("carol", json!({"roles": ["planner", "admin"]}));
    assert_eq!(plan_week_as(addr, &admin).await, "Planned.");
    // An admin whose client cannot be asked never has `clear_board` run.
    assert_eq!(
        plan_week_as(addr, &admin).await,
        "I could not clear the board."
    );

    let requests = script.requests();
    assert_eq!(requests.len(), 5);
    let refused = requests[4].tool_results();
    assert!(refused[0].1.contains("cannot be asked"), "{refused:?}");
    let mut everyone_and_clear = EVERYONE.to_vec();
    everyone_and_clear.push("clear_board");
    everyone_and_clear.sort_unstable();
    for first in [&requests[0], &requests[2]] {
        let mut offered = first.tool_names();
        offered.sort_unstable();
        assert_eq!(offered, everyone_and_clear, "{first:?}");
    }
    // The model's call ran with the caller's roles.
    let cleared = requests[1].tool_results();
    assert_eq!(cleared.len(), 1, "{cleared:?}");
    assert_eq!(cleared[0].1, "Removed 0 tasks");
}

#[tokio::test]
async fn a_request_without_a_token_is_refused_before_any_model_request() {
    let script = ScriptedModel::new([Reply::text("Nobody should read this.")]);
    let model = script.serve().await.expect("the scripted model serves");
    let (_board, addr) = board_with_auth(&model.url()).await;

    assert_refused(addr, None).await;
    // A header that is not a bearer token is no better: a malformed request.
    let head = raw_plan_week(addr, Some("Basic YWRtaW46YWRtaW4=")).await;
    assert!(head.starts_with("HTTP/1.1 400"), "{head}");
    assert!(head.contains("invalid_request"), "{head}");
    assert!(script.requests().is_empty(), "the model was asked");
}

#[tokio::test]
async fn a_token_signed_with_another_secret_is_refused_before_any_model_request() {
    let script = ScriptedModel::new([Reply::text("Nobody should read this.")]);
    let model = script.serve().await.expect("the scripted model serves");
    let (_board, addr) = board_with_auth(&model.url()).await;

    let forged = token(
        "another secret, just as long as the real one",
        json!({"sub": "mallory", "role": "admin", "exp": now() + 3600}),
    );
    assert_refused(addr, Some(&forged)).await;
    assert!(script.requests().is_empty(), "the model was asked");
}

#[tokio::test]
async fn an_expired_token_or_one_without_exp_is_refused_before_any_model_request() {
    let script = ScriptedModel::new([Reply::text("Nobody should read this.")]);
    let model = script.serve().await.expect("the scripted model serves");
    let (_board, addr) = board_with_auth(&model.url()).await;

    // An hour past: well beyond the minute of leeway for clock skew.
    let expired = token(
        SECRET,
        json!({"sub": "alice", "role": "admin", "exp": now() - 3600}),
    );
    assert_refused(addr, Some(&expired)).await;
    let forever = token(SECRET, json!({"sub": "alice", "role": "admin"}));
    assert_refused(addr, Some(&forever)).await;
    assert!(script.requests().is_empty(), "the model was asked");
}

/// `board` with `args` and `env` (and no inherited secret): its exit code and stderr, once it
/// has exited.
async fn board_refusing(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let output = Command::new(common::exe("board"))
        .args(["--model-url", "http://127.0.0.1:9"])
        .args(args)
        .env_remove(SECRET_VAR)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(10), output)
        .await
        .expect("the board exits at once")
        .expect("the board binary starts");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test]
async fn the_board_refuses_to_start_with_auth_and_no_usable_secret() {
    let addr = free_addr().to_string();
    let http = ["--http", addr.as_str(), "--auth"];

    let (code, stderr) = board_refusing(&http, &[]).await;
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains(SECRET_VAR), "{stderr}");
    assert!(stderr.contains("not set"), "{stderr}");

    let (code, stderr) =
        board_refusing(&http, &[(SECRET_VAR, "only 31 bytes, one too few.....")]).await;
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains(SECRET_VAR), "{stderr}");
    assert!(stderr.contains("it has 31"), "{stderr}");

    // There is no bearer token over stdio.
    let (code, stderr) = board_refusing(&["--stdio", "--auth"], &[(SECRET_VAR, SECRET)]).await;
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("stdio"), "{stderr}");
}

/// `ask` (the example client) calling `list_tasks` on the board at `addr`, with `token` as
/// `LADOGA_TOKEN` if given: its exit code and stdout.
async fn ask_list_tasks(addr: SocketAddr, token: Option<&str>) -> (Option<i32>, String) {
    let mut ask = Command::new(common::exe("ask"));
    ask.args(["--url", &format!("http://{addr}/mcp"), "list_tasks"])
        .env_remove("LADOGA_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    if let Some(token) = token {
        ask.env("LADOGA_TOKEN", token);
    }
    let output = tokio::time::timeout(Duration::from_secs(30), ask.output())
        .await
        .expect("ask exits")
        .expect("the ask binary starts");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[tokio::test]
async fn ask_sends_the_token_in_ladoga_token() {
    let script = ScriptedModel::new([]);
    let model = script.serve().await.expect("the scripted model serves");
    let (_board, addr) = board_with_auth(&model.url()).await;

    let user = valid_token("bob", json!({"role": "user"}));
    let (code, stdout) = ask_list_tasks(addr, Some(&user)).await;
    assert_eq!(code, Some(0), "{stdout}");
    assert_eq!(stdout.trim(), "The board is empty.");

    let (code, stdout) = ask_list_tasks(addr, None).await;
    assert_eq!(code, Some(1), "{stdout}");
    assert!(script.requests().is_empty());
}

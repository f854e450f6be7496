//! `board --restate-endpoint … --restate-ingress …`: its `plan_week` runs durable on a real
//! restate-server, through the Restate endpoint the board serves. A board killed (`SIGKILL`)
//! while the model writes its second answer is started again, and restate-server goes on with
//! the run from its journal: nothing recorded is asked or called again.
//!
//! Ignored by a plain `cargo test`, since it needs restate-server: `scripts/test` installs it
//! with `scripts/peers install` and runs these with `--ignored`.

use std::net::SocketAddr;
use std::time::Duration;

use crate::common::durable::{PLANNED, STATE_SECRET, adding_then_answering, asked};
use crate::common::restate::Restate;
use crate::common::scratch::Scratch;
use crate::common::{self, answer, board_at, connect, free_addr};
use ladoga::testing::{Reply, ScriptedModel};
use serde_json::json;

/// A durable board: MCP at `http`, the Restate endpoint at `endpoint`, its tasks in `db`, with
/// the board's other arguments `more`, and `--auth`'s secret.
async fn durable_board_with(
    http: SocketAddr,
    endpoint: SocketAddr,
    restate: &Restate,
    model_url: &str,
    db: &std::path::Path,
    more: &[&str],
) -> tokio::process::Child {
    let endpoint = endpoint.to_string();
    let db = db.display().to_string();
    let ingress = restate.ingress();
    let admin = restate.admin();
    let mut args = vec![
        "--restate-endpoint",
        &endpoint,
        "--restate-ingress",
        &ingress,
        "--restate-admin",
        &admin,
        "--db",
        &db,
    ];
    args.extend(more);
    let env = [
        STATE_SECRET,
        (common::auth::SECRET_VAR, common::auth::SECRET),
    ];
    let (board, _) = board_at(
        http,
        model_url,
        "scripted",
        &args,
        &env,
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

/// One durable board with its tasks in a scratch SQLite file, asking the model at `model_url`,
/// with the other arguments `more`: the board a test calls once restate-server knows its service.
struct Solo {
    /// Where it serves MCP.
    http: SocketAddr,
    /// Where it serves its Restate endpoint.
    endpoint: SocketAddr,
    board: tokio::process::Child,
    scratch: Scratch,
    restate: Restate,
    model_url: String,
    more: Vec<String>,
}

impl Solo {
    /// The board, named `name`, on a restate-server of its own.
    async fn start(name: &str, model_url: &str, more: &[&str]) -> Self {
        Self::on(Restate::start().await, Scratch::new(name), model_url, more).await
    }

    /// The board on `restate`, its tasks in `scratch`.
    async fn on(restate: Restate, scratch: Scratch, model_url: &str, more: &[&str]) -> Self {
        let (http, endpoint) = (free_addr(), free_addr());
        let board =
            durable_board_with(http, endpoint, &restate, model_url, &scratch.path, more).await;
        restate.wait_for_service("LadogaRun").await;
        let more = more.iter().map(|arg| (*arg).to_owned()).collect();
        let model_url = model_url.to_owned();
        Self {
            http,
            endpoint,
            board,
            scratch,
            restate,
            model_url,
            more,
        }
    }

    /// The board started again where it was, after it was killed.
    async fn start_again(&mut self) {
        let more: Vec<&str> = self.more.iter().map(String::as_str).collect();
        let (http, endpoint, db) = (self.http, self.endpoint, &self.scratch.path);
        self.board =
            durable_board_with(http, endpoint, &self.restate, &self.model_url, db, &more).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server: LADOGA_RESTATE (scripts/peers install)"]
async fn a_durable_plan_week_answers_as_a_plain_one_with_its_run_on_restate() {
    let script = adding_then_answering(Duration::ZERO);
    let model = script.serve().await.expect("the model's server");
    let solo = Solo::start("durable-board-plain", &model.url(), &[]).await;
    let (http, restate) = (solo.http, &solo.restate);

    let client = connect(http).await;
    let result = client
        .tools()
        .call("plan_week", [("focus", "the release")])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{result:?}");
    assert_eq!(answer(&result), PLANNED);
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
async fn a_durable_plan_week_on_the_callers_model_plans_on_the_boards_own_instead() {
    let script = adding_then_answering(Duration::ZERO);
    let model = script.serve().await.expect("the model's server");
    let solo = Solo::start(
        "durable-board-caller-model",
        &model.url(),
        &["--caller-model"],
    )
    .await;
    let (http, restate) = (solo.http, &solo.restate);

    // A caller that samples: a durable run still does not ask it, its Fallback moves on.
    let sampled = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut client = common::client_for(http);
    let counted = sampled.clone();
    #[allow(deprecated)] // sampling, deprecated in MCP 2026-07-28
    client.map_sampling(
        move |_: neva::types::sampling::CreateMessageRequestParams| {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let refused = neva::error::Error::new(neva::error::ErrorCode::InternalError, "asked");
            async { Err::<neva::types::sampling::CreateMessageResult, _>(refused) }
        },
    );
    client.connect().await.expect("connects");
    assert_eq!(common::plan_week(&client).await, PLANNED);
    assert_eq!(sampled.load(std::sync::atomic::Ordering::SeqCst), 0);
    assert_eq!(script.requests().len(), 2, "the board's own model planned");
    let runs = restate.invocations("LadogaRun").await;
    assert_eq!(runs.len(), 1, "one durable run: {runs:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server: LADOGA_RESTATE (scripts/peers install)"]
async fn a_board_killed_while_the_model_answers_goes_on_from_the_journal_once_restarted() {
    let script = adding_then_answering(Duration::from_secs(3));
    let model = script.serve().await.expect("the model's server");
    let mut solo = Solo::start("durable-board-killed", &model.url(), &[]).await;
    let http = solo.http;

    let client = connect(http).await;
    let call = tokio::spawn(async move {
        client
            .tools()
            .call("plan_week", [("focus", "the release")])
            .await
    });
    asked(&script, 2).await;
    solo.board.kill().await.expect("the board is killed");
    let cut = call.await.expect("the caller's task");
    assert!(
        cut.as_ref().map_or(true, |result| result.is_error),
        "the caller whose replica died gets no answer: {cut:?}"
    );

    solo.start_again().await;
    let restate = &solo.restate;
    let runs = restate.invocations("LadogaRun").await;
    assert_eq!(runs.len(), 1, "one durable run: {runs:?}");
    let key = runs[0]["target_service_key"]
        .as_str()
        .expect("the run's key")
        .to_owned();
    let answered = restate.output("LadogaRun", &key).await;
    let text = answered["content"][0]["text"].as_str().unwrap_or_default();
    assert_eq!(text, PLANNED, "{answered}");

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server and oidc-provider: LADOGA_RESTATE, LADOGA_ISSUER (scripts/peers install)"]
#[cfg(not(feature = "legacy-spec"))]
async fn a_durable_plan_week_under_oauth_runs_its_tools_with_the_callers_scopes() {
    use crate::common::rounds::{refused, request, text};

    let issuer = common::issuer::Issuer::start().await;
    let script = adding_then_answering(Duration::ZERO);
    let model = script.serve().await.expect("the model's server");
    let oauth = ["--oauth", &issuer.url()];
    let solo = Solo::start("durable-board-oauth", &model.url(), &oauth).await;
    let (http, restate) = (solo.http, &solo.restate);
    let resource = format!("http://{http}/mcp");
    let writer = issuer
        .sign_in(&resource, &["board:read", "board:write"])
        .await
        .access_token;

    let planned = request(
        http,
        &writer,
        "tools/call",
        json!({"name": "plan_week", "arguments": {"focus": "the release"}}),
    )
    .await;
    assert!(!refused(&planned), "{planned}");
    assert_eq!(text(&planned), PLANNED, "{planned}");
    let runs = restate.invocations("LadogaRun").await;
    assert_eq!(runs.len(), 1, "the run was durable: {runs:?}");
    // The run's model is offered what the writer's scopes open, and its call ran with them.
    let requests = script.requests();
    let mut offered = requests[0].tool_names();
    offered.sort_unstable();
    assert_eq!(
        offered,
        ["add_task", "complete_task", "list_tasks", "review"]
    );
    assert!(
        requests[1].tool_results()[0].1.contains("Tag v1.0"),
        "add_task ran: {:?}",
        requests[1].tool_results()
    );

    // A reader may not plan: refused before any run starts.
    let reader = issuer
        .sign_in(&resource, &["board:read"])
        .await
        .access_token;
    let refused_plan = request(
        http,
        &reader,
        "tools/call",
        json!({"name": "plan_week", "arguments": {"focus": "x"}}),
    )
    .await;
    assert!(refused(&refused_plan), "{refused_plan}");
    assert_eq!(restate.invocations("LadogaRun").await.len(), 1);

    // The door runs enter through is no tool of a caller's: not listed, and refused.
    let listed = request(http, &writer, "tools/list", json!({})).await;
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "add_task",
            "clear_board",
            "complete_task",
            "list_tasks",
            "plan_week",
            "review"
        ],
        "{listed}"
    );
    assert!(listed["result"]["ttlMs"].is_number(), "{listed}");
    let door = request(
        http,
        &writer,
        "tools/call",
        json!({"name": "ladoga_durable_entry", "arguments": {"focus": "x"}}),
    )
    .await;
    assert!(refused(&door), "{door}");
    assert_eq!(script.requests().len(), 2, "no run went through the door");
}

#[test]
fn a_durable_board_refuses_a_missing_secret() {
    let board = || {
        let mut board = std::process::Command::new(common::exe::exe("board"));
        board
            .args(["--http", &free_addr().to_string()])
            .args(["--restate-endpoint", "127.0.0.1:1"])
            .args(["--restate-ingress", "http://127.0.0.1:1"])
            .env_remove("LADOGA_STATE_SECRET")
            .env_remove("LADOGA_STATE_SECRET_FILE");
        board
    };
    let refused = board().output().expect("the board runs");
    assert_eq!(refused.status.code(), Some(1));
    let told = String::from_utf8_lossy(&refused.stderr);
    assert!(told.contains("LADOGA_STATE_SECRET"), "{told}");
}

/// `plan_week` started as an MCP task at `addr`, by the bearer of `token`: the task's id.
#[cfg(not(feature = "legacy-spec"))]
async fn start_task(addr: SocketAddr, token: &str) -> String {
    let params = json!({
        "name": "plan_week", "arguments": {"focus": "the release"}, "task": {"ttl": 60000},
    });
    let started = common::rounds::request(addr, token, "tools/call", params).await;
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
async fn follow(addr: SocketAddr, id: &str, token: &str) -> Vec<serde_json::Value> {
    let mut seen = Vec::new();
    for _ in 0..600 {
        let got = common::rounds::request(addr, token, "tasks/get", json!({"taskId": id})).await;
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

/// Two durable boards on one restate-server, sharing a SQLite board, with the other arguments
/// `more`: the replicas a task is started on and followed through.
struct Pair {
    one: SocketAddr,
    other: SocketAddr,
    _boards: [tokio::process::Child; 2],
    _scratch: Scratch,
    restate: Restate,
}

impl Pair {
    /// Both boards, asking the model at `model_url`, once restate-server knows their service.
    async fn start(name: &str, model_url: &str, more: &[&str]) -> Self {
        let restate = Restate::start().await;
        let scratch = Scratch::new(name);
        let (one, other) = (free_addr(), free_addr());
        let db = &scratch.path;
        let first = durable_board_with(one, free_addr(), &restate, model_url, db, more).await;
        let second = durable_board_with(other, free_addr(), &restate, model_url, db, more).await;
        restate.wait_for_service("LadogaRun").await;
        Self {
            one,
            other,
            _boards: [first, second],
            _scratch: scratch,
            restate,
        }
    }
}

#[cfg(not(feature = "legacy-spec"))]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server: LADOGA_RESTATE (scripts/peers install)"]
async fn a_durable_task_started_on_one_replica_is_followed_on_another() {
    let script = adding_then_answering(Duration::from_secs(2));
    let model = script.serve().await.expect("the model's server");
    let pair = Pair::start("durable-board-task", &model.url(), &[]).await;
    let (one, other) = (pair.one, pair.other);

    let id = start_task(one, "").await;
    let seen = follow(other, &id, "").await;
    let last = seen.last().expect("an end");
    assert_eq!(last["status"], "completed", "{seen:?}");
    assert_eq!(last["taskId"], id.as_str());
    assert_eq!(last["ttlMs"], 60000, "{last}");
    assert_eq!(last["result"]["content"][0]["text"], PLANNED, "{last}");
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
    let runs = pair.restate.invocations("LadogaRun").await;
    assert_eq!(runs.len(), 1, "one durable run: {runs:?}");
    assert_eq!(runs[0]["target_service_key"], id.as_str(), "{runs:?}");

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
    let script = adding_then_answering(Duration::from_secs(3));
    let model = script.serve().await.expect("the model's server");
    let pair = Pair::start("durable-board-cancel", &model.url(), &[]).await;
    let (one, other) = (pair.one, pair.other);

    let id = start_task(one, "").await;
    asked(&script, 2).await;
    let cancelled = common::rounds::request(other, "", "tasks/cancel", json!({"taskId": id})).await;
    assert!(cancelled["result"].is_object(), "{cancelled}");
    let seen = follow(other, &id, "").await;
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

#[cfg(not(feature = "legacy-spec"))]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server: LADOGA_RESTATE (scripts/peers install)"]
async fn a_durable_tasks_approval_is_answered_through_the_replica_that_did_not_ask() {
    let script = common::durable::adding_then_clearing();
    let model = script.serve().await.expect("the model's server");
    // Behind `--auth`, as an admin: `clear_board` is offered to the run with the caller's role.
    let pair = Pair::start("durable-board-approval", &model.url(), &["--auth"]).await;
    let (one, other) = (pair.one, pair.other);
    let admin = common::auth::admin("alice");

    let id = start_task(one, &admin).await;
    let mut asked = None;
    for _ in 0..300 {
        let got = common::rounds::request(one, &admin, "tasks/get", json!({"taskId": id})).await;
        if got["result"]["status"] == "input_required" {
            asked = Some(got["result"].clone());
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let asked = asked.expect("the task asks");
    let requests = asked["inputRequests"].as_object().expect("its question");
    assert_eq!(requests.len(), 1, "{asked}");
    let (key, question) = requests.iter().next().expect("one");
    assert_eq!(question["method"], "elicitation/create", "{asked}");
    let message = question["params"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("clear_board"), "{asked}");
    // Asked as long as the caller takes: no answer yet, still asking.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let still = common::rounds::request(other, &admin, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(still["result"]["status"], "input_required", "{still}");

    // Bob, another principal with a valid token, given the id on either replica: no such task,
    // word for word as for an id no one has, whether he reads, approves or cancels it.
    let bob = common::auth::valid_token("bob", json!({"role": "admin"}));
    let made_up = "5f0c1e9a-3d2b-4c8e-9a71-0e6b2d4f8c13";
    for addr in [one, other] {
        for (method, extra) in [
            ("tasks/get", json!(null)),
            (
                "tasks/update",
                json!({ key: {"action": "accept", "content": {}} }),
            ),
            ("tasks/cancel", json!(null)),
        ] {
            let params = |task: &str| match &extra {
                serde_json::Value::Null => json!({"taskId": task}),
                answers => json!({"taskId": task, "inputResponses": answers}),
            };
            let hers = common::rounds::request(addr, &bob, method, params(&id)).await;
            let none = common::rounds::request(addr, &bob, method, params(made_up)).await;
            assert_eq!(
                hers["error"].to_string().replace(&id, "ID"),
                none["error"].to_string().replace(made_up, "ID"),
                "{method}: {hers}"
            );
            assert!(hers["error"].is_object(), "{method}: {hers}");
        }
    }
    let still = common::rounds::request(one, &admin, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(still["result"]["status"], "input_required", "{still}");

    let responses = json!({ key: {"action": "accept", "content": {}} });
    let updated = common::rounds::request(
        other,
        &admin,
        "tasks/update",
        json!({"taskId": id, "inputResponses": responses}),
    )
    .await;
    assert!(updated["result"].is_object(), "{updated}");
    let seen = follow(other, &id, &admin).await;
    let last = seen.last().expect("an end");
    assert_eq!(last["status"], "completed", "{seen:?}");
    assert_eq!(
        last["result"]["content"][0]["text"], "The board is clear.",
        "{last}"
    );
    let report = &last["result"]["content"][0]["_meta"][ladoga::REPORT_KEY];
    assert_eq!(report["approvals"][0]["decision"], "approved", "{report}");
    let listed =
        common::rounds::request(one, &admin, "tools/call", json!({"name": "list_tasks"})).await;
    let listed = listed["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        !listed.contains("Tag v1.0"),
        "clear_board ran, with the caller's role: {listed}"
    );
    assert_eq!(script.requests().len(), 3);
}

#[cfg(not(feature = "legacy-spec"))]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server: LADOGA_RESTATE (scripts/peers install)"]
async fn a_durable_task_goes_on_when_restate_server_restarts_in_the_middle_of_its_run() {
    let script = adding_then_answering(Duration::from_secs(3));
    let model = script.serve().await.expect("the model's server");
    let mut solo = Solo::start("durable-board-restate-restart", &model.url(), &[]).await;
    let (http, restate) = (solo.http, &mut solo.restate);

    let id = start_task(http, "").await;
    asked(&script, 2).await;
    restate.kill();
    // While restate-server is down, the task cannot be told: a clear error to ask again, not
    // a hang, and never that the run failed.
    let down = common::rounds::request(http, "", "tasks/get", json!({"taskId": id})).await;
    let told = down["error"]["message"].as_str().unwrap_or_default();
    assert!(told.contains("restate-server"), "{down}");
    assert!(told.contains("ask again"), "{down}");
    assert!(!told.contains("the durable run failed"), "{down}");
    restate.start_again().await;

    let seen = follow(http, &id, "").await;
    let last = seen.last().expect("an end");
    assert_eq!(last["status"], "completed", "{seen:?}");
    assert_eq!(last["result"]["content"][0]["text"], PLANNED, "{last}");
    assert!(
        script.requests().len() <= 3,
        "the cut turn asked at most once more"
    );
    assert_eq!(
        tasks(http).await.matches("Tag v1.0").count(),
        1,
        "add_task ran once"
    );
}

#[cfg(not(feature = "legacy-spec"))]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server: LADOGA_RESTATE (scripts/peers install)"]
async fn a_call_that_may_not_run_twice_cut_by_the_kill_is_reported_unknown_never_repeated() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    // Another server's `deploy`, which says nothing of itself: neither read-only nor idempotent.
    let deploys = Arc::new(AtomicUsize::new(0));
    let counted = deploys.clone();
    let mut app = neva::App::new();
    app.map_tool("deploy", move || {
        let counted = counted.clone();
        async move {
            counted.fetch_add(1, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_secs(3)).await;
            "deployed"
        }
    });
    let remote = common::Server::start(app).await;
    let script = ScriptedModel::from_fn(|seen| match seen.tool_results().len() {
        0 => Reply::call("remote_deploy", json!({})),
        _ => Reply::text("Checked before deploying again."),
    });
    let model = script.serve().await.expect("the model's server");
    let url = format!("http://{}/mcp", remote.addr);
    let remote_args = ["--remote", url.as_str()];
    let mut solo = Solo::start("durable-board-unknown", &model.url(), &remote_args).await;
    let http = solo.http;

    let id = start_task(http, "").await;
    // A remote tool is approved first: through the task.
    let mut key = None;
    for _ in 0..300 {
        let got = common::rounds::request(http, "", "tasks/get", json!({"taskId": id})).await;
        if let Some(requests) = got["result"]["inputRequests"].as_object() {
            key = requests.keys().next().cloned();
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let key = key.expect("the task asks to approve remote_deploy");
    let responses = json!({ key: {"action": "accept", "content": {}} });
    let params = json!({"taskId": id, "inputResponses": responses});
    common::rounds::request(http, "", "tasks/update", params).await;
    for _ in 0..300 {
        if deploys.load(Ordering::SeqCst) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(deploys.load(Ordering::SeqCst), 1, "deploy was called");
    solo.board
        .kill()
        .await
        .expect("the board is killed while deploy runs");

    solo.start_again().await;
    let seen = follow(http, &id, "").await;
    let last = seen.last().expect("an end");
    assert_eq!(last["status"], "completed", "{seen:?}");
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(
        deploys.load(Ordering::SeqCst),
        1,
        "deploy, cut by the kill, is not made again"
    );
    let report = &last["result"]["content"][0]["_meta"][ladoga::REPORT_KEY];
    assert_eq!(report["unknown"][0]["tool"], "remote_deploy", "{report}");
    let requests = script.requests();
    let told = requests.last().expect("the last request").tool_results();
    assert!(
        told.iter()
            .any(|(_, result)| result.contains("the outcome of this call is unknown")),
        "the model is told: {told:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server: LADOGA_RESTATE (scripts/peers install)"]
async fn a_durable_typed_review_answers_with_its_structured_content_through_restate() {
    let script = ScriptedModel::new([
        Reply::call("list_tasks", json!({})),
        Reply::text("The board is empty, so nothing is open."),
        Reply::text(r#"{"summary": "Nothing is planned yet.", "open_tasks": []}"#),
    ]);
    let model = script.serve().await.expect("the model's server");
    let solo = Solo::start("durable-board-typed", &model.url(), &[]).await;
    let (http, restate) = (solo.http, &solo.restate);

    let client = connect(http).await;
    let result = client
        .tools()
        .call("review", [("focus", "the release")])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{result:?}");
    assert_eq!(
        result.struct_content,
        Some(json!({"summary": "Nothing is planned yet.", "open_tasks": []}))
    );
    // The brief opened with the server's prompt and carried its resource, in the run's process.
    let brief = script.requests()[0].first_user_text().unwrap_or_default();
    assert!(brief.contains("the release"), "{brief}");
    assert_eq!(
        script.requests()[2].body()["response_format"]["json_schema"]["name"],
        json!("Review")
    );
    let runs = restate.invocations("LadogaRun").await;
    assert_eq!(runs.len(), 1, "the review ran on Restate: {runs:?}");
}

/// Under `legacy-spec`: the Python SDK 1.x's own tasks client, MCP 2025-11-25's tasks, started
/// through one replica (`args` its mode) and followed through the other: its JSON line.
#[cfg(feature = "legacy-spec")]
async fn legacy_task(pair: &Pair, args: &[&str]) -> serde_json::Value {
    let (one, other) = (
        format!("http://{}/mcp", pair.one),
        format!("http://{}/mcp", pair.other),
    );
    let args = [&[one.as_str()], args, &["--follow", other.as_str()]].concat();
    common::peer::python_as_admin("LADOGA_PYTHON_LEGACY", "python_legacy_task.py", &args).await
}

#[cfg(feature = "legacy-spec")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server and the Python SDK 1.x: LADOGA_RESTATE, LADOGA_PYTHON_LEGACY"]
async fn a_legacy_durable_task_started_on_one_replica_is_followed_and_read_on_another() {
    let script = adding_then_answering(Duration::from_secs(2));
    let model = script.serve().await.expect("the model's server");
    let pair = Pair::start("durable-board-legacy-task", &model.url(), &[]).await;

    let line = legacy_task(&pair, &["accept"]).await;
    assert_eq!(line["status"], "completed", "{line}");
    assert_eq!(line["is_error"], false, "{line}");
    assert_eq!(
        common::unsessioned(line["text"].as_str().unwrap_or_default()),
        PLANNED,
        "{line}"
    );
    assert_eq!(line["report"]["turns"], 2, "{line}");
    let seen = line["seen"].as_array().expect("seen");
    assert!(
        seen.iter().any(|task| task["status"] == "working"
            && task["message"]
                .as_str()
                .is_some_and(|line| line.contains("add_task"))),
        "a working task's status message is its run's line: {line}"
    );
    assert_eq!(script.requests().len(), 2);
    let runs = pair.restate.invocations("LadogaRun").await;
    assert_eq!(runs.len(), 1, "one durable run: {runs:?}");
    assert_eq!(runs[0]["target_service_key"], line["task_id"], "{runs:?}");
}

#[cfg(feature = "legacy-spec")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server: LADOGA_RESTATE (scripts/peers install)"]
async fn a_legacy_durable_task_is_its_callers_on_every_replica() {
    use crate::common::legacy_http::{ask, initialized};

    let script = adding_then_answering(Duration::from_secs(2));
    let model = script.serve().await.expect("the model's server");
    let pair = Pair::start("durable-board-legacy-owner", &model.url(), &["--auth"]).await;
    let (alice, bob) = (
        common::auth::admin("alice"),
        common::auth::valid_token("bob", json!({"role": "admin"})),
    );
    let hers = initialized(pair.one, &alice).await;
    let params = json!({
        "name": "plan_week", "arguments": {"focus": "the release"}, "task": {"ttl": 60_000},
    });
    let started = ask(pair.one, &alice, &hers, "tools/call", params).await;
    let id = started["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {started}"))
        .to_owned();
    let made_up = "5f0c1e9a-3d2b-4c8e-9a71-0e6b2d4f8c13";

    // Bob, on either replica, finds no such task, whatever he asks.
    for addr in [pair.one, pair.other] {
        let his = initialized(addr, &bob).await;
        for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
            let theirs = ask(addr, &bob, &his, method, json!({"taskId": id})).await;
            let none = ask(addr, &bob, &his, method, json!({"taskId": made_up})).await;
            assert_eq!(
                theirs["error"].to_string().replace(&id, "ID"),
                none["error"].to_string().replace(made_up, "ID"),
                "{method}: {theirs}"
            );
            assert!(theirs["error"].is_object(), "{method}: {theirs}");
        }
    }
    // Alice reads it to its end through the other replica: Bob's cancel did nothing.
    let there = initialized(pair.other, &alice).await;
    let result = ask(
        pair.other,
        &alice,
        &there,
        "tasks/result",
        json!({"taskId": id}),
    )
    .await;
    assert_eq!(
        common::unsessioned(
            result["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
        ),
        PLANNED,
        "{result}"
    );
    assert_eq!(script.requests().len(), 2);
}

#[cfg(feature = "legacy-spec")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server and the Python SDK 1.x: LADOGA_RESTATE, LADOGA_PYTHON_LEGACY"]
async fn a_legacy_durable_task_cancelled_through_another_replica_stops_its_run() {
    let script = adding_then_answering(Duration::from_secs(3));
    let model = script.serve().await.expect("the model's server");
    let pair = Pair::start("durable-board-legacy-cancel", &model.url(), &[]).await;

    let line = legacy_task(&pair, &["cancel", "1500"]).await;
    assert_eq!(line["status"], "cancelled", "{line}");
    // The second answer was being written when the run was cancelled: no request after it.
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(
        script.requests().len(),
        2,
        "no model request after the cancel"
    );
    let runs = pair.restate.invocations("LadogaRun").await;
    assert_eq!(runs.len(), 1, "{runs:?}");
}

#[cfg(not(feature = "legacy-spec"))]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server and the MCP Python SDK: LADOGA_RESTATE, LADOGA_PYTHON"]
async fn a_caller_without_a_task_is_notified_of_its_durable_runs_progress() {
    let script = common::peer::script();
    let model = script.serve().await.expect("the model's server");
    let solo = Solo::start("durable-board-progress", &model.url(), &[]).await;
    let (http, restate) = (solo.http, &solo.restate);

    let url = format!("http://{http}/mcp");
    let answer =
        common::peer::python_as_admin("LADOGA_PYTHON", "python_client.py", &["http", &url]).await;
    common::peer::check(&answer, &script);
    // A progress notification per turn and per call, as a plain run's, and each line as a log
    // message: told by the run, wherever it ran, and notified by the replica the caller waits on.
    assert_eq!(
        answer["progress"],
        json!([[0.5, 8.0], [1.0, 8.0], [2.0, 8.0]]),
        "{answer}"
    );
    assert_eq!(
        answer["logs"],
        json!([
            "turn 1/8: add_task",
            "turn 1/8: add_task answered",
            "turn 2/8: answered"
        ]),
        "{answer}"
    );
    assert_eq!(restate.invocations("LadogaRun").await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server: LADOGA_RESTATE (scripts/peers install)"]
async fn with_an_identity_key_the_endpoint_takes_only_what_restate_server_signs() {
    use ed25519_dalek::pkcs8::{EncodePrivateKey, spki::der::pem::LineEnding};

    let scratch = Scratch::new("durable-board-identity");
    let key = ed25519_dalek::SigningKey::from_bytes(&[7; 32]);
    let pem = scratch.path.with_extension("pem");
    let private = key.to_pkcs8_pem(LineEnding::LF).expect("a PEM");
    std::fs::write(&pem, private.as_bytes()).expect("the PEM written");
    let public = format!(
        "publickeyv1_{}",
        bs58::encode(key.verifying_key().to_bytes()).into_string()
    );
    let restate = Restate::start_signing(Some(pem.clone())).await;
    let script = adding_then_answering(Duration::ZERO);
    let model = script.serve().await.expect("the model's server");
    let signed = ["--restate-identity-key", &public];
    let solo = Solo::on(restate, scratch, &model.url(), &signed).await;
    let (http, endpoint, restate) = (solo.http, solo.endpoint, &solo.restate);

    // restate-server's requests are signed: the run goes as without a key.
    let client = connect(http).await;
    assert_eq!(common::plan_week(&client).await, PLANNED);
    assert_eq!(restate.invocations("LadogaRun").await.len(), 1);
    // Anyone else's are not, over HTTP/2 as restate-server speaks and over HTTP/1.1: the
    // endpoint's own refusal, not a reset connection.
    let h2c = reqwest::Client::builder().http2_prior_knowledge();
    for client in [h2c, reqwest::Client::builder().http1_only()] {
        let unsigned = client
            .build()
            .expect("a client")
            .get(format!("http://{endpoint}/discover"))
            .send()
            .await
            .expect("the endpoint answers");
        assert_eq!(unsigned.status(), 401);
    }
    let _ = std::fs::remove_file(&pem);
}

/// A durable `plan_week` on a session kept in Redis, steered while its model thinks: the run reads
/// the message with its turn's calls, which its journal records; the board is killed while the
/// model writes the answer, and the run replayed on the board started again (holding its session
/// as the cut attempt did) still has the message, asks the model with it, and lists it.
#[cfg(not(feature = "legacy-spec"))]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server and redis-server: LADOGA_RESTATE (scripts/peers install, scripts/services install)"]
async fn a_durable_run_keeps_the_message_it_was_steered_with_through_a_crash() {
    use crate::common::rounds::request;

    let script = ScriptedModel::from_fn(|seen| {
        let last = seen.last_user_text().unwrap_or_default();
        match seen.tool_results().len() {
            _ if last.contains("the offsite") && seen.tool_results().is_empty() => {
                Reply::call("add_task", json!({"title": "Book a room"}))
            }
            0 => Reply::text("Begun."),
            1 => Reply::call("add_task", json!({"title": "Send invites"}))
                .after(Duration::from_secs(3)),
            _ => Reply::text(format!("Planned, as you said last: {last}"))
                .after(Duration::from_secs(3)),
        }
    });
    let model = script.serve().await.expect("the model's server");
    // The session outlives the board in Redis, as it does behind replicas.
    let redis = crate::common::redis::Redis::start().await;
    let redis_url = redis.url();
    let mut solo = Solo::start(
        "durable-board-steered",
        &model.url(),
        &["--redis", &redis_url],
    )
    .await;
    let http = solo.http;
    let call = |focus: &str, session: Option<&str>, steer: bool| {
        let mut params = json!({"name": "plan_week", "arguments": {"focus": focus}});
        if let Some(session) = session {
            params["arguments"]["session"] = json!(session);
        }
        if steer {
            params["_meta"] = json!({ ladoga::session::STEER_KEY: true });
        }
        request(http, "", "tools/call", params)
    };
    let begun = call("a start", None, false).await;
    let id = begun["result"]["content"][0]["_meta"][ladoga::REPORT_KEY]["session"]
        .as_str()
        .unwrap_or_else(|| panic!("a session: {begun}"))
        .to_owned();

    let running = tokio::spawn({
        let id = id.clone();
        async move {
            let params =
                json!({"name": "plan_week", "arguments": {"focus": "the offsite", "session": id}});
            // The board is killed before it answers.
            crate::common::rounds::try_request(http, "", "tools/call", params).await
        }
    });
    // The second request of the run thinks for three seconds: steered meanwhile.
    asked(&script, 3).await;
    let steered = call("Friday", Some(&id), true).await;
    assert_eq!(
        steered["result"]["content"][0]["_meta"][ladoga::REPORT_KEY]["stop"],
        "steered",
        "{steered}"
    );
    // The run read it with the second turn's calls, and asks the model with it: killed then.
    asked(&script, 4).await;
    let read = script.requests()[3].last_user_text().unwrap_or_default();
    assert!(read.contains("Friday"), "the run read the message: {read}");
    solo.board.kill().await.expect("the board is killed");
    let _ = running.await;

    solo.start_again().await;
    let restate = &solo.restate;
    // Two durable runs: the first call's, and the cut one's.
    let runs = restate.invocations("LadogaRun").await;
    let mut answered = serde_json::Value::Null;
    for key in runs
        .iter()
        .filter_map(|run| run["target_service_key"].as_str())
    {
        let output = restate.output("LadogaRun", key).await;
        if output["content"][0]["text"]
            .as_str()
            .is_some_and(|text| text.starts_with("Planned"))
        {
            answered = output;
        }
    }
    let text = answered["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.starts_with("Planned, as you said last: "),
        "{answered}"
    );
    assert!(
        text.contains("Friday"),
        "the replayed run has the message: {answered}"
    );
    let report = &answered["content"][0]["_meta"][ladoga::REPORT_KEY];
    let steered = report["steered"].as_array().expect("the messages it read");
    assert_eq!(steered.len(), 1, "{report}");
    assert_eq!(steered[0]["turn"], 2, "{report}");
    // The calls the journal holds were made before the crash: none is of unknown outcome.
    assert!(report.get("unknown").is_none(), "{report}");
    let listed = tasks(http).await;
    assert_eq!(
        listed.matches("Send invites").count(),
        1,
        "add_task ran once: {listed}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server: LADOGA_RESTATE (scripts/peers install)"]
async fn a_call_made_before_restate_knows_the_board_waits_and_readyz_says_so() {
    // restate-server's ports are chosen, but it is not running as the board starts: the board
    // cannot register its deployment yet.
    let mut restate = Restate::start().await;
    restate.kill();
    let script = adding_then_answering(Duration::ZERO);
    let model = script.serve().await.expect("the model's server");
    let scratch = Scratch::new("durable-board-unregistered");
    let (http, endpoint, admin) = (free_addr(), free_addr(), free_addr());
    let admin_arg = admin.to_string();
    let mut board = durable_board_with(
        http,
        endpoint,
        &restate,
        &model.url(),
        &scratch.path,
        &["--admin", &admin_arg],
    )
    .await;
    let readyz = || async move {
        let response = reqwest::get(format!("http://{admin}/readyz"))
            .await
            .expect("the admin address answers");
        let status = response.status().as_u16();
        (status, response.text().await.expect("a body"))
    };
    let (status, reason) = readyz().await;
    assert_eq!(status, 503, "{reason}");
    assert!(reason.contains("restate-server does not know"), "{reason}");

    // A call made now waits for the deployment rather than failing the run.
    let call = tokio::spawn(async move {
        let client = connect(http).await;
        let result = client
            .tools()
            .call("plan_week", [("focus", "the release")])
            .await
            .expect("tools/call");
        client.disconnect().await.expect("disconnects");
        result
    });
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(!call.is_finished(), "the call waits");
    restate.start_again().await;
    let result = tokio::time::timeout(Duration::from_secs(90), call)
        .await
        .expect("the call answers once the deployment is registered")
        .expect("the call's task");
    assert!(!result.is_error, "{result:?}");
    assert_eq!(answer(&result), PLANNED);
    assert_eq!(readyz().await, (200, "ready\n".to_owned()));
    board.kill().await.expect("stops");
}

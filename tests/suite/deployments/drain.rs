//! A `board` stopped on purpose (SIGTERM) drains: the call in flight completes with its answer,
//! a new call gets `503` with `Retry-After`, and the process exits 0 within its grace period
//! (`--drain`); a run longer than that gets a clear tool error, not a cut connection. Under MCP
//! 2026-07-28, a paused run held in the process is answered before it stops, and behind nginx
//! (with replicas sharing Redis) a later round reaching a draining replica is finished there.

use std::time::{Duration, Instant};

use crate::common::{self, board_over_http_with, connect, text};
use ladoga::testing::{Reply, ScriptedModel};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// How long the scripted model takes to answer a call in flight.
const THINKING: Duration = Duration::from_secs(2);

/// A model that answers, after `delay`, with the brief it was given.
fn answering_after(delay: Duration) -> ScriptedModel {
    ScriptedModel::from_fn(move |seen| {
        let brief = seen.first_user_text().unwrap_or_default();
        Reply::text(format!("planned: {brief}")).after(delay)
    })
}

/// Sends SIGTERM to `board`.
fn terminate(board: &tokio::process::Child) {
    let pid = board.id().expect("the board runs");
    kill(Pid::from_raw(pid as i32), Signal::SIGTERM).expect("SIGTERM sent");
}

/// `plan_week` called by `client`, going on in the background: its result, once it comes.
fn planning(
    client: neva::Client,
) -> tokio::task::JoinHandle<Result<neva::types::CallToolResponse, neva::error::Error>> {
    tokio::spawn(async move {
        client
            .tools()
            .call("plan_week", [("focus", "the release")])
            .await
    })
}

/// Waits until the model has been asked `count` times, for at most 10 s.
async fn asked(script: &ScriptedModel, count: usize) {
    for _ in 0..1000 {
        if script.requests().len() >= count {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the model was not asked {count} times in 10 s");
}

/// A new `tools/call` of `plan_week`, on a new connection to `addr`: its status, its
/// `Retry-After` and its body.
async fn new_call(addr: std::net::SocketAddr) -> (u16, Option<String>, String) {
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "plan_week", "arguments": {"focus": "a new call"}},
    });
    let response = reqwest::Client::new()
        .post(format!("http://{addr}/mcp"))
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .json(&body)
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .expect("the board answers");
    let status = response.status().as_u16();
    let retry = response
        .headers()
        .get("retry-after")
        .map(|value| value.to_str().expect("text").to_owned());
    (status, retry, response.text().await.expect("a body"))
}

/// `new_call` until the board refuses it (it drains once it has taken the signal): the
/// refusal's `Retry-After` and body.
async fn refused_call(addr: std::net::SocketAddr) -> (Option<String>, String) {
    for _ in 0..100 {
        let (status, retry, body) = new_call(addr).await;
        if status == 503 {
            return (retry, body);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the draining board never refused a new call");
}

/// Waits for `board` to exit, at most `limit`: its exit code and how long it took.
async fn exit_of(board: &mut tokio::process::Child, limit: Duration) -> (Option<i32>, Duration) {
    let started = Instant::now();
    let status = tokio::time::timeout(limit, board.wait())
        .await
        .unwrap_or_else(|_| panic!("the board still runs {limit:?} after SIGTERM"))
        .expect("its status");
    (status.code(), started.elapsed())
}

#[tokio::test]
async fn a_call_in_flight_completes_a_new_one_is_refused_and_the_board_exits_0() {
    let script = answering_after(THINKING);
    let model = script.serve().await.expect("serves");
    let (mut board, addr) = board_over_http_with(&model.url(), "scripted", &[]).await;
    let client = connect(addr).await;

    let in_flight = planning(client);
    asked(&script, 1).await;
    let signalled = Instant::now();
    terminate(&board);

    let (retry, body) = refused_call(addr).await;
    assert!(
        retry.is_some_and(|seconds| seconds.parse::<u64>().is_ok()),
        "a Retry-After in seconds"
    );
    assert!(body.contains("stopping"), "{body}");

    let result = in_flight.await.expect("the call's task").expect("answered");
    assert!(!result.is_error, "{result:?}");
    assert!(text(&result).contains("planned: Plan my week around the release"));

    // Within the grace period (30 s by default): once the call is answered, and its caller's
    // connection closed (or after the 5 s the board waits for it).
    let (code, _) = exit_of(&mut board, Duration::from_secs(15)).await;
    assert_eq!(code, Some(0));
    let took = signalled.elapsed();
    assert!(took < THINKING + Duration::from_secs(8), "{took:?}");
    assert_eq!(script.requests().len(), 1, "the refused call never ran");
}

#[tokio::test]
async fn a_run_longer_than_the_grace_period_gets_a_clear_tool_error_and_the_board_exits_0() {
    let script = answering_after(Duration::from_secs(20));
    let model = script.serve().await.expect("serves");
    let (mut board, addr) =
        board_over_http_with(&model.url(), "scripted", &["--drain", "1s"]).await;
    let client = connect(addr).await;

    let in_flight = planning(client);
    asked(&script, 1).await;
    terminate(&board);

    let result = tokio::time::timeout(Duration::from_secs(10), in_flight)
        .await
        .expect("answered well before the model would have")
        .expect("the call's task")
        .expect("a tool result, not a cut connection");
    assert!(result.is_error, "{result:?}");
    let said = text(&result);
    assert!(
        said.contains("the server stopped this run as it shut down; call the tool again"),
        "{said}"
    );
    assert!(!said.contains("127.0.0.1"), "{said}");

    // At most `--drain` and 10 s after the signal: 5 s for the stopped runs' answers, 5 s for
    // the callers to close their connections (an older client's notification stream, under
    // `legacy-spec`, holds one until then).
    let (code, took) = exit_of(&mut board, Duration::from_secs(15)).await;
    assert_eq!(code, Some(0));
    assert!(took < Duration::from_secs(11), "{took:?}");
}

#[tokio::test]
async fn a_second_signal_ends_a_draining_board_at_once() {
    let script = answering_after(Duration::from_secs(20));
    let model = script.serve().await.expect("serves");
    let (mut board, addr) = board_over_http_with(&model.url(), "scripted", &[]).await;
    let client = connect(addr).await;
    let _in_flight = planning(client);
    asked(&script, 1).await;
    terminate(&board);
    refused_call(addr).await;
    terminate(&board);

    let (code, _) = exit_of(&mut board, Duration::from_secs(3)).await;
    assert_eq!(code, Some(1));
}

#[tokio::test]
#[ignore = "needs nginx: run by scripts/test"]
async fn behind_nginx_when_every_replica_drains_the_caller_gets_503_and_retry_after() {
    let script = answering_after(THINKING);
    let model = script.serve().await.expect("serves");
    let mut boards = Vec::new();
    for _ in 0..2 {
        boards.push(board_over_http_with(&model.url(), "scripted", &[]).await);
    }
    let addrs: Vec<_> = boards.iter().map(|(_, addr)| *addr).collect();
    let nginx = common::nginx::Nginx::start(&addrs, common::nginx::Routing::RoundRobin)
        .await
        .expect("nginx starts");
    // A call in flight on each keeps both draining.
    let mut in_flight = Vec::new();
    for &addr in &addrs {
        let client = connect(addr).await;
        in_flight.push(planning(client));
    }
    asked(&script, 2).await;
    for (board, addr) in &boards {
        terminate(board);
        refused_call(*addr).await;
    }

    let (status, retry, body) = new_call(nginx.addr).await;
    assert_eq!(status, 503, "{body}");
    assert!(
        retry.is_some(),
        "the replica's Retry-After reaches the caller"
    );
    assert!(body.contains("stopping"), "{body}");
    for call in in_flight {
        let result = call.await.expect("the call's task").expect("answered");
        assert!(!result.is_error, "{result:?}");
    }
    for (board, _) in &mut boards {
        assert_eq!(exit_of(board, Duration::from_secs(10)).await.0, Some(0));
    }
    assert_eq!(script.requests().len(), 2, "the refused calls never ran");
}

#[cfg(not(feature = "legacy-spec"))]
mod rounds {
    use super::*;

    use crate::common::auth::{SECRET, SECRET_VAR, admin};
    use crate::common::board_over_http_with_env;
    use crate::common::redis::Redis;
    use crate::common::rounds::{approve, cleared, clearing_model, question, request, round};
    use serde_json::json;

    /// The request-state secret the replicas share.
    const STATE_SECRET: &str = "the replicas' request-state secret, 40 b";

    #[tokio::test]
    async fn a_run_paused_in_the_process_is_answered_before_the_board_exits() {
        let script = clearing_model();
        let model = script.serve().await.expect("serves");
        let (mut board, addr) = board_over_http_with_env(
            &model.url(),
            "scripted",
            &["--auth"],
            &[(SECRET_VAR, SECRET)],
        )
        .await;
        let alice = admin("alice");
        let (key, state) = question(&round(addr, &alice, "the release", None, None).await);

        terminate(&board);
        refused_call(addr).await;
        // The paused run lives in this process only: its later round is taken, and the board
        // waits for it.
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert!(board.try_wait().expect("a status").is_none(), "still runs");
        let answers = Some(approve(&key));
        let done = round(addr, &alice, "the release", Some(&state), answers).await;
        assert_eq!(
            common::rounds::text(&done),
            "Done: Removed 0 tasks",
            "{done}"
        );
        assert_eq!(cleared(&script), 1);

        let (code, _) = exit_of(&mut board, Duration::from_secs(10)).await;
        assert_eq!(code, Some(0));
    }

    #[tokio::test]
    #[ignore = "needs redis-server and nginx: run by scripts/test"]
    async fn a_draining_replica_finishes_a_later_round_sent_to_it_directly_and_through_nginx() {
        let redis = Redis::start().await;
        // A slow call keeps A draining while the test calls through nginx.
        let script = ScriptedModel::from_fn(|seen| {
            let brief = seen.first_user_text().unwrap_or_default();
            match (brief.contains("the slow one"), seen.tool_results().first()) {
                (true, _) => Reply::text("the slow one, planned").after(THINKING),
                (false, None) => Reply::call("clear_board", json!({})),
                (false, Some((_, result))) => Reply::text(format!("Done: {result}")),
            }
        });
        let model = script.serve().await.expect("serves");
        let mut replicas = Vec::new();
        for _ in 0..2 {
            replicas.push(
                board_over_http_with_env(
                    &model.url(),
                    "scripted",
                    &["--auth", "--redis", &redis.url()],
                    &[(SECRET_VAR, SECRET), ("LADOGA_STATE_SECRET", STATE_SECRET)],
                )
                .await,
            );
        }
        let addrs: Vec<_> = replicas.iter().map(|(_, addr)| *addr).collect();
        let nginx = common::nginx::Nginx::start(&addrs, common::nginx::Routing::RoundRobin)
            .await
            .expect("nginx starts");
        let alice = admin("alice");

        // The question comes from A; then A drains: a new call through nginx that lands on A is
        // refused there and passed on to B.
        let (key, state) = question(&round(addrs[0], &alice, "the release", None, None).await);
        let slow = {
            let alice = alice.clone();
            let a = addrs[0];
            tokio::spawn(async move { round(a, &alice, "the slow one", None, None).await })
        };
        asked(&script, 2).await;
        terminate(&replicas[0].0);
        refused_call(addrs[0]).await;
        for _ in 0..6 {
            let listed = request(nginx.addr, &alice, "tools/list", json!({})).await;
            assert!(listed["result"]["tools"].is_array(), "{listed}");
        }
        // The later round, sent to draining A directly (a caller whose connection a Kubernetes
        // Service keeps there): A finishes it within its grace, though another replica could.
        // Then through nginx, wherever it lands: the final round A committed.
        for to in [addrs[0], nginx.addr] {
            let answers = Some(approve(&key));
            let done = round(to, &alice, "the release", Some(&state), answers).await;
            assert_eq!(
                common::rounds::text(&done),
                "Done: Removed 0 tasks",
                "{done}"
            );
        }
        assert_eq!(cleared(&script), 1, "clear_board ran once");
        let slow = slow.await.expect("the slow call's task");
        assert_eq!(
            common::rounds::text(&slow),
            "the slow one, planned",
            "{slow}"
        );

        let (code, _) = exit_of(&mut replicas[0].0, Duration::from_secs(10)).await;
        assert_eq!(code, Some(0));
    }
}

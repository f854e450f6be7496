//! `board --admin`: the probes a load balancer or an orchestrator asks (`/healthz`, `/readyz`)
//! and the metrics Prometheus scrapes (`/metrics`), over real HTTP from the real binary.
//!
//! The Redis case needs `redis-server`, and is ignored by a plain `cargo test`: `scripts/test`
//! installs it with `scripts/services install` and runs it with `--ignored`.

use std::net::SocketAddr;
use std::time::Duration;

use crate::common::{self, board_over_http_with_env, connect, free_addr, wait_for};
use ladoga::testing::{Reply, ScriptedModel};
use serde_json::json;

/// The request-state secret of the boards that keep their runs in Redis: 40 bytes.
#[cfg_attr(feature = "legacy-spec", allow(dead_code))]
const STATE_SECRET: &str = "the replicas' request-state secret, 40 b";

/// `board --admin` on free loopback ports, with its other arguments `args` and the environment
/// `env`, talking to `model_url`, once both ports answer: the child, its MCP address and its
/// admin address.
async fn board_with_admin(
    model_url: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> (tokio::process::Child, SocketAddr, SocketAddr) {
    let admin = free_addr();
    let admin_arg = admin.to_string();
    let args = [&["--admin", admin_arg.as_str()], args].concat();
    let (board, addr) = board_over_http_with_env(model_url, "scripted", &args, env).await;
    wait_for(admin).await;
    (board, addr, admin)
}

/// The status and body of `GET http://{admin}{path}`.
async fn get(admin: SocketAddr, path: &str) -> (u16, String) {
    let response = reqwest::get(format!("http://{admin}{path}"))
        .await
        .expect("the admin address answers");
    let status = response.status().as_u16();
    (status, response.text().await.expect("a body"))
}

/// Asks `path` until it answers `status`, for at most `within`; the last answer.
async fn until(admin: SocketAddr, path: &str, status: u16, within: Duration) -> (u16, String) {
    let end = tokio::time::Instant::now() + within;
    loop {
        let answer = get(admin, path).await;
        if answer.0 == status || tokio::time::Instant::now() >= end {
            return answer;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// One sample of Prometheus' text format: its name, its labels and its value.
struct Sample {
    name: String,
    labels: Vec<(String, String)>,
    value: f64,
}

/// Every sample of `text`, which must be Prometheus' text format: `# HELP` and `# TYPE` lines,
/// and `name{label="value",…} value` lines.
fn parse(text: &str) -> Vec<Sample> {
    let is_name = |name: &str| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
    };
    let mut samples = Vec::new();
    for line in text.lines().filter(|line| !line.is_empty()) {
        if let Some(comment) = line.strip_prefix("# ") {
            let mut words = comment.splitn(3, ' ');
            let (kind, name, rest) = (words.next(), words.next(), words.next());
            match kind {
                Some("HELP") => assert!(name.is_some_and(is_name), "{line}"),
                Some("TYPE") => {
                    assert!(name.is_some_and(is_name), "{line}");
                    let types = ["counter", "gauge", "histogram", "summary", "untyped"];
                    assert!(rest.is_some_and(|kind| types.contains(&kind)), "{line}");
                }
                _ => panic!("not a HELP or TYPE line: {line}"),
            }
            continue;
        }
        let (series, value) = line.rsplit_once(' ').expect("a series and a value");
        let value = match value {
            "+Inf" => f64::INFINITY,
            "-Inf" => f64::NEG_INFINITY,
            value => value.parse().unwrap_or_else(|_| panic!("a value: {line}")),
        };
        let (name, labels) = match series.split_once('{') {
            None => (series, Vec::new()),
            Some((name, labels)) => {
                let labels = labels.strip_suffix('}').expect("labels end with }");
                let labels = labels
                    .split("\",")
                    .filter(|label| !label.is_empty())
                    .map(|label| {
                        let (key, value) = label.split_once("=\"").expect("key=\"value\"");
                        assert!(is_name(key), "{line}");
                        (key.to_owned(), value.trim_end_matches('"').to_owned())
                    })
                    .collect();
                (name, labels)
            }
        };
        assert!(is_name(name), "{line}");
        samples.push(Sample {
            name: name.to_owned(),
            labels,
            value,
        });
    }
    samples
}

/// The sum of the samples named `name` that carry every label of `labels`.
fn total(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> f64 {
    samples
        .iter()
        .filter(|sample| sample.name == name)
        .filter(|sample| {
            labels
                .iter()
                .all(|(key, value)| (sample.labels.iter()).any(|(k, v)| k == key && v == value))
        })
        .map(|sample| sample.value)
        .sum()
}

/// A model whose `plan_week` adds one task, then answers.
fn adding_model() -> ScriptedModel {
    ScriptedModel::from_fn(|seen| match seen.tool_results().len() {
        0 => Reply::call("add_task", json!({"title": "Tag v1.0"})).with_usage(12, 3),
        _ => Reply::text("Planned.").with_usage(20, 2),
    })
}

#[tokio::test]
async fn a_board_answers_its_probes_and_its_metrics_move_with_its_calls() {
    let script = adding_model();
    let model = script.serve().await.expect("serves");
    let (_board, addr, admin) = board_with_admin(&model.url(), &[], &[]).await;

    assert_eq!(get(admin, "/healthz").await, (200, "serving\n".to_owned()));
    assert_eq!(get(admin, "/readyz").await, (200, "ready\n".to_owned()));
    for path in ["/", "/health", "/readyz/", "/metrics.json"] {
        assert_eq!(get(admin, path).await.0, 404, "{path}");
    }
    let posted = reqwest::Client::new()
        .post(format!("http://{admin}/healthz"))
        .send()
        .await
        .expect("answers");
    assert_eq!(posted.status().as_u16(), 404, "only GET");

    let (status, before) = get(admin, "/metrics").await;
    assert_eq!(status, 200);
    let before = parse(&before);
    let mcp_calls = "mcp_server_operation_duration_seconds_count";
    assert_eq!(total(&before, mcp_calls, &[]), 0.0);
    assert_eq!(total(&before, "ladoga_runs_in_flight", &[]), 0.0);

    let client = connect(addr).await;
    let added = client
        .tools()
        .call("add_task", [("title", "Write the notes")])
        .await
        .expect("tools/call");
    assert!(!added.is_error, "{added:?}");
    assert_eq!(common::plan_week(&client).await, "Planned.");

    let (status, after) = get(admin, "/metrics").await;
    assert_eq!(status, 200);
    let after = parse(&after);
    let add_task = [("gen_ai_tool_name", "add_task")];
    assert_eq!(
        total(&after, mcp_calls, &add_task),
        2.0,
        "the caller's call and the model's"
    );
    let plan_week = [("gen_ai_tool_name", "plan_week")];
    assert_eq!(total(&after, mcp_calls, &plan_week), 1.0);
    let answered = [("ladoga_stop", "answered")];
    assert_eq!(total(&after, "ladoga_runs_ended_total", &answered), 1.0);
    let ok = [("gen_ai_tool_name", "add_task"), ("outcome", "ok")];
    assert_eq!(total(&after, "ladoga_tool_calls_total", &ok), 1.0);
    assert_eq!(total(&after, "ladoga_run_turns_sum", &answered), 2.0);
    let requests = "gen_ai_client_operation_duration_seconds_count";
    assert_eq!(
        total(&after, requests, &[("gen_ai_request_model", "scripted")]),
        2.0
    );
    let first_chunks = "gen_ai_client_operation_time_to_first_chunk_seconds_count";
    assert_eq!(
        total(&after, first_chunks, &[]),
        2.0,
        "each answer streamed"
    );
    let input = [("gen_ai_token_type", "input")];
    assert_eq!(total(&after, "gen_ai_client_token_usage_sum", &input), 32.0);
    let output = [("gen_ai_token_type", "output")];
    assert_eq!(total(&after, "gen_ai_client_token_usage_sum", &output), 5.0);
    assert_eq!(total(&after, "ladoga_runs_in_flight", &[]), 0.0);
    // Nothing the caller or the model wrote is a label.
    for sample in &after {
        for (_, value) in &sample.labels {
            assert!(
                !value.contains("notes") && !value.contains("Tag"),
                "{value}"
            );
        }
    }
}

#[tokio::test]
async fn a_draining_board_is_not_ready() {
    // A run in flight keeps the board draining for a while.
    let script = ScriptedModel::new([Reply::text("Planned.").after(Duration::from_secs(3))]);
    let model = script.serve().await.expect("serves");
    let (board, addr, admin) = board_with_admin(&model.url(), &["--drain", "10s"], &[]).await;
    assert_eq!(get(admin, "/readyz").await.0, 200);

    let client = connect(addr).await;
    let run = tokio::spawn(async move { common::plan_week(&client).await });
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pid = board.id().expect("the board runs").to_string();
    let signalled = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill runs");
    assert!(signalled.success());

    assert_eq!(
        until(admin, "/readyz", 503, Duration::from_secs(2)).await,
        (503, "draining\n".to_owned())
    );
    assert_eq!(get(admin, "/healthz").await.0, 200, "it still serves");
    assert_eq!(run.await.expect("the call ends"), "Planned.");
}

#[tokio::test]
#[ignore = "needs redis-server: run by scripts/test"]
async fn a_board_is_not_ready_while_its_redis_is_down_and_ready_once_it_is_back() {
    let mut redis = common::redis::Redis::start().await;
    let (_board, _, admin) = board_with_admin(
        "http://127.0.0.1:9",
        &["--redis", &redis.url()],
        &[("LADOGA_STATE_SECRET", STATE_SECRET)],
    )
    .await;
    assert_eq!(get(admin, "/readyz").await, (200, "ready\n".to_owned()));

    redis.kill().await;
    let down = until(admin, "/readyz", 503, Duration::from_secs(10)).await;
    assert_eq!(down, (503, "the run store does not answer\n".to_owned()));
    assert_eq!(get(admin, "/healthz").await.0, 200, "it still serves");

    redis.restart().await;
    let back = until(admin, "/readyz", 200, Duration::from_secs(15)).await;
    assert_eq!(back, (200, "ready\n".to_owned()));
}

#[cfg(not(feature = "legacy-spec"))]
#[tokio::test]
async fn an_approval_is_counted_and_a_round_that_pauses_ends_no_run() {
    use crate::common::auth::{SECRET, SECRET_VAR, admin};
    use crate::common::rounds::{approve, clearing_model, question, round, text};

    let script = clearing_model();
    let model = script.serve().await.expect("serves");
    let (_board, addr, admin_addr) =
        board_with_admin(&model.url(), &["--auth"], &[(SECRET_VAR, SECRET)]).await;
    let alice = admin("alice");

    let (key, state) = question(&round(addr, &alice, "the release", None, None).await);
    let paused = parse(&get(admin_addr, "/metrics").await.1);
    assert_eq!(total(&paused, "ladoga_runs_ended_total", &[]), 0.0);
    assert_eq!(total(&paused, "ladoga_runs_in_flight", &[]), 0.0);
    assert_eq!(total(&paused, "ladoga_approvals_total", &[]), 0.0);

    let done = round(
        addr,
        &alice,
        "the release",
        Some(&state),
        Some(approve(&key)),
    )
    .await;
    assert_eq!(text(&done), "Done: Removed 0 tasks", "{done}");
    let after = parse(&get(admin_addr, "/metrics").await.1);
    let approved = [("decision", "approved")];
    assert_eq!(total(&after, "ladoga_approvals_total", &approved), 1.0);
    let answered = [("ladoga_stop", "answered")];
    assert_eq!(total(&after, "ladoga_runs_ended_total", &answered), 1.0);
    assert_eq!(total(&after, "ladoga_runs_ended_total", &[]), 1.0);
    let cleared = [("gen_ai_tool_name", "clear_board"), ("outcome", "ok")];
    assert_eq!(total(&after, "ladoga_tool_calls_total", &cleared), 1.0);
    assert_eq!(total(&after, "ladoga_runs_in_flight", &[]), 0.0);
    let rounds = [("gen_ai_tool_name", "plan_week")];
    let mcp_calls = "mcp_server_operation_duration_seconds_count";
    assert_eq!(total(&after, mcp_calls, &rounds), 2.0, "two rounds");
}

#[cfg(not(feature = "legacy-spec"))]
#[tokio::test]
#[ignore = "needs redis-server: run by scripts/test"]
async fn a_store_operation_that_fails_is_counted() {
    use crate::common::auth::{SECRET, SECRET_VAR, admin};
    use crate::common::rounds::{clearing_model, round};

    let mut redis = common::redis::Redis::start().await;
    let script = clearing_model();
    let model = script.serve().await.expect("serves");
    let (_board, addr, admin_addr) = board_with_admin(
        &model.url(),
        &["--auth", "--redis", &redis.url()],
        &[(SECRET_VAR, SECRET), ("LADOGA_STATE_SECRET", STATE_SECRET)],
    )
    .await;

    redis.kill().await;
    // The run cannot be kept before its question: the caller is not asked.
    let answer = round(addr, &admin("alice"), "the release", None, None).await;
    assert!(answer["result"]["inputRequests"].is_null(), "{answer}");
    let after = parse(&get(admin_addr, "/metrics").await.1);
    let put = [("operation", "put")];
    assert!(
        total(&after, "ladoga_store_errors_total", &put) >= 1.0,
        "a failed put is counted"
    );
    let failed = [("error_type", "store")];
    assert_eq!(total(&after, "ladoga_runs_ended_total", &failed), 1.0);
}

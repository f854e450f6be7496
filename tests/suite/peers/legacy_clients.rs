//! The `board` example, built with the `legacy-spec` feature (MCP 2025-11-25 and older:
//! `initialize`, sessions, server-sent requests), driven by the last generation of the official
//! MCP clients: the Python SDK `mcp` 1.30.0 (`ClientSession`) over Streamable HTTP and over
//! stdio, and the TypeScript SDK `@modelcontextprotocol/sdk` 1.32.2 over Streamable HTTP, with
//! the scripted model behind real HTTP: the tools, `plan_week`'s answer, and its progress and
//! log notifications; and `board --caller-model`'s `plan_week` planned on the host's model, each
//! turn a sampling request to the Python SDK's callback.
//!
//! Over Streamable HTTP, neva 0.9's legacy transport answers each `POST` with a single JSON body
//! and sends the request's notifications on the session's `GET` stream: nothing orders them with
//! the result, and both SDKs stop calling a request's progress callback once its result is in.
//! A run that reports progress therefore lets its last notification out before it answers
//! (`progress::settle` in the runtime); these tests check that the callback gets every report,
//! the same as the client's transport received, over HTTP as over stdio.
//!
//! Built only with `--features legacy-spec` (a default build's `board` speaks 2026-07-28, which
//! these clients do not). Ignored by a plain `cargo test`, since it needs the SDKs:
//! `scripts/peers install` installs them, and `scripts/test` runs these with `--ignored`, the
//! venv's interpreter in `LADOGA_PYTHON_LEGACY` and the `node_modules` folder in
//! `LADOGA_TS_SDK_LEGACY`.

use crate::common::{self, board_over_http, peer};
use serde_json::{Value, json};
use tokio::process::Command;

const PYTHON_CLIENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/peers/python_legacy_client.py"
);
const TS_CLIENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/peers/ts_legacy_client.mjs"
);

/// Runs the Python 1.x client with `args` and reads the JSON line it prints.
async fn python(args: &[&str]) -> Value {
    let python = std::env::var("LADOGA_PYTHON_LEGACY")
        .expect("LADOGA_PYTHON_LEGACY names a Python with the MCP SDK 1.x (see scripts/peers)");
    let mut client = Command::new(python);
    client.arg(PYTHON_CLIENT).args(args);
    peer::run(client).await
}

/// `[progress, total]` pairs as floats: JavaScript prints `8.0` as `8`.
fn floats(pairs: &Value) -> Value {
    let pairs = pairs.as_array().expect("a list of [progress, total]");
    pairs
        .iter()
        .map(|pair| {
            let pair = pair.as_array().expect("[progress, total]");
            json!(
                pair.iter()
                    .map(|n| n.as_f64().expect("a number"))
                    .collect::<Vec<_>>()
            )
        })
        .collect()
}

/// The callback got every report, all of them before the result, and the log lines came.
fn check_reported_in_order(answer: &Value) {
    let mut answer = answer.clone();
    answer["progress"] = floats(&answer["progress"]);
    answer["progress_received"] = floats(&answer["progress_received"]);
    peer::check_progress(&answer);
    assert_eq!(answer["progress"], answer["progress_received"], "{answer}");
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK 1.x: run by scripts/test"]
async fn the_python_sdk_1_calls_plan_week_over_streamable_http() {
    let script = peer::script();
    let model = script.serve().await.expect("serves");
    let (_board, addr) = board_over_http(&model.url(), "scripted").await;

    let answer = python(&["http", &format!("http://{addr}/mcp")]).await;
    peer::check(&answer, &script);
    check_reported_in_order(&answer);
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK 1.x: run by scripts/test"]
async fn the_python_sdk_1_calls_plan_week_over_stdio() {
    let script = peer::script();
    let model = script.serve().await.expect("serves");

    let board = common::exe("board");
    let answer = python(&["stdio", board, &model.url()]).await;
    peer::check(&answer, &script);
    check_reported_in_order(&answer);
}

#[tokio::test]
#[ignore = "needs Node.js and the MCP TypeScript SDK 1.x: run by scripts/test"]
async fn the_typescript_sdk_1_calls_plan_week_over_streamable_http() {
    let sdk = std::env::var("LADOGA_TS_SDK_LEGACY").expect(
        "LADOGA_TS_SDK_LEGACY names the node_modules holding the SDK 1.x (see scripts/peers)",
    );
    let script = peer::script();
    let model = script.serve().await.expect("serves");
    let (_board, addr) = board_over_http(&model.url(), "scripted").await;

    let mut client = Command::new("node");
    client
        .arg(TS_CLIENT)
        .arg(format!("http://{addr}/mcp"))
        .env("LADOGA_TS_SDK", sdk);
    let answer = peer::run(client).await;
    peer::check(&answer, &script);
    check_reported_in_order(&answer);
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK 1.x: run by scripts/test"]
async fn the_python_sdk_1s_sampling_callback_plans_the_week_for_a_board_on_the_callers_model() {
    peer::check_sampled_by_python("LADOGA_PYTHON_LEGACY").await;
}

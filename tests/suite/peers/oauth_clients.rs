//! `board --oauth` driven by the official MCP Python SDK's OAuth client (`mcp` 2.3.0,
//! `OAuthClientProvider`), which knows nothing but the board's URL, against a real OAuth 2.1
//! authorization server (oidc-provider, `common::issuer`), with the scripted model behind real
//! HTTP: the whole sign-in from the board's 401 (its metadata, the issuer's, registration, the
//! code with PKCE, the token) then `plan_week` through its approval; tokens refreshed when they
//! expire; the issuer's keys rotated between two calls; and a step-up from `board:read` to
//! `board:write` when the board answers `403 insufficient_scope`. And the same first sign-in by
//! the official TypeScript client (`@modelcontextprotocol/client` 2.4.0), headless.
//!
//! Ignored by a plain `cargo test`, since it needs the SDKs and oidc-provider: `scripts/test`
//! installs them with `scripts/peers install` and runs these with `--ignored`, the venv's
//! interpreter in `LADOGA_PYTHON`, the TypeScript client's `node_modules` in `LADOGA_TS_SDK` and
//! oidc-provider's folder in `LADOGA_ISSUER`.

use std::time::Duration;

use crate::common::issuer::{Issuer, IssuerOptions};
use crate::common::steps::Steps;
use crate::common::{self, board_over_http_with};
use ladoga::testing::{Reply, ScriptedModel, ScriptedServer};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const PYTHON_CLIENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/peers/python_oauth.py"
);

const TS_CLIENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/peers/ts_oauth.mjs");

/// Runs the Python OAuth client against `url` with `args` (`--grant`s and actions), rotating
/// `issuer`'s keys whenever it pauses, and collects its steps.
async fn python_oauth(url: &str, args: &[&str], issuer: &Issuer) -> Steps {
    let python = std::env::var("LADOGA_PYTHON")
        .expect("LADOGA_PYTHON names a Python with the MCP SDK (see scripts/test)");
    let mut client = tokio::process::Command::new(python);
    client.arg(PYTHON_CLIENT).arg(url).args(args);
    steps(client, issuer).await
}

/// Runs the TypeScript OAuth client against `url` and collects its steps.
async fn ts_oauth(url: &str, issuer: &Issuer) -> Steps {
    let sdk = std::env::var("LADOGA_TS_SDK")
        .expect("LADOGA_TS_SDK names the node_modules holding the client (see scripts/test)");
    let mut client = tokio::process::Command::new("node");
    client.arg(TS_CLIENT).arg(url).env("LADOGA_TS_SDK", sdk);
    steps(client, issuer).await
}

/// Runs `client`, an OAuth client of `tests/peers/` printing a JSON line per step, rotating
/// `issuer`'s keys whenever it pauses, and collects its steps.
async fn steps(mut client: tokio::process::Command, issuer: &Issuer) -> Steps {
    let mut child = client
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the OAuth client runs");
    let mut stdin = child.stdin.take().expect("its stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("its stdout")).lines();
    let mut steps = Vec::new();
    let reading = async {
        while let Some(line) = lines.next_line().await.expect("its output") {
            let step: Value = serde_json::from_str(&line).expect("a JSON line");
            if step["step"] == "paused" {
                issuer.rotate().await;
                stdin.write_all(b"\n").await.expect("resumed");
            }
            steps.push(step);
        }
    };
    tokio::time::timeout(Duration::from_secs(120), reading)
        .await
        .expect("the OAuth client ends within 2 minutes");
    let output = child.wait_with_output().await.expect("it ends");
    assert!(
        output.status.success(),
        "{}\n{steps:#?}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(steps.last().map(|step| &step["step"]), Some(&json!("done")));
    Steps(steps)
}

/// `board --oauth` on the issuer, its keys fetched again at most once a second, talking to the
/// model served at `model_url`: the board and its MCP URL.
async fn board(issuer: &Issuer, model_url: &str) -> (tokio::process::Child, String) {
    let issuer_url = issuer.url();
    let args = ["--oauth", issuer_url.as_str(), "--jwks-cooldown", "1"];
    let (board, addr) = board_over_http_with(model_url, "scripted", &args).await;
    (board, format!("http://{addr}/mcp"))
}

/// An issuer whose access tokens last 2 s, a model that answers at once, and the board on them:
/// each, and the board's MCP URL.
async fn short_lived() -> (Issuer, ScriptedServer, tokio::process::Child, String) {
    let issuer = Issuer::start_with(IssuerOptions {
        access_token_ttl: Duration::from_secs(2),
        ..IssuerOptions::default()
    })
    .await;
    let model = ScriptedModel::new(Vec::new())
        .serve()
        .await
        .expect("serves");
    let (board, url) = board(&issuer, &model.url()).await;
    (issuer, model, board, url)
}

/// The model asks for `clear_board` once, then answers with its result.
fn clearing_script() -> ScriptedModel {
    ScriptedModel::from_fn(|seen| match seen.tool_results().first() {
        None => {
            Reply::call("clear_board", json!({})).with_text("The board is stale: I will clear it.")
        }
        Some((_, result)) => Reply::text(format!("Done: {result}")),
    })
}

/// The client signed in to the board at `url` from its 401 alone (its metadata, the issuer's,
/// one registration, the person's login and consent, one code exchanged with PKCE for a token
/// of the three scopes for the board), then `plan_week` ran on `clearing_script`, the person
/// approving `clear_board`, which ran once.
async fn check_signed_in_and_approved(
    steps: &Steps,
    issuer: &Issuer,
    url: &str,
    script: &ScriptedModel,
) {
    let http = steps.http();
    let base = url.trim_end_matches("/mcp");
    let issuer_url = issuer.url();
    let first = [
        format!("POST {url} 401"),
        format!("GET {base}/.well-known/oauth-protected-resource/mcp 200"),
        format!("GET {issuer_url}/.well-known/oauth-authorization-server 200"),
        format!("POST {issuer_url}/reg 201"),
    ];
    assert_eq!(http[..first.len()], first, "{http:#?}");
    let exchange = format!("POST {issuer_url}/token 200");
    assert_eq!(
        http.iter().filter(|line| **line == exchange).count(),
        1,
        "one code exchanged: {http:#?}"
    );
    let flow: Vec<_> = steps
        .0
        .iter()
        .filter(|step| step["step"] != "http" || step["url"] == format!("{issuer_url}/token"))
        .map(|step| step["step"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        flow,
        [
            "authorize",
            "prompt",
            "login",
            "prompt",
            "consent",
            "code",
            "http",
            "asked",
            "result",
            "done"
        ],
        "{:#?}",
        steps.0
    );
    assert_eq!(steps.of("authorize")[0]["resource"], json!([url]));
    assert_eq!(steps.of("code")[0]["iss"], issuer_url);

    let asked = steps.of("asked");
    let question = asked[0]["message"].as_str().unwrap_or_default();
    assert!(question.contains("`clear_board`"), "{question}");
    let result = steps.results()[0];
    assert_eq!(result["is_error"], false, "{result}");
    let text = result["text"].as_str().unwrap_or_default();
    assert_eq!(
        common::unsessioned(text),
        "Done: Removed 0 tasks",
        "{result}"
    );

    assert_eq!(issuer.events("registration").await.len(), 1);
    assert_eq!(issuer.events("login").await.len(), 1);
    let codes = issuer.grants("authorization_code").await;
    assert_eq!(codes.len(), 1, "{codes:#?}");
    assert_eq!(codes[0]["aud"], url);
    assert_eq!(codes[0]["scope"], "board:read board:write board:admin");
    let requests = script.requests();
    assert_eq!(requests.len(), 2, "each turn was asked for once");
    assert_eq!(requests[1].tool_results().len(), 1, "clear_board ran once");
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK and oidc-provider: run by scripts/test"]
async fn the_python_sdk_signs_in_knowing_only_the_url_and_approves_clear_board_in_plan_week() {
    let issuer = Issuer::start().await;
    let script = clearing_script();
    let model = script.serve().await.expect("serves");
    let (_board, url) = board(&issuer, &model.url()).await;

    let steps = python_oauth(&url, &["call:plan_week"], &issuer).await;

    check_signed_in_and_approved(&steps, &issuer, &url, &script).await;
}

#[tokio::test]
#[ignore = "needs the MCP TypeScript client and oidc-provider: run by scripts/test"]
async fn the_typescript_client_signs_in_headless_knowing_only_the_url_and_approves_clear_board() {
    let issuer = Issuer::start().await;
    let script = clearing_script();
    let model = script.serve().await.expect("serves");
    let (_board, url) = board(&issuer, &model.url()).await;

    let steps = ts_oauth(&url, &issuer).await;

    check_signed_in_and_approved(&steps, &issuer, &url, &script).await;
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK and oidc-provider: run by scripts/test"]
async fn the_python_sdk_refreshes_its_token_when_it_expires_without_signing_in_again() {
    let (issuer, _model, _board, url) = short_lived().await;

    let steps = python_oauth(
        &url,
        &["call:list_tasks", "sleep:4", "call:list_tasks"],
        &issuer,
    )
    .await;

    let results = steps.results();
    assert_eq!(results.len(), 2);
    for result in results {
        assert_eq!(result["is_error"], false, "{result}");
    }
    assert_eq!(steps.of("login").len(), 1, "signed in once");
    assert_eq!(steps.of("authorize").len(), 1, "authorized once");
    assert_eq!(issuer.events("registration").await.len(), 1);
    assert_eq!(issuer.grants("authorization_code").await.len(), 1);
    let refreshed = issuer.grants("refresh_token").await;
    assert!(!refreshed.is_empty(), "the token was refreshed");
    assert_eq!(refreshed[0]["aud"], url);
    assert_eq!(refreshed[0]["scope"], "board:read board:write board:admin");
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK and oidc-provider: run by scripts/test"]
async fn the_board_takes_a_token_signed_by_a_key_the_issuer_rotated_in_between_two_calls() {
    let (issuer, _model, _board, url) = short_lived().await;
    let first_kid = issuer.key(jsonwebtoken::Algorithm::RS256).kid;

    // The pause rotates the keys; the token expires in the sleep, so the second call's is new.
    let actions = ["call:list_tasks", "pause", "sleep:4", "call:list_tasks"];
    let steps = python_oauth(&url, &actions, &issuer).await;

    let results = steps.results();
    assert_eq!(results.len(), 2);
    for result in results {
        assert_eq!(result["is_error"], false, "{result}");
    }
    let new_kid = issuer.key(jsonwebtoken::Algorithm::RS256).kid;
    assert_ne!(new_kid, first_kid);
    let codes = issuer.grants("authorization_code").await;
    assert_eq!(codes.len(), 1, "no second sign-in: {codes:#?}");
    assert_eq!(codes[0]["kid"], first_kid);
    let refreshed = issuer.grants("refresh_token").await;
    assert_eq!(
        refreshed.last().map(|event| &event["kid"]),
        Some(&json!(new_kid)),
        "the second call's token is signed by the new key: {refreshed:#?}"
    );
    let http = steps.http();
    let refused = http
        .iter()
        .filter(|line| line.starts_with(&format!("POST {url} 401")))
        .count();
    assert_eq!(
        refused, 1,
        "only the first request went without a token: {http:#?}"
    );
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK and oidc-provider: run by scripts/test"]
async fn the_python_sdk_steps_up_from_board_read_to_board_write_on_insufficient_scope() {
    let issuer = Issuer::start().await;
    let script = ScriptedModel::new([Reply::text("Nothing to plan this week.")]);
    let model = script.serve().await.expect("serves");
    let (_board, url) = board(&issuer, &model.url()).await;

    let args = [
        "--grant",
        "board:read",
        "--grant",
        "board:read board:write",
        "call:list_tasks",
        "call:plan_week",
    ];
    let steps = python_oauth(&url, &args, &issuer).await;

    let results = steps.results();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["tool"], "list_tasks");
    assert_eq!(results[0]["is_error"], false, "{}", results[0]);
    assert_eq!(results[1]["tool"], "plan_week");
    assert_eq!(results[1]["is_error"], false, "{}", results[1]);
    let text = results[1]["text"].as_str().unwrap_or_default();
    assert_eq!(common::unsessioned(text), "Nothing to plan this week.");
    let http = steps.http();
    assert!(
        http.contains(&format!("POST {url} 403")),
        "plan_week was refused first: {http:#?}"
    );
    let consents: Vec<_> = steps
        .of("consent")
        .iter()
        .map(|step| step["granted"].clone())
        .collect();
    assert_eq!(
        consents,
        [json!(["board:read"]), json!(["board:read", "board:write"])]
    );
    assert_eq!(steps.of("login").len(), 1, "the person signed in once");
    assert_eq!(issuer.events("registration").await.len(), 1);
    let codes = issuer.grants("authorization_code").await;
    let scopes: Vec<_> = codes.iter().map(|event| event["scope"].clone()).collect();
    assert_eq!(
        scopes,
        [json!("board:read"), json!("board:read board:write")]
    );
    assert_eq!(script.requests().len(), 1, "plan_week ran once");
}

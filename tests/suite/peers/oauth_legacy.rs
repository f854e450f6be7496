//! `board --oauth` built with the `legacy-spec` feature (MCP 2025-11-25), driven by the OAuth
//! client of the last 1.x official MCP Python SDK (`mcp` 1.30.0, `OAuthClientProvider` over
//! Streamable HTTP, `python_legacy_oauth.py`), which knows nothing but the board's URL, against a
//! real OAuth 2.1 authorization server (oidc-provider, `common::issuer`), with the scripted model
//! behind real HTTP: the whole sign-in from the board's 401 (its metadata, the issuer's,
//! registration, the code with PKCE, the token) then `plan_week`, whose approval, under
//! 2025-11-25 an elicitation request from the board, this SDK's OAuth client never answers (its
//! lock, held while a request waits for its response); and a step-up from `board:read` to
//! `board:write` when the board answers `403 insufficient_scope`, whose challenge names the
//! scopes the token holds too, since this SDK asks the issuer for the challenge's scopes alone.
//!
//! Built only with `--features legacy-spec`. Ignored by a plain `cargo test`, since it needs the
//! SDK and oidc-provider: `scripts/peers install` installs them, and `scripts/test` runs these
//! with `--ignored`, the venv's interpreter in `LADOGA_PYTHON_LEGACY` and oidc-provider's folder
//! in `LADOGA_ISSUER`.

use std::time::Duration;

use crate::common::issuer::Issuer;
use crate::common::steps::Steps;
use crate::common::{self, board_over_http_with};
use ladoga::testing::{Reply, ScriptedModel};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

const PYTHON_CLIENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/peers/python_legacy_oauth.py"
);

/// Runs the Python 1.x OAuth client against `url` with `args` (`--grant`s and `call:TOOL`s),
/// and collects its steps.
async fn python_oauth(url: &str, args: &[&str]) -> Steps {
    let python = std::env::var("LADOGA_PYTHON_LEGACY")
        .expect("LADOGA_PYTHON_LEGACY names a Python with the MCP SDK 1.x (see scripts/test)");
    let mut child = tokio::process::Command::new(python)
        .arg(PYTHON_CLIENT)
        .arg(url)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the OAuth client runs");
    let mut lines = BufReader::new(child.stdout.take().expect("its stdout")).lines();
    let mut steps = Vec::new();
    let reading = async {
        while let Some(line) = lines.next_line().await.expect("its output") {
            steps.push(serde_json::from_str::<Value>(&line).expect("a JSON line"));
        }
    };
    let ended = tokio::time::timeout(Duration::from_secs(120), reading)
        .await
        .is_ok();
    if !ended {
        let _ = child.start_kill();
    }
    let output = child.wait_with_output().await.expect("it ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        ended,
        "the OAuth client ends within 2 minutes: {stderr}\n{steps:#?}"
    );
    assert!(output.status.success(), "{stderr}\n{steps:#?}");
    assert_eq!(steps.last().map(|step| &step["step"]), Some(&json!("done")));
    Steps(steps)
}

/// `board --oauth` on the issuer, talking to the model served at `model_url`: the board and
/// its MCP URL.
async fn board(issuer: &Issuer, model_url: &str) -> (tokio::process::Child, String) {
    let issuer_url = issuer.url();
    let args = ["--oauth", issuer_url.as_str()];
    let (board, addr) = board_over_http_with(model_url, "scripted", &args).await;
    (board, format!("http://{addr}/mcp"))
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

/// The 1.30 SDK signs in from the board's URL alone, but its answer to the approval never leaves
/// it: `OAuthClientProvider._auth_flow` holds its lock (`async with self.context.lock`) from
/// before it sends a request until that request's response has come (`response = yield
/// request`), and neva's 2025-11-25 transport answers a `POST` with one JSON body when the call
/// ends, sending the approval's elicitation on the `GET` stream. So the `POST` carrying the
/// person's answer waits for the lock the pending `tools/call` holds, and the call waits for the
/// answer. With a bearer token in the headers (no `OAuthClientProvider`) the same SDK approves
/// (`python_legacy_task.py`).
#[tokio::test]
#[ignore = "needs the MCP Python SDK 1.x and oidc-provider: run by scripts/test"]
async fn the_python_sdk_1_signs_in_knowing_only_the_url_but_its_approval_never_reaches_the_board() {
    let issuer = Issuer::start().await;
    let script = clearing_script();
    let model = script.serve().await.expect("serves");
    let (_board, url) = board(&issuer, &model.url()).await;

    let steps = python_oauth(&url, &["--within", "10", "call:plan_week"]).await;

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
            "stuck",
            "done"
        ],
        "{:#?}",
        steps.0
    );
    let authorize = steps.of("authorize")[0];
    assert_eq!(authorize["resource"], json!([url]));
    assert_eq!(
        authorize["scope"],
        json!(["board:read board:write board:admin"]),
        "every scope of the board's metadata"
    );
    assert_eq!(steps.of("code")[0]["iss"], issuer_url);
    let question = steps.of("asked")[0]["message"].as_str().unwrap_or_default();
    assert!(question.contains("`clear_board`"), "{question}");
    let asked_at = steps
        .0
        .iter()
        .position(|step| step["step"] == "asked")
        .expect("asked");
    let sent_after: Vec<_> = steps.0[asked_at..]
        .iter()
        .filter(|step| step["step"] == "http" && step["url"] == url)
        .collect();
    assert!(
        sent_after.is_empty(),
        "nothing reached the board after the question: {sent_after:#?}"
    );

    assert_eq!(issuer.events("registration").await.len(), 1);
    assert_eq!(issuer.events("login").await.len(), 1);
    let codes = issuer.grants("authorization_code").await;
    assert_eq!(codes.len(), 1, "{codes:#?}");
    assert_eq!(codes[0]["aud"], url);
    assert_eq!(codes[0]["scope"], "board:read board:write board:admin");
    assert_eq!(
        script.requests().len(),
        1,
        "the run waits for the answer: clear_board never ran"
    );
}

/// The 1.30 SDK steps up (`OAuthClientProvider._auth_flow`: a `403` whose `WWW-Authenticate`
/// says `error="insufficient_scope"` runs the authorization again on the metadata it found, then
/// sends the request again), asking for the scopes that header names alone
/// (`get_client_metadata_scopes`: no union with those it holds, which the 2.x SDK adds,
/// SEP-2350). So the legacy board names the scopes the token holds in that header too, as
/// 2025-11-25 recommends (`examples/board/step_up.rs`): the stepped-up token keeps `board:read`,
/// and the next `list_tasks` needs no second step-up.
#[tokio::test]
#[ignore = "needs the MCP Python SDK 1.x and oidc-provider: run by scripts/test"]
async fn the_python_sdk_1_steps_up_to_the_scopes_it_held_and_the_one_it_needs() {
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
        "call:list_tasks",
    ];
    let steps = python_oauth(&url, &args).await;

    let results = steps.results();
    let tools: Vec<_> = results
        .iter()
        .map(|result| result["tool"].clone())
        .collect();
    assert_eq!(
        tools,
        [json!("list_tasks"), json!("plan_week"), json!("list_tasks")]
    );
    for result in &results {
        assert_eq!(result["is_error"], false, "{result}");
    }
    let text = results[1]["text"].as_str().unwrap_or_default();
    assert_eq!(common::unsessioned(text), "Nothing to plan this week.");
    let http = steps.http();
    let forbidden = format!("POST {url} 403");
    assert_eq!(
        http.iter().filter(|line| **line == forbidden).count(),
        1,
        "plan_week was refused once, the second list_tasks not: {http:#?}"
    );
    let asked: Vec<_> = steps
        .of("authorize")
        .iter()
        .map(|step| step["scope"].clone())
        .collect();
    assert_eq!(
        asked,
        [
            json!(["board:read board:write board:admin"]),
            json!(["board:read board:write"])
        ],
        "the step-up asks for the scope held and the one needed"
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
        [json!("board:read"), json!("board:read board:write")],
        "the stepped-up token keeps board:read"
    );
    assert_eq!(script.requests().len(), 1, "plan_week ran once");
}

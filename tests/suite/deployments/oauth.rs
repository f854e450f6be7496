//! Attacks on `board --oauth`, through the real HTTP path: tokens of a real authorization server
//! (oidc-provider, see `common::issuer`), and tokens forged as an attacker would, with the
//! issuer's own keys or others, sent as bare MCP 2026-07-28 requests. Each test is a row of the
//! table in `docs/security.md`: what the request gets, what runs, and that no model was asked.
use std::net::SocketAddr;
use std::time::Duration;

use crate::common;
use crate::common::auth::now;
use crate::common::issuer::{Issuer, IssuerOptions, SCOPES, SigningKey};
use jsonwebtoken::Algorithm;
use ladoga::testing::{Reply, ScriptedModel, ScriptedServer};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// An issuer, the scripted model, and `board --oauth` taking that issuer's tokens.
struct Board {
    issuer: Issuer,
    script: ScriptedModel,
    _model: ScriptedServer,
    _board: tokio::process::Child,
    addr: SocketAddr,
}

/// What the board answered a request: its status, its `WWW-Authenticate`, its body.
#[derive(Debug)]
struct Answer {
    status: StatusCode,
    challenge: String,
    body: String,
}

impl Board {
    /// The board of `script`'s model, for a new issuer started with `options`; `args` more of
    /// the board's flags.
    async fn start(script: ScriptedModel, options: IssuerOptions, args: &[&str]) -> Self {
        let issuer = Issuer::start_with(options).await;
        let model = script.serve().await.expect("the scripted model serves");
        let url = issuer.url();
        let args: Vec<&str> = ["--oauth", url.as_str()]
            .into_iter()
            .chain(args.iter().copied())
            .collect();
        let (board, addr) = common::board_over_http_with(&model.url(), "scripted", &args).await;
        Self {
            issuer,
            script,
            _model: model,
            _board: board,
            addr,
        }
    }

    /// [`Board::start`] with a model that answers at once, and the issuer's defaults.
    async fn quiet() -> Self {
        Self::start(ScriptedModel::new([]), IssuerOptions::default(), &[]).await
    }

    /// The board's resource: the audience its tokens must name.
    fn resource(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// A real token of the issuer for this board, granting `scopes`.
    async fn token(&self, scopes: &[&str]) -> String {
        self.issuer
            .sign_in(&self.resource(), scopes)
            .await
            .access_token
    }

    /// The claims of a token of the issuer for this board, granting `scope`, valid for an hour.
    fn claims(&self, scope: &str) -> Value {
        json!({
            "iss": self.issuer.url(),
            "sub": "alice",
            "aud": self.resource(),
            "scope": scope,
            "client_id": "forged",
            "iat": now(),
            "exp": now() + 3600,
        })
    }

    /// A `tools/call` of `tool` with `arguments`, bearing `token` if any.
    async fn call(&self, token: Option<&str>, tool: &str, arguments: Value) -> Answer {
        let body = json!({
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {
                "name": tool,
                "arguments": arguments,
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientInfo": {"name": "attacker", "version": "1.0.0"},
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
            },
        });
        let mut request = reqwest::Client::new()
            .post(format!("http://{}/mcp", self.addr))
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", "tools/call")
            .header("Mcp-Name", tool)
            .json(&body)
            .timeout(Duration::from_secs(30));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        answer(request.send().await.expect("the board answers")).await
    }

    /// Asserts that a call of `tool` bearing `token` is refused `401 invalid_token`.
    async fn refuses(&self, token: &str, tool: &str) {
        let answer = self.call(Some(token), tool, json!({})).await;
        assert_unauthorized(self, &answer, Some("invalid_token"));
    }

    /// Whether the task board is empty, as a reader sees it.
    async fn is_empty(&self, reader: &str) -> bool {
        let listed = self.call(Some(reader), "list_tasks", json!({})).await;
        assert_eq!(listed.status, StatusCode::OK, "{listed:?}");
        listed.body.contains("The board is empty.")
    }
}

/// `response` read to the end.
async fn answer(response: reqwest::Response) -> Answer {
    let status = response.status();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|value| value.to_str().expect("an ASCII challenge").to_owned())
        .unwrap_or_default();
    let body = response.text().await.expect("a body");
    Answer {
        status,
        challenge,
        body,
    }
}

/// Asserts that `answer` is a `401` that points at the board's metadata, naming `error` if any.
fn assert_unauthorized(board: &Board, answer: &Answer, error: Option<&str>) {
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{answer:?}");
    let metadata = format!(
        "resource_metadata=\"http://{}/.well-known/oauth-protected-resource/mcp\"",
        board.addr
    );
    assert!(answer.challenge.contains(&metadata), "{answer:?}");
    if let Some(error) = error {
        assert!(
            answer.challenge.contains(&format!("error=\"{error}\"")),
            "{answer:?}"
        );
    }
    assert!(
        answer.body.is_empty(),
        "a refusal says nothing more: {answer:?}"
    );
}

/// `claims` under a header `alg: none` naming `kid`, with no signature.
fn unsigned(kid: &str, claims: &Value) -> String {
    use base64::Engine;
    let encode =
        |value: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(value.to_string());
    let header = json!({"alg": "none", "typ": "at+jwt", "kid": kid});
    format!("{}.{}.", encode(&header), encode(claims))
}

/// `key` under another `kid`.
fn renamed(key: &SigningKey, kid: &str) -> SigningKey {
    SigningKey {
        kid: kid.to_owned(),
        ..key.clone()
    }
}

#[tokio::test]
#[ignore = "needs oidc-provider: run by scripts/test"]
async fn the_issuers_own_tokens_open_the_board_signed_rs256_or_es256() {
    let board = Board::quiet().await;
    let reader = board.token(&["board:read"]).await;
    assert!(board.is_empty(&reader).await);
    // A token signed with the issuer's other key, its P-256 one (ES256), verifies too.
    let es256 = board
        .issuer
        .key(Algorithm::ES256)
        .sign(&board.claims("board:read"));
    assert!(board.is_empty(&es256).await);
    assert!(board.script.requests().is_empty(), "no model was asked");

    // And so do the tokens of an issuer that signs ES256.
    let options = IssuerOptions {
        alg: Algorithm::ES256,
        ..IssuerOptions::default()
    };
    let board = Board::start(ScriptedModel::new([]), options, &[]).await;
    let reader = board.token(&["board:read"]).await;
    assert!(board.is_empty(&reader).await);
}

#[tokio::test]
#[ignore = "needs oidc-provider: run by scripts/test"]
async fn a_request_without_a_token_is_pointed_at_the_metadata() {
    let board = Board::quiet().await;
    let answer = board.call(None, "list_tasks", json!({})).await;
    assert_unauthorized(&board, &answer, None);

    // The metadata, at both addresses, names the issuer and the scopes.
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let metadata: Value = reqwest::get(format!("http://{}{path}", board.addr))
            .await
            .expect("the metadata")
            .json()
            .await
            .expect("JSON");
        assert_eq!(metadata["resource"], board.resource(), "{path}");
        assert_eq!(
            metadata["authorization_servers"],
            json!([board.issuer.url()])
        );
        assert_eq!(metadata["scopes_supported"], json!(SCOPES));
    }
    assert!(board.script.requests().is_empty(), "no model was asked");
}

#[tokio::test]
#[ignore = "needs oidc-provider: run by scripts/test"]
async fn a_token_signed_with_another_key_under_the_issuers_kid_is_refused() {
    let board = Board::quiet().await;
    let stranger = Issuer::start().await;
    let theirs = stranger.key(Algorithm::RS256);
    let ours = board.issuer.key(Algorithm::RS256);
    let forged = renamed(&theirs, &ours.kid).sign(&board.claims("board:read board:admin"));
    board.refuses(&forged, "clear_board").await;
    assert!(board.script.requests().is_empty(), "no model was asked");
}

#[tokio::test]
#[ignore = "needs oidc-provider: run by scripts/test"]
async fn a_token_with_alg_none_is_refused() {
    let board = Board::quiet().await;
    let kid = board.issuer.key(Algorithm::RS256).kid;
    let forged = unsigned(&kid, &board.claims("board:read board:admin"));
    board.refuses(&forged, "clear_board").await;
    assert!(board.script.requests().is_empty(), "no model was asked");
}

#[tokio::test]
#[ignore = "needs oidc-provider: run by scripts/test"]
async fn an_expired_token_and_one_not_yet_valid_are_refused() {
    let board = Board::quiet().await;
    let key = board.issuer.key(Algorithm::RS256);
    let reader = board.token(&["board:read"]).await;
    assert!(
        board.is_empty(&reader).await,
        "the board takes the issuer's tokens"
    );

    // Past the minute of leeway for clock skew, either way.
    let mut expired = board.claims("board:read");
    expired["iat"] = json!(now() - 600);
    expired["exp"] = json!(now() - 120);
    let mut early = board.claims("board:read");
    early["nbf"] = json!(now() + 3600);
    for claims in [expired, early] {
        board.refuses(&key.sign(&claims), "list_tasks").await;
    }
    assert!(board.script.requests().is_empty(), "no model was asked");
}

#[tokio::test]
#[ignore = "needs oidc-provider: run by scripts/test"]
async fn a_token_for_another_resource_is_refused_though_the_issuer_signed_it() {
    let board = Board::quiet().await;
    // A real token of the same issuer, for another MCP server.
    let elsewhere = board
        .issuer
        .sign_in("http://127.0.0.1:9/other/mcp", &SCOPES)
        .await
        .access_token;
    board.refuses(&elsewhere, "list_tasks").await;

    // And one forged with its key, for no audience at all.
    let mut claims = board.claims("board:read");
    claims.as_object_mut().expect("claims").remove("aud");
    let forged = board.issuer.key(Algorithm::RS256).sign(&claims);
    board.refuses(&forged, "list_tasks").await;
    assert!(board.script.requests().is_empty(), "no model was asked");
}

#[tokio::test]
#[ignore = "needs oidc-provider: run by scripts/test"]
async fn a_token_from_another_issuer_is_refused() {
    let board = Board::quiet().await;
    let stranger = Issuer::start().await;
    // Another authorization server's real token, for this very board.
    let theirs = stranger
        .sign_in(&board.resource(), &SCOPES)
        .await
        .access_token;
    board.refuses(&theirs, "list_tasks").await;

    // And one signed with the board's issuer's key, naming another issuer.
    let mut claims = board.claims("board:read");
    claims["iss"] = json!(stranger.url());
    let forged = board.issuer.key(Algorithm::RS256).sign(&claims);
    board.refuses(&forged, "list_tasks").await;
    assert!(board.script.requests().is_empty(), "no model was asked");
}

#[tokio::test]
#[ignore = "needs oidc-provider: run by scripts/test"]
async fn tokens_with_key_ids_never_published_are_refused_and_fetch_the_keys_at_most_once() {
    // The default cooldown: 60 s between two fetches of the issuer's keys.
    let board = Board::quiet().await;
    let reader = board.token(&["board:read"]).await;
    assert!(board.is_empty(&reader).await, "the keys are fetched once");
    let fetched = board.issuer.events("jwks").await.len();
    assert!(fetched >= 1, "the board fetched the issuer's keys");

    let stranger = Issuer::start().await;
    let key = stranger.key(Algorithm::RS256);
    for n in 0..10 {
        let forged =
            renamed(&key, &format!("never-published-{n}")).sign(&board.claims("board:read"));
        board.refuses(&forged, "list_tasks").await;
    }
    let refetched = board.issuer.events("jwks").await.len() - fetched;
    assert!(
        refetched <= 1,
        "10 unknown key ids, {refetched} fetches of the keys"
    );
    assert!(
        board.is_empty(&reader).await,
        "the known key still verifies"
    );
    assert!(board.script.requests().is_empty(), "no model was asked");
}

#[tokio::test]
#[ignore = "needs oidc-provider: run by scripts/test"]
async fn a_reader_cannot_clear_the_board_directly_nor_plan_the_week() {
    let board = Board::quiet().await;
    let writer = board.token(&["board:write"]).await;
    let added = board
        .call(Some(&writer), "add_task", json!({"title": "Ship"}))
        .await;
    assert_eq!(added.status, StatusCode::OK, "{added:?}");

    let reader = board.token(&["board:read"]).await;
    for (tool, needed) in [("clear_board", "board:admin"), ("plan_week", "board:write")] {
        let answer = board.call(Some(&reader), tool, json!({"focus": "x"})).await;
        assert_eq!(answer.status, StatusCode::FORBIDDEN, "{tool}: {answer:?}");
        assert!(
            answer.challenge.contains("error=\"insufficient_scope\""),
            "{answer:?}"
        );
        assert!(
            answer.challenge.contains(&format!("scope=\"{needed}\"")),
            "{answer:?}"
        );
    }
    assert!(!board.is_empty(&reader).await, "the task is still there");
    assert!(board.script.requests().is_empty(), "no model was asked");
}

#[tokio::test]
#[ignore = "needs oidc-provider: run by scripts/test"]
async fn plan_weeks_model_is_not_offered_clear_board_without_board_admin_nor_can_call_it() {
    let script = ScriptedModel::from_fn(|seen| match seen.tool_results().first() {
        None => Reply::call("clear_board", json!({})).with_text("I will clear the board."),
        Some((_, result)) => Reply::text(format!("Done: {result}")),
    });
    let board = Board::start(script, IssuerOptions::default(), &[]).await;
    let token = board.token(&["board:read", "board:write"]).await;
    let added = board
        .call(Some(&token), "add_task", json!({"title": "Ship"}))
        .await;
    assert_eq!(added.status, StatusCode::OK, "{added:?}");

    let planned = board
        .call(Some(&token), "plan_week", json!({"focus": "x"}))
        .await;
    assert_eq!(planned.status, StatusCode::OK, "{planned:?}");
    let requests = board.script.requests();
    let mut offered = requests[0].tool_names();
    offered.sort_unstable();
    assert_eq!(
        offered,
        ["add_task", "complete_task", "list_tasks", "review"]
    );
    // The model asked anyway: it was told the tool is not there, and nothing was cleared.
    assert_eq!(requests.len(), 2, "{requests:?}");
    let (_, result) = &requests[1].tool_results()[0];
    assert!(!result.contains("Removed"), "{result}");
    assert!(!board.is_empty(&token).await, "the task is still there");
}

#[tokio::test]
#[ignore = "needs oidc-provider: run by scripts/test"]
async fn a_token_replayed_after_its_expiry_is_refused() {
    let board = Board::start(
        ScriptedModel::new([]),
        IssuerOptions {
            access_token_ttl: Duration::from_secs(2),
            ..IssuerOptions::default()
        },
        &[],
    )
    .await;
    let reader = board.token(&["board:read"]).await;
    assert!(board.is_empty(&reader).await, "taken while it is valid");
    // Its two seconds, and the minute of leeway for clock skew.
    tokio::time::sleep(Duration::from_secs(64)).await;
    board.refuses(&reader, "list_tasks").await;
    assert!(board.script.requests().is_empty(), "no model was asked");
}

#[tokio::test]
#[ignore = "needs oidc-provider: run by scripts/test"]
async fn a_hostile_host_does_not_move_the_metadata_nor_the_challenge() {
    let board = Board::quiet().await;
    let client = reqwest::Client::new();
    let metadata = client
        .get(format!(
            "http://{}/.well-known/oauth-protected-resource",
            board.addr
        ))
        .header("Host", "evil.example")
        .send()
        .await
        .expect("an answer");
    let metadata = answer(metadata).await;
    assert!(!metadata.body.contains("evil"), "{metadata:?}");
    if metadata.status == StatusCode::OK {
        let document: Value = serde_json::from_str(&metadata.body).expect("JSON");
        assert_eq!(document["resource"], board.resource());
        assert_eq!(
            document["authorization_servers"],
            json!([board.issuer.url()])
        );
    }

    let refused = client
        .post(format!("http://{}/mcp", board.addr))
        .header("Host", "evil.example")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .send()
        .await
        .expect("an answer");
    let refused = answer(refused).await;
    assert!(!refused.challenge.contains("evil"), "{refused:?}");
    assert_ne!(refused.status, StatusCode::OK, "{refused:?}");
    assert!(board.script.requests().is_empty(), "no model was asked");
}

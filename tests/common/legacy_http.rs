//! Bare MCP 2025-11-25 requests over Streamable HTTP, as a client writes them by hand: a
//! session's `initialize`, and requests in it, with a bearer token, to whichever server the test
//! names.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};

/// A POST of `message` to the board at `addr` as `token`'s holder, in `session` if given:
/// the status, the session the response names, and the JSON-RPC answer (if any).
pub async fn post(
    addr: SocketAddr,
    token: &str,
    session: Option<&str>,
    message: Value,
) -> (u16, Option<String>, Value) {
    let mut request = reqwest::Client::new()
        .post(format!("http://{addr}/mcp"))
        .bearer_auth(token)
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-11-25");
    if let Some(session) = session {
        request = request.header("Mcp-Session-Id", session);
    }
    let response = request
        .json(&message)
        .timeout(Duration::from_secs(30))
        .send()
        .await
        .expect("the board answers");
    let status = response.status().as_u16();
    let minted = response
        .headers()
        .get("mcp-session-id")
        .and_then(|id| id.to_str().ok())
        .map(str::to_owned);
    let body = response.text().await.expect("a body");
    let answer = match body.is_empty() {
        true => Value::Null,
        false => super::rounds::answer_of(&body),
    };
    (status, minted, answer)
}

/// A session of `token`'s holder, initialized.
pub async fn initialized(addr: SocketAddr, token: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "by-hand", "version": "1.0.0"},
    }});
    let (status, session, answer) = post(addr, token, None, init).await;
    assert_eq!(status, 200, "{answer}");
    let session = session.expect("a session");
    let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(addr, token, Some(&session), done).await;
    session
}

/// The request `method` with `params`, as `token`'s holder in `session`.
pub async fn ask(
    addr: SocketAddr,
    token: &str,
    session: &str,
    method: &str,
    params: Value,
) -> Value {
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    post(addr, token, Some(session), message).await.2
}

//! Bare MCP 2026-07-28 rounds of a `plan_week` call, as a client writes them by hand: the
//! question an `input_required` answer carries, its sealed `requestState`, and the retry with
//! the answer, sent to whichever server the test names.

use std::net::SocketAddr;
use std::time::Duration;

use ladoga::testing::{Reply, ScriptedModel};
use serde_json::{Value, json};

/// A model that asks for `clear_board` until it has a result, then reports that result.
pub fn clearing_model() -> ScriptedModel {
    ScriptedModel::from_fn(|seen| match seen.tool_results().first() {
        None => Reply::call("clear_board", json!({})).with_text("I will clear the board."),
        Some((_, result)) => Reply::text(format!("Done: {result}")),
    })
}

/// How many times `clear_board` ran, as the model was told.
pub fn cleared(script: &ScriptedModel) -> usize {
    script
        .requests()
        .iter()
        .filter(|seen| !seen.tool_results().is_empty())
        .count()
}

/// One round of `plan_week` for `focus` at the server at `addr`, as `token`'s holder, carrying
/// `state` and `answers` when given: the JSON-RPC response.
pub async fn round(
    addr: SocketAddr,
    token: &str,
    focus: &str,
    state: Option<&str>,
    answers: Option<Value>,
) -> Value {
    let mut params = json!({"name": "plan_week", "arguments": {"focus": focus}});
    if let Some(state) = state {
        params["requestState"] = json!(state);
    }
    if let Some(answers) = answers {
        params["inputResponses"] = answers;
    }
    request(addr, token, "tools/call", params).await
}

/// The MCP 2026-07-28 request `method` with `params` (given the `_meta` every request carries,
/// beside any `_meta` of `params`)
/// at the server at `addr`, as `token`'s holder, with the headers a client derives from it: the
/// JSON-RPC response.
pub async fn request(addr: SocketAddr, token: &str, method: &str, params: Value) -> Value {
    let answer = try_request(addr, token, method, params).await;
    answer.unwrap_or_else(|error| panic!("the server answers: {error}"))
}

/// [`request`], or why the server did not answer (it was killed, say).
pub async fn try_request(
    addr: SocketAddr,
    token: &str,
    method: &str,
    mut params: Value,
) -> Result<Value, reqwest::Error> {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "by-hand", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    });
    // A `_meta` of the test's own goes with them.
    if let Some(given) = params.get("_meta").and_then(Value::as_object) {
        for (key, value) in given {
            meta[key] = value.clone();
        }
    }
    params["_meta"] = meta;
    let name = ["name", "taskId"]
        .iter()
        .find_map(|key| params[key].as_str())
        .map(str::to_owned);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut request = reqwest::Client::new()
        .post(format!("http://{addr}/mcp"))
        .bearer_auth(token)
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method);
    if let Some(name) = name {
        request = request.header("Mcp-Name", name);
    }
    let response = request
        .json(&body)
        .timeout(Duration::from_secs(30))
        .send()
        .await?;
    Ok(answer_of(&response.text().await?))
}

/// The JSON-RPC answer to request 1 in `body`: the body itself, or one of its server-sent
/// events.
pub fn answer_of(body: &str) -> Value {
    if let Ok(answer) = serde_json::from_str::<Value>(body) {
        return answer;
    }
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .find(|message| message["id"] == 1)
        .unwrap_or_else(|| panic!("no answer in {body}"))
}

/// The one question of an `input_required` answer: its key, and the sealed state.
pub fn question(answer: &Value) -> (String, String) {
    let result = &answer["result"];
    assert_eq!(result["resultType"], "input_required", "{answer}");
    let requests = result["inputRequests"].as_object().expect("input requests");
    assert_eq!(requests.len(), 1, "{answer}");
    let key = requests.keys().next().expect("one").clone();
    let state = result["requestState"].as_str().expect("a state").to_owned();
    (key, state)
}

/// The answers approving the question under `key`.
pub fn approve(key: &str) -> Value {
    json!({ key: {"action": "accept", "content": {}} })
}

/// Whether `answer` is an error, as a JSON-RPC error or a tool error.
pub fn refused(answer: &Value) -> bool {
    answer.get("error").is_some() || answer["result"]["isError"] == true
}

/// The text of a final answer.
pub fn text(answer: &Value) -> &Value {
    &answer["result"]["content"][0]["text"]
}

//! Each caller sees only its own tasks and sessions, through the real HTTP path of
//! `board --auth`, with bare MCP requests as an attacker with a valid token of their own would
//! write them: Bob, given the id of Alice's `plan_week` task, finds no such task whatever he
//! asks (get, update, cancel; under `legacy-spec` result, list, and Alice's `Mcp-Session-Id`),
//! his answers word for word those for an id that does not exist; Alice's task goes on and ends
//! as she decides. A token that names no subject is refused.

use std::time::Duration;

use crate::common::auth::{SECRET, admin, board_with_auth, now, token, valid_token};
use serde_json::{Value, json};

/// Bob: a `user`, with a valid token of his own.
fn bob() -> String {
    valid_token("bob", json!({"role": "user"}))
}

/// The error of `answer` with `id` written as `ID`: what a caller learns of a task by its answer.
fn error_of(answer: &Value, id: &str) -> String {
    let error = answer
        .get("error")
        .unwrap_or_else(|| panic!("no error: {answer}"));
    error.to_string().replace(id, "ID")
}

/// A task id no one was given.
fn made_up() -> String {
    "0b0e5d63-5ab4-4f57-b3a0-9d1e7fb1c2aa".to_owned()
}

#[tokio::test]
async fn a_token_without_a_subject_is_refused_with_a_clear_error() {
    let script = ladoga::testing::ScriptedModel::new([ladoga::testing::Reply::text("Planned.")]);
    let model = script.serve().await.expect("serves");
    let (_board, addr) = board_with_auth(&model.url()).await;

    let nameless = token(SECRET, json!({"role": "admin", "exp": now() + 3600}));
    let response = reqwest::Client::new()
        .post(format!("http://{addr}/mcp"))
        .bearer_auth(&nameless)
        .header("Accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}))
        .send()
        .await
        .expect("the board answers");

    assert_eq!(response.status(), 401);
    let challenge = response.headers()["www-authenticate"]
        .to_str()
        .expect("text")
        .to_owned();
    assert!(
        challenge.contains(r#"error="invalid_token""#),
        "{challenge}"
    );
    assert!(challenge.contains("names no subject (sub)"), "{challenge}");
    let body = response.text().await.expect("a body");
    assert!(body.contains("names no subject"), "{body}");
    assert!(script.requests().is_empty(), "the model was asked");
}

/// MCP 2026-07-28: the task's requests, by hand.
#[cfg(not(feature = "legacy-spec"))]
mod current {
    use super::*;
    use crate::common::rounds::{approve, cleared, clearing_model, request};
    use std::net::SocketAddr;

    /// `tasks/get` of `id` as `token`'s holder every 50 ms until its status is `status`.
    async fn until(addr: SocketAddr, token: &str, id: &str, status: &str) -> Value {
        for _ in 0..200 {
            let got = request(addr, token, "tasks/get", json!({"taskId": id})).await;
            if got["result"]["status"] == status {
                return got["result"].clone();
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the task {id} never turned {status}");
    }

    #[tokio::test]
    async fn bob_finds_no_task_of_alices_and_cannot_approve_nor_cancel_it() {
        let script = clearing_model();
        let model = script.serve().await.expect("serves");
        let (_board, addr) = board_with_auth(&model.url()).await;
        let alice = admin("alice");
        let params = json!({
            "name": "plan_week", "arguments": {"focus": "the release"}, "task": {"ttl": 60_000},
        });
        let started = request(addr, &alice, "tools/call", params).await;
        let id = started["result"]["taskId"]
            .as_str()
            .expect("a task")
            .to_owned();
        let waiting = until(addr, &alice, &id, "input_required").await;
        let key = waiting["inputRequests"]
            .as_object()
            .and_then(|requests| requests.keys().next().cloned())
            .expect("the approval of clear_board");

        // Bob, a valid `user`, and a token naming Alice's subject from another issuer.
        let elsewhere = token(
            SECRET,
            json!({"sub": "alice", "iss": "https://elsewhere.example", "role": "admin", "exp": now() + 3600}),
        );
        for other in [bob(), elsewhere] {
            for (method, extra) in [
                ("tasks/get", json!({})),
                ("tasks/update", json!({"inputResponses": approve(&key)})),
                ("tasks/cancel", json!({})),
            ] {
                let ask = |task: &str| {
                    let mut params = json!({"taskId": task});
                    params
                        .as_object_mut()
                        .expect("an object")
                        .extend(extra.as_object().expect("an object").clone());
                    params
                };
                let hers = request(addr, &other, method, ask(&id)).await;
                let none = request(addr, &other, method, ask(&made_up())).await;
                assert_eq!(
                    error_of(&hers, &id),
                    error_of(&none, &made_up()),
                    "{method}: {hers}"
                );
                assert!(!hers.to_string().contains("clear_board"), "{hers}");
            }
        }

        // Nothing Bob sent reached the run: it still waits on Alice, and nothing was cleared.
        let still = until(addr, &alice, &id, "input_required").await;
        assert_eq!(still["inputRequests"], waiting["inputRequests"]);
        assert_eq!(cleared(&script), 0, "clear_board ran on Bob's word");

        let update = json!({"taskId": id, "inputResponses": approve(&key)});
        let updated = request(addr, &alice, "tasks/update", update).await;
        assert!(updated.get("error").is_none(), "{updated}");
        let done = until(addr, &alice, &id, "completed").await;
        assert!(
            done["result"]["content"][0]["text"].as_str().is_some(),
            "{done}"
        );
        assert_eq!(
            cleared(&script),
            1,
            "clear_board ran once, approved by Alice"
        );
        // And once it is done, its result is still Alice's alone.
        let read = request(addr, &bob(), "tasks/get", json!({"taskId": id})).await;
        let none = request(addr, &bob(), "tasks/get", json!({"taskId": made_up()})).await;
        assert_eq!(error_of(&read, &id), error_of(&none, &made_up()));
    }

    #[tokio::test]
    async fn bobs_cancel_leaves_alices_task_running() {
        let script = ladoga::testing::ScriptedModel::from_fn(|_| {
            ladoga::testing::Reply::text("Planned.").after(Duration::from_secs(2))
        });
        let model = script.serve().await.expect("serves");
        let (_board, addr) = board_with_auth(&model.url()).await;
        let alice = admin("alice");
        let params = json!({"name": "plan_week", "arguments": {"focus": "x"}, "task": {}});
        let started = request(addr, &alice, "tools/call", params).await;
        let id = started["result"]["taskId"]
            .as_str()
            .expect("a task")
            .to_owned();

        let cancelled = request(addr, &bob(), "tasks/cancel", json!({"taskId": id})).await;
        assert!(cancelled.get("error").is_some(), "{cancelled}");
        let got = request(addr, &alice, "tasks/get", json!({"taskId": id})).await;
        assert_eq!(got["result"]["status"], "working", "{got}");
        let done = until(addr, &alice, &id, "completed").await;
        assert_eq!(done["result"]["content"][0]["text"], "Planned.", "{done}");
    }
}

/// MCP 2025-11-25: the task's requests and the session's, by hand.
#[cfg(feature = "legacy-spec")]
mod legacy {
    use super::*;
    use crate::common::legacy_http::{ask, initialized, post};

    #[tokio::test]
    async fn bob_finds_no_task_of_alices_nor_can_use_her_session() {
        let script = ladoga::testing::ScriptedModel::from_fn(|_| {
            ladoga::testing::Reply::text("Planned.").after(Duration::from_secs(2))
        });
        let model = script.serve().await.expect("serves");
        let (_board, addr) = board_with_auth(&model.url()).await;
        let (alice, bob) = (admin("alice"), bob());
        let hers = initialized(addr, &alice).await;
        let params = json!({
            "name": "plan_week", "arguments": {"focus": "x"}, "task": {"ttl": 60_000},
        });
        let started = ask(addr, &alice, &hers, "tools/call", params).await;
        let id = started["result"]["task"]["taskId"]
            .as_str()
            .unwrap_or_else(|| panic!("a task: {started}"))
            .to_owned();

        let his = initialized(addr, &bob).await;
        for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
            let theirs = ask(addr, &bob, &his, method, json!({"taskId": id})).await;
            let none = ask(addr, &bob, &his, method, json!({"taskId": made_up()})).await;
            assert_eq!(
                error_of(&theirs, &id),
                error_of(&none, &made_up()),
                "{method}: {theirs}"
            );
        }
        // neva would list every caller's tasks: the list is refused to a caller with a token.
        let listed = ask(addr, &bob, &his, "tasks/list", json!({})).await;
        assert!(listed["error"]["message"].is_string(), "{listed}");
        assert!(!listed.to_string().contains(&id), "{listed}");

        // Bob's token on Alice's session: refused as a session the board does not hold, for a
        // request, an answer to a request of the server's, the stream and its end.
        let (status, _, refused) = post(
            addr,
            &bob,
            Some(&hers),
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}}),
        )
        .await;
        assert_eq!(status, 404, "{refused}");
        assert_eq!(
            refused["error"]["message"], "Session not found",
            "{refused}"
        );
        let answer = json!({"jsonrpc": "2.0", "id": 0, "result": {"action": "accept"}});
        assert_eq!(post(addr, &bob, Some(&hers), answer).await.0, 404);
        let http = reqwest::Client::new();
        for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
            let response = http
                .request(method.clone(), format!("http://{addr}/mcp"))
                .bearer_auth(&bob)
                .header("Accept", "text/event-stream")
                .header("MCP-Protocol-Version", "2025-11-25")
                .header("Mcp-Session-Id", &hers)
                .timeout(Duration::from_secs(5))
                .send()
                .await
                .expect("the board answers");
            assert_eq!(response.status(), 404, "{method}");
        }

        // Alice's session and task are as they were: hers to follow, and to read to the end.
        let got = ask(addr, &alice, &hers, "tasks/get", json!({"taskId": id})).await;
        assert_eq!(got["result"]["taskId"], id, "{got}");
        let result = ask(addr, &alice, &hers, "tasks/result", json!({"taskId": id})).await;
        assert_eq!(
            result["result"]["content"][0]["text"], "Planned.",
            "{result}"
        );
    }
}

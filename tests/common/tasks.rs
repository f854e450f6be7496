//! MCP tasks, by bare MCP 2026-07-28 requests: a task started, followed, and its questions read
//! and answered.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};

use super::rounds::request;

/// The tool `name` at `addr` called as a task with `arguments`: the task's id.
pub async fn start(addr: SocketAddr, name: &str, arguments: Value) -> String {
    let params = json!({"name": name, "arguments": arguments, "task": {}});
    let started = request(addr, "", "tools/call", params).await;
    started["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {started}"))
        .to_owned()
}

/// The MCP task `id` at `addr` once its status is one of `statuses`, waited for at most 60 s.
pub async fn task_at(addr: SocketAddr, id: &str, statuses: &[&str]) -> Value {
    let mut got = Value::Null;
    for _ in 0..600 {
        got = request(addr, "", "tasks/get", json!({"taskId": id})).await;
        if statuses
            .iter()
            .any(|status| got["result"]["status"] == *status)
        {
            return got["result"].clone();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the task {id} never turned {statuses:?}: {got}");
}

/// The keys of the questions `task` (waiting for input) asks.
pub fn question_keys(task: &Value) -> Vec<String> {
    let requests = task["inputRequests"].as_object();
    let requests = requests.unwrap_or_else(|| panic!("no questions: {task}"));
    requests.keys().cloned().collect()
}

/// The one question `task` (waiting for input) asks: its key, and its message.
pub fn only_question(task: &Value) -> (String, String) {
    let keys = question_keys(task);
    assert_eq!(keys.len(), 1, "{task}");
    let asked = &task["inputRequests"][&keys[0]]["params"];
    let message = asked["message"].as_str().unwrap_or_default().to_owned();
    (keys[0].clone(), message)
}

/// Answers the question `key` of the task `id` at `addr` with `answer` (an elicitation result,
/// `{"action": "accept", …}`), through `tasks/update`.
pub async fn answer(addr: SocketAddr, id: &str, key: &str, answer: Value) {
    let update = json!({"taskId": id, "inputResponses": { key: answer }});
    let updated = request(addr, "", "tasks/update", update).await;
    assert!(updated.get("error").is_none(), "{updated}");
}

//! A request the scripted model received, as the Chat Completions body svir sent.

use serde_json::Value;

/// A request the scripted model received: the Chat Completions JSON body, with helpers for
/// what tests usually look at.
#[derive(Debug, Clone, PartialEq)]
pub struct SeenRequest {
    body: Value,
}

impl SeenRequest {
    pub(crate) fn new(body: Value) -> Self {
        Self { body }
    }

    /// The whole body, as svir encoded it.
    pub fn body(&self) -> &Value {
        &self.body
    }

    /// The model name the request asked for.
    pub fn model(&self) -> &str {
        self.body["model"].as_str().unwrap_or_default()
    }

    /// The names of the tools offered, in order.
    pub fn tool_names(&self) -> Vec<String> {
        self.list("tools")
            .iter()
            .filter_map(|tool| tool["function"]["name"].as_str())
            .map(str::to_owned)
            .collect()
    }

    /// The messages, system prompt included, in order.
    pub fn messages(&self) -> &[Value] {
        self.list("messages")
    }

    /// The text of the system message, if there is one.
    pub fn system(&self) -> Option<&str> {
        self.messages()
            .iter()
            .find(|message| message["role"] == "system")
            .and_then(|message| message["content"].as_str())
    }

    /// The text of the first user message.
    pub fn first_user_text(&self) -> Option<String> {
        self.messages()
            .iter()
            .find(|message| message["role"] == "user")
            .map(|message| text_of(&message["content"]))
    }

    /// The text of the last user message: what the person said last, a message they sent the
    /// run in flight included ([`Orchestrator::steer`](crate::Orchestrator::steer)).
    pub fn last_user_text(&self) -> Option<String> {
        self.messages()
            .iter()
            .rev()
            .find(|message| message["role"] == "user")
            .map(|message| text_of(&message["content"]))
    }

    /// The tool results sent back, in order: each call id with the content the model reads.
    pub fn tool_results(&self) -> Vec<(String, String)> {
        self.messages()
            .iter()
            .filter(|message| message["role"] == "tool")
            .map(|message| {
                let id = message["tool_call_id"].as_str().unwrap_or_default();
                (id.to_owned(), text_of(&message["content"]))
            })
            .collect()
    }

    /// The `tool_choice` the request made, if any (`"none"` at the turn bound under `answer`).
    pub fn tool_choice(&self) -> Option<&Value> {
        self.body.get("tool_choice")
    }

    fn list(&self, field: &str) -> &[Value] {
        self.body[field]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
    }
}

/// A message's content as text: a string, or the text parts of a list joined.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

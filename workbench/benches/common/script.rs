//! The scripted conversation: what the model answers on each turn, as Chat Completions event
//! streams and as whole JSON answers, made once, before anything is timed.

use bytes::Bytes;
use serde_json::{Value, json};

/// The three tools every tool turn calls, with their arguments.
pub const CALLS: [(&str, &str); 3] = [
    ("lookup", r#"{"key":"deadline"}"#),
    ("add", r#"{"a":40,"b":2}"#),
    ("echo", r#"{"text":"noted"}"#),
];

/// The final answer.
pub const ANSWER: &str = "The deadline is Friday; 42 items; noted.";

/// A model's answers: `tool_turns` turns of the three calls, then [`ANSWER`].
#[derive(Debug, Clone)]
pub struct Script {
    answers: Vec<Bytes>,
    whole: Vec<Bytes>,
}

impl Script {
    /// The issue's scenario: three turns of three calls, then the answer.
    pub fn scenario() -> Self {
        Self::with_tool_turns(3)
    }

    /// `tool_turns` turns of three calls each, then the answer.
    pub fn with_tool_turns(tool_turns: usize) -> Self {
        let mut answers: Vec<Bytes> = (0..tool_turns).map(|turn| calls(turn).into()).collect();
        answers.push(answer().into());
        let mut whole: Vec<Bytes> = (0..tool_turns)
            .map(|turn| whole_calls(turn).to_string().into())
            .collect();
        whole.push(whole_answer().to_string().into());
        Self { answers, whole }
    }

    /// How many answers the conversation has, the final one included.
    pub fn turns(&self) -> usize {
        self.answers.len()
    }

    /// The answer to a request that already holds `answered` assistant turns, as an event
    /// stream.
    pub fn answer_after(&self, answered: usize) -> Bytes {
        let last = self.answers.len() - 1;
        self.answers[answered.min(last)].clone()
    }

    /// The same answer as one JSON body, for a client that does not stream.
    pub fn whole_answer_after(&self, answered: usize) -> Bytes {
        let last = self.whole.len() - 1;
        self.whole[answered.min(last)].clone()
    }
}

/// A whole (not streamed) Chat Completions answer with `message`.
fn whole(message: Value, reason: &str) -> Value {
    json!({
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": reason}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    })
}

/// Turn `turn`'s three calls, as one JSON answer.
fn whole_calls(turn: usize) -> Value {
    let calls: Vec<Value> = CALLS
        .iter()
        .enumerate()
        .map(|(index, (name, arguments))| {
            json!({
                "id": format!("call_{turn}_{index}"),
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            })
        })
        .collect();
    let message = json!({"role": "assistant", "content": null, "tool_calls": calls});
    whole(message, "tool_calls")
}

/// The final answer, as one JSON answer.
fn whole_answer() -> Value {
    whole(json!({"role": "assistant", "content": ANSWER}), "stop")
}

/// One event of the stream.
fn event(choices: Value) -> String {
    let chunk = json!({
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "model": "scripted",
        "choices": choices,
    });
    format!("data: {chunk}\n\n")
}

/// The finish event, the usage and `[DONE]`.
fn finish(reason: &str) -> String {
    let usage = json!({
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "model": "scripted",
        "choices": [],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    });
    let done = event(json!([{"index": 0, "delta": {}, "finish_reason": reason}]));
    format!("{done}data: {usage}\n\ndata: [DONE]\n\n")
}

/// Turn `turn`'s three calls, with ids unique in the conversation.
fn calls(turn: usize) -> String {
    let mut wire = String::new();
    for (index, (name, arguments)) in CALLS.iter().enumerate() {
        wire += &event(json!([{
            "index": 0,
            "delta": {"tool_calls": [{
                "index": index,
                "id": format!("call_{turn}_{index}"),
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            }]},
            "finish_reason": null,
        }]));
    }
    wire + &finish("tool_calls")
}

/// The final answer, with no call.
fn answer() -> String {
    let text = event(json!([{
        "index": 0,
        "delta": {"role": "assistant", "content": ANSWER},
        "finish_reason": null,
    }]));
    text + &finish("stop")
}

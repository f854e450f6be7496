//! One scripted answer, and how it goes on the wire.

use std::time::Duration;

use serde_json::{Value, json};

/// What the scripted model answers to one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    kind: Kind,
    usage: (u64, u64),
    cut: bool,
    delay: Duration,
    stall: Duration,
    /// Each word of the text its own event, this long apart; zero: the answer in one go.
    pace: Duration,
    /// Instead of its end, an empty piece this often, forever.
    endless: Option<Duration>,
}

/// The most bytes of a call's arguments one event of the answer carries: longer ones go in
/// pieces, as a model server streams a long call, each event within svir's bound on one.
const ARGUMENT_PIECE: usize = 16 * 1024;

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Answer {
        text: String,
        calls: Vec<(String, String)>,
    },
    Failure {
        status: u16,
        message: String,
        retry_after: Option<Duration>,
        /// OpenAI's `error.code`, when the failure has one.
        code: Option<&'static str>,
    },
}

/// A scripted failure, as the server sends it.
pub(crate) struct Failure<'a> {
    pub(crate) status: u16,
    pub(crate) message: &'a str,
    pub(crate) retry_after: Option<Duration>,
    pub(crate) code: Option<&'static str>,
}

impl Reply {
    /// Answers with `text` and no tool call.
    pub fn text(text: impl Into<String>) -> Self {
        Self::answer(text.into(), Vec::new())
    }

    /// Calls the tool `name` with `arguments`.
    pub fn call(name: impl Into<String>, arguments: Value) -> Self {
        Self::calls([(name, arguments)])
    }

    /// Calls several tools in one turn, in this order.
    pub fn calls<N: Into<String>>(calls: impl IntoIterator<Item = (N, Value)>) -> Self {
        let calls = calls
            .into_iter()
            .map(|(name, arguments)| (name.into(), arguments.to_string()))
            .collect();
        Self::answer(String::new(), calls)
    }

    /// Calls the tool `name` with arguments written exactly as `raw`, valid JSON or not.
    pub fn raw_call(name: impl Into<String>, raw: impl Into<String>) -> Self {
        Self::answer(String::new(), vec![(name.into(), raw.into())])
    }

    /// Fails the request with HTTP `status` and an OpenAI error body carrying `message`.
    pub fn failure(status: u16, message: impl Into<String>) -> Self {
        Self::failing(status, message.into(), None)
    }

    /// Refuses the request for its length, as OpenAI does for a request past the model's
    /// window: HTTP 400 with the error code `context_length_exceeded`, which svir reads as
    /// `ErrorKind::ContextOverflow`.
    pub fn context_length_exceeded() -> Self {
        let message = "This model's maximum context length is 128000 tokens. However, your \
                       messages resulted in 130412 tokens. Please reduce the length of the \
                       messages.";
        let mut reply = Self::failing(400, message.to_owned(), None);
        if let Kind::Failure { code, .. } = &mut reply.kind {
            *code = Some("context_length_exceeded");
        }
        reply
    }

    /// Refuses the request with HTTP 429, asking to retry after `delay` (`Retry-After`, in
    /// whole seconds on the wire).
    pub fn rate_limited(delay: Duration) -> Self {
        Self::failing(429, "slow down".to_owned(), Some(delay))
    }

    /// Ends the answer stream before it completes: no finish reason, no `[DONE]`, as when a
    /// connection drops mid-answer.
    pub fn cut(mut self) -> Self {
        self.cut = true;
        self
    }

    /// Waits `delay` before answering at all, as a stalled or overloaded model server does.
    pub fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// Sends the first event of the answer, then goes silent for `pause` before the rest, as
    /// a model server that hangs mid-answer does. In process, where there is no stream, the
    /// whole answer waits `pause`.
    pub fn stall(mut self, pause: Duration) -> Self {
        self.stall = pause;
        self
    }

    /// Streams the answer slowly, as a model writing it does: each word of the text its own
    /// event, and every event `pace` after the one before. Over HTTP the server writes them so
    /// ([`ScriptedModel::events_sent`](super::ScriptedModel::events_sent) counts them); in
    /// process, [`CompletionModel::complete_streaming`](crate::CompletionModel::complete_streaming)
    /// hands them over so.
    pub fn streamed(mut self, pace: Duration) -> Self {
        self.pace = pace;
        self
    }

    /// Never ends: sends the answer's text and calls, then, instead of its finish and
    /// `[DONE]`, an empty piece (a chunk whose delta is empty) every `every`, forever, as a model
    /// server stuck in a loop does. Each piece resets the client's idle timeout, so only a bound
    /// on the whole answer ends it
    /// ([`Model::with_response_timeout`](crate::Model::with_response_timeout)). Over HTTP each
    /// piece counts in [`ScriptedModel::events_sent`](super::ScriptedModel::events_sent), and a
    /// client that gives up in [`ScriptedModel::streams_abandoned`](super::ScriptedModel::streams_abandoned);
    /// in process the answer never comes.
    pub fn endless(mut self, every: Duration) -> Self {
        self.endless = Some(every);
        self
    }

    /// How often a [`Self::endless`] answer sends its empty piece, if it is one.
    pub(crate) fn endless_every(&self) -> Option<Duration> {
        self.endless
    }

    /// The empty piece an endless answer sends, forever.
    pub(crate) fn empty_piece(model: &str) -> String {
        let chunk = json!({
            "id": "chatcmpl-scripted",
            "object": "chat.completion.chunk",
            "model": model,
            "choices": [{"index": 0, "delta": {}, "finish_reason": null}],
        });
        format!("data: {chunk}\n\n")
    }

    /// How long apart the events of the answer go; zero: all at once.
    pub(crate) fn pace(&self) -> Duration {
        self.pace
    }

    /// How long to wait before answering.
    pub(crate) fn delay(&self) -> Duration {
        self.delay
    }

    /// How long the answer goes silent after its first event.
    pub(crate) fn pause(&self) -> Duration {
        self.stall
    }

    fn failing(status: u16, message: String, retry_after: Option<Duration>) -> Self {
        Self {
            kind: Kind::Failure {
                status,
                message,
                retry_after,
                code: None,
            },
            usage: (0, 0),
            cut: false,
            delay: Duration::ZERO,
            stall: Duration::ZERO,
            pace: Duration::ZERO,
            endless: None,
        }
    }

    /// Writes `text` beside the calls of this answer, as a model that explains itself does.
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        if let Kind::Answer { text: written, .. } = &mut self.kind {
            *written = text.into();
        }
        self
    }

    /// Reports this usage instead of the default 10 input and 5 output tokens.
    pub fn with_usage(mut self, input: u64, output: u64) -> Self {
        self.usage = (input, output);
        self
    }

    fn answer(text: String, calls: Vec<(String, String)>) -> Self {
        Self {
            kind: Kind::Answer { text, calls },
            usage: (10, 5),
            cut: false,
            delay: Duration::ZERO,
            stall: Duration::ZERO,
            pace: Duration::ZERO,
            endless: None,
        }
    }

    /// The failure to answer with, or `None` for an answer.
    pub(crate) fn failed(&self) -> Option<Failure<'_>> {
        match &self.kind {
            Kind::Failure {
                status,
                message,
                retry_after,
                code,
            } => Some(Failure {
                status: *status,
                message,
                retry_after: *retry_after,
                code: *code,
            }),
            Kind::Answer { .. } => None,
        }
    }

    /// A failure's message, and its code if it has one, as an OpenAI error body.
    pub(crate) fn error_body(message: &str, code: Option<&str>) -> String {
        match code {
            None => json!({"error": {"message": message, "type": "server_error"}}),
            Some(code) => json!({"error": {
                "message": message,
                "type": "invalid_request_error",
                "param": "messages",
                "code": code,
            }}),
        }
        .to_string()
    }

    /// The answer as a Chat Completions event stream; `turn` keeps call ids unique in a run.
    pub(crate) fn event_stream(&self, model: &str, turn: usize) -> String {
        self.events(model, turn).concat()
    }

    /// The events of the answer's stream, each as it goes on the wire: the text in one event,
    /// or one per word when it is [`streamed`](Self::streamed); each call's arguments in pieces
    /// of at most 16 KiB. An [`endless`](Self::endless) answer's end is not among them.
    pub(crate) fn events(&self, model: &str, turn: usize) -> Vec<String> {
        let Kind::Answer { text, calls } = &self.kind else {
            return Vec::new();
        };
        let chunk = |choices: Value| {
            let chunk = json!({
                "id": "chatcmpl-scripted",
                "object": "chat.completion.chunk",
                "model": model,
                "choices": choices,
            });
            format!("data: {chunk}\n\n")
        };
        let mut wire = Vec::new();
        let pieces: Vec<&str> = if self.pace.is_zero() {
            vec![text.as_str()]
        } else {
            text.split_inclusive(' ').collect()
        };
        for piece in pieces.into_iter().filter(|piece| !piece.is_empty()) {
            wire.push(chunk(json!([{
                "index": 0,
                "delta": {"role": "assistant", "content": piece},
                "finish_reason": null,
            }])));
        }
        for (index, (name, arguments)) in calls.iter().enumerate() {
            let mut pieces = pieces_of(arguments);
            wire.push(chunk(json!([{
                "index": 0,
                "delta": {"tool_calls": [{
                    "index": index,
                    "id": format!("call_{turn}_{index}"),
                    "type": "function",
                    "function": {"name": name, "arguments": pieces.next().unwrap_or_default()},
                }]},
                "finish_reason": null,
            }])));
            for piece in pieces {
                wire.push(chunk(json!([{
                    "index": 0,
                    "delta": {"tool_calls": [{"index": index, "function": {"arguments": piece}}]},
                    "finish_reason": null,
                }])));
            }
        }
        if self.cut || self.endless.is_some() {
            return wire;
        }
        let finish = if calls.is_empty() {
            "stop"
        } else {
            "tool_calls"
        };
        wire.push(chunk(
            json!([{"index": 0, "delta": {}, "finish_reason": finish}]),
        ));
        let (input, output) = self.usage;
        let usage = json!({
            "id": "chatcmpl-scripted",
            "object": "chat.completion.chunk",
            "model": model,
            "choices": [],
            "usage": {"prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output},
        });
        wire.push(format!("data: {usage}\n\ndata: [DONE]\n\n"));
        wire
    }
}

/// `arguments` in pieces of at most [`ARGUMENT_PIECE`] bytes, each on a character boundary.
fn pieces_of(arguments: &str) -> impl Iterator<Item = &str> {
    let mut rest = arguments;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut end = rest.len().min(ARGUMENT_PIECE);
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let (piece, after) = rest.split_at(end);
        rest = after;
        Some(piece)
    })
}

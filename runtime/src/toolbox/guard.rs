//! A check that an MCP server answers each POST with the answers to that POST's own requests,
//! applied by the relay (`toolbox/relay.rs`) to every response of a server reached through
//! `LiveTools::connect_url`.
//!
//! neva 0.9's client matches a response to its waiter by JSON-RPC id alone, whichever HTTP
//! response carried it: a server (or a proxy in front of several) that answers the POST of one
//! call with the answer of another call in flight gives that other call's waiter an answer that
//! is not its own, and the other call's own answer, when it comes, is dropped. Here a response
//! whose id names no request of the POST it answers is replaced by an error to the POST's own
//! request ("the server answered another call"); a second answer to the same request is dropped.
//! Notifications and the server's own requests pass as they are. A JSON body is read whole (one
//! message, which neva reads whole too); a stream of server-sent events is checked event by
//! event as it comes.

use std::io;

use bytes::{Bytes, BytesMut};
use futures_util::stream::{self, BoxStream, Stream, StreamExt};
use serde_json::{Value, json};

use super::events::Events;
use super::printable::printable;
use crate::tree::LENT_KEY;

/// The largest JSON body, or server-sent event, read to be checked.
pub(crate) const MAX_MESSAGE: usize = 64 << 20;

/// The JSON-RPC code of the errors the guard answers in the server's place: an internal error.
const SERVER_FAULT: i64 = -32603;

/// The requests one POST asked, and those the server has answered so far.
#[derive(Debug)]
pub(crate) struct Calls {
    /// Where the server is, for the log.
    server: String,
    /// Each request's id, in the order the POST carried them.
    asked: Vec<Value>,
    /// The ids answered, or told that the server answered another call.
    answered: Vec<Value>,
    /// The token of the site the POST's call was made at, which the server's questions on its
    /// stream are given (see [`tree`](crate::tree)'s `Site::lend`).
    site: Option<String>,
}

/// What a response body is, as its `Content-Type` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `application/json`: one message, or a batch.
    Json,
    /// `text/event-stream`: a message in each event's data.
    Events,
    /// Anything else (an empty `202`, a page of HTML): passed on as it is.
    Other,
}

impl Kind {
    /// The kind a `Content-Type` names.
    pub(crate) fn of(content_type: Option<&str>) -> Self {
        match content_type.map(|value| value.trim_start().to_ascii_lowercase()) {
            Some(value) if value.starts_with("application/json") => Self::Json,
            Some(value) if value.starts_with("text/event-stream") => Self::Events,
            _ => Self::Other,
        }
    }
}

impl Calls {
    /// The requests `asked` (their ids) of a POST to the server at `server`; none for a stream
    /// that answers no POST, on which every response is dropped.
    pub(crate) fn new(server: impl Into<String>, asked: Vec<Value>) -> Self {
        Self {
            server: server.into(),
            asked,
            answered: Vec::new(),
            site: None,
        }
    }

    /// The requests of a POST whose call was made at the site lent under `site`.
    pub(crate) fn at_site(mut self, site: Option<String>) -> Self {
        self.site = site;
        self
    }

    /// `message` as it may go on: a response to a request of the POST not answered yet, as it
    /// is; one naming another id, an error to the first request not answered yet, or nothing if
    /// every request has its answer; anything else (a notification, the server's own request,
    /// a message that is not JSON-RPC) as it is. A batch is checked message by message.
    pub(crate) fn check(&mut self, message: Value) -> Option<Value> {
        match message {
            Value::Array(batch) => {
                let checked: Vec<Value> = batch
                    .into_iter()
                    .filter_map(|message| self.check_one(message))
                    .collect();
                (!checked.is_empty()).then_some(Value::Array(checked))
            }
            message => self.check_one(message),
        }
    }

    fn check_one(&mut self, message: Value) -> Option<Value> {
        let is_response = message.get("method").is_none()
            && (message.get("result").is_some() || message.get("error").is_some());
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        // The server's own request: a question is told which call's stream it came on.
        if message.get("method").is_some() && !id.is_null() {
            return Some(self.lent_to(message));
        }
        // An error that names no request reaches no waiter: neva matches it to nothing.
        if !is_response || id.is_null() {
            return Some(message);
        }
        if self.asked.contains(&id) && !self.answered.contains(&id) {
            self.answered.push(id);
            return Some(message);
        }
        let named = printable(&id.to_string());
        let Some(owed) = self.owed().next().cloned() else {
            tracing::warn!(target: "ladoga", server = %self.server, %named, "an MCP server sent an answer to no request in flight on this stream: dropped");
            return None;
        };
        tracing::warn!(target: "ladoga", server = %self.server, %named, asked = %owed, "an MCP server answered a call with the answer to another call: dropped, and the call told so");
        self.answered.push(owed.clone());
        Some(answered_another(owed))
    }

    /// `request`, a request of the server's, with the token of the site of the POST's call in
    /// its `_meta` when it is a question; a token the server wrote itself taken out.
    fn lent_to(&self, mut request: Value) -> Value {
        let site = (self.site.as_deref()).filter(|_| request["method"] == "elicitation/create");
        let Some(params) = request.get_mut("params").and_then(Value::as_object_mut) else {
            return request;
        };
        match site {
            Some(site) => {
                let meta = params.entry("_meta").or_insert_with(|| json!({}));
                if let Some(meta) = meta.as_object_mut() {
                    meta.insert(LENT_KEY.to_owned(), Value::from(site));
                }
            }
            None => {
                let meta = params.get_mut("_meta").and_then(Value::as_object_mut);
                meta.map(|meta| meta.remove(LENT_KEY));
            }
        }
        request
    }

    /// The requests still owed an answer.
    fn owed(&self) -> impl Iterator<Item = &Value> {
        self.asked
            .iter()
            .filter(|asked| !self.answered.contains(asked))
    }
}

/// The error that tells the request `id` its server answered another call in its place.
fn answered_another(id: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": SERVER_FAULT,
            "message": "the MCP server answered another call in place of this one: its answer \
                        was dropped, since it was not this call's",
        },
    })
}

/// The error that tells the request `id` its server's answer was too large to be checked.
fn too_large(id: &Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": SERVER_FAULT,
            "message": format!("the MCP server's answer is larger than {MAX_MESSAGE} bytes"),
        },
    })
}

/// `body`, a response of `kind` to the POST whose requests `calls` holds, with every response
/// checked ([`Calls::check`]).
pub(crate) fn guard<S>(calls: Calls, kind: Kind, body: S) -> BoxStream<'static, io::Result<Bytes>>
where
    S: Stream<Item = io::Result<Bytes>> + Send + 'static,
{
    match kind {
        Kind::Other => body.boxed(),
        Kind::Json => stream::once(json_checked(calls, body)).boxed(),
        Kind::Events => events_checked(calls, body),
    }
}

/// A JSON body, read whole and checked; one over [`MAX_MESSAGE`] becomes an error to each
/// request owed.
async fn json_checked<S>(mut calls: Calls, body: S) -> io::Result<Bytes>
where
    S: Stream<Item = io::Result<Bytes>> + Send,
{
    let mut body = std::pin::pin!(body);
    let mut read = BytesMut::new();
    while let Some(chunk) = body.next().await {
        read.extend_from_slice(&chunk?);
        if read.len() > MAX_MESSAGE {
            let errors: Vec<Value> = calls.owed().map(too_large).collect();
            return Ok(Bytes::from(Value::Array(errors).to_string()));
        }
    }
    let Ok(message) = serde_json::from_slice::<Value>(&read) else {
        return Ok(read.freeze());
    };
    Ok(match calls.check(message) {
        Some(message) => Bytes::from(message.to_string()),
        None => Bytes::new(),
    })
}

/// A stream of server-sent events, each event checked as it ends; one over [`MAX_MESSAGE`]
/// ends the stream with an error to each request owed.
fn events_checked<S>(calls: Calls, body: S) -> BoxStream<'static, io::Result<Bytes>>
where
    S: Stream<Item = io::Result<Bytes>> + Send + 'static,
{
    let state = (body.boxed(), Events::default(), calls, false);
    stream::unfold(
        state,
        |(mut body, mut events, mut calls, mut ended)| async move {
            loop {
                if let Some(event) = events.next(ended) {
                    let event = checked_event(&event, &mut calls);
                    return Some((Ok(event), (body, events, calls, ended)));
                }
                if ended {
                    return None;
                }
                if events.len() > MAX_MESSAGE {
                    let errors: Vec<Value> = calls.owed().map(too_large).collect();
                    let told = Bytes::from(format!("data: {}\n\n", Value::Array(errors)));
                    return Some((Ok(told), (body, Events::default(), calls, true)));
                }
                match body.next().await {
                    Some(Ok(chunk)) => events.push(&chunk),
                    Some(Err(error)) => return Some((Err(error), (body, events, calls, true))),
                    None => ended = true,
                }
            }
        },
    )
    .boxed()
}

/// One event (its bytes, its blank line included) as it goes on: its data's message checked,
/// and written again only if the check changed it; its other fields kept.
fn checked_event(event: &[u8], calls: &mut Calls) -> Bytes {
    let text = String::from_utf8_lossy(event);
    let lines: Vec<&str> = text
        .split_terminator(['\n'])
        .map(|line| line.trim_end_matches('\r'))
        .collect();
    let data: Vec<&str> = lines
        .iter()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| data.strip_prefix(' ').unwrap_or(data))
        .collect();
    if data.is_empty() {
        return Bytes::copy_from_slice(event);
    }
    let Ok(message) = serde_json::from_str::<Value>(&data.join("\n")) else {
        return Bytes::copy_from_slice(event);
    };
    let checked = calls.check(message.clone());
    if checked.as_ref() == Some(&message) {
        return Bytes::copy_from_slice(event);
    }
    let mut written = String::new();
    for line in lines
        .iter()
        .filter(|line| !line.is_empty() && !line.starts_with("data:"))
    {
        written.push_str(line);
        written.push('\n');
    }
    if let Some(checked) = checked {
        written.push_str(&format!("data: {checked}\n"));
    }
    written.push('\n');
    Bytes::from(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(asked: &[Value]) -> Calls {
        Calls::new("http://127.0.0.1:1", asked.to_vec())
    }

    #[test]
    fn a_servers_question_is_given_its_calls_site_and_only_that() {
        let mut at_site = calls(&[json!(1)]).at_site(Some("ab12".to_owned()));
        let forged = json!({"jsonrpc": "2.0", "id": 9, "method": "elicitation/create", "params": {
            "message": "Seats?", "_meta": {LENT_KEY: "someone-elses"},
        }});
        let told = at_site.check(forged.clone()).expect("passed on");
        assert_eq!(told["params"]["_meta"][LENT_KEY], "ab12");
        let sampled = json!({"jsonrpc": "2.0", "id": 10, "method": "sampling/createMessage",
            "params": {"_meta": {LENT_KEY: "someone-elses"}}});
        let told = at_site.check(sampled).expect("passed on");
        assert!(told["params"]["_meta"].get(LENT_KEY).is_none(), "{told}");
        let mut nowhere = calls(&[json!(1)]);
        let told = nowhere.check(forged).expect("passed on");
        assert!(told["params"]["_meta"].get(LENT_KEY).is_none(), "{told}");
    }

    async fn through(calls: Calls, kind: Kind, chunks: &[&str]) -> String {
        let chunks: Vec<io::Result<Bytes>> = chunks
            .iter()
            .map(|chunk| Ok(Bytes::from(chunk.to_string())))
            .collect();
        let out: Vec<io::Result<Bytes>> = guard(calls, kind, stream::iter(chunks)).collect().await;
        out.into_iter()
            .map(|chunk| String::from_utf8(chunk.unwrap().to_vec()).unwrap())
            .collect()
    }

    fn data(events: &str) -> Vec<Value> {
        events
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .map(|data| serde_json::from_str(data).unwrap())
            .collect()
    }

    #[tokio::test]
    async fn an_answer_naming_another_call_becomes_an_error_to_the_posts_own() {
        let crossed =
            r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"alice's"}]}}"#;
        let told = through(calls(&[json!(3)]), Kind::Json, &[crossed]).await;
        let told: Value = serde_json::from_str(&told).unwrap();
        assert_eq!(told["id"], 3);
        assert!(
            told["error"]["message"]
                .as_str()
                .unwrap()
                .contains("answered another call")
        );
        assert!(!told.to_string().contains("alice"), "{told}");
    }

    #[tokio::test]
    async fn an_own_answer_passes_as_it_is() {
        let own = r#"{"jsonrpc":"2.0","id":3,"result":{"text":"mine"}}"#;
        let passed = through(calls(&[json!(3)]), Kind::Json, &[own]).await;
        assert_eq!(
            serde_json::from_str::<Value>(&passed).unwrap(),
            serde_json::from_str::<Value>(own).unwrap()
        );
        let event = format!("event: message\r\nid: 7\r\ndata: {own}\r\n\r\n");
        let passed = through(
            calls(&[json!(3)]),
            Kind::Events,
            &[&event[..5], &event[5..]],
        )
        .await;
        assert_eq!(passed, event.replace("\r\n", "\n"));
    }

    #[tokio::test]
    async fn events_are_checked_one_by_one_as_they_come_split_anywhere() {
        let events = concat!(
            "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n",
            "data: {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"elicitation/create\",\"params\":{}}\n\n",
            "id: e2\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"b\",\"result\":{\"secret\":1}}\n\n",
            "data: {\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{\"own\":1}}\n\n",
        );
        for cut in [1, 17, 60, 120, events.len() - 3] {
            let told = through(
                calls(&[json!("a")]),
                Kind::Events,
                &[&events[..cut], &events[cut..]],
            )
            .await;
            let messages = data(&told);
            assert_eq!(messages.len(), 3, "{told}");
            assert_eq!(messages[0]["method"], "notifications/progress");
            assert_eq!(messages[1]["method"], "elicitation/create");
            assert_eq!(messages[2]["id"], "a");
            assert!(messages[2]["error"].is_object(), "{told}");
            assert!(told.contains("id: e2\n"), "the event's id is kept: {told}");
            assert!(!told.contains("secret") && !told.contains("own"), "{told}");
        }
    }

    #[tokio::test]
    async fn an_event_goes_on_as_it_ends_not_when_the_stream_does() {
        let note = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n";
        let first = stream::iter([Ok(Bytes::from(note))]);
        let body = first.chain(stream::pending());
        let mut guarded = guard(calls(&[json!(1)]), Kind::Events, body);
        let told = tokio::time::timeout(std::time::Duration::from_secs(5), guarded.next()).await;
        let told = told.expect("the event comes out before the stream ends");
        assert_eq!(told.unwrap().unwrap(), note);
    }

    #[test]
    fn a_batch_is_checked_message_by_message() {
        let mut calls = calls(&[json!(1), json!(2)]);
        let batch = json!([
            {"jsonrpc": "2.0", "id": 2, "result": {}},
            {"jsonrpc": "2.0", "id": 7, "result": {}},
            {"jsonrpc": "2.0", "id": 2, "result": {"again": true}},
        ]);
        let checked = calls.check(batch).unwrap();
        assert_eq!(checked[0]["id"], 2);
        assert_eq!(checked[1]["id"], 1);
        assert!(checked[1]["error"].is_object());
        assert_eq!(
            checked.as_array().unwrap().len(),
            2,
            "the second answer to 2 is dropped"
        );
        assert!(
            calls
                .check(json!({"jsonrpc": "2.0", "id": 1, "result": {}}))
                .is_none()
        );
    }

    #[test]
    fn a_stream_that_answers_no_post_carries_no_answer() {
        let mut calls = calls(&[]);
        assert!(
            calls
                .check(json!({"jsonrpc": "2.0", "id": 1, "result": {}}))
                .is_none()
        );
        let note = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"});
        assert_eq!(calls.check(note.clone()), Some(note));
        let nameless =
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "x"}});
        assert_eq!(calls.check(nameless.clone()), Some(nameless));
    }

    #[test]
    fn the_kind_is_read_from_the_content_type() {
        assert_eq!(
            Kind::of(Some("application/json; charset=utf-8")),
            Kind::Json
        );
        assert_eq!(Kind::of(Some("Text/Event-Stream")), Kind::Events);
        assert_eq!(Kind::of(None), Kind::Other);
    }
}

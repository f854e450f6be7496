//! A loopback relay in front of every MCP server `LiveTools::connect_url` reaches: it checks that
//! each response answers a request of the POST it came back to (`toolbox/guard.rs`), and, under
//! MCP 2026-07-28, lets neva 0.9's client reach a server of the older generation (MCP 2025-11-25
//! and before).
//!
//! neva's client opens with `server/discover` and falls back to `initialize` when the server
//! rejects it, as MCP 2026-07-28's backward-compatibility section has clients do. A server on the
//! TypeScript SDK 1.x (most servers people run, `server-everything` among them) rejects it with
//! HTTP 400 and a JSON-RPC error whose `id` is `null` ("Server not initialized"): neva matches
//! that answer to no request (`src/transport/http/client/send.rs`), so the fallback never runs and
//! `connect` times out. The Python SDK 1.x answers it with `-32602` ("Invalid request
//! parameters"), which neva does not take for a server of the older generation, and its answer
//! in a server-sent event goes unread. The relay passes every request and response on as they
//! are, but for those: an error that names no request gets the id of the one it answers, and any
//! error to `server/discover` is told as the method not found, in plain JSON. neva then falls
//! back, and speaks 2025-11-25 through the relay from then on. It serves on `127.0.0.1`, on a
//! port of its own, until dropped.
//!
//! A `GET` (the session's own stream, under `legacy-spec`) answers no POST: a response in it is
//! dropped, unless it resumes a POST's stream (`Last-Event-ID`), which is passed on as it is.
//!
//! It also gives a server its session id back as the server wrote it (neva's client sends it
//! back as a hyphenated UUID, which the Python SDK 1.x does not find), and, under `legacy-spec`,
//! ties a server's question to the call whose stream it came back on: the call's baggage names
//! its site ([`LENT_MEMBER`](crate::tree::LENT_MEMBER)), taken out before the server sees it, and
//! the question's `_meta` is given it ([`LENT_KEY`](crate::tree::LENT_KEY)); a token the server
//! wrote itself is taken out.

use std::convert::Infallible;
use std::net::SocketAddr;

use bytes::Bytes;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{self, HeaderMap, HeaderName};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpListener;

use super::guard::{Calls, Kind, guard};

/// A body passed on, or one of the relay's own.
type Body = UnsyncBoxBody<Bytes, std::io::Error>;

/// The request neva's client opens with.
#[cfg(not(feature = "legacy-spec"))]
const DISCOVER: &str = "server/discover";

/// The largest request body read, and the largest error answer rewritten.
const MAX_BODY: usize = super::guard::MAX_MESSAGE;

/// The headers of one hop only, never passed on.
const HOP_BY_HOP: [&str; 7] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// A relay serving on a loopback port until dropped.
#[derive(Debug)]
pub(crate) struct Relay {
    addr: SocketAddr,
    serving: tokio::task::JoinHandle<()>,
}

impl Relay {
    /// Whether the MCP server at `url` is one of the older generation, which neva's client
    /// reaches only through the relay: it answers `server/discover` with an error.
    #[cfg(not(feature = "legacy-spec"))]
    pub(crate) async fn older(url: &str) -> bool {
        let discover = serde_json::json!({
            "jsonrpc": "2.0", "id": 1, "method": DISCOVER,
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}},
        });
        let probe = reqwest::Client::new()
            .post(url)
            .header(header::ACCEPT, "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", DISCOVER)
            .json(&discover)
            .timeout(std::time::Duration::from_secs(10))
            .send()
            .await;
        let Ok(answer) = probe else {
            return false;
        };
        answer.bytes().await.is_ok_and(|bytes| {
            message_of(&bytes).is_some_and(|message| message.get("error").is_some())
        })
    }

    /// A relay to the origin (`http://HOST:PORT`) of an MCP server, listening on a free
    /// loopback port: a request to the relay's path goes to the same path there. For a server
    /// of the `older` generation it also words the errors neva's client falls back on.
    pub(crate) async fn start(origin: String, older: bool) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let client = reqwest::Client::new();
        let sessions = Sessions::default();
        let serving = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (client, origin, sessions) = (client.clone(), origin.clone(), sessions.clone());
                let service = hyper::service::service_fn(move |request| {
                    let (client, origin) = (client.clone(), origin.clone());
                    let to = To {
                        client,
                        origin,
                        older,
                        sessions: sessions.clone(),
                    };
                    async move { Ok::<_, Infallible>(relay(&to, request).await) }
                });
                tokio::spawn(async move {
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Ok(Self { addr, serving })
    }

    /// Where the relay listens.
    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.serving.abort();
    }
}

/// Where the relay sends what it takes, and what it knows of the server there.
struct To {
    client: reqwest::Client,
    /// The server's origin, `http://HOST:PORT`.
    origin: String,
    /// Whether the server is of the older generation.
    older: bool,
    sessions: Sessions,
}

/// The session ids a server gave, as it wrote them. neva 0.9's client reads a session id as a
/// UUID and sends it back hyphenated, and a server that wrote it otherwise (the Python SDK 1.x:
/// 32 hex digits) would not find its session: the relay gives it back as the server wrote it.
#[derive(Clone, Default)]
struct Sessions(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl Sessions {
    /// Notes `id`, a session id the server gave: the last [`SESSIONS_KEPT`] are kept.
    fn given(&self, id: &str) {
        let mut given = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !given.iter().any(|known| known == id) {
            if given.len() == SESSIONS_KEPT {
                given.remove(0);
            }
            given.push(id.to_owned());
        }
    }

    /// `id`, a session id the client sent, as the server gave it: the same UUID written as the
    /// server wrote it, if it gave one; none otherwise.
    fn as_given(&self, id: &str) -> Option<String> {
        let plain = |id: &str| id.replace('-', "").to_ascii_lowercase();
        let given = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        (given.iter())
            .find(|known| known.as_str() != id && plain(known) == plain(id))
            .cloned()
    }
}

/// How many of a server's session ids a relay keeps: one client holds one session at a time.
const SESSIONS_KEPT: usize = 16;

/// The header that names an MCP session.
const SESSION: &str = "mcp-session-id";

/// `request`, sent on to the same path at the server's origin: the server's response, each
/// answer in it checked against the requests it answers, and, for a server of the older
/// generation, an id given to an error that names none.
async fn relay(to: &To, request: Request<Incoming>) -> Response<Body> {
    let (client, origin, older) = (&to.client, to.origin.as_str(), to.older);
    let (mut parts, body) = request.into_parts();
    if let Some(given) = (parts.headers.get(SESSION))
        .and_then(|id| to.sessions.as_given(id.to_str().ok()?))
        .and_then(|given| header::HeaderValue::from_str(&given).ok())
    {
        parts.headers.insert(SESSION, given);
    }
    let path = parts.uri.path_and_query().map_or("/", |path| path.as_str());
    let target = format!("{origin}{path}");
    let body = match Limited::new(body, MAX_BODY).collect().await {
        Ok(body) => body.to_bytes(),
        Err(_) => return own(StatusCode::PAYLOAD_TOO_LARGE),
    };
    let ids = request_ids(&body);
    // The site a call was made at, if it carries one: taken out, the server never sees it.
    let (body, site) = match lent_site(&body) {
        Some((stripped, site)) => (Bytes::from(stripped), Some(site)),
        None => (body, None),
    };
    let calls = match parts.method {
        // A resumed stream replays a POST's; the relay does not know which.
        hyper::Method::GET if parts.headers.contains_key("last-event-id") => None,
        _ => Some(Calls::new(origin, ids.clone()).at_site(site)),
    };
    let discovering = older && is_discover(&body);
    let mut sent = client.request(parts.method, target).body(body);
    for (name, value) in &parts.headers {
        if !is_hop_by_hop(name) && name != header::HOST && name != header::CONTENT_LENGTH {
            sent = sent.header(name, value);
        }
    }
    let answer = match sent.send().await {
        Ok(answer) => answer,
        Err(error) => {
            tracing::warn!(target: "ladoga", error = %crate::toolbox::printable(&error.to_string()), "the relay to an MCP server cannot reach it");
            return own(StatusCode::BAD_GATEWAY);
        }
    };
    let status = answer.status();
    if let Some(id) = answer
        .headers()
        .get(SESSION)
        .and_then(|id| id.to_str().ok())
    {
        to.sessions.given(id);
    }
    let mut headers = passed_on(answer.headers());
    let kind = Kind::of(
        answer
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok()),
    );
    let rewritten = match &ids[..] {
        [id] if older && (discovering || (status.is_client_error() && kind == Kind::Json)) => {
            Some(id)
        }
        _ => None,
    };
    if let Some(id) = rewritten {
        let Ok(bytes) = answer.bytes().await else {
            return own(StatusCode::BAD_GATEWAY);
        };
        let bytes = match declined(&bytes, id, discovering) {
            Some(declined) => {
                headers.insert(
                    header::CONTENT_TYPE,
                    header::HeaderValue::from_static("application/json"),
                );
                Bytes::from(declined)
            }
            None => bytes,
        };
        let kind = Kind::of(
            headers
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok()),
        );
        let once = futures_util::stream::once(async move { Ok(bytes) });
        return respond(status, headers, checked(calls, kind, once));
    }
    let stream = futures_util::StreamExt::map(answer.bytes_stream(), |chunk| {
        chunk.map_err(std::io::Error::other)
    });
    respond(status, headers, checked(calls, kind, stream))
}

/// `body`, a response of `kind`, with each answer checked against `calls` when there are any.
fn checked<S>(calls: Option<Calls>, kind: Kind, body: S) -> Body
where
    S: futures_util::Stream<Item = std::io::Result<Bytes>> + Send + 'static,
{
    let body = match calls {
        Some(calls) => guard(calls, kind, body),
        None => futures_util::StreamExt::boxed(body),
    };
    let frames = futures_util::StreamExt::map(body, |chunk| chunk.map(Frame::data));
    BodyExt::boxed_unsync(StreamBody::new(frames))
}

/// Whether `body` is a `server/discover` request.
#[cfg(not(feature = "legacy-spec"))]
fn is_discover(body: &[u8]) -> bool {
    serde_json::from_slice::<Value>(body).is_ok_and(|message| message["method"] == DISCOVER)
}

/// Never, under `legacy-spec`: the client does not discover.
#[cfg(feature = "legacy-spec")]
fn is_discover(_body: &[u8]) -> bool {
    false
}

/// `body`, a request whose baggage names the site its call was made at
/// ([`LENT_MEMBER`](crate::tree::LENT_MEMBER)), without that member, and the site's token; none
/// for any other body.
fn lent_site(body: &[u8]) -> Option<(Vec<u8>, String)> {
    let mut message = serde_json::from_slice::<Value>(body).ok()?;
    let meta = message
        .get_mut("params")?
        .get_mut("_meta")?
        .as_object_mut()?;
    let baggage = meta.get("baggage")?.as_str()?.to_owned();
    let prefix = format!("{}=", crate::tree::LENT_MEMBER);
    let (lent, kept): (Vec<&str>, Vec<&str>) =
        (baggage.split(',')).partition(|member| member.trim().starts_with(&prefix));
    let site = lent.first()?.trim().strip_prefix(&prefix)?.to_owned();
    match kept.is_empty() {
        true => meta.remove("baggage"),
        false => meta.insert("baggage".to_owned(), Value::from(kept.join(","))),
    };
    Some((serde_json::to_vec(&message).ok()?, site))
}

/// The JSON-RPC message of a response body: the body itself, or its first server-sent event's.
fn message_of(body: &[u8]) -> Option<Value> {
    if let Ok(message) = serde_json::from_slice::<Value>(body) {
        return Some(message);
    }
    String::from_utf8_lossy(body)
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .find_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
}

/// `answer`, an error to the request `id`, as neva's client takes it: given that id when it
/// names none, and, for `server/discover` (`discovering`), said as the method not found, which
/// is what any error to it means (the Python SDK 1.x says its parameters are invalid); none for
/// any other answer.
fn declined(answer: &[u8], id: &Value, discovering: bool) -> Option<Vec<u8>> {
    let mut message = message_of(answer)?;
    let object = message.as_object_mut()?;
    let names_none = object.get("id").is_none_or(Value::is_null);
    if !object.contains_key("error") || !(names_none || discovering) {
        return None;
    }
    object.insert("id".to_owned(), id.clone());
    if discovering {
        object["error"]["code"] = Value::from(-32601);
    }
    serde_json::to_vec(&message).ok()
}

/// The ids of the JSON-RPC requests in `body` (a message or a batch).
fn request_ids(body: &[u8]) -> Vec<Value> {
    let id = |message: &Value| {
        message.get("method")?;
        message.get("id").filter(|id| !id.is_null()).cloned()
    };
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Array(batch)) => batch.iter().filter_map(id).collect(),
        Ok(message) => id(&message).into_iter().collect(),
        Err(_) => Vec::new(),
    }
}

/// The headers of `answer` that go on to neva.
fn passed_on(answer: &reqwest::header::HeaderMap) -> HeaderMap {
    answer
        .iter()
        .filter(|(name, _)| !is_hop_by_hop(name) && *name != header::CONTENT_LENGTH)
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect()
}

fn is_hop_by_hop(name: &HeaderName) -> bool {
    HOP_BY_HOP.contains(&name.as_str())
}

fn respond(status: StatusCode, headers: HeaderMap, body: Body) -> Response<Body> {
    let mut response = Response::new(body);
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

/// A response of the relay's own, with no body.
fn own(status: StatusCode) -> Response<Body> {
    respond(
        status,
        HeaderMap::new(),
        Full::new(Bytes::new())
            .map_err(|never| match never {})
            .boxed_unsync(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_session_id_comes_back_to_the_server_as_it_wrote_it() {
        let sessions = Sessions::default();
        sessions.given("6f1c2a9e4b7d4e0f9a3c5b2d1e8f7a6b");
        assert_eq!(
            sessions
                .as_given("6f1c2a9e-4b7d-4e0f-9a3c-5b2d1e8f7a6b")
                .as_deref(),
            Some("6f1c2a9e4b7d4e0f9a3c5b2d1e8f7a6b")
        );
        assert_eq!(sessions.as_given("6f1c2a9e4b7d4e0f9a3c5b2d1e8f7a6b"), None);
        assert_eq!(
            sessions.as_given("0f1c2a9e-4b7d-4e0f-9a3c-5b2d1e8f7a6b"),
            None
        );
    }

    #[test]
    fn a_calls_site_is_taken_out_of_its_baggage_and_nothing_else() {
        let call = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "book",
            "_meta": {"baggage": "io.github.ladoga-rs.budget=0.5,io.github.ladoga-rs.site=ab12"},
        }});
        let (body, site) = lent_site(call.to_string().as_bytes()).expect("a site");
        assert_eq!(site, "ab12");
        let sent: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            sent["params"]["_meta"]["baggage"],
            "io.github.ladoga-rs.budget=0.5"
        );
        let alone = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
            "_meta": {"baggage": "io.github.ladoga-rs.site=cd34"},
        }});
        let (body, _) = lent_site(alone.to_string().as_bytes()).expect("a site");
        let sent: Value = serde_json::from_slice(&body).unwrap();
        assert!(sent["params"]["_meta"].get("baggage").is_none(), "{sent}");
        assert!(lent_site(br#"{"jsonrpc":"2.0","id":6,"method":"tools/list"}"#).is_none());
    }

    #[test]
    fn an_error_that_names_no_request_is_given_the_requests_id() {
        let ids = request_ids(br#"{"jsonrpc":"2.0","id":"a1","method":"tools/list"}"#);
        assert_eq!(ids, vec![json!("a1")]);
        let told = br#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}"#;
        let given: Value =
            serde_json::from_slice(&declined(told, &ids[0], false).unwrap()).unwrap();
        assert_eq!(given["id"], "a1");
        assert_eq!(given["error"]["code"], -32000);
    }

    #[test]
    fn any_error_to_server_discover_is_the_method_not_found_even_in_an_event() {
        let told = "event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32602,\"message\":\"Invalid request parameters\"}}\r\n\r\n";
        let given: Value =
            serde_json::from_slice(&declined(told.as_bytes(), &json!("d"), true).unwrap()).unwrap();
        assert_eq!(given["id"], "d");
        assert_eq!(given["error"]["code"], -32601);
    }

    #[test]
    fn every_other_answer_is_left_as_it_is() {
        let id = json!(7);
        let own_id = br#"{"jsonrpc":"2.0","error":{"code":1,"message":"x"},"id":3}"#;
        assert!(declined(own_id, &id, false).is_none());
        assert!(declined(br#"{"jsonrpc":"2.0","result":{},"id":null}"#, &id, true).is_none());
        assert!(declined(b"<html>", &id, true).is_none());
        let notification = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert!(request_ids(notification).is_empty());
        let batch =
            br#"[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]"#;
        assert_eq!(request_ids(batch), vec![json!(1), json!(2)]);
    }
}

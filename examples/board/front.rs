//! The board's HTTP front: it listens at `--http` and passes every request on to neva, which
//! serves on a loopback port of its own, until the board drains. Then it answers a new call
//! `503` with `Retry-After`, so that a load balancer moves it to another replica, and still
//! passes on what belongs to a call already made: an answer to the server's own request, a
//! notification, a task's `tasks/*`, and a later round (a request carrying `requestState`),
//! wherever the paused runs live. It counts the requests in flight, until their
//! responses (streams included) are written, for the drain to wait on.
//!
//! neva's HTTP server has no hook to answer before its handlers, hence a front of its own. It
//! keeps its listener and its connections answering while it drains, with `Connection: close`
//! on every response, so callers let go of their connections one response at a time. It never
//! closes an idle connection itself: a load balancer may be sending a request on it at that very
//! moment, which it then cannot pass on (nginx does not send a POST again once it has sent it)
//! and answers `502`. At the end ([`Front::close`]) it stops listening, so that a new
//! connection is refused (nothing sent: passed on), and waits for its callers to close theirs.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use serde_json::Value;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use crate::owners::Principal;
#[cfg(feature = "legacy-spec")]
use crate::owners::Sessions;
#[cfg(feature = "legacy-spec")]
use crate::owners::bearer;

/// A body passed on, or one of the front's own.
pub type Body = BoxBody<Bytes, hyper::Error>;

/// What a draining front tells a caller to wait before it calls again, in seconds.
const RETRY_AFTER: &str = "2";

/// The largest request body a draining front reads to decide whether to pass it on: the
/// largest the board takes.
const MAX_READ_BODY: usize = crate::body_limit::MAX_BODY;

/// Where a client first looks for the board's Protected Resource Metadata.
const METADATA_ROOT: &str = "/.well-known/oauth-protected-resource";

/// Where neva serves it, for the endpoint `/mcp`.
const METADATA_MCP: &str = "/.well-known/oauth-protected-resource/mcp";

/// The headers of one hop only, never passed on.
const HOP_BY_HOP: [&str; 6] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "upgrade",
];

/// The front of one board process; clones share it.
#[derive(Clone)]
pub struct Front {
    inner: Arc<Inner>,
}

struct Inner {
    /// Where neva serves.
    backend: SocketAddr,
    client: Client<HttpConnector, Body>,
    drain: ladoga::Drain,
    /// Whether the board takes bearer tokens (`--auth`, `--oauth`): then it takes requests over
    /// plain HTTP from this machine only, as neva would if it listened itself.
    guarded: bool,
    in_flight: AtomicUsize,
    /// Connections open.
    connections: AtomicUsize,
    /// Set when the front stops listening.
    closing: watch::Sender<bool>,
    /// The MCP sessions of a guarded board, each its initializer's.
    #[cfg(feature = "legacy-spec")]
    sessions: Sessions,
}

impl Front {
    /// A front for neva at `backend`, refusing new calls once `drain` begins; `guarded` when the
    /// board takes
    /// bearer tokens, which then come over plain HTTP from a loopback peer only (a TLS proxy on
    /// this machine), as neva has it: neva sees the front's own loopback connection, not the
    /// caller's.
    pub fn new(backend: SocketAddr, drain: ladoga::Drain, guarded: bool) -> Self {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        let client = Client::builder(TokioExecutor::new()).build(connector);
        Self {
            inner: Arc::new(Inner {
                backend,
                client,
                drain,
                guarded,
                in_flight: AtomicUsize::new(0),
                connections: AtomicUsize::new(0),
                closing: watch::Sender::new(false),
                #[cfg(feature = "legacy-spec")]
                sessions: Sessions::default(),
            }),
        }
    }

    /// The requests whose responses are not written yet (long-lived streams that wait for
    /// notifications aside).
    pub fn in_flight(&self) -> usize {
        self.inner.in_flight.load(Ordering::SeqCst)
    }

    /// Once neva accepts connections, accepts those on `listener` and serves them, until
    /// [`Self::close`]. Callers that connect before wait in the listener's backlog.
    pub async fn serve(self, listener: TcpListener) {
        while tokio::net::TcpStream::connect(self.inner.backend)
            .await
            .is_err()
        {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let mut closing = self.inner.closing.subscribe();
        loop {
            let accepted = tokio::select! {
                _ = closing.wait_for(|closing| *closing) => break,
                accepted = listener.accept() => accepted,
            };
            match accepted {
                Ok((stream, peer)) => self.clone().serve_connection(stream, peer),
                Err(error) => {
                    tracing::warn!("board: cannot accept a connection: {error}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
        // The connections the system accepted already are served, not reset: taken until there
        // is none, then the listener closed at once, so that no caller's connection lands in
        // between (it would be reset after its request was sent).
        let Ok(listener) = listener.into_std() else {
            return;
        };
        let _ = listener.set_nonblocking(true);
        while let Ok((stream, peer)) = listener.accept() {
            if let Ok(stream) = stream
                .set_nonblocking(true)
                .and_then(|()| TcpStream::from_std(stream))
            {
                self.clone().serve_connection(stream, peer);
            }
        }
        drop(listener);
    }

    /// Stops listening, and waits until the callers have closed their connections (each after a
    /// response, or when their own idle timeout ends it), for at most `linger`.
    pub async fn close(&self, linger: Duration) {
        self.inner.closing.send_replace(true);
        let deadline = tokio::time::Instant::now() + linger;
        while self.inner.connections.load(Ordering::SeqCst) > 0
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Serves the HTTP/1.1 connection `stream` from `peer` on a task of its own, counted while
    /// it is open.
    fn serve_connection(self, stream: TcpStream, peer: SocketAddr) {
        let _ = stream.set_nodelay(true);
        let open = Counted::enter(&self.inner, |inner| &inner.connections);
        let plain_from_afar = !admits(self.inner.guarded, peer);
        let service = hyper::service::service_fn(move |request| {
            let front = self.clone();
            async move {
                Ok::<_, Infallible>(match plain_from_afar {
                    true => over_plain_http(),
                    false => front.answer(request).await,
                })
            }
        });
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .serve_connection(TokioIo::new(stream), service)
                .await;
            drop(open);
        });
    }

    /// The response to `request`: neva's, or the front's own refusal of a token without a
    /// subject, of another principal's session, of a body over [`crate::body_limit::MAX_BODY`],
    /// or of a new call while it drains.
    async fn answer(&self, request: Request<Incoming>) -> Response<Body> {
        let principal = match self.inner.guarded {
            true => Principal::of(request.headers()),
            false => Principal::Unread,
        };
        if principal == Principal::Nameless {
            return nameless();
        }
        #[cfg(feature = "legacy-spec")]
        let session = session_of(request.headers());
        #[cfg(feature = "legacy-spec")]
        if let Some(id) = &session
            && matches!(principal, Principal::Named { .. })
            && !self.inner.sessions.admits(id, &principal)
        {
            return no_session(request).await;
        }
        #[cfg(feature = "legacy-spec")]
        let deleting = request.method() == Method::DELETE;
        // A body over neva's limit would be answered `200` and empty: the front says why.
        let request = match crate::body_limit::within(request).await {
            Ok(request) => request,
            Err(too_large) => return too_large,
        };
        let draining = self.inner.drain.is_draining();
        let request = if draining {
            let (parts, body) = request.into_parts();
            let body = match Limited::new(body, MAX_READ_BODY).collect().await {
                Ok(body) => body.to_bytes(),
                Err(_) => return own(StatusCode::BAD_REQUEST, "the request body is unreadable"),
            };
            if parts.method == Method::POST && !self.continues_a_call(&body) {
                return refusal();
            }
            Request::from_parts(parts, full(body))
        } else {
            request
        };
        #[cfg(feature = "legacy-spec")]
        let bearer = bearer(request.headers()).map(str::to_owned);
        let counted = request.method() == Method::POST && !is_listen(request.headers());
        let entered = counted.then(|| Counted::enter(&self.inner, |inner| &inner.in_flight));
        let mut response = match self.inner.client.request(self.to_backend(request)).await {
            Ok(response) => response.map(|body| match entered {
                // Counted until the body is written to the end, or dropped.
                Some(entered) => body
                    .map_frame(move |frame| {
                        let _ = &entered;
                        frame
                    })
                    .boxed(),
                None => body.boxed(),
            }),
            Err(error) => {
                tracing::warn!("board: the front cannot reach the MCP server: {error}");
                own(StatusCode::BAD_GATEWAY, "the server cannot answer now")
            }
        };
        strip_hop_by_hop(response.headers_mut());
        #[cfg(feature = "legacy-spec")]
        if matches!(principal, Principal::Named { .. }) {
            self.follow_session(session, principal, deleting, &response);
        }
        #[cfg(feature = "legacy-spec")]
        if response.status() == StatusCode::FORBIDDEN
            && let Some(token) = bearer
        {
            widen_step_up(response.headers_mut(), &token);
        }
        if self.inner.drain.is_draining() {
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }

    /// What neva's `response` says of the session `session` (the request's), for the guarded
    /// board's `principal`: a session it made binds to that principal, one it does not hold or
    /// one deleted is forgotten.
    #[cfg(feature = "legacy-spec")]
    fn follow_session(
        &self,
        session: Option<String>,
        principal: Principal,
        deleting: bool,
        response: &Response<Body>,
    ) {
        let minted = session_of(response.headers());
        match session {
            None => {
                if let Some(minted) = minted {
                    self.inner.sessions.bind(minted, principal);
                }
            }
            Some(id) => {
                let ended = response.status() == StatusCode::NOT_FOUND
                    || (deleting && response.status().is_success());
                if ended {
                    self.inner.sessions.end(&id);
                }
            }
        }
    }

    /// Whether the JSON-RPC message (or batch) in `body` belongs to a call already made: a
    /// response or a notification, a task's request, or a later round of a call. A later round
    /// is finished here even when paused runs are in a shared store: a caller connected to this
    /// replica directly (a Kubernetes Service keeps its connection; the Python SDK does not
    /// send a request again after a `503`) would lose its call. A body that is not JSON is
    /// neva's to refuse.
    fn continues_a_call(&self, body: &[u8]) -> bool {
        let Ok(message) = serde_json::from_slice::<Value>(body) else {
            return true;
        };
        let continues = |message: &Value| {
            let method = message.get("method").and_then(Value::as_str);
            let Some(method) = method else {
                return true; // an answer to the server's own request
            };
            message.get("id").is_none()
                || method.starts_with("tasks/")
                || message["params"].get("requestState").is_some()
        };
        match &message {
            Value::Array(batch) => batch.iter().all(continues),
            message => continues(message),
        }
    }

    /// `request` addressed to neva, its `Host` kept. The Protected Resource Metadata asked for
    /// at the root of the well-known folder is neva's at its path-suffixed form (RFC 9728 §3.1),
    /// the board's one endpoint being `/mcp`.
    fn to_backend(&self, mut request: Request<Body>) -> Request<Body> {
        let path = match request.uri().path_and_query() {
            Some(path) if path.path() == METADATA_ROOT => METADATA_MCP,
            Some(path) => path.as_str(),
            None => "/",
        };
        let uri = format!("http://{}{path}", self.inner.backend);
        if let Ok(uri) = uri.parse() {
            *request.uri_mut() = uri;
        }
        strip_hop_by_hop(request.headers_mut());
        request
    }
}

/// The front's listener at `addr`, and a free loopback address for neva behind it; why not.
pub async fn listen(addr: &str) -> Result<(TcpListener, SocketAddr), String> {
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|error| format!("cannot listen at {addr}: {error}"))?;
    let backend = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|free| free.local_addr())
        .map_err(|error| format!("no free loopback port for the MCP server: {error}"))?;
    Ok((listener, backend))
}

/// Whether `addr` (`HOST:PORT`) names a loopback address.
pub fn is_loopback(addr: &str) -> bool {
    let host = addr.rsplit_once(':').map_or(addr, |(host, _)| host);
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// One request in flight, or one connection open, counted until dropped.
struct Counted {
    inner: Arc<Inner>,
    count: fn(&Inner) -> &AtomicUsize,
}

impl Counted {
    fn enter(inner: &Arc<Inner>, count: fn(&Inner) -> &AtomicUsize) -> Self {
        count(inner).fetch_add(1, Ordering::SeqCst);
        Self {
            inner: inner.clone(),
            count,
        }
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        (self.count)(&self.inner).fetch_sub(1, Ordering::SeqCst);
    }
}

/// The MCP session (`Mcp-Session-Id`) a request or response names.
#[cfg(feature = "legacy-spec")]
fn session_of(headers: &HeaderMap) -> Option<String> {
    let id = headers.get("mcp-session-id")?.to_str().ok()?;
    Some(id.to_owned())
}

/// The answer to a request naming a session its principal did not initialize: neva's for a
/// session it does not hold, `404` with `Session not found` as the JSON-RPC error of each
/// request a POST carries.
#[cfg(feature = "legacy-spec")]
async fn no_session(request: Request<Incoming>) -> Response<Body> {
    let is_post = request.method() == Method::POST;
    let body = match Limited::new(request.into_body(), MAX_READ_BODY)
        .collect()
        .await
    {
        Ok(body) if is_post => body.to_bytes(),
        _ => Bytes::new(),
    };
    let error = |message: &Value| {
        let id = message
            .get("id")
            .filter(|_| message.get("method").is_some())?;
        Some(serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": -32600, "message": "Session not found"},
        }))
    };
    let reply = match serde_json::from_slice::<Value>(&body) {
        Ok(Value::Array(batch)) => {
            let replies: Vec<Value> = batch.iter().filter_map(error).collect();
            (!replies.is_empty()).then_some(Value::Array(replies))
        }
        Ok(message) => error(&message),
        Err(_) => None,
    };
    let mut response = Response::new(full(match &reply {
        Some(reply) => Bytes::from(reply.to_string()),
        None => Bytes::new(),
    }));
    *response.status_mut() = StatusCode::NOT_FOUND;
    if reply.is_some() {
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
    }
    response
}

/// The answer to a token that names no subject: `401` with `error="invalid_token"` and why.
fn nameless() -> Response<Body> {
    let mut response = own(StatusCode::UNAUTHORIZED, crate::owners::NAMELESS);
    let challenge = format!(
        r#"Bearer error="invalid_token", error_description="{}""#,
        crate::owners::NAMELESS
    );
    if let Ok(challenge) = HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, challenge);
    }
    response
}

/// A `403 insufficient_scope`'s challenge made to name the scopes `token` holds too
/// ([`crate::step_up`]).
#[cfg(feature = "legacy-spec")]
fn widen_step_up(headers: &mut HeaderMap, token: &str) {
    let widened = headers
        .get(header::WWW_AUTHENTICATE)
        .and_then(|challenge| challenge.to_str().ok())
        .and_then(|challenge| crate::step_up::widen(challenge, token))
        .and_then(|widened| HeaderValue::from_str(&widened).ok());
    if let Some(widened) = widened {
        headers.insert(header::WWW_AUTHENTICATE, widened);
    }
}

/// Whether the request is a `subscriptions/listen`, a stream that lasts until the server stops.
fn is_listen(headers: &HeaderMap) -> bool {
    headers
        .get("mcp-method")
        .is_some_and(|method| method == "subscriptions/listen")
}

/// The answer to a new call while the board drains.
fn refusal() -> Response<Body> {
    let mut response = own(
        StatusCode::SERVICE_UNAVAILABLE,
        "this server is stopping and takes no new calls: call again in a moment",
    );
    let headers = response.headers_mut();
    headers.insert(header::RETRY_AFTER, HeaderValue::from_static(RETRY_AFTER));
    headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Whether a board takes plain HTTP requests from `peer`: a `guarded` one (bearer tokens) from
/// this machine only.
fn admits(guarded: bool, peer: SocketAddr) -> bool {
    !guarded || peer.ip().is_loopback()
}

/// The answer to a request of a guarded board over plain HTTP from another machine, whose bearer
/// token anyone on the way could read: neva's, `400` with `error="invalid_request"`.
fn over_plain_http() -> Response<Body> {
    let mut response = own(
        StatusCode::BAD_REQUEST,
        "this server takes bearer tokens over HTTPS only: call it through its TLS proxy",
    );
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static(r#"Bearer error="invalid_request""#),
    );
    response
}

/// A plain-text response of the front's own.
fn own(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(full(Bytes::from_static(text.as_bytes())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// `bytes` as a body.
fn full(bytes: Bytes) -> Body {
    Full::new(bytes).map_err(|never| match never {}).boxed()
}

/// `headers` without those of one hop.
fn strip_hop_by_hop(headers: &mut HeaderMap) {
    for name in HOP_BY_HOP {
        headers.remove(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guarded_board_takes_plain_http_from_this_machine_only() {
        let near: SocketAddr = "127.0.0.1:50000".parse().unwrap();
        let near_v6: SocketAddr = "[::1]:50000".parse().unwrap();
        let afar: SocketAddr = "192.0.2.7:50000".parse().unwrap();
        assert!(admits(true, near) && admits(true, near_v6));
        assert!(!admits(true, afar));
        assert!(admits(false, afar), "an open board takes anyone");
        assert_eq!(over_plain_http().status(), StatusCode::BAD_REQUEST);
    }
}

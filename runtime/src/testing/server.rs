//! The scripted model behind a loopback OpenAI-compatible server.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::Frame;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::task::{JoinHandle, JoinSet};

use super::{Reply, ScriptedModel};
use crate::model::{CompletionModel, Model};

/// A [`ScriptedModel`] served over HTTP on `127.0.0.1`, answering
/// `POST /v1/chat/completions` with an event stream as an OpenAI-compatible server does.
///
/// Dropping it stops the server and every connection it holds.
#[derive(Debug)]
pub struct ScriptedServer {
    addr: SocketAddr,
    script: ScriptedModel,
    task: JoinHandle<()>,
}

impl ScriptedServer {
    pub(crate) async fn start(
        script: ScriptedModel,
        addr: impl tokio::net::ToSocketAddrs,
    ) -> std::io::Result<Self> {
        let listener = TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let task = tokio::spawn(accept(listener, script.clone()));
        Ok(Self { addr, script, task })
    }

    /// The base URL, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// A [`Model`] that talks to this server through svir's HTTP client.
    pub fn model(&self) -> Model {
        let client = svir::Client::openai(self.url())
            .build()
            .expect("a loopback URL is a valid model server address");
        Model::new(client, self.script.name())
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Serves connections until aborted; aborting drops the set, which aborts every connection.
async fn accept(listener: TcpListener, script: ScriptedModel) {
    let mut connections = JoinSet::new();
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        // Answers go out in small writes: without this, Nagle's algorithm holds the last one
        // back until the client's delayed acknowledgement, some 40 ms a request.
        let _ = stream.set_nodelay(true);
        let script = script.clone();
        connections.spawn(async move {
            let service = service_fn(move |request| answer(script.clone(), request));
            // A client that goes away mid-answer is not the server's failure.
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
        // Reap the connections that ended, so the set does not grow over a long test.
        while connections.try_join_next().is_some() {}
    }
}

type Body = UnsyncBoxBody<Bytes, Infallible>;

async fn answer(
    script: ScriptedModel,
    request: hyper::Request<Incoming>,
) -> Result<Response<Body>, Infallible> {
    if request.method() != Method::POST || request.uri().path() != "/v1/chat/completions" {
        return Ok(respond(
            StatusCode::NOT_FOUND,
            "application/json",
            "{}".into(),
        ));
    }
    let body = match request.into_body().collect().await {
        Ok(body) => body.to_bytes(),
        Err(_) => {
            return Ok(respond(
                StatusCode::BAD_REQUEST,
                "application/json",
                "{}".into(),
            ));
        }
    };
    let Ok(body) = serde_json::from_slice(&body) else {
        let error = r#"{"error":{"message":"the body is not JSON"}}"#;
        return Ok(respond(
            StatusCode::BAD_REQUEST,
            "application/json",
            error.into(),
        ));
    };
    let (reply, turn) = script.receive(body);
    tokio::time::sleep(reply.delay()).await;
    Ok(match reply.failed() {
        Some(failure) => {
            let status =
                StatusCode::from_u16(failure.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let mut response = respond(
                status,
                "application/json",
                Reply::error_body(failure.message, failure.code),
            );
            if let Some(delay) = failure.retry_after {
                let seconds = delay.as_secs_f64().ceil() as u64;
                response
                    .headers_mut()
                    .insert(hyper::header::RETRY_AFTER, seconds.into());
            }
            response
        }
        None if !reply.pace().is_zero() || reply.endless_every().is_some() => {
            let events = reply.events(script.name(), turn);
            let mut response = respond(StatusCode::OK, "text/event-stream", String::new());
            *response.body_mut() = paced(events, reply.pace(), reply.endless_every(), script);
            response
        }
        None => {
            let events = reply.event_stream(script.name(), turn);
            if reply.pause().is_zero() {
                respond(StatusCode::OK, "text/event-stream", events)
            } else {
                let mut response = respond(StatusCode::OK, "text/event-stream", String::new());
                *response.body_mut() = stalling(events, reply.pause());
                response
            }
        }
    })
}

/// `events` as a body that writes one every `pace`, then, when it is `endless`, an empty piece
/// that often forever; counting each written in `script`, and noting there a body dropped
/// before its end: the client went away.
fn paced(
    events: Vec<String>,
    pace: Duration,
    endless: Option<Duration>,
    script: ScriptedModel,
) -> Body {
    let total = events.len();
    let unfinished = script.stream_started();
    let (forever_script, forever_unfinished) = (script.clone(), unfinished.clone());
    let answer =
        futures_util::stream::iter(events.into_iter().enumerate()).then(move |(index, event)| {
            let (script, unfinished) = (script.clone(), unfinished.clone());
            async move {
                if index > 0 {
                    tokio::time::sleep(pace).await;
                }
                script.event_sent();
                if index + 1 == total && endless.is_none() {
                    unfinished.finished();
                }
                Ok(Frame::data(Bytes::from(event)))
            }
        });
    let forever = futures_util::stream::iter(endless).flat_map(move |every| {
        let (script, unfinished) = (forever_script.clone(), forever_unfinished.clone());
        futures_util::stream::repeat(()).then(move |()| {
            // The note lives as long as the body: the client giving up abandons the answer.
            let _held = &unfinished;
            let script = script.clone();
            async move {
                tokio::time::sleep(every).await;
                script.event_sent();
                Ok(Frame::data(Bytes::from(Reply::empty_piece(script.name()))))
            }
        })
    });
    StreamBody::new(answer.chain(forever)).boxed_unsync()
}

/// The event stream `events` as a body that goes silent for `pause` after its first event.
fn stalling(events: String, pause: Duration) -> Body {
    let split = events.find("\n\n").map_or(events.len(), |end| end + 2);
    let (first, rest) = events.split_at(split);
    let parts = [(Duration::ZERO, first.to_owned()), (pause, rest.to_owned())];
    let frames = futures_util::stream::iter(parts).then(|(wait, part)| async move {
        tokio::time::sleep(wait).await;
        Ok(Frame::data(Bytes::from(part)))
    });
    StreamBody::new(frames).boxed_unsync()
}

fn respond(status: StatusCode, content_type: &str, body: String) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed_unsync());
    *response.status_mut() = status;
    if let Ok(value) = content_type.parse() {
        response
            .headers_mut()
            .insert(hyper::header::CONTENT_TYPE, value);
    }
    response
}

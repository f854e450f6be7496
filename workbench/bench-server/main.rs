//! `bench-server [--addr 127.0.0.1:PORT] [--tool-turns N]`: the benchmark scenario as an
//! OpenAI-compatible model server on loopback, for clients that talk to a model over HTTP.
//!
//! `POST /v1/chat/completions` answers a request holding `k` assistant turns with answer `k`
//! of the script: `N` turns of three tool calls, then the final answer. It streams (server-sent
//! events) when the request asks to, and answers with one JSON body otherwise. It prints its
//! URL on the first line of stdout, then serves until it is stopped.

// Shared with the benchmarks, which use parts of it this server does not.
#[allow(dead_code)]
#[path = "../benches/common/script.rs"]
mod script;

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use clap::Parser;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use tokio::net::TcpListener;

use script::Script;

/// The scripted model server of the benchmarks.
#[derive(Parser)]
struct Args {
    /// Where to listen; port 0 picks a free one.
    #[arg(long, default_value = "127.0.0.1:0")]
    addr: String,
    /// How many turns of tool calls come before the answer.
    #[arg(long, default_value_t = 3)]
    tool_turns: usize,
}

/// What the server reads of a request.
#[derive(Deserialize)]
struct Asked {
    messages: Vec<Message>,
    #[serde(default)]
    stream: bool,
}

#[derive(Deserialize)]
struct Message {
    role: String,
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let script = Arc::new(Script::with_tool_turns(args.tool_turns));
    let listener = TcpListener::bind(&args.addr).await?;
    println!("http://{}", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        let script = Arc::clone(&script);
        tokio::spawn(async move {
            let service = service_fn(move |request| answer(Arc::clone(&script), request));
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

async fn answer(
    script: Arc<Script>,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    if request.method() != Method::POST || !request.uri().path().ends_with("/chat/completions") {
        return Ok(respond(
            StatusCode::NOT_FOUND,
            "application/json",
            "{}".into(),
        ));
    }
    let Ok(body) = request.into_body().collect().await else {
        return Ok(respond(
            StatusCode::BAD_REQUEST,
            "application/json",
            "{}".into(),
        ));
    };
    let Ok(asked) = serde_json::from_slice::<Asked>(&body.to_bytes()) else {
        let error = r#"{"error":{"message":"the body is not a chat request"}}"#;
        return Ok(respond(
            StatusCode::BAD_REQUEST,
            "application/json",
            error.into(),
        ));
    };
    let answered = asked
        .messages
        .iter()
        .filter(|message| message.role == "assistant")
        .count();
    Ok(if asked.stream {
        respond(
            StatusCode::OK,
            "text/event-stream",
            script.answer_after(answered),
        )
    } else {
        respond(
            StatusCode::OK,
            "application/json",
            script.whole_answer_after(answered),
        )
    })
}

fn respond(status: StatusCode, content_type: &'static str, body: Bytes) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static(content_type),
    );
    response
}

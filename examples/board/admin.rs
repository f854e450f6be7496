//! `--admin ADDR`: what an operator's load balancer, orchestrator and Prometheus ask the board,
//! on an address of its own, apart from MCP.
//!
//! - `GET /healthz`: `200` while the process serves.
//! - `GET /readyz`: `200` when the board can take calls: it is not draining, the store of its
//!   paused runs answers, and so does its board's database, and (with `--restate-admin`)
//!   restate-server knows its deployment; else `503` with a one-line reason.
//!   A model server that is down does not make the board unready: every replica shares it,
//!   and the calls say so themselves.
//! - `GET /metrics`: the metrics Ladoga records (`ladoga::metrics`), and the board's live heap
//!   (`board_heap_live_bytes`, `heap.rs`), in Prometheus' text format.
//!
//! Anything else is `404`. The address carries no authentication: bind it on loopback or on a
//! private interface only.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tokio::net::TcpListener;

use crate::store;

/// The longest a readiness check waits for a store to answer.
const CHECK_TIMEOUT: Duration = Duration::from_secs(2);

/// How often the recorder drains its histograms' recent samples.
const UPKEEP: Duration = Duration::from_secs(5);

/// What the admin address tells about: the board's stores, its drain and its metrics.
pub struct Admin {
    /// The store of the board's paused runs.
    runs: ladoga::Runs,
    /// The board's tasks.
    board: store::Answers,
    /// Whether the board drains.
    drain: ladoga::Drain,
    /// The metrics recorder's handle.
    metrics: PrometheusHandle,
    /// Whether restate-server knows the board's deployment, for a durable board.
    registration: Option<ladoga::durable::Registration>,
}

/// Installs the process's Prometheus recorder, with OpenTelemetry's buckets for Ladoga's
/// histograms; its handle renders `/metrics`. Call it once, in a tokio runtime.
fn install_recorder() -> Result<PrometheusHandle, String> {
    let mut builder = PrometheusBuilder::new();
    for (name, buckets) in ladoga::metrics::HISTOGRAM_BUCKETS {
        builder = builder
            .set_buckets_for_metric(Matcher::Full((*name).to_owned()), buckets)
            .map_err(|error| format!("the buckets of {name}: {error}"))?;
    }
    let handle = builder
        .install_recorder()
        .map_err(|error| format!("cannot record metrics: {error}"))?;
    ladoga::metrics::describe();
    let upkeep = handle.clone();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(UPKEEP).await;
            upkeep.run_upkeep();
        }
    });
    Ok(handle)
}

impl Admin {
    /// Installs the metrics recorder, listens at `addr` and serves the admin endpoints there
    /// until the process ends; why not, when it cannot.
    pub async fn start(
        addr: SocketAddr,
        runs: ladoga::Runs,
        board: store::Answers,
        drain: ladoga::Drain,
        registration: Option<ladoga::durable::Registration>,
    ) -> Result<(), String> {
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|error| format!("cannot listen at {addr} (--admin): {error}"))?;
        let metrics = install_recorder()?;
        let admin = Self {
            runs,
            board,
            drain,
            metrics,
            registration,
        };
        tokio::spawn(admin.serve(listener));
        Ok(())
    }

    /// Serves the admin endpoints on `listener` until the process ends.
    async fn serve(self, listener: TcpListener) {
        let admin = std::sync::Arc::new(self);
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                // Out of file descriptors, say: try again in a while rather than at once.
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            };
            let admin = std::sync::Arc::clone(&admin);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    let admin = std::sync::Arc::clone(&admin);
                    async move { Ok::<_, Infallible>(admin.answer(request).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(Duration::from_secs(10))
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    }

    /// The answer to one request.
    async fn answer(&self, request: Request<Incoming>) -> Response<Full<Bytes>> {
        if request.method() != Method::GET {
            return text(StatusCode::NOT_FOUND, "not found");
        }
        match request.uri().path() {
            "/healthz" => text(StatusCode::OK, "serving"),
            "/readyz" => match self.unready().await {
                None => text(StatusCode::OK, "ready"),
                Some(reason) => text(StatusCode::SERVICE_UNAVAILABLE, reason),
            },
            "/metrics" => respond(
                StatusCode::OK,
                "text/plain; version=0.0.4; charset=utf-8",
                self.metrics.render() + &crate::heap::metric(),
            ),
            _ => text(StatusCode::NOT_FOUND, "not found"),
        }
    }

    /// Why the board cannot take calls now, if it cannot.
    async fn unready(&self) -> Option<&'static str> {
        if self.drain.is_draining() {
            return Some("draining");
        }
        if (self.registration.as_ref()).is_some_and(|registration| !registration.is_done()) {
            return Some("restate-server does not know this replica's deployment yet");
        }
        if !answers(self.runs.ping()).await {
            return Some("the run store does not answer");
        }
        if !answers(self.board.check()).await {
            return Some("the board's database does not answer");
        }
        None
    }
}

/// Whether `check` succeeds within [`CHECK_TIMEOUT`].
async fn answers<E>(check: impl Future<Output = Result<(), E>>) -> bool {
    matches!(tokio::time::timeout(CHECK_TIMEOUT, check).await, Ok(Ok(())))
}

/// A plain-text response: `line` and a newline.
fn text(status: StatusCode, line: &str) -> Response<Full<Bytes>> {
    respond(status, "text/plain; charset=utf-8", format!("{line}\n"))
}

/// A response of `body`, of the type `content_type`.
fn respond(status: StatusCode, content_type: &'static str, body: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

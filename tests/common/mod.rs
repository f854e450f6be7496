//! What the integration tests share: a neva server on a free loopback port, and an MCP client
//! connected to it.

#![allow(dead_code)]

pub mod auth;
pub mod durable;
pub mod exe;
pub mod issuer;
pub mod legacy_http;
pub mod nginx;
pub mod peer;
pub mod phoenix;
pub mod prometheus;
pub mod python_server;
pub mod redis;
pub mod restate;
pub mod rounds;
pub mod sampling;
pub mod scratch;
pub mod steps;
pub mod tasks;

use std::net::SocketAddr;
use std::time::Duration;

use neva::app::ShutdownHandle;
use neva::prelude::*;

pub use exe::exe;

/// A neva server running on `127.0.0.1`, stopped when dropped.
pub struct Server {
    pub addr: SocketAddr,
    shutdown: ShutdownHandle,
    task: tokio::task::JoinHandle<()>,
}

impl Server {
    /// Runs `app` (with every `#[tool]` and `#[orchestrator]` of this test binary) over HTTP on
    /// a free loopback port, and waits until it accepts connections.
    pub async fn start(app: App) -> Self {
        Self::serve(app, Some(Duration::from_secs(60))).await
    }

    /// Runs `app` as [`Server::start`] does, but on neva's default request timeout (10 s).
    pub async fn start_with_default_timeout(app: App) -> Self {
        Self::serve(app, None).await
    }

    /// Runs `app` over HTTP, with `timeout` as neva's request timeout if given.
    async fn serve(app: App, timeout: Option<Duration>) -> Self {
        let addr = free_addr();
        let app = app.without_greeting().with_options(|opt| {
            let opt = opt.with_http(|http| http.bind(addr.to_string()).with_endpoint("/mcp"));
            match timeout {
                Some(timeout) => opt.with_timeout(timeout),
                None => opt,
            }
        });
        let (app, shutdown) = app.with_shutdown();
        let task = tokio::spawn(app.run());
        wait_for(addr).await;
        Self {
            addr,
            shutdown,
            task,
        }
    }

    /// Runs `app` as [`Server::start`] does, taking only requests with an HS256 bearer token
    /// signed with `secret` (see `auth::token`).
    pub async fn start_guarded(app: App, secret: &'static str) -> Self {
        let addr = free_addr();
        let app = app.without_greeting().with_options(|opt| {
            opt.with_http(|http| {
                http.bind(addr.to_string())
                    .with_endpoint("/mcp")
                    .with_auth(|config| {
                        config
                            .set_decoding_key(secret.as_bytes())
                            .with_alg(neva::auth::Algorithm::HS256)
                    })
            })
            .with_timeout(Duration::from_secs(60))
        });
        let (app, shutdown) = app.with_shutdown();
        let task = tokio::spawn(app.run());
        wait_for(addr).await;
        Self {
            addr,
            shutdown,
            task,
        }
    }

    /// An MCP client connected over Streamable HTTP.
    pub async fn client(&self) -> Client {
        connect(self.addr).await
    }

    /// Stops the server and waits until it has.
    pub async fn stop(mut self) {
        self.shutdown.shutdown();
        let _ = tokio::time::timeout(Duration::from_secs(10), &mut self.task).await;
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown.shutdown();
        self.task.abort();
    }
}

/// The `board` example's binary, started over HTTP on a free loopback port, talking to the
/// model server at `model_url` under the name `model`. Killed when the child is dropped.
pub async fn board_over_http(model_url: &str, model: &str) -> (tokio::process::Child, SocketAddr) {
    board_over_http_with(model_url, model, &[]).await
}

/// [`board_over_http`], with the board's other arguments `args`.
pub async fn board_over_http_with(
    model_url: &str,
    model: &str,
    args: &[&str],
) -> (tokio::process::Child, SocketAddr) {
    board_over_http_with_env(model_url, model, args, &[]).await
}

/// [`board_over_http_with`], with the environment variables `env` set for the board too.
pub async fn board_over_http_with_env(
    model_url: &str,
    model: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> (tokio::process::Child, SocketAddr) {
    board_at(
        free_addr(),
        model_url,
        model,
        args,
        env,
        std::process::Stdio::null(),
    )
    .await
}

/// [`board_over_http_with_env`], at `addr`, its log (stderr) written to `stderr`.
pub async fn board_at(
    addr: SocketAddr,
    model_url: &str,
    model: &str,
    args: &[&str],
    env: &[(&str, &str)],
    stderr: std::process::Stdio,
) -> (tokio::process::Child, SocketAddr) {
    let mut child = tokio::process::Command::new(exe("board"))
        .envs(env.iter().copied())
        .args([
            "--http",
            &addr.to_string(),
            "--model-url",
            model_url,
            "--model",
            model,
        ])
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(stderr)
        .kill_on_drop(true)
        .spawn()
        .expect("the board binary starts");
    wait_for_child(&mut child, addr).await;
    (child, addr)
}

/// An MCP client connected to the server at `addr` over Streamable HTTP.
pub async fn connect(addr: SocketAddr) -> Client {
    let mut client = client_for(addr);
    client.connect().await.expect("the MCP client connects");
    client
}

/// An MCP client for the server at `addr` over Streamable HTTP, not connected yet.
pub fn client_for(addr: SocketAddr) -> Client {
    Client::new().with_options(|opt| {
        opt.with_http(|http| http.bind(addr.to_string()).with_endpoint("/mcp"))
            .with_timeout(Duration::from_secs(60))
    })
}

#[path = "../../workbench/load/loopback.rs"]
mod loopback;
pub use loopback::free_addr;

/// Waits until something accepts connections at `addr`, for at most 30 seconds.
pub async fn wait_for(addr: SocketAddr) {
    for _ in 0..300 {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("nothing listens at {addr} after 30 s");
}

/// Waits until the server `child` accepts connections at `addr`, for at most 30 seconds. A
/// server that exits first fails the test at once, saying how it ended.
pub async fn wait_for_child(child: &mut tokio::process::Child, addr: SocketAddr) {
    for _ in 0..300 {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            return;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the server meant to listen at {addr} ended first: {status}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("nothing listens at {addr} after 30 s");
}

/// `plan_week`'s answer to `client` for the focus "the release", which must not be an error:
/// its first block, the answer (the second names the session it started).
pub async fn plan_week(client: &Client) -> String {
    let result = client
        .tools()
        .call("plan_week", [("focus", "the release")])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{result:?}");
    answer(&result)
}

/// The answer in a result's text as a host joins its blocks: what comes before the block that
/// names the session `plan_week` started (`session: …`).
pub fn unsessioned(text: &str) -> &str {
    text.split("\nsession: ").next().unwrap_or(text)
}

/// The answer of a tool result: its first block's text.
pub fn answer(result: &CallToolResponse) -> String {
    result
        .content
        .first()
        .and_then(|block| block.as_text())
        .map(|text| text.text.clone())
        .unwrap_or_default()
}

/// The text of a tool result, its blocks joined.
pub fn text(result: &CallToolResponse) -> String {
    result
        .content
        .iter()
        .filter_map(|content| content.as_text().map(|text| text.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

//! Arize Phoenix, a real trace backend, of the tests' own: run by the Python of the venv
//! `scripts/peers install` makes (`LADOGA_PHOENIX`), on two free loopback ports (HTTP, which
//! also takes OTLP/HTTP, and OTLP/gRPC), its SQLite database in a folder of its own, without
//! telemetry or requests to the internet, killed and removed when dropped. Its REST API says
//! which spans it stored, and headless Chromium (`scripts/services install`) takes a screenshot
//! of its web UI.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use reqwest::Url;
use serde_json::Value;

/// Runs Phoenix's server (`phoenix serve`) with its gRPC server on `PHOENIX_HOST`: Phoenix
/// binds that one to `[::]`, every interface, whatever the host.
const SERVE: &str = r#"
import os, sys
import grpc.aio._server as server
add_insecure_port = server.Server.add_insecure_port
host = os.environ["PHOENIX_HOST"]
server.Server.add_insecure_port = lambda self, address: add_insecure_port(
    self, address.replace("[::]:", host + ":", 1)
)
sys.argv = ["phoenix", "serve"]
from phoenix.server.main import main
main()
"#;

/// Headless Chromium, as Debian's `chromium` installs it.
const CHROMIUM: &str = "/usr/bin/chromium";

/// A running Phoenix server, killed, and its folder removed, when dropped.
pub struct Phoenix {
    /// Its HTTP address: the web UI, the REST API (`/v1/…`), GraphQL and OTLP/HTTP.
    pub addr: SocketAddr,
    /// Its OTLP/gRPC address.
    pub grpc_addr: SocketAddr,
    dir: PathBuf,
    child: tokio::process::Child,
}

impl Phoenix {
    /// Starts one on free loopback ports and waits, for at most 60 s, until it answers HTTP.
    /// Fails, saying what to do, when `LADOGA_PHOENIX` is unset; fails with its log when it
    /// ends first.
    pub async fn start() -> Self {
        let python = std::env::var("LADOGA_PHOENIX").unwrap_or_else(|_| {
            panic!(
                "LADOGA_PHOENIX names the Python of Phoenix's venv: `scripts/peers install` \
                 makes it, .peers/phoenix/bin/python"
            )
        });
        let addr = super::free_addr();
        let grpc_addr = super::free_addr();
        let dir = std::env::temp_dir().join(format!(
            "ladoga-phoenix-{}-{}",
            std::process::id(),
            addr.port()
        ));
        std::fs::create_dir_all(&dir).expect("a folder for phoenix");
        let log = |name: &str| std::fs::File::create(dir.join(name)).expect("a log file");
        let mut command = tokio::process::Command::new(&python);
        // Only this server's settings: none a developer's shell has for another Phoenix.
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("PHOENIX_") {
                command.env_remove(name);
            }
        }
        let child = command
            .args(["-c", SERVE])
            .current_dir(&dir)
            .env("PHOENIX_HOST", addr.ip().to_string())
            .env("PHOENIX_PORT", addr.port().to_string())
            .env("PHOENIX_GRPC_PORT", grpc_addr.port().to_string())
            .env("PHOENIX_WORKING_DIR", &dir)
            .env("PHOENIX_TELEMETRY_ENABLED", "false")
            .env("PHOENIX_ALLOW_EXTERNAL_RESOURCES", "false")
            .env("PHOENIX_DISABLE_AGENT_ASSISTANT", "true")
            .stdin(std::process::Stdio::null())
            .stdout(log("phoenix.out"))
            .stderr(log("phoenix.err"))
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|error| {
                panic!("cannot start {python} ({error}): `scripts/peers install` installs Phoenix")
            });
        let mut phoenix = Self {
            addr,
            grpc_addr,
            dir,
            child,
        };
        phoenix.wait_until_up().await;
        phoenix
    }

    /// Waits until `/healthz` answers, for at most 60 s; fails with the server's stderr if it
    /// ends first.
    async fn wait_until_up(&mut self) {
        let url = format!("http://{}/healthz", self.addr);
        let end = tokio::time::Instant::now() + Duration::from_secs(60);
        while tokio::time::Instant::now() < end {
            if let Ok(response) = reqwest::get(&url).await
                && response.status().is_success()
            {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                let stderr = std::fs::read_to_string(self.dir.join("phoenix.err"));
                panic!(
                    "phoenix ended before it answered ({status}):\n{}",
                    stderr.unwrap_or_default()
                );
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        panic!("phoenix does not answer at {url} after 60 s");
    }

    /// Its OTLP/HTTP traces endpoint, where an exporter sends spans: protobuf only
    /// (`application/x-protobuf`, gzip or not), Phoenix refuses OTLP's JSON.
    pub fn otlp_traces_url(&self) -> String {
        format!("http://{}/v1/traces", self.addr)
    }

    /// The spans of the trace `trace_id` (32 hex digits) Phoenix stored, in any project,
    /// asked every 250 ms until there are at least `at_least` or `within` has passed: what it
    /// has then. Each is a span of its REST API (`GET /v1/projects/{project}/spans`), oldest
    /// first: `name`, `context.trace_id`, `context.span_id` (16 hex digits), `parent_id` (the
    /// parent's span id, `null` at the root), `span_kind`, `status_code` (`UNSET`, `OK`,
    /// `ERROR`), `status_message`, `start_time` and `end_time` (ISO 8601), `attributes` (one
    /// map, its keys dotted paths, arrays' items `key.0`, `key.1`…), `events`, and `id`
    /// (Phoenix's own).
    pub async fn spans_of_trace(
        &self,
        trace_id: &str,
        at_least: usize,
        within: Duration,
    ) -> Vec<Value> {
        let end = tokio::time::Instant::now() + within;
        loop {
            let spans = self.spans(trace_id).await;
            if spans.len() >= at_least || tokio::time::Instant::now() >= end {
                return spans;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// The spans of `trace_id` stored now, of every project.
    async fn spans(&self, trace_id: &str) -> Vec<Value> {
        let mut spans = Vec::new();
        for project in self.pages("/v1/projects", &[]).await {
            let id = project["id"].as_str().expect("a project's id");
            let query = [
                ("trace_id", trace_id),
                ("sort", "start_time"),
                ("order", "asc"),
                ("limit", "1000"),
            ];
            spans.extend(
                self.pages(&format!("/v1/projects/{id}/spans"), &query)
                    .await,
            );
        }
        spans
    }

    /// Every item (`data`) of the REST API's `path` with `query`, page after page
    /// (`next_cursor`).
    async fn pages(&self, path: &str, query: &[(&str, &str)]) -> Vec<Value> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut url = Url::parse(&format!("http://{}{path}", self.addr)).expect("a URL");
            url.query_pairs_mut().extend_pairs(query);
            if let Some(cursor) = &cursor {
                url.query_pairs_mut().append_pair("cursor", cursor);
            }
            let response = reqwest::get(url.clone()).await.expect("phoenix answers");
            assert!(response.status().is_success(), "{url}: {response:?}");
            let body: Value = response.json().await.expect("a JSON answer");
            items.extend(body["data"].as_array().cloned().unwrap_or_default());
            match body["next_cursor"].as_str() {
                Some(next) => cursor = Some(next.to_owned()),
                None => return items,
            }
        }
    }

    /// The page of its web UI that shows the trace `trace_id`: a route of the UI's that looks
    /// the trace's project up and goes on to `/projects/{project}/traces/{trace_id}`.
    pub fn trace_page_url(&self, trace_id: &str) -> String {
        format!("http://{}/redirects/traces/{trace_id}", self.addr)
    }

    /// A screenshot of `url`, 1600×1000, taken by headless Chromium with a fresh profile after
    /// 10 s of the page's (virtual) time, written to `png` (its folder made if missing). Fails
    /// when Chromium is not installed, or writes no PNG of some size.
    pub async fn screenshot(&self, url: &str, png: &Path) {
        static SHOTS: AtomicUsize = AtomicUsize::new(0);
        assert!(
            Path::new(CHROMIUM).exists(),
            "no {CHROMIUM}: `scripts/services install` installs Chromium"
        );
        if let Some(folder) = png.parent() {
            std::fs::create_dir_all(folder).expect("the screenshot's folder");
        }
        let _ = std::fs::remove_file(png);
        let profile = self.dir.join(format!(
            "chromium-{}",
            SHOTS.fetch_add(1, Ordering::Relaxed)
        ));
        let run = tokio::process::Command::new(CHROMIUM)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(["--window-size=1600,1000", "--virtual-time-budget=10000"])
            .arg(format!("--screenshot={}", png.display()))
            .arg(url)
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true)
            .output();
        let output = tokio::time::timeout(Duration::from_secs(60), run)
            .await
            .unwrap_or_else(|_| panic!("chromium takes more than 60 s for {url}"))
            .unwrap_or_else(|error| {
                panic!("cannot run {CHROMIUM} ({error}): `scripts/services install` installs it")
            });
        let _ = std::fs::remove_dir_all(&profile);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "chromium failed: {stderr}");
        let bytes = std::fs::read(png).unwrap_or_else(|error| {
            panic!("no screenshot at {} ({error}): {stderr}", png.display())
        });
        assert!(
            bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() > 20_000,
            "{} is no PNG of a page ({} bytes)",
            png.display(),
            bytes.len()
        );
    }
}

impl Drop for Phoenix {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

//! The Python harness (`harness.py`): started on a free loopback port, asked over HTTP, killed
//! when dropped; and the neva server the orchestrators run on.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use neva::App;
use neva::app::ShutdownHandle;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::process::{Child, Command};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/agentdojo/harness.py");

/// The harness process, serving one suite.
pub struct Harness {
    port: u16,
    http: reqwest::Client,
    _child: Child,
    state: std::path::PathBuf,
}

/// What `GET /pairs` answers.
#[derive(Deserialize)]
pub struct Pairs {
    pub user_tasks: Vec<String>,
    pub measurable: Vec<(String, String)>,
    pub unmeasurable: Vec<Value>,
}

/// What `POST /pair` answers.
#[derive(Deserialize)]
pub struct Pair {
    pub prompt: String,
    pub needed: Vec<Needed>,
}

/// A call the user task needs: its function and arguments.
#[derive(Debug, Clone, Deserialize)]
pub struct Needed {
    pub function: String,
    pub args: Value,
}

/// What `POST /check` answers.
#[derive(Deserialize)]
pub struct Check {
    pub utility: bool,
    #[serde(rename = "security")]
    pub attacked: Option<bool>,
}

impl Harness {
    /// Starts `python harness.py` for `suite`, its tools annotated as `annotate` says (`full`,
    /// or `read-only`), and waits until it listens.
    pub async fn start(
        python: &Path,
        suite: &str,
        annotate: &str,
    ) -> Result<Self, Box<dyn std::error::Error>> {
        let state = std::env::temp_dir().join(format!("ladoga-agentdojo-{}", std::process::id()));
        std::fs::create_dir_all(&state)?;
        // Its log, one line per model step and tool call, kept beside the port it writes.
        let log = std::fs::File::create(state.join("harness.log"))?;
        let child = Command::new(python)
            .arg(SCRIPT)
            .args([
                "--suite",
                suite,
                "--annotate",
                annotate,
                "--port",
                "0",
                "--state",
            ])
            .arg(&state)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(log)
            .kill_on_drop(true)
            .spawn()?;
        let mut port = None;
        for _ in 0..1200 {
            if let Some(read) = std::fs::read_to_string(state.join("port"))
                .ok()
                .and_then(|port| port.trim().parse().ok())
            {
                port = Some(read);
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let Some(port) = port else {
            let log = std::fs::read_to_string(state.join("harness.log")).unwrap_or_default();
            return Err(format!("the harness did not listen within two minutes: {log}").into());
        };
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(120))
            .build()?;
        Ok(Self {
            port,
            http,
            _child: child,
            state,
        })
    }

    /// Its base URL, the obedient model's.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Its MCP server's URL.
    pub fn mcp_url(&self) -> String {
        format!("{}/mcp", self.url())
    }

    /// The suite's tasks and pairs.
    pub async fn pairs(&self) -> Result<Pairs, reqwest::Error> {
        let url = format!("{}/pairs", self.url());
        self.http
            .get(url)
            .send()
            .await?
            .error_for_status()?
            .json()
            .await
    }

    /// Sets the environment up for `user` under `injection`'s attack (none: no injection).
    pub async fn pair(&self, user: &str, injection: Option<&str>) -> Result<Pair, reqwest::Error> {
        let url = format!("{}/pair", self.url());
        let body = json!({"user_task": user, "injection_task": injection});
        let sent = self.http.post(url).json(&body).send().await?;
        sent.error_for_status()?.json().await
    }

    /// The suite's checks of the pair, the caller having got `answer`.
    pub async fn check(&self, answer: &str) -> Result<Check, reqwest::Error> {
        let url = format!("{}/check", self.url());
        let sent = self
            .http
            .post(url)
            .json(&json!({"answer": answer}))
            .send()
            .await?;
        sent.error_for_status()?.json().await
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.state);
    }
}

/// A neva server running `app` on a free loopback port.
pub struct Served {
    pub addr: SocketAddr,
    shutdown: ShutdownHandle,
    task: tokio::task::JoinHandle<()>,
}

/// Runs `app` over HTTP on a free loopback port.
pub async fn serve(app: App) -> Served {
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port");
    let app = app.without_greeting().with_options(|opt| {
        opt.with_http(|http| http.bind(addr.to_string()).with_endpoint("/mcp"))
            .with_timeout(Duration::from_secs(300))
    });
    let (app, shutdown) = app.with_shutdown();
    let task = tokio::spawn(app.run());
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Served {
        addr,
        shutdown,
        task,
    }
}

impl Served {
    /// Stops the server, and waits until it has.
    pub async fn stop(self) {
        self.shutdown.shutdown();
        let _ = self.task.await;
    }
}

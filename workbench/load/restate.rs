//! A restate-server (`.peers/restate`, installed, pinned, by `scripts/peers install`, named by
//! `LADOGA_RESTATE`) on free loopback ports, killed and its data removed when dropped. The load
//! harness's `--durable` runs it, and the durable tests.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::free_addr;

/// A running restate-server.
pub struct Restate {
    binary: PathBuf,
    /// Its data and logs, removed when dropped.
    dir: PathBuf,
    admin: SocketAddr,
    ingress: SocketAddr,
    node: SocketAddr,
    /// The private key it signs its requests to deployments with, if any (a PEM file).
    identity: Option<PathBuf>,
    child: Option<Child>,
}

impl Restate {
    /// Starts restate-server, and waits until its admin and ingress answer.
    pub async fn start() -> Self {
        Self::start_signing(None).await
    }

    /// [`Self::start`], signing its requests to deployments with the ed25519 private key in
    /// the PEM file `identity` (Restate's request identity).
    #[allow(dead_code)] // the tests only
    pub async fn start_signing(identity: Option<PathBuf>) -> Self {
        let peers = std::env::var("LADOGA_RESTATE")
            .expect("LADOGA_RESTATE names .peers/restate: run `scripts/peers install`");
        let binary = PathBuf::from(peers)
            .join("node_modules/@restatedev/restate-server-linux-x64/bin/restate-server");
        assert!(binary.exists(), "no restate-server at {}", binary.display());
        let admin = free_addr();
        let mut restate = Self {
            binary,
            // Named by its admin port too: tests that start at once each have their own.
            dir: std::env::temp_dir().join(format!(
                "ladoga-restate-{}-{}",
                std::process::id(),
                admin.port()
            )),
            admin,
            ingress: free_addr(),
            node: free_addr(),
            identity,
            child: None,
        };
        std::fs::create_dir_all(&restate.dir).expect("a folder for restate-server");
        restate.start_again().await;
        restate
    }

    /// The admin API's base URL.
    pub fn admin(&self) -> String {
        format!("http://{}", self.admin)
    }

    /// The ingress' base URL.
    pub fn ingress(&self) -> String {
        format!("http://{}", self.ingress)
    }

    /// Registers the deployment at `uri`, retrying for up to 20 s while it is refused.
    #[allow(dead_code)] // the journal's tests only: a board registers itself
    pub async fn register(&self, uri: &str) {
        let client = reqwest::Client::new();
        let mut last = String::new();
        for _ in 0..80 {
            let sent = client
                .post(format!("{}/deployments", self.admin()))
                .json(&serde_json::json!({ "uri": uri }))
                .send()
                .await;
            match sent {
                Ok(answer) if answer.status().is_success() => return,
                Ok(answer) => last = answer.text().await.unwrap_or_default(),
                Err(error) => last = error.to_string(),
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        panic!("restate-server did not register {uri}: {last}");
    }

    /// Waits, for up to 60 s, until the service `name` is registered.
    #[allow(dead_code)]
    pub async fn wait_for_service(&self, name: &str) {
        let client = reqwest::Client::new();
        for _ in 0..600 {
            let answer = client
                .get(format!("{}/services/{name}", self.admin()))
                .send()
                .await;
            if answer.is_ok_and(|answer| answer.status().is_success()) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the service {name} was not registered within 60 s");
    }

    /// The invocations of the service `name` restate-server knows: each one's `id`,
    /// `target_service_key` and `status`.
    #[allow(dead_code)]
    pub async fn invocations(&self, name: &str) -> Vec<serde_json::Value> {
        let query = format!(
            "SELECT id, target_service_key, status FROM sys_invocation \
             WHERE target_service_name = '{name}'"
        );
        let answer = reqwest::Client::new()
            .post(format!("{}/query", self.admin()))
            .header("Accept", "application/json")
            .json(&serde_json::json!({ "query": query }))
            .send()
            .await
            .expect("restate-server's admin answers");
        let body: serde_json::Value = answer.json().await.expect("JSON rows");
        body["rows"].as_array().cloned().unwrap_or_default()
    }

    /// The answer of the workflow `name`'s run `key`, once it has one (for up to 90 s).
    #[allow(dead_code)]
    pub async fn output(&self, name: &str, key: &str) -> serde_json::Value {
        let url = format!("{}/restate/workflow/{name}/{key}/attach", self.ingress());
        let answer = reqwest::Client::new()
            .get(url)
            .timeout(Duration::from_secs(90))
            .send()
            .await
            .expect("the run's answer");
        let status = answer.status();
        let body = answer.text().await.expect("a body");
        assert!(status.is_success(), "{status}: {body}");
        serde_json::from_str(&body).expect("JSON")
    }

    /// Kills the server (SIGKILL), keeping its data.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server on its data and ports, and waits until it answers.
    pub async fn start_again(&mut self) {
        let log = |name| std::fs::File::create(self.dir.join(name)).expect("a log file");
        let mut command = Command::new(&self.binary);
        if let Some(identity) = &self.identity {
            command.env(
                "RESTATE_WORKER__INVOKER__REQUEST_IDENTITY_PRIVATE_KEY_PEM_FILE",
                identity,
            );
        }
        let child = command
            .args(["--no-logo", "--node-name", "ladoga-test", "--base-dir"])
            .arg(self.dir.join("data"))
            .env("RESTATE_ADMIN__BIND_ADDRESS", self.admin.to_string())
            .env("RESTATE_INGRESS__BIND_ADDRESS", self.ingress.to_string())
            .env("RESTATE_BIND_ADDRESS", self.node.to_string())
            .env(
                "RESTATE_ADVERTISED_ADDRESS",
                format!("http://{}", self.node),
            )
            .env("RESTATE_LISTEN_MODE", "tcp")
            .env("RESTATE_DISABLE_TELEMETRY", "true")
            .env("RESTATE_ADMIN__DISABLE_WEB_UI", "true")
            .stdout(Stdio::from(log("stdout.log")))
            .stderr(Stdio::from(log("stderr.log")))
            .spawn()
            .expect("restate-server starts");
        self.child = Some(child);
        let client = reqwest::Client::new();
        let healthy = |url: String| {
            let client = client.clone();
            async move {
                let answer = client.get(url).send().await;
                answer.is_ok_and(|answer| answer.status().is_success())
            }
        };
        for _ in 0..300 {
            if healthy(format!("{}/health", self.admin())).await
                && healthy(format!("{}/restate/health", self.ingress())).await
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let stderr = std::fs::read_to_string(self.dir.join("stderr.log")).unwrap_or_default();
        panic!("restate-server did not answer within 30 s:\n{stderr}");
    }
}

impl Drop for Restate {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

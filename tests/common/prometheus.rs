//! A Prometheus server of the tests' own: Debian's `prometheus` (installed by
//! `scripts/services`), on a free loopback port, scraping one target every second, its
//! configuration and storage in a folder of its own, killed and removed when dropped.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

/// A running `prometheus`, killed when dropped.
pub struct Prometheus {
    pub addr: SocketAddr,
    dir: PathBuf,
    _child: tokio::process::Child,
}

impl Prometheus {
    /// Starts one scraping `target`'s `/metrics` every second as the job `job`, and waits until
    /// it answers. Fails, saying what to do, when `prometheus` is not installed.
    pub async fn scraping(target: SocketAddr, job: &str) -> Self {
        let addr = super::free_addr();
        let dir = std::env::temp_dir().join(format!(
            "ladoga-prometheus-{}-{}",
            std::process::id(),
            addr.port()
        ));
        std::fs::create_dir_all(dir.join("data")).expect("a folder for prometheus");
        let config = format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n\
             scrape_configs:\n  - job_name: {job}\n    static_configs:\n      - targets: ['{target}']\n"
        );
        std::fs::write(dir.join("prometheus.yml"), config).expect("its configuration");
        let child = tokio::process::Command::new("prometheus")
            .arg(format!(
                "--config.file={}",
                dir.join("prometheus.yml").display()
            ))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("data").display()
            ))
            .arg(format!("--web.listen-address={addr}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|error| {
                panic!("cannot start prometheus ({error}): `scripts/services install` installs it")
            });
        super::wait_for(addr).await;
        Self {
            addr,
            dir,
            _child: child,
        }
    }

    /// The value of the instant query `query` (`/api/v1/query`): the first series' value, or
    /// `None` when it finds no series.
    pub async fn value(&self, query: &str) -> Option<f64> {
        let url = format!("http://{}/api/v1/query?query={}", self.addr, encoded(query));
        let response = reqwest::get(url).await.expect("prometheus answers");
        let body: Value = response.json().await.expect("a JSON answer");
        assert_eq!(body["status"], "success", "{query}: {body}");
        let value = body["data"]["result"].get(0)?["value"][1].as_str()?;
        Some(value.parse().expect("a number"))
    }

    /// Waits, for at most `within`, until `query` is `expected`; its last value when it never
    /// is.
    pub async fn until(&self, query: &str, expected: f64, within: Duration) -> Option<f64> {
        let end = tokio::time::Instant::now() + within;
        loop {
            let value = self.value(query).await;
            if value == Some(expected) || tokio::time::Instant::now() >= end {
                return value;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }
}

/// `text` percent-encoded for a URL's query.
fn encoded(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(byte).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self._child.start_kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

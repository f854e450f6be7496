//! A Redis server of the tests' own: Debian's `redis-server` (installed by `scripts/services`),
//! on a free loopback port, keeping nothing on disk, killed when dropped.

use std::net::SocketAddr;

/// A running `redis-server`, killed when dropped.
pub struct Redis {
    pub addr: SocketAddr,
    _child: tokio::process::Child,
}

impl Redis {
    /// Starts one, and waits until it accepts connections. Fails, saying what to do, when
    /// `redis-server` is not installed: the tests that need it never pass without it.
    pub async fn start() -> Self {
        let addr = super::free_addr();
        let child = tokio::process::Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &addr.port().to_string()])
            .args([
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "yes",
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|error| {
                panic!(
                    "cannot start redis-server ({error}): `scripts/services install` installs it"
                )
            });
        super::wait_for(addr).await;
        Self {
            addr,
            _child: child,
        }
    }

    /// Its URL.
    pub fn url(&self) -> String {
        format!("redis://{}/", self.addr)
    }
}

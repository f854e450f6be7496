//! The Redis server replicas of the board share in the restart mode: Debian's `redis-server`
//! (installed by `scripts/services`), on a free loopback port, keeping nothing on disk, killed
//! when dropped.

use std::net::SocketAddr;

/// A running `redis-server`, killed when dropped.
pub struct Redis {
    addr: SocketAddr,
    _child: tokio::process::Child,
}

impl Redis {
    /// Starts one, and waits until it accepts connections; why not, saying what to do when
    /// `redis-server` is not installed.
    pub async fn start() -> Result<Self, String> {
        let addr = super::free_addr();
        let child = tokio::process::Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &addr.port().to_string()])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|error| {
                format!(
                    "cannot start redis-server ({error}): `scripts/services install` installs it"
                )
            })?;
        super::sessions::wait_for(addr).await?;
        Ok(Self {
            addr,
            _child: child,
        })
    }

    /// Its URL.
    pub fn url(&self) -> String {
        format!("redis://{}/", self.addr)
    }
}

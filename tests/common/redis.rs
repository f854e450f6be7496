//! A Redis server of the tests' own: Debian's `redis-server` (installed by `scripts/services`),
//! on a free loopback port, keeping nothing on disk unless asked to, killed when dropped; and
//! killed and started again on the same port, as an operator's restart would.

use std::net::SocketAddr;
use std::path::PathBuf;

/// A running `redis-server`, killed when dropped.
pub struct Redis {
    pub addr: SocketAddr,
    /// Where it keeps its data (an append-only file written at every command), if it does.
    dir: Option<PathBuf>,
    child: Option<tokio::process::Child>,
}

impl Redis {
    /// Starts one, and waits until it accepts connections. Fails, saying what to do, when
    /// `redis-server` is not installed: the tests that need it never pass without it.
    pub async fn start() -> Self {
        Self::at(super::free_addr(), None).await
    }

    /// Starts one that keeps its data on disk (fsynced at every write), so that a restart finds
    /// it again.
    pub async fn persistent() -> Self {
        let addr = super::free_addr();
        let dir = std::env::temp_dir().join(format!(
            "ladoga-redis-{}-{}",
            std::process::id(),
            addr.port()
        ));
        std::fs::create_dir_all(&dir).expect("a folder for Redis's data");
        Self::at(addr, Some(dir)).await
    }

    /// A Redis that is not running yet, whose address is reserved: [`Self::restart`] starts it.
    pub fn not_started() -> Self {
        Self {
            addr: super::free_addr(),
            dir: None,
            child: None,
        }
    }

    async fn at(addr: SocketAddr, dir: Option<PathBuf>) -> Self {
        let mut redis = Self {
            addr,
            dir,
            child: None,
        };
        redis.restart().await;
        redis
    }

    /// Kills it (SIGKILL: nothing is saved at the end), and waits until it is gone.
    pub async fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill().await;
        }
    }

    /// Kills it if it runs, and starts it again on the same port: empty, or with the data it
    /// kept on disk. Waits until it accepts connections.
    pub async fn restart(&mut self) {
        self.kill().await;
        let mut command = tokio::process::Command::new("redis-server");
        command
            .args([
                "--bind",
                "127.0.0.1",
                "--port",
                &self.addr.port().to_string(),
            ])
            .args(["--save", "", "--protected-mode", "yes"]);
        match &self.dir {
            Some(dir) => command
                .args(["--appendonly", "yes", "--appendfsync", "always", "--dir"])
                .arg(dir),
            None => command.args(["--appendonly", "no"]),
        };
        let child = command
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|error| {
                panic!(
                    "cannot start redis-server ({error}): `scripts/services install` installs it"
                )
            });
        self.child = Some(child);
        super::wait_for(self.addr).await;
    }

    /// Its URL.
    pub fn url(&self) -> String {
        format!("redis://{}/", self.addr)
    }

    /// Two replicas of `app` in this process sharing it: each keeps its runs and sessions here,
    /// sealed with one secret, and seals its rounds with the same.
    pub async fn two_replicas(&self, app: impl Fn() -> neva::App) -> [super::Server; 2] {
        let secret = "the replicas' shared secret, 40 bytes....";
        let mut replicas = Vec::new();
        for _ in 0..2 {
            let store = ladoga::RedisStore::connect(&self.url())
                .await
                .expect("connects");
            let app = app().add_singleton(ladoga::Runs::new(store).with_secret(secret));
            // Under `legacy-spec` there are no rounds to seal.
            #[cfg(not(feature = "legacy-spec"))]
            let app = app.with_request_state_secret(secret);
            replicas.push(super::Server::start(app).await);
        }
        replicas.try_into().unwrap_or_else(|_| unreachable!("two"))
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.start_kill();
        }
        if let Some(dir) = &self.dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

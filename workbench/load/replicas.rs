//! The boards the load runs against, each on an address of its own; in the restart mode,
//! stopped with SIGTERM and started again in turn while the sessions call, as a rolling deploy
//! does.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use neva::prelude::*;

/// How long a board has to drain and exit after SIGTERM: its grace period (`--drain`, 30 s)
/// and a margin.
const EXIT_LIMIT: Duration = Duration::from_secs(40);

/// How to start a board.
pub struct Launch {
    /// The `board` binary.
    pub binary: PathBuf,
    /// Its arguments but `--http`.
    pub args: Vec<String>,
    /// Its environment beside this process's.
    pub env: Vec<(String, String)>,
    /// The bearer token a client sends it, if it takes tokens (`--auth`).
    pub token: Option<String>,
}

/// A running board.
pub struct Board {
    /// Where it serves.
    pub addr: SocketAddr,
    child: tokio::process::Child,
}

impl Board {
    /// Starts a board at `addr` as `launch` says, and waits until it answers MCP.
    pub async fn start(launch: &Launch, addr: SocketAddr) -> Result<Self, String> {
        let child = tokio::process::Command::new(&launch.binary)
            .args(["--http", &addr.to_string()])
            .args(&launch.args)
            .envs(launch.env.iter().map(|(name, value)| (name, value)))
            .env("RUST_LOG", "warn")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|error| format!("cannot start {}: {error}", launch.binary.display()))?;
        let board = Self { addr, child };
        board.wait_until_it_serves(launch.token.as_deref()).await?;
        Ok(board)
    }

    /// Its process id.
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// Kills it.
    pub async fn kill(mut self) -> std::io::Result<()> {
        self.child.kill().await
    }

    /// Waits until an MCP client (sending `token`, if any) connects to it, for at most 30
    /// seconds.
    async fn wait_until_it_serves(&self, token: Option<&str>) -> Result<(), String> {
        super::sessions::wait_for(self.addr).await?;
        let mut client = Client::new().with_options(|opt| {
            opt.with_http(|http| {
                let http = http.bind(self.addr.to_string()).with_endpoint("/mcp");
                match token {
                    Some(token) => http.with_auth(token),
                    None => http,
                }
            })
            .with_timeout(Duration::from_secs(30))
        });
        client
            .connect()
            .await
            .map_err(|error| format!("the board at {} does not serve: {error}", self.addr))?;
        let _ = client.disconnect().await;
        Ok(())
    }
}

/// One restart of one board.
pub struct Restart {
    /// Which board, from 1.
    pub board: usize,
    /// From SIGTERM to its exit.
    pub drained: Duration,
    /// Its exit code (`None` when a signal ended it).
    pub code: Option<i32>,
    /// From its start to its first MCP answer.
    pub started: Duration,
}

/// Restarts the boards one after the other, `pause` apart, until `until`: SIGTERM, its exit,
/// the same board started again at the same address, and its first MCP answer.
pub async fn restart_in_turn(
    boards: &mut [Board],
    launch: &Launch,
    pause: Duration,
    until: Instant,
) -> Result<Vec<Restart>, String> {
    let mut restarts = Vec::new();
    for index in (0..boards.len()).cycle() {
        tokio::time::sleep(pause).await;
        if Instant::now() + pause > until {
            break;
        }
        let board = &mut boards[index];
        let pid = board.pid().ok_or("a board exited on its own")?;
        let signalled = Instant::now();
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid as i32),
            nix::sys::signal::Signal::SIGTERM,
        )
        .map_err(|error| format!("cannot send SIGTERM to board {}: {error}", index + 1))?;
        let status = tokio::time::timeout(EXIT_LIMIT, board.child.wait())
            .await
            .map_err(|_| format!("board {} still runs 40 s after SIGTERM", index + 1))?
            .map_err(|error| format!("board {}'s exit: {error}", index + 1))?;
        let drained = signalled.elapsed();
        let starting = Instant::now();
        *board = Board::start(launch, board.addr).await?;
        restarts.push(Restart {
            board: index + 1,
            drained,
            code: status.code(),
            started: starting.elapsed(),
        });
    }
    Ok(restarts)
}

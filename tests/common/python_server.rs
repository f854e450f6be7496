//! An MCP server of the official Python SDK, from a script of `tests/peers/`, on a free loopback
//! port: the SDK of this build's MCP generation (`mcp` 2.x, or 1.x under `legacy-spec`),
//! installed by `scripts/peers install`.

use std::net::SocketAddr;

use tokio::process::{Child, Command};

/// The variable naming the Python whose SDK speaks this build's MCP generation.
pub const PYTHON: &str = if cfg!(feature = "legacy-spec") {
    "LADOGA_PYTHON_LEGACY"
} else {
    "LADOGA_PYTHON"
};

/// `tests/peers/{script}` run with its port and `args`, once it listens; killed when the child
/// is dropped.
pub async fn start(script: &str, args: &[&str]) -> (Child, SocketAddr) {
    let python = std::env::var(PYTHON)
        .unwrap_or_else(|_| panic!("{PYTHON} names a Python with the MCP SDK (see scripts/test)"));
    let path = format!("{}/../tests/peers/{script}", env!("CARGO_MANIFEST_DIR"));
    let addr = super::free_addr();
    let child = Command::new(python)
        .arg(path)
        .arg(addr.port().to_string())
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the Python server starts");
    super::wait_for(addr).await;
    (child, addr)
}

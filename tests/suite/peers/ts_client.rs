//! The `board` example driven by the official MCP TypeScript client
//! (`@modelcontextprotocol/client` 2.4.0, `versionNegotiation: { mode: 'auto' }`) over
//! Streamable HTTP, with the scripted model behind real HTTP.
//!
//! Ignored by a plain `cargo test`, since it needs Node.js and the client: `scripts/test`
//! installs it with `scripts/peers install` and runs this with `--ignored`, the `node_modules`
//! folder in `LADOGA_TS_SDK`.

use crate::common::{board_over_http, peer};
use tokio::process::Command;

const CLIENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/peers/ts_client.mjs");

#[tokio::test]
#[ignore = "needs Node.js and the MCP TypeScript client: run by scripts/test"]
async fn the_typescript_client_calls_plan_week_over_streamable_http() {
    let sdk = std::env::var("LADOGA_TS_SDK")
        .expect("LADOGA_TS_SDK names the node_modules holding the client (see scripts/test)");
    let script = peer::script();
    let model = script.serve().await.expect("serves");
    let (_board, addr) = board_over_http(&model.url(), "scripted").await;

    let mut client = Command::new("node");
    client
        .arg(CLIENT)
        .arg(format!("http://{addr}/mcp"))
        .env("LADOGA_TS_SDK", sdk);
    let answer = peer::run(client).await;
    peer::check(&answer, &script);
}

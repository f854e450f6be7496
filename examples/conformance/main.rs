//! `conformance`: the server the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`) tests, with the tools, prompts, resources and completions
//! its server scenarios call (`test_simple_text`, `test_prompt_with_arguments`,
//! `test://static-text`, …), each answering as the suite checks.
//!
//! ```text
//! conformance [--http 127.0.0.1:PORT]
//! ```
//!
//! Served over Streamable HTTP at `/mcp`. The default build speaks MCP 2026-07-28 (stateless,
//! input requests as `InputRequiredResult`, tasks as the `io.modelcontextprotocol/tasks`
//! extension); built with `--features legacy-spec` it speaks MCP 2025-11-25 (sessions, sampling
//! and elicitation as requests to the client, logging). `scripts/conformance` runs the suite
//! against both; docs/conformance.md has the results.

mod content;
#[cfg(not(feature = "legacy-spec"))]
mod input_required;
#[cfg(feature = "legacy-spec")]
mod legacy;
mod prompts;
mod resources;
#[cfg(not(feature = "legacy-spec"))]
mod stateless;
#[cfg(not(feature = "legacy-spec"))]
mod tasks;

use clap::Parser;
use neva::prelude::*;

/// The server the MCP conformance suite tests.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Cli {
    /// Serve over Streamable HTTP at this loopback address, endpoint `/mcp`.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:3000")]
    http: String,
}

/// The target of the log lines the fixture's tools send their caller.
const TO_CALLER: &str = "conformance";

/// Logs on stderr (`RUST_LOG`, `warn` by default), and sends the progress and the log lines
/// (target [`TO_CALLER`]) of a request to the client that made it (neva's layer).
fn log() {
    use neva::types::notification;
    use tracing_subscriber::EnvFilter;
    use tracing_subscriber::filter::filter_fn;
    use tracing_subscriber::prelude::*;

    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .without_time()
        .with_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()));
    // Every span, so the layer finds the request an event belongs to.
    let for_caller = filter_fn(|event| {
        event.is_span() || event.target() == "progress" || event.target() == TO_CALLER
    });
    tracing_subscriber::registry()
        .with(stderr)
        .with(notification::fmt::layer().with_filter(for_caller))
        .init();
}

#[tokio::main]
async fn main() {
    let cli = Cli::parse();
    log();
    let app = App::new().without_greeting().with_options(|opt| {
        let opt = opt
            .with_name("ladoga-conformance")
            .with_version(env!("CARGO_PKG_VERSION"))
            .with_tools(|tools| tools.with_list_changed())
            .with_prompts(|prompts| prompts.with_list_changed())
            .with_http(|http| http.bind(&cli.http).with_endpoint("/mcp"));
        #[cfg(not(feature = "legacy-spec"))]
        let opt = opt.with_tasks();
        #[cfg(feature = "legacy-spec")]
        let opt = opt
            .with_resources(|resources| resources.with_subscribe())
            .with_tasks(|tasks| tasks.with_cancel().with_tools());
        opt
    });
    // Each task answered to the caller that created it.
    let app = ladoga::TaskOwners::new().serve(app);
    app.run().await;
}

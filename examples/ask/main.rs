//! `ask`: calls one tool of an MCP server over Streamable HTTP, as an MCP client would, and
//! prints its result. The demo uses it to call `plan_week` on `board`.
//!
//! ```text
//! ask [--url http://127.0.0.1:3000/mcp] TOOL [NAME=VALUE ...]
//! ```
//!
//! With `LADOGA_TOKEN` set, its value goes with each request as the bearer token (`board --auth`
//! requires one). An environment variable, not a flag: a command line shows in `ps`.

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use neva::prelude::*;

/// The environment variable whose value, if set, is sent as the bearer token.
const TOKEN_VAR: &str = "LADOGA_TOKEN";

/// Calls one tool of an MCP server and prints the result. With `LADOGA_TOKEN` set, its value is
/// sent as the bearer token.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Cli {
    /// The server's address and endpoint.
    #[arg(long, default_value = "http://127.0.0.1:3000/mcp")]
    url: String,
    /// The tool to call.
    tool: String,
    /// Its arguments, as `name=value`; a value that parses as JSON is sent as that JSON.
    #[arg(value_parser = argument)]
    args: Vec<(String, serde_json::Value)>,
}

fn argument(text: &str) -> Result<(String, serde_json::Value), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not `name=value`"))?;
    let value = serde_json::from_str(value).unwrap_or_else(|_| value.into());
    Ok((name.to_owned(), value))
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match call(&cli).await {
        Ok(result) => {
            for content in &result.content {
                match content.as_text() {
                    Some(text) => println!("{}", text.text),
                    None => println!("{content:?}"),
                }
            }
            if result.is_error {
                eprintln!("ask: `{}` answered with a tool error", cli.tool);
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("ask: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn call(cli: &Cli) -> Result<CallToolResponse, Error> {
    let (addr, endpoint) = split_url(&cli.url)?;
    let token = std::env::var(TOKEN_VAR)
        .ok()
        .filter(|token| !token.is_empty());
    let mut client = Client::new().with_options(|opt| {
        opt.with_http(|http| {
            let http = http.bind(addr).with_endpoint(endpoint);
            match token {
                Some(token) => http.with_auth(token),
                None => http,
            }
        })
        .with_timeout(Duration::from_secs(600))
    });
    client.connect().await?;
    let args: Vec<(String, serde_json::Value)> = cli.args.clone();
    let result = client.tools().call(cli.tool.as_str(), args).await;
    client.disconnect().await?;
    result
}

/// `http://127.0.0.1:3000/mcp` as the address and the endpoint neva's client takes.
fn split_url(url: &str) -> Result<(&str, &str), Error> {
    let rest = url.strip_prefix("http://").ok_or_else(|| {
        Error::new(
            ErrorCode::InvalidParams,
            format!("`{url}` is not an http:// URL"),
        )
    })?;
    Ok(match rest.find('/') {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, "/mcp"),
    })
}

//! `ask`: calls one tool of an MCP server over Streamable HTTP, as an MCP client would, and
//! prints its result. The demo uses it to call `plan_week` on `board`.
//!
//! ```text
//! ask [--url http://127.0.0.1:3000/mcp] [--model-url URL [--model NAME]] TOOL [NAME=VALUE ...]
//! ```
//!
//! With `--model-url`, `ask` answers the server's sampling requests (`sampling/createMessage`)
//! with that OpenAI-compatible model server, as a host answers with its own model: a tool on
//! `ladoga::CallerModel` runs on it. Without it, `ask` declares no sampling.
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
    /// Answer the server's sampling requests with the OpenAI-compatible model server at this
    /// URL.
    #[arg(long, value_name = "URL")]
    model_url: Option<String>,
    /// The model name to ask that server for.
    #[arg(
        long,
        value_name = "NAME",
        default_value = "qwen3",
        requires = "model_url"
    )]
    model: String,
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
            say_cost(&result);
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("ask: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Says what the run cost, on stderr, when the result's report says: its `cost_usd`, or that it
/// is unknown.
fn say_cost(result: &CallToolResponse) {
    let Some(first) = result.content.first() else {
        return;
    };
    let block = serde_json::to_value(first).unwrap_or_default();
    let report = &block["_meta"][ladoga::REPORT_KEY];
    match report.get("cost_usd").map(|cost| cost.as_f64()) {
        Some(Some(cost)) => eprintln!("ask: the run cost ${cost:.6}"),
        Some(None) => eprintln!("ask: what the run cost is unknown (its model has no known price)"),
        None => {}
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
    if let Some(url) = &cli.model_url {
        answer_sampling(&mut client, url, &cli.model)?;
        // Each of the run's model requests is a round of its own: room for a long run's.
        #[cfg(not(feature = "legacy-spec"))]
        {
            client = client.with_options(|opt| opt.with_max_mrtr_rounds(64));
        }
    }
    client.connect().await?;
    let args: Vec<(String, serde_json::Value)> = cli.args.clone();
    let result = client.tools().call(cli.tool.as_str(), args).await;
    client.disconnect().await?;
    result
}

/// Has `client` answer each sampling request with the model `name` of the server at `url`.
fn answer_sampling(client: &mut Client, url: &str, name: &str) -> Result<(), Error> {
    let model = svir::Client::openai(url).build().map_err(|error| {
        Error::new(
            ErrorCode::InvalidParams,
            format!("`{url}` is no model server's URL: {error}"),
        )
    })?;
    let (model, name) = (std::sync::Arc::new(model), name.to_owned());
    #[allow(deprecated)] // sampling, kept in MCP 2026-07-28 for migration
    client.map_sampling(
        move |params: neva::types::sampling::CreateMessageRequestParams| {
            let (model, name) = (model.clone(), name.clone());
            async move {
                let request = neva::svir::sampling_request(name, params)?;
                let done = model.complete(&request).await.map_err(|error| {
                    eprintln!("ask: the model did not answer a sampling request: {error}");
                    Error::new(ErrorCode::InternalError, "the model did not answer")
                })?;
                neva::svir::sampling_result(&request, done)
            }
        },
    );
    Ok(())
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

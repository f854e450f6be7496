//! A body may return a `String`, a `&str`, a whole `svir::Request`, or a `Result` of one, and
//! take `Context` and `Dc<T>` besides its MCP arguments.

use ladoga::orchestrator;
use neva::{di::Dc, prelude::*};

struct Style(String);

/// A plain brief.
#[orchestrator]
async fn plain(focus: String) -> String {
    focus
}

/// A fixed brief, with no argument.
#[orchestrator(turns = 1)]
async fn fixed() -> &'static str {
    "Tidy the board."
}

/// A whole request.
#[orchestrator(turns = 2, on_limit = "error")]
async fn whole(topic: String, words: i64) -> svir::Request {
    svir::Request::new("any")
        .temperature(0.2)
        .user(format!("{words} words on {topic}"))
}

/// A brief that may fail, from the context and an injected value.
#[orchestrator(recurse = false)]
async fn fallible(ctx: Context, style: Dc<Style>, topic: Option<String>) -> Result<String, Error> {
    let tools = ctx.tools().list().await.len();
    let topic = topic.ok_or_else(|| Error::new(ErrorCode::InvalidParams, "no topic"))?;
    Ok(format!("{} {topic} with {tools} tools", style.0))
}

fn main() {}

//! `prompt` and `attach`: a server prompt opening the brief, resources attached to it, their
//! URIs written with the parameters' values, beside `Context` and `Dc<T>` parameters.

use ladoga::orchestrator;
use neva::{di::Dc, prelude::*};

struct Style(String);

/// A prompt, offered every parameter; no resource.
#[orchestrator(prompt = "review_board")]
async fn reviewed(focus: String, depth: Option<i64>) -> String {
    format!("{focus} {depth:?}")
}

/// Resources only, one of them by the parameters' values.
#[orchestrator(attach = ["board://tasks", "board://tasks/{status}/{limit}"])]
async fn attached(status: String, limit: u32) -> String {
    format!("{status} {limit}")
}

/// Both, with no parameter at all.
#[orchestrator(prompt = "tidy", attach = ["file:///notes.md"])]
async fn fixed() -> &'static str {
    "Tidy the board."
}

/// Both, beside a context and an injected value the prompt is not offered.
#[orchestrator(prompt = "styled", attach = ["board://styles/{topic}"], output = String)]
async fn styled(ctx: Context, style: Dc<Style>, topic: String) -> svir::Request {
    let _ = ctx;
    svir::Request::new("any").user(format!("{} {topic}", style.0))
}

fn main() {}

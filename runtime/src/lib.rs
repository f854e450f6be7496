//! Ladoga turns an annotated async function into an agentic tool on a
//! [neva](https://docs.rs/neva) MCP server.
//!
//! ```no_run
//! use ladoga::orchestrator;
//! use neva::prelude::*;
//!
//! #[tool(descr = "Adds a task to the board")]
//! async fn add_task(title: String) -> String {
//!     format!("added {title}")
//! }
//!
//! /// Plans the week, keeping the board up to date.
//! #[orchestrator(system = "You keep the user's task board with the tools you have.", turns = 8, depth = 4)]
//! async fn plan_week(focus: String) -> String {
//!     format!("Plan my week around {focus}.")
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let client = svir::Client::openai("http://127.0.0.1:1234").build()?;
//!     let model = ladoga::Model::new(client, "qwen3");
//!     App::new()
//!         .with_options(|opt| opt.with_default_http())
//!         .add_singleton(model)
//!         .run()
//!         .await;
//!     Ok(())
//! }
//! ```
//!
//! `plan_week` is an MCP tool like any `#[tool]`. A call runs the body, which builds the brief,
//! then the bounded loop: the model is offered the server's other tools (as the caller may call
//! them), the calls of each turn run concurrently in-process, their results go back, and the
//! model's answer is the tool's result. See the README for every macro argument.
//!
//! The loop is ordinary Rust: [`Orchestration`] runs it over any `svir::Toolbox` and any
//! [`CompletionModel`], [`Orchestrator`] inside any neva handler, and [`testing`] provides a
//! scripted model for tests.

#![warn(missing_docs, unreachable_pub)]
#![deny(rustdoc::broken_intra_doc_links)]

pub mod approval;
mod brief;
mod error;
pub mod limits;
pub mod model;
pub mod observe;
mod outcome;
mod run;
pub mod schema;
pub mod store;
pub mod testing;
mod tool;
pub mod toolbox;
mod usage;

#[doc(hidden)]
pub mod __private;

/// The README's Rust blocks, compiled (and run, unless marked `no_run`) by the doc tests, so the
/// README cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
mod readme {}

// The front door: what a server needs to write an orchestrator, with or without the macro.
#[doc(inline)]
pub use ladoga_macros::orchestrator;

pub use crate::approval::Approvals;
pub use crate::brief::IntoBrief;
pub use crate::error::RunError;
pub use crate::limits::{DEFAULT_OUTPUT_RETRIES, DEFAULT_TURNS, Limits, OnLimit};
pub use crate::model::{CompletionModel, DEFAULT_RETRIES, Fallback, Model};
pub use crate::outcome::{Outcome, Stop, TokenUsage};
pub use crate::run::{Drain, Orchestration};
pub use crate::tool::{DEFAULT_DEPTH, Orchestrator};
pub use crate::toolbox::{ToolPattern, ToolSelection};

// Every other name the crate root has had, kept working: each is documented in its module.
#[doc(no_inline)]
pub use crate::approval::{Approval, Approver, AskFuture, Asked, Decision, Question};
#[doc(no_inline)]
pub use crate::limits::DEFAULT_MAX_RESULT;
#[cfg(not(feature = "legacy-spec"))]
#[doc(no_inline)]
pub use crate::observe::TaskProgress;
#[doc(no_inline)]
pub use crate::observe::metrics;
#[doc(no_inline)]
pub use crate::observe::{DEFAULT_STREAM_INTERVAL, REPORT_KEY, STREAM_LOGGER};
#[doc(no_inline)]
pub use crate::schema::{NormalizedTools, SchemaError, SchemaProfile};
#[cfg(feature = "redis")]
#[doc(no_inline)]
pub use crate::store::RedisStore;
#[doc(no_inline)]
pub use crate::store::{
    MemoryRuns, PAUSED_RUN_TTL, RunStore, Runs, StoreError, StoreFuture, round_unlocked,
};
#[doc(no_inline)]
pub use crate::toolbox::{DEFAULT_CALL_TIMEOUT, LiveTools, PatternError, ToolUnion};

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

#![warn(missing_docs)]

mod approvals;
mod brief;
mod briefing;
mod drain;
mod elicitation;
mod error;
mod fallback;
mod limits;
pub mod metrics;
mod model;
mod on_limit;
mod orchestration;
mod orchestrator;
mod outcome;
mod partial;
mod paused;
mod progress;
mod ran;
#[cfg(feature = "redis")]
mod redis_store;
mod remote;
mod repeats;
mod report;
mod result_limit;
mod round_lock;
mod run_seal;
mod run_store;
mod schema;
mod selection;
mod shared_usage;
mod streaming;
#[cfg(not(feature = "legacy-spec"))]
mod task_progress;
mod telemetry;
pub mod testing;
mod typed;
mod union;

#[doc(hidden)]
pub mod __private;

/// The README's Rust blocks, compiled (and run, unless marked `no_run`) by the doc tests, so the
/// README cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
mod readme {}

pub use approvals::{Approval, Approvals, Approver, AskFuture, Asked, Decision, Question};
pub use brief::IntoBrief;
pub use drain::Drain;
pub use error::RunError;
pub use fallback::Fallback;
pub use ladoga_macros::orchestrator;
pub use limits::{DEFAULT_OUTPUT_RETRIES, DEFAULT_TURNS, Limits};
pub use model::{CompletionModel, DEFAULT_RETRIES, Model};
pub use on_limit::OnLimit;
pub use orchestration::Orchestration;
pub use orchestrator::{DEFAULT_DEPTH, Orchestrator};
pub use outcome::{Outcome, Stop, TokenUsage};
#[cfg(feature = "redis")]
pub use redis_store::RedisStore;
pub use remote::LiveTools;
pub use report::REPORT_KEY;
pub use result_limit::DEFAULT_MAX_RESULT;
pub use round_lock::round_unlocked;
pub use run_store::{MemoryRuns, PAUSED_RUN_TTL, RunStore, Runs, StoreError, StoreFuture};
pub use schema::{NormalizedTools, SchemaError, SchemaProfile};
pub use selection::{PatternError, ToolPattern, ToolSelection};
pub use streaming::{DEFAULT_STREAM_INTERVAL, STREAM_LOGGER};
#[cfg(not(feature = "legacy-spec"))]
pub use task_progress::TaskProgress;
pub use union::{DEFAULT_CALL_TIMEOUT, ToolUnion};

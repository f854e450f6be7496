#![doc = include_str!("docs/ladoga.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs, unreachable_pub)]
#![deny(rustdoc::broken_intra_doc_links)]

pub mod access;
pub mod approval;
mod brief;
pub mod context;
pub mod cost;
#[cfg(feature = "restate")]
#[cfg_attr(docsrs, doc(cfg(feature = "restate")))]
pub mod durable;
mod error;
pub mod guard;
pub mod limits;
pub mod metrics;
pub mod model;
pub mod observe;
mod outcome;
mod registry;
mod run;
pub mod schema;
pub mod session;
pub mod store;
pub mod testing;
mod tool;
pub mod toolbox;
mod trace;
mod tree;
mod usage;
mod wire;

#[doc(hidden)]
pub mod __private;

#[cfg(doctest)]
mod doctests;

// The front door: what a server needs to write an orchestrator, with or without the macro.
#[doc(inline)]
#[doc = include_str!("docs/orchestrator.md")]
pub use ladoga_macros::orchestrator;

pub use crate::access::TaskOwners;
pub use crate::approval::Approvals;
pub use crate::brief::IntoBrief;
pub use crate::cost::Price;
pub use crate::error::RunError;
pub use crate::limits::{
    DEFAULT_MAX_ARGUMENTS, DEFAULT_OUTPUT_RETRIES, DEFAULT_RUN_TIMEOUT, DEFAULT_TURNS, Limits,
    OnLimit,
};
pub use crate::model::{
    CALLER_MODEL_STATE_BYTES, CallerModel, CompletionModel, DEFAULT_RESPONSE_TIMEOUT,
    DEFAULT_RETRIES, Fallback, Model,
};
pub use crate::outcome::{NestedRun, Outcome, Steering, Stop, TokenUsage, UnknownCall};
pub use crate::run::{Drain, Orchestration};
pub use crate::session::Session;
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
pub use crate::toolbox::{
    DEFAULT_CALL_TIMEOUT, LiveTools, MAX_REMOTE_BYTES, MAX_REMOTE_SCHEMA_DEPTH,
    MAX_REMOTE_TOOL_BYTES, MAX_REMOTE_TOOLS, PatternError, ToolUnion,
};

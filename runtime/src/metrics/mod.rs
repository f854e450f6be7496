//! The metrics a Ladoga server records: its runs, their model requests, tool calls, approvals
//! and store errors, and the MCP tool calls it answers.
//!
//! Ladoga records through the [`metrics`](https://docs.rs/metrics) facade, the crate most Rust
//! servers already record with. Until the server installs a recorder, a recording goes to the
//! facade's no-op one: no allocation and no exporter in the runtime, for a server that does not
//! watch. A server picks its own: for Prometheus `metrics-exporter-prometheus` (the `board`
//! example's `--admin` serves its text format on `/metrics`), for OpenTelemetry a bridge to its
//! SDK. `prometheus-client` would have put a registry in the runtime's API and made every server
//! carry it, watched or not; OpenTelemetry's SDK and exporter likewise, with a runtime of their
//! own. Each series' handle is registered once and kept (`handles.rs`), so that a recording
//! costs about what recording into the handle costs: with a Prometheus recorder, within 1 % of
//! a run's instructions (see the benchmarks).
//!
//! The names follow OpenTelemetry's GenAI and MCP semantic conventions where they have one,
//! written as Prometheus names (dots as underscores, the unit as a suffix, counters ending in
//! `_total`); the others start with `ladoga_`. Every constant below is one name:
//!
//! | name | type | labels | what it counts |
//! | --- | --- | --- | --- |
//! | `gen_ai_client_token_usage` | histogram | `gen_ai_operation_name`, `gen_ai_provider_name`, `gen_ai_request_model`, `gen_ai_token_type` (`input`, `output`) | tokens of one model request, as its server reported them |
//! | `gen_ai_client_operation_duration_seconds` | histogram | `gen_ai_operation_name`, `gen_ai_provider_name`, `gen_ai_request_model`, `error_type` (`model`, on a failure only) | one model request, from sent to answered or failed |
//! | `gen_ai_client_operation_time_to_first_chunk_seconds` | histogram | `gen_ai_operation_name`, `gen_ai_provider_name`, `gen_ai_request_model` | from a streamed request's sending to its first piece |
//! | `ladoga_runs_in_flight` | gauge | | rounds of runs going on now (a run that waits for an approval is not one) |
//! | `ladoga_runs_ended_total` | counter | `ladoga_stop` (see below), `error_type` (on a failure only) | runs that ended |
//! | `ladoga_run_turns` | histogram | `ladoga_stop` | model requests of a run that ended with an outcome |
//! | `ladoga_tool_calls_total` | counter | `gen_ai_tool_name`, `outcome` (`ok`, `error`) | calls a run's model made that ran |
//! | `ladoga_approvals_total` | counter | `decision` (`approved`, `declined`, `cancelled`, `unavailable`) | answers to approval questions |
//! | `ladoga_store_errors_total` | counter | `operation` (`put`, `take`, `get`, `commit`, `lock`, `unlock`) | store operations that failed: a paused run kept or taken, a final round read or committed, its lock taken or let go of |
//! | `mcp_server_operation_duration_seconds` | histogram | `mcp_method_name` (`tools/call`), `gen_ai_tool_name`, `error_type` (on a failure only) | MCP tool calls the server answered, from a client or a run ([`serve`]) |
//!
//! `ladoga_stop` is [`Stop::name`](crate::Stop::name) (`answered`, `turns`, `deadline`,
//! `budget`, `stuck`, `depth`) for a run that stopped there, `cancelled` for a run its caller
//! dropped, and `error` for a run that failed otherwise; `error_type` names why a run failed
//! (`model`, `brief`, `toolbox`, `output`, `store`, `stopped`, `gone`, or the bound: `turns`,
//! `deadline`, `budget`, `stuck`). A round that pauses for its caller's answer ends no run:
//! the run ends in the round that finishes it. Runs nested in a run (an orchestrator called
//! in-process) are runs too.
//!
//! No label carries what a caller sent or a model wrote: no argument, prompt or token. Model
//! names are the server's own configuration. A tool name is the model's choice, which may be
//! made up: it is the name only when the run offered a tool by that name, else `unknown`; and
//! for an MCP call, the name only when neva answered it (a call it refused, of a tool it does not
//! have among others, is `unknown`, with the JSON-RPC error code as its `error_type`).
//!
//! A Prometheus recorder renders histograms as summaries unless it is given buckets:
//! [`HISTOGRAM_BUCKETS`] has OpenTelemetry's for the conventions' histograms, and Ladoga's own
//! for the turns.
//!
//! ```
//! // What an exporter needs to know, for each histogram, before it renders one.
//! for (name, buckets) in ladoga::metrics::HISTOGRAM_BUCKETS {
//!     assert!(name.starts_with("gen_ai_") || name.starts_with("ladoga_") || name.starts_with("mcp_"));
//!     assert!(buckets.windows(2).all(|pair| pair[0] < pair[1]));
//! }
//! ```

mod handles;
mod mcp;
mod names;
mod record;

pub use self::mcp::serve;
pub use self::names::{
    APPROVALS, HISTOGRAM_BUCKETS, MCP_OPERATION_DURATION, MODEL_COST, OPERATION_DURATION,
    RUN_TURNS, RUNS_ENDED, RUNS_IN_FLIGHT, SESSIONS_LET_GO, STORE_ERRORS, TIME_TO_FIRST_CHUNK,
    TOKEN_USAGE, TOOL_CALLS, UNKNOWN_TOOL, describe,
};
pub(crate) use self::record::{
    approval, model_cost, model_request, round_over, run_began, run_turns, session_let_go,
    store_failed, tool_called,
};

//! The name of each metric, its histogram buckets, and its description for the recorder.

use metrics::{Unit, describe_counter, describe_gauge, describe_histogram};

use super::record::in_flight;

/// Tokens of one model request, by `gen_ai_token_type` (`input`, `output`).
pub const TOKEN_USAGE: &str = "gen_ai_client_token_usage";
/// How long one model request took, in seconds.
pub const OPERATION_DURATION: &str = "gen_ai_client_operation_duration_seconds";
/// How long a streamed model request took to its first piece, in seconds.
pub const TIME_TO_FIRST_CHUNK: &str = "gen_ai_client_operation_time_to_first_chunk_seconds";
/// Rounds of runs going on now.
pub const RUNS_IN_FLIGHT: &str = "ladoga_runs_in_flight";
/// Runs that ended, by `ladoga_stop` and, for a failure, `error_type`.
pub const RUNS_ENDED: &str = "ladoga_runs_ended_total";
/// Model requests of a run that ended with an outcome.
pub const RUN_TURNS: &str = "ladoga_run_turns";
/// Calls of a run's model that ran, by `gen_ai_tool_name` and `outcome`.
pub const TOOL_CALLS: &str = "ladoga_tool_calls_total";
/// Answers to approval questions, by `decision`.
pub const APPROVALS: &str = "ladoga_approvals_total";
/// Store operations that failed, by `operation`.
pub const STORE_ERRORS: &str = "ladoga_store_errors_total";
/// Idle sessions let go to make room for another, a session bound reached.
pub const SESSIONS_LET_GO: &str = "ladoga_sessions_let_go_total";
/// What model requests cost, in millionths of a US dollar, by `gen_ai_request_model`: each
/// request priced (see [`cost`](crate::cost)); one with no known price is not counted.
pub const MODEL_COST: &str = "ladoga_model_cost_microdollars_total";
/// MCP `tools/call` requests answered, in seconds, by `gen_ai_tool_name`.
pub const MCP_OPERATION_DURATION: &str = "mcp_server_operation_duration_seconds";

/// The label of a tool name that is not one the run offered, or an MCP call neva refused.
pub const UNKNOWN_TOOL: &str = "unknown";

/// OpenTelemetry's bucket bounds for `gen_ai.client.token.usage`.
const TOKEN_BUCKETS: &[f64] = &[
    1.0,
    4.0,
    16.0,
    64.0,
    256.0,
    1024.0,
    4096.0,
    16384.0,
    65536.0,
    262_144.0,
    1_048_576.0,
    4_194_304.0,
    16_777_216.0,
    67_108_864.0,
];
/// OpenTelemetry's bucket bounds for the GenAI durations, in seconds.
const DURATION_BUCKETS: &[f64] = &[
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
/// OpenTelemetry's bucket bounds for `mcp.server.operation.duration`, in seconds.
const MCP_DURATION_BUCKETS: &[f64] = &[
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];
/// Bucket bounds for the turns of a run.
const TURN_BUCKETS: &[f64] = &[1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 64.0];

/// The bucket bounds of each histogram, for a Prometheus recorder to render them as histograms.
pub const HISTOGRAM_BUCKETS: &[(&str, &[f64])] = &[
    (TOKEN_USAGE, TOKEN_BUCKETS),
    (OPERATION_DURATION, DURATION_BUCKETS),
    (TIME_TO_FIRST_CHUNK, DURATION_BUCKETS),
    (RUN_TURNS, TURN_BUCKETS),
    (MCP_OPERATION_DURATION, MCP_DURATION_BUCKETS),
];

/// Gives the installed recorder each metric's description and unit, for the `# HELP` lines of
/// Prometheus' text format, and starts [`RUNS_IN_FLIGHT`] at 0, so that it is scraped before the
/// first run. Call it once, after installing the recorder.
pub fn describe() {
    in_flight().set(0.0);
    describe_histogram!(
        TOKEN_USAGE,
        Unit::Count,
        "Tokens of one model request, input or output"
    );
    describe_histogram!(
        OPERATION_DURATION,
        Unit::Seconds,
        "One model request, from sent to answered or failed"
    );
    describe_histogram!(
        TIME_TO_FIRST_CHUNK,
        Unit::Seconds,
        "A streamed model request, from sent to its first piece"
    );
    describe_gauge!(RUNS_IN_FLIGHT, "Rounds of runs going on now");
    describe_counter!(RUNS_ENDED, "Runs that ended, by how they stopped");
    describe_histogram!(
        RUN_TURNS,
        Unit::Count,
        "Model requests of a run that ended with an outcome"
    );
    describe_counter!(
        TOOL_CALLS,
        "Calls of a run's model that ran, by tool and outcome"
    );
    describe_counter!(APPROVALS, "Answers to approval questions, by decision");
    describe_counter!(STORE_ERRORS, "Store operations that failed, by operation");
    describe_counter!(
        SESSIONS_LET_GO,
        "Idle sessions let go to make room for another, a session bound reached"
    );
    describe_counter!(
        MODEL_COST,
        "What priced model requests cost, in millionths of a US dollar, by model"
    );
    describe_histogram!(
        MCP_OPERATION_DURATION,
        Unit::Seconds,
        "MCP tool calls the server answered"
    );
}

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

use std::time::{Duration, Instant};

use metrics::{
    Label, Unit, counter, describe_counter, describe_gauge, describe_histogram, gauge, histogram,
};

use handles::Series;

pub use mcp::serve;

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
    describe_histogram!(
        MCP_OPERATION_DURATION,
        Unit::Seconds,
        "MCP tool calls the server answered"
    );
}

/// A model request to `model`, sent at `sent`, ended with `done` (answered, with the usage its
/// server reported, or failed); its first piece came after `first_piece` if it streamed.
pub(crate) fn model_request<E>(
    model: &str,
    sent: Instant,
    first_piece: Option<Duration>,
    done: &Result<svir::Completion, E>,
) {
    let took = sent.elapsed();
    let of_request = |metric: &'static str, label: Option<(&'static str, &'static str)>| {
        let (key, value) = label.unwrap_or(("", ""));
        let series = Series {
            metric,
            fixed: [key, value],
            name: model,
        };
        handles::histogram(series, || {
            let mut labels = vec![
                Label::from_static_parts("gen_ai_operation_name", "chat"),
                Label::from_static_parts("gen_ai_provider_name", "openai"),
                Label::new("gen_ai_request_model", model.to_owned()),
            ];
            labels.extend(label.map(|(key, value)| Label::from_static_parts(key, value)));
            histogram!(metric, labels)
        })
    };
    match done {
        Ok(done) => {
            of_request(OPERATION_DURATION, None).record(took);
            if let Some(usage) = done.usage {
                let input = Some(("gen_ai_token_type", "input"));
                of_request(TOKEN_USAGE, input).record(usage.input as f64);
                let output = Some(("gen_ai_token_type", "output"));
                of_request(TOKEN_USAGE, output).record(usage.output as f64);
            }
        }
        Err(_) => of_request(OPERATION_DURATION, Some(("error_type", "model"))).record(took),
    }
    if let Some(first) = first_piece {
        of_request(TIME_TO_FIRST_CHUNK, None).record(first);
    }
}

/// The gauge of the rounds in flight.
fn in_flight() -> metrics::Gauge {
    let series = Series {
        metric: RUNS_IN_FLIGHT,
        fixed: ["", ""],
        name: "",
    };
    handles::gauge(series, || gauge!(RUNS_IN_FLIGHT))
}

/// A round of a run began.
pub(crate) fn run_began() {
    in_flight().increment(1.0);
}

/// A round of a run is over, and with it the run, which stopped at `stop` (see the module's
/// table), failed for `error_type`, or paused (`stop` `None`: a round, not a run, ended).
pub(crate) fn round_over(stop: Option<&'static str>, error_type: Option<&'static str>) {
    in_flight().decrement(1.0);
    let Some(stop) = stop else { return };
    let series = Series {
        metric: RUNS_ENDED,
        fixed: [stop, error_type.unwrap_or("")],
        name: "",
    };
    let ended = handles::counter(series, || match error_type {
        None => counter!(RUNS_ENDED, "ladoga_stop" => stop),
        Some(error_type) => {
            counter!(RUNS_ENDED, "ladoga_stop" => stop, "error_type" => error_type)
        }
    });
    ended.increment(1);
}

/// A run stopped at `stop` after `turns` model requests, with an outcome.
pub(crate) fn run_turns(stop: &'static str, turns: usize) {
    let series = Series {
        metric: RUN_TURNS,
        fixed: [stop, ""],
        name: "",
    };
    let turned = handles::histogram(series, || histogram!(RUN_TURNS, "ladoga_stop" => stop));
    turned.record(turns as f64);
}

/// The model's call of `tool` ran, and failed or not; `offered` are the tools the run offered,
/// the only names a label may carry.
pub(crate) fn tool_called(offered: &[svir::Tool], tool: &str, failed: bool) {
    let name = match offered.iter().any(|offered| offered.name == tool) {
        true => tool,
        false => UNKNOWN_TOOL,
    };
    let outcome = if failed { "error" } else { "ok" };
    let series = Series {
        metric: TOOL_CALLS,
        fixed: [outcome, ""],
        name,
    };
    let called = handles::counter(
        series,
        || counter!(TOOL_CALLS, "gen_ai_tool_name" => name.to_owned(), "outcome" => outcome),
    );
    called.increment(1);
}

/// The caller answered an approval question with `decision`
/// ([`Decision::name`](crate::Decision::name)).
pub(crate) fn approval(decision: &'static str) {
    counter!(APPROVALS, "decision" => decision).increment(1);
}

/// A store operation failed: `operation` is `put`, `take`, `get`, `commit`, `lock` or `unlock`.
pub(crate) fn store_failed(operation: &'static str) {
    counter!(STORE_ERRORS, "operation" => operation).increment(1);
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use metrics::{Counter, Gauge, Histogram, Key, KeyName, Metadata, Recorder, SharedString};
    use serde_json::json;
    use svir::{Tool, Tools};

    use crate::run::Orchestration;
    use crate::testing::{Reply, ScriptedModel};

    /// Every counter increment, as the counter's name and labels (`name{key=value,…}`).
    #[derive(Default)]
    struct Counted(Mutex<Vec<String>>);

    impl Recorder for Counted {
        fn describe_counter(&self, _: KeyName, _: Option<metrics::Unit>, _: SharedString) {}
        fn describe_gauge(&self, _: KeyName, _: Option<metrics::Unit>, _: SharedString) {}
        fn describe_histogram(&self, _: KeyName, _: Option<metrics::Unit>, _: SharedString) {}
        fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
            let labels: Vec<String> = key
                .labels()
                .map(|label| format!("{}={}", label.key(), label.value()))
                .collect();
            let counted = format!("{}{{{}}}", key.name(), labels.join(","));
            self.0.lock().unwrap().push(counted);
            Counter::noop()
        }
        fn register_gauge(&self, _: &Key, _: &Metadata<'_>) -> Gauge {
            Gauge::noop()
        }
        fn register_histogram(&self, _: &Key, _: &Metadata<'_>) -> Histogram {
            Histogram::noop()
        }
    }

    #[test]
    fn a_tool_the_run_did_not_offer_is_counted_as_unknown() {
        // Leaked: a recorder is told apart by its address, which no later one may take.
        let recorder: &'static Counted = Box::leak(Box::default());
        let model = ScriptedModel::new([
            Reply::calls([("add_task", json!({})), ("made_up_by_the_model", json!({}))]),
            Reply::text("Done."),
        ]);
        let tools = Tools::new().add_tool(
            Tool::new("add_task", "Adds"),
            |_: serde_json::Value| async { "added" },
        );
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        metrics::with_local_recorder(recorder, || {
            runtime.block_on(async {
                let outcome = Orchestration::new(&model, &tools).run("Plan.").await;
                assert_eq!(outcome.expect("answers").text, "Done.");
            });
        });
        let mut counted = recorder.0.lock().unwrap().clone();
        counted.sort();
        assert_eq!(
            counted,
            [
                "ladoga_runs_ended_total{ladoga_stop=answered}",
                "ladoga_tool_calls_total{gen_ai_tool_name=add_task,outcome=ok}",
                "ladoga_tool_calls_total{gen_ai_tool_name=unknown,outcome=error}",
            ]
        );
    }
}

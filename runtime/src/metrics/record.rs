//! Recording what a run does, each series through its handle.

use std::time::{Duration, Instant};

use metrics::{Label, counter, gauge, histogram};

use super::handles::{self, Series};
use super::names::*;

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
pub(super) fn in_flight() -> metrics::Gauge {
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

/// A request to `model` cost `cost` dollars, when its price is known.
pub(crate) fn model_cost(model: &str, cost: Option<f64>) {
    let Some(cost) = cost.filter(|cost| *cost > 0.0) else {
        return;
    };
    let micros = (cost * 1_000_000.0).round() as u64;
    counter!(MODEL_COST, "gen_ai_request_model" => model.to_owned()).increment(micros);
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

/// An idle session was let go to make room for another.
pub(crate) fn session_let_go() {
    counter!(SESSIONS_LET_GO).increment(1);
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

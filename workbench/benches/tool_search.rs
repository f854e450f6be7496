//! Tool search (`defer`): the first request's size with 300 tools offered up front and with
//! them deferred, and what a search costs. The loop runs in process over an `svir::Tools` of
//! `now` and the 300 tools of `tests/tool_search.rs` (`ops_{service}_{verb}_{record}`, each with
//! two string parameters), against the scripted model, which records each request's body as
//! svir encodes it for Chat Completions. Prints a table and writes `tool_search.json`.
//!
//! The times are the loop's alone: the model is answered in process, at once, and nothing is
//! encoded for it.
//!
//! The search's cost is the time of a run of two turns whose one call is a search, against the
//! same run (tools deferred) whose call is the local tool `now`: the difference is the search,
//! the index of the 300 tools made at the run's first search included. Runs of three turns,
//! calling twice, give a search on an index already made the same way. Each case is timed in
//! interleaved rounds, and the median round kept.
//!
//! `cargo bench -p ladoga-workbench --bench tool_search`; a `cargo test` run does nothing.

#[allow(dead_code)]
mod common;

use std::time::Instant;

use ladoga::testing::{Reply, ScriptedModel};
use ladoga::{CompletionModel, Orchestration, ToolPattern};
use serde_json::{Value, json};
use svir::{Completion, FinishReason, Request, Role, ToolCall};

/// Runs per timed round of a case, after as many to warm up.
const RUNS: u32 = 500;

/// Rounds of each case, in turn: the median is kept.
const ROUNDS: usize = 7;

/// The services and their records: 30 of them, ten verbs each (as in `tests/tool_search.rs`).
const RECORDS: [(&str, &str); 30] = [
    ("crm", "contact"),
    ("sales", "lead"),
    ("billing", "invoice"),
    ("payments", "refund"),
    ("calendar", "event"),
    ("rooms", "booking"),
    ("mail", "message"),
    ("drafts", "draft"),
    ("files", "document"),
    ("drive", "folder"),
    ("tickets", "issue"),
    ("reviews", "comment"),
    ("hr", "employee"),
    ("absence", "leave"),
    ("stock", "item"),
    ("orders", "order"),
    ("ads", "campaign"),
    ("finance", "budget"),
    ("wiki", "page"),
    ("spaces", "space"),
    ("chat", "channel"),
    ("forum", "thread"),
    ("ci", "pipeline"),
    ("builds", "artifact"),
    ("cloud", "server"),
    ("storage", "volume"),
    ("dns", "record"),
    ("zones", "zone"),
    ("survey", "form"),
    ("polls", "answer"),
];

const VERBS: [&str; 10] = [
    "create", "delete", "list", "update", "archive", "export", "import", "share", "tag", "restore",
];

/// `now` and the 300 tools, each answering at once.
fn tools() -> svir::Tools {
    let mut tools = svir::Tools::new()
        .add_tool(svir::Tool::new("now", "The time"), |_: Value| async {
            "noon"
        });
    for (service, record) in RECORDS {
        for verb in VERBS {
            let tool = svir::Tool::new(
                format!("ops_{service}_{verb}_{record}"),
                format!("{verb}s a {record} in the {service} service"),
            )
            .schema(json!({
                "type": "object",
                "properties": {"id": {"type": "string"}, "reason": {"type": "string"}},
                "required": ["id", "reason"],
            }));
            tools = tools.add_tool(tool, |_: Value| async { "done" });
        }
    }
    tools
}

/// A model answered at once, in process, with nothing encoded: it makes `call` while the
/// conversation has fewer than `calls` results, then answers. What is timed is the loop's own
/// work, the search included, not a model's.
struct Calling {
    call: &'static str,
    arguments: String,
    calls: usize,
}

impl Calling {
    fn new(call: &'static str, arguments: Value, calls: usize) -> Self {
        let arguments = arguments.to_string();
        Self {
            call,
            arguments,
            calls,
        }
    }
}

impl CompletionModel for Calling {
    fn name(&self) -> &str {
        "scripted"
    }

    async fn complete(&self, request: &Request) -> Result<Completion, svir::Error> {
        let results = (request.messages.iter())
            .filter(|message| message.role == Role::Tool)
            .count();
        if results < self.calls {
            let mut done = Completion::new(FinishReason::ToolCalls);
            let id = format!("call_{results}");
            done.calls
                .push(ToolCall::new(id, self.call, self.arguments.clone()));
            return Ok(done);
        }
        let mut done = Completion::new(FinishReason::Stop);
        done.text = "done".to_owned();
        Ok(done)
    }
}

/// One run over `tools`, deferring `ops_*` when `defer`.
async fn run<M: CompletionModel>(model: &M, tools: &svir::Tools, defer: bool) {
    let mut run = Orchestration::new(model, tools);
    if defer {
        run = run.defer([ToolPattern::new("ops_*").expect("a pattern")]);
    }
    let outcome = run.run("Archive invoice INV-7").await.expect("an outcome");
    assert_eq!(outcome.text, "done");
}

/// The mean time of one run, in microseconds, over [`RUNS`] after as many to warm up.
async fn timed(model: &Calling, tools: &svir::Tools, defer: bool) -> f64 {
    for _ in 0..RUNS {
        run(model, tools, defer).await;
    }
    let start = Instant::now();
    for _ in 0..RUNS {
        run(model, tools, defer).await;
    }
    start.elapsed().as_secs_f64() * 1e6 / f64::from(RUNS)
}

fn main() {
    if !common::results::benching() {
        return;
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let tools = tools();
        let mut sizes = serde_json::Map::new();
        println!("| first request | tools | bytes of the JSON body |");
        println!("| --- | --- | --- |");
        for (name, defer) in [("every tool", false), ("defer = [\"ops_*\"]", true)] {
            let model = ScriptedModel::new([Reply::text("done")]);
            run(&model, &tools, defer).await;
            let first = &model.requests()[0];
            let bytes = serde_json::to_vec(first.body()).expect("JSON").len();
            let count = first.tool_names().len();
            println!("| {name} | {count} | {bytes} |");
            sizes.insert(name.to_owned(), json!({"tools": count, "bytes": bytes}));
        }

        let search = json!({"query": "archive an invoice"});
        let cases = [
            ("every tool offered, `now` once", "now", json!({}), false, 1),
            ("deferred, `now` once", "now", json!({}), true, 1),
            ("deferred, `search_tools` once", "search_tools", search.clone(), true, 1),
            ("deferred, `now` twice", "now", json!({}), true, 2),
            ("deferred, `search_tools` twice", "search_tools", search, true, 2),
        ];
        let models: Vec<_> = (cases.iter())
            .map(|(_, call, arguments, _, calls)| Calling::new(call, arguments.clone(), *calls))
            .collect();
        // Interleaved rounds, the median of each: the machine's other work blurs one round.
        let mut rounds = vec![Vec::new(); cases.len()];
        for _ in 0..ROUNDS {
            for (at, (_, _, _, defer, _)) in cases.iter().enumerate() {
                rounds[at].push(timed(&models[at], &tools, *defer).await);
            }
        }
        let medians: Vec<f64> = (rounds.iter_mut())
            .map(|times| {
                times.sort_by(f64::total_cmp);
                times[times.len() / 2]
            })
            .collect();
        println!();
        println!("| run (in process) | µs per run, median of {ROUNDS} rounds of {RUNS} |");
        println!("| --- | --- |");
        for ((name, ..), median) in cases.iter().zip(&medians) {
            println!("| {name} | {median:.1} |");
        }
        let first = medians[2] - medians[1];
        let again = (medians[4] - medians[2]) - (medians[3] - medians[1]);
        println!("a first search (its index made): {first:.1} µs; a search on the index made: {again:.1} µs");
        let named: serde_json::Map<String, Value> = (cases.iter().zip(&medians))
            .map(|((name, ..), median)| ((*name).to_owned(), json!(median)))
            .collect();
        common::results::write_json(
            "tool_search.json",
            &json!({
                "first_request": sizes,
                "runs": RUNS,
                "rounds": ROUNDS,
                "median_us": named,
                "first_search_us": first,
                "search_again_us": again,
            }),
        );
    });
}

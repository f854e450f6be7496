//! Tool search (`defer`): the first request's size with 300 tools offered up front and with
//! them deferred, and what a search costs. The loop runs in process over an `svir::Tools` of
//! `now` and the 300 tools of `tests/tool_search.rs` (`ops_{service}_{verb}_{record}`, each with
//! two string parameters), against the scripted model, which records each request's body as
//! svir encodes it for Chat Completions. Prints a table and writes `tool_search.json`.
//!
//! The search's cost is the time of a run of two turns whose one call is a search, against the
//! same run whose call is the local tool `now`, with nothing deferred: the difference is the
//! search, the index of the 300 tools made at the run's first search included. Runs of three
//! turns, calling twice, give a search on an index already made the same way.
//!
//! `cargo bench -p ladoga-examples --bench tool_search`; a `cargo test` run does nothing.

#[allow(dead_code)]
mod common;

use std::time::Instant;

use ladoga::testing::{Reply, ScriptedModel, SeenRequest};
use ladoga::{Orchestration, ToolPattern};
use serde_json::{Value, json};

/// Runs per timed case, after as many to warm up.
const RUNS: u32 = 2_000;

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

/// A model that makes `call` while the conversation has fewer than `calls` results, then
/// answers.
fn model(call: &'static str, arguments: Value, calls: usize) -> ScriptedModel {
    ScriptedModel::from_fn(move |request: &SeenRequest| {
        match request.tool_results().len() < calls {
            true => Reply::call(call, arguments.clone()),
            false => Reply::text("done"),
        }
    })
}

/// One run over `tools`, deferring `ops_*` when `defer`.
async fn run(model: &ScriptedModel, tools: &svir::Tools, defer: bool) {
    let mut run = Orchestration::new(model, tools);
    if defer {
        run = run.defer([ToolPattern::new("ops_*").expect("a pattern")]);
    }
    let outcome = run.run("Archive invoice INV-7").await.expect("an outcome");
    assert_eq!(outcome.text, "done");
}

/// The mean time of one run, in microseconds, over [`RUNS`] after as many to warm up.
async fn timed(model: &ScriptedModel, tools: &svir::Tools, defer: bool) -> f64 {
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
        let mut means = [[0.0; 2]; 2];
        for (row, (call, arguments, defer)) in [
            ("now", json!({}), false),
            ("search_tools", search, true),
        ]
        .into_iter()
        .enumerate()
        {
            for calls in [1, 2] {
                let model = model(call, arguments.clone(), calls).without_log();
                means[row][calls - 1] = timed(&model, &tools, defer).await;
            }
        }
        let [[local, local_twice], [search, search_twice]] = means;
        println!();
        println!("| run (in process) | one call | two calls, in two turns |");
        println!("| --- | --- | --- |");
        println!("| `now`, nothing deferred | {local:.1} µs | {local_twice:.1} µs |");
        println!("| `search_tools`, 300 deferred | {search:.1} µs | {search_twice:.1} µs |");
        let first = search - local;
        let again = (search_twice - search) - (local_twice - local);
        println!("a first search (its index made): {first:.1} µs; a search on the index made: {again:.1} µs");
        common::results::write_json(
            "tool_search.json",
            &json!({
                "first_request": sizes,
                "runs": RUNS,
                "mean_us": {
                    "now_once": local, "now_twice": local_twice,
                    "search_once": search, "search_twice": search_twice,
                    "first_search": first, "search_again": again,
                },
            }),
        );
    });
}

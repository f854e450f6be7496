//! Tool search over another MCP server's 300 tools: server B offers them, server A's
//! orchestrator reaches them through a `RemoteTools` (prefix `ops_`) over Streamable HTTP on
//! loopback and defers them all (`defer = ["ops_*"]`). Its model, served over HTTP and reading
//! each request, searches, finds a tool, is offered it in the next request, and calls it on B;
//! a run paused for the caller's approval of that call keeps the tools it found.

mod common;

use common::{Server, client_for, connect, text};
use ladoga::orchestrator;
use ladoga::testing::{Reply, ScriptedModel, ScriptedServer, SeenRequest};
use neva::prelude::*;
use neva::svir::RemoteTools;
use neva::types::elicitation::{ElicitRequestParams, ElicitResult};
use serde_json::{Value, json};

/// Thirty services with one kind of record each, ten verbs on each: B's 300 tools are
/// `{service}_{verb}_{record}`.
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

/// The time, on A: the one tool offered up front.
#[tool(descr = "The time")]
async fn now() -> String {
    "noon".to_owned()
}

/// Does operations work with B's tools, found when needed.
#[orchestrator(tools = ["now", "ops_*"], with = [RemoteTools], defer = ["ops_*"])]
async fn operate(task: String) -> String {
    task
}

/// The same with every tool offered up front.
#[orchestrator(tools = ["now", "ops_*"], with = [RemoteTools])]
async fn operate_all(task: String) -> String {
    task
}

/// The same, the archiving tools approved by the caller first: the run pauses at the call.
#[orchestrator(
    tools = ["now", "ops_*"],
    with = [RemoteTools],
    defer = ["ops_*"],
    approve = ["ops_*_archive_*"]
)]
async fn operate_carefully(task: String) -> String {
    task
}

/// Server B: the 300 tools, each answering with its name and the record it was given.
async fn server_b() -> Server {
    let mut app = App::new();
    for (service, record) in RECORDS {
        for verb in VERBS {
            let name = format!("{service}_{verb}_{record}");
            let ran = name.clone();
            app.map_tool(&name, move |id: String, reason: String| {
                let ran = ran.clone();
                async move { format!("{ran} done for {id} ({reason})") }
            })
            .with_description(&format!("{verb}s a {record} in the {service} service"))
            .with_arg_names(["id", "reason"]);
        }
    }
    Server::start(app).await
}

/// Whether `name` is one of B's 300 tools, not one of this binary's own.
fn is_generated(name: &str) -> bool {
    RECORDS.iter().any(|(service, _)| {
        name.strip_prefix(service)
            .is_some_and(|rest| rest.starts_with('_'))
    })
}

/// Server A, `script` served over HTTP beside it, with B's tools as `ops_…`.
async fn server_a(b: &Server, script: &ScriptedModel) -> (Server, ScriptedServer) {
    let remote = RemoteTools::new(connect(b.addr).await)
        .filter(|tool| is_generated(&tool.name))
        .with_prefix("ops_");
    let model = script.serve().await.expect("serves");
    let app = App::new()
        .add_singleton(model.model())
        .add_singleton(remote);
    (Server::start(app).await, model)
}

/// The model: searches for a way to archive an invoice, calls the best tool found, and answers
/// with its result.
fn operator(request: &SeenRequest) -> Reply {
    let results = request.tool_results();
    match results.as_slice() {
        [] => Reply::call(
            "search_tools",
            json!({"query": "archive an invoice", "limit": 3}),
        ),
        [(_, found)] => {
            let found: Value = serde_json::from_str(found).unwrap_or_default();
            match found["tools"][0]["name"].as_str() {
                Some(name) => Reply::call(name, json!({"id": "INV-7", "reason": "paid"})),
                None => Reply::text(format!("nothing found: {found}")),
            }
        }
        [.., (_, last)] => Reply::text(format!("Done: {last}")),
    }
}

/// Calls `tool` on `a` with the task given.
async fn ask(a: &Server, tool: &str) -> CallToolResponse {
    call(&mut a.client().await, tool).await
}

/// Calls `tool` through `client` with the task given.
async fn call(client: &mut Client, tool: &str) -> CallToolResponse {
    client
        .tools()
        .call(tool, [("task", "Archive invoice INV-7, it is paid")])
        .await
        .expect("tools/call")
}

/// The JSON body's size in bytes, as svir encoded it.
fn bytes(request: &SeenRequest) -> usize {
    serde_json::to_vec(request.body()).expect("JSON").len()
}

#[tokio::test]
async fn the_model_finds_a_deferred_remote_tool_and_calls_it() {
    let b = server_b().await;
    let script = ScriptedModel::from_fn(operator);
    let (a, _model) = server_a(&b, &script).await;

    let result = ask(&a, "operate").await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(
        text(&result),
        "Done: billing_archive_invoice done for INV-7 (paid)",
        "B ran the tool found"
    );

    let requests = script.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[0].tool_names(), ["now", "search_tools"]);
    let search = &requests[0].body()["tools"][1]["function"];
    assert_eq!(search["parameters"]["required"], json!(["query"]));

    let found: Value = serde_json::from_str(&requests[1].tool_results()[0].1).expect("JSON");
    let names: Vec<_> = (found["tools"].as_array().expect("a list").iter())
        .map(|tool| tool["name"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(names.len(), 3);
    assert_eq!(names[0], "ops_billing_archive_invoice");
    let parameters = &found["tools"][0]["parameters"]["properties"];
    assert!(
        parameters.get("id").is_some() && parameters.get("reason").is_some(),
        "{found}"
    );

    let mut offered = vec!["now".to_owned(), "search_tools".to_owned()];
    offered.extend(names.iter().map(|name| (*name).to_owned()));
    assert_eq!(
        requests[1].tool_names(),
        offered,
        "each tool found, from the next request on"
    );
    assert_eq!(requests[2].tool_names(), offered);
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn the_first_request_is_a_fraction_of_the_one_offering_every_tool() {
    let b = server_b().await;
    let script = ScriptedModel::from_fn(|_| Reply::text("nothing to do"));
    let (a, _model) = server_a(&b, &script).await;

    assert!(!ask(&a, "operate_all").await.is_error);
    assert!(!ask(&a, "operate").await.is_error);
    let requests = script.requests();
    let (all, deferred) = (&requests[0], &requests[1]);
    assert_eq!(all.tool_names().len(), 301);
    assert_eq!(deferred.tool_names(), ["now", "search_tools"]);
    let (all, deferred) = (bytes(all), bytes(deferred));
    eprintln!("first request: {all} bytes with every tool, {deferred} with defer");
    assert!(deferred * 20 < all, "{deferred} bytes deferred, {all} not");
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn a_run_paused_for_an_approval_keeps_the_tools_it_found() {
    let b = server_b().await;
    let script = ScriptedModel::from_fn(operator);
    let (a, _model) = server_a(&b, &script).await;
    // Under MCP 2026-07-28 the question ends the round and the run waits in the run store;
    // under `legacy-spec` it is a request the run waits for in place.
    let mut client = client_for(a.addr);
    client.map_elicitation(|_: ElicitRequestParams| async { ElicitResult::accept() });
    client.connect().await.expect("connects");

    let result = call(&mut client, "operate_carefully").await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(
        text(&result),
        "Done: billing_archive_invoice done for INV-7 (paid)"
    );
    let block = serde_json::to_value(&result.content[0]).expect("JSON");
    let approvals = &block["_meta"][ladoga::REPORT_KEY]["approvals"];
    assert_eq!(
        approvals[0]["tool"], "ops_billing_archive_invoice",
        "{block}"
    );
    assert_eq!(approvals[0]["decision"], "approved");
    let requests = script.requests();
    assert_eq!(requests.len(), 3, "each answer asked for once");
    let found = requests[1].tool_names();
    assert_eq!(found.len(), 5, "{found:?}");
    assert_eq!(
        requests[2].tool_names(),
        found,
        "the request after the approval offers what was found before it"
    );
    a.stop().await;
    b.stop().await;
}

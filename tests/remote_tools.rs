//! Another MCP server's tools beside the server's own: server A's orchestrator is offered the
//! union of its tools and those of server B, reached through a `RemoteTools` over Streamable
//! HTTP on loopback; each call goes to the server that offers it.
//!
//! Both servers run this binary, so both register every tool below: B's are offered under the
//! prefix `b_` and filtered to those meant for it.
//!
//! A `LiveTools` lists B's tools again when B says its list changed, and only then: B counts its
//! `tools/list` requests.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{Server, client_for, connect, text};
use ladoga::testing::{Reply, ScriptedModel, ScriptedServer, SeenRequest};
use ladoga::{LiveTools, Model, Orchestrator, ToolPattern, ToolSelection, orchestrator};
use neva::di::Dc;
use neva::prelude::*;
use neva::svir::RemoteTools;
use serde_json::json;
use tokio::sync::Mutex;

/// Server B while a test may stop it from inside a run.
static B: Mutex<Option<Server>> = Mutex::const_new(None);

#[tool(descr = "Takes a note")]
async fn note(text: String) -> String {
    format!("noted {text}")
}

#[tool(descr = "Looks a term up")]
async fn lookup(term: String) -> String {
    format!("found {term}")
}

#[tool(descr = "Looks a term up, slowly")]
async fn slow(term: String) -> String {
    tokio::time::sleep(Duration::from_secs(5)).await;
    format!("found {term} at last")
}

#[tool(descr = "Fails")]
async fn broken() -> Result<String, Error> {
    Err(Error::new(ErrorCode::InternalError, "the disk is full"))
}

#[tool(descr = "Stops server B")]
async fn stop_b() -> String {
    if let Some(server) = B.lock().await.take() {
        server.stop().await;
    }
    "stopped".to_owned()
}

#[tool(descr = "Adds the tool `extra` to this server, or removes it if it has it")]
async fn toggle(ctx: Context) -> Result<String, Error> {
    if ctx.tools().remove("extra").await?.is_some() {
        return Ok("removed".to_owned());
    }
    let mut extra = Tool::new("extra", || async { "found elsewhere" });
    extra.with_description("Looks elsewhere");
    ctx.tools().add(extra).await?;
    Ok("added".to_owned())
}

fn pattern(text: &str) -> ToolPattern {
    ToolPattern::new(text).expect("a valid pattern")
}

/// Researches with A's `note`, `stop_b` and B's tools, one second per remote call.
#[tool(descr = "Researches with both servers' tools")]
async fn research(
    ctx: Context,
    model: Dc<Model>,
    remote: Dc<RemoteTools>,
    task: String,
) -> Result<String, Error> {
    Orchestrator::new()
        .select(ToolSelection::all().only([pattern("note"), pattern("stop_b"), pattern("b_*")]))
        .with(remote.into_inner())
        .call_timeout(Duration::from_secs(1))
        .answer(&ctx, &*model, task)
        .await
}

/// Offers the user's own toolbox beside the server's, which has a `note` too.
#[tool(descr = "Researches with a toolbox that clashes")]
async fn clashing(
    ctx: Context,
    model: Dc<Model>,
    extra: Dc<svir::Tools>,
    task: String,
) -> Result<String, Error> {
    Orchestrator::new()
        .select(ToolSelection::all().only([pattern("note")]))
        .with(extra.into_inner())
        .answer(&ctx, &*model, task)
        .await
}

/// The same through the macro, at the default call timeout.
#[orchestrator(tools = ["note", "b_lookup"], with = [RemoteTools])]
async fn research_by_macro(task: String) -> String {
    task
}

/// B's tools as they are now, through the macro.
#[orchestrator(tools = ["b_*"], with = [LiveTools])]
async fn research_live(task: String) -> String {
    task
}

/// B's `lookup` and `slow`, offered as `b_lookup` and `b_slow`, through a client connected to B.
async fn remote_tools(b: &Server) -> RemoteTools {
    RemoteTools::new(connect(b.addr).await)
        .filter(|tool| tool.name == "lookup" || tool.name == "slow")
        .with_prefix("b_")
}

/// Server A, its model `script` served over HTTP (kept alive beside it), with `toolbox`
/// registered for its orchestrators.
async fn server_a<T: Send + Sync + 'static>(
    script: &ScriptedModel,
    toolbox: T,
) -> (Server, ScriptedServer) {
    let model = script.serve().await.expect("serves");
    let app = App::new()
        .add_singleton(model.model())
        .add_singleton(toolbox);
    (Server::start(app).await, model)
}

/// Calls the orchestrator `tool` of `a` with the task "go".
async fn ask(a: &Server, tool: &str) -> CallToolResponse {
    a.client()
        .await
        .tools()
        .call(tool, [("task", "go")])
        .await
        .expect("tools/call")
}

/// The texts of the tool results `request` sent back, in order.
fn result_texts(request: &SeenRequest) -> Vec<String> {
    request
        .tool_results()
        .into_iter()
        .map(|(_, text)| text)
        .collect()
}

#[tokio::test]
async fn the_model_calls_both_servers_in_one_turn() {
    let b = Server::start(App::new()).await;
    let script = ScriptedModel::new([
        Reply::calls([
            ("note", json!({"text": "x"})),
            ("b_lookup", json!({"term": "rust"})),
        ]),
        Reply::calls([
            ("b_slow", json!({"term": "mcp"})),
            ("note", json!({"text": "y"})),
        ]),
        Reply::text("done"),
    ]);
    let (a, _model) = server_a(&script, remote_tools(&b).await).await;

    let result = ask(&a, "research").await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(text(&result), "done");

    let requests = script.requests();
    let mut offered = requests[0].tool_names();
    offered.sort_unstable();
    assert_eq!(offered, ["b_lookup", "b_slow", "note", "stop_b"]);
    let first = result_texts(&requests[1]);
    assert_eq!(first, ["noted x", "found rust"]);
    let second = result_texts(&requests[2]);
    assert!(
        second[2].contains("did not answer the call to `b_slow` within 1s"),
        "{second:?}"
    );
    assert_eq!(second[3], "noted y");
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn a_remote_tool_that_fails_is_an_error_result_and_the_other_calls_answer() {
    let b = Server::start(App::new()).await;
    let remote = RemoteTools::new(connect(b.addr).await)
        .filter(|tool| tool.name == "lookup" || tool.name == "broken")
        .with_prefix("b_");
    let script = ScriptedModel::new([
        Reply::calls([
            ("b_broken", json!({})),
            ("b_lookup", json!({"term": "rust"})),
            ("note", json!({"text": "x"})),
        ]),
        Reply::text("done"),
    ]);
    let (a, _model) = server_a(&script, remote).await;

    let result = ask(&a, "research").await;
    assert!(!result.is_error, "{result:?}");
    let results = result_texts(&script.requests()[1]);
    assert!(results[0].contains("the disk is full"), "{results:?}");
    assert_eq!(results[1..], ["found rust", "noted x"]);
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn a_name_offered_twice_is_the_servers_own_and_the_added_toolboxs_is_left_out() {
    let extra = svir::Tools::new().add_tool(
        svir::Tool::new("note", "Another note"),
        |_: serde_json::Value| async { "noted elsewhere" },
    );
    let script = ScriptedModel::new([
        Reply::call("note", json!({"text": "x"})),
        Reply::text("done"),
    ]);
    let (a, _model) = server_a(&script, extra).await;

    let result = ask(&a, "clashing").await;
    assert!(!result.is_error, "{}", text(&result));
    let requests = script.requests();
    assert_eq!(requests[0].tool_names(), ["note"]);
    assert_eq!(
        result_texts(&requests[1]),
        ["noted x"],
        "the server's own note"
    );
    a.stop().await;
}

#[tokio::test]
async fn a_server_stopped_mid_run_fails_only_its_call() {
    let b = Server::start(App::new()).await;
    let remote = remote_tools(&b).await;
    *B.lock().await = Some(b);
    let script = ScriptedModel::new([
        Reply::call("stop_b", json!({})),
        Reply::calls([
            ("b_lookup", json!({"term": "rust"})),
            ("note", json!({"text": "x"})),
        ]),
        Reply::text("done"),
    ]);
    let (a, _model) = server_a(&script, remote).await;

    let result = ask(&a, "research").await;
    assert!(!result.is_error, "{result:?}");
    let requests = script.requests();
    assert_eq!(requests[1].tool_results()[0].1, "stopped");
    let results = requests[2].tool_results();
    // neva 0.9's client does not fail at once on a stopped server: the call timeout ends it.
    assert!(
        results[1]
            .1
            .contains("did not answer the call to `b_lookup` within 1s"),
        "{results:?}"
    );
    assert_eq!(results[2].1, "noted x");
    a.stop().await;
}

#[tokio::test]
async fn a_server_unreachable_at_the_start_is_a_tool_error_naming_it() {
    let b = Server::start(App::new()).await;
    let remote = remote_tools(&b).await;
    b.stop().await;
    let script = ScriptedModel::new([Reply::text("unreachable")]);
    let (a, _model) = server_a(&script, remote).await;

    let result = ask(&a, "research").await;
    assert!(result.is_error);
    assert!(
        text(&result).contains("`neva::svir::remote::RemoteTools` could not list its tools"),
        "{}",
        text(&result)
    );
    assert!(script.requests().is_empty());
    a.stop().await;
}

#[tokio::test]
async fn a_server_that_cannot_list_its_tools_is_a_tool_error_naming_it() {
    let b = Server::start(
        App::new().wrap_list_tools(|ctx: MwContext, _: Next| async move {
            Response::error(
                ctx.id(),
                Error::new(ErrorCode::InternalError, "no listing today"),
            )
        }),
    )
    .await;
    let script = ScriptedModel::new([Reply::text("unreachable")]);
    let (a, _model) = server_a(&script, remote_tools(&b).await).await;

    let result = ask(&a, "research").await;
    assert!(result.is_error);
    assert!(
        text(&result).contains("`neva::svir::remote::RemoteTools` could not list its tools"),
        "{}",
        text(&result)
    );
    assert!(script.requests().is_empty());
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn with_offers_the_union_through_the_macro() {
    let b = Server::start(App::new()).await;
    let script = ScriptedModel::new([
        Reply::calls([
            ("b_lookup", json!({"term": "rust"})),
            ("note", json!({"text": "x"})),
        ]),
        Reply::text("done"),
    ]);
    let (a, _model) = server_a(&script, remote_tools(&b).await).await;

    let result = ask(&a, "research_by_macro").await;
    assert!(!result.is_error, "{result:?}");
    let requests = script.requests();
    let mut offered = requests[0].tool_names();
    offered.sort_unstable();
    assert_eq!(offered, ["b_lookup", "note"]);
    let results = result_texts(&requests[1]);
    assert_eq!(results, ["found rust", "noted x"]);
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn with_a_type_not_registered_is_a_tool_error_naming_it() {
    let script = ScriptedModel::new([Reply::text("unreachable")]);
    let model = script.serve().await.expect("serves");
    let a = Server::start(App::new().add_singleton(model.model())).await;

    let result = ask(&a, "research_by_macro").await;
    assert!(result.is_error);
    assert!(
        text(&result).contains(
            "toolbox `neva::svir::remote::RemoteTools` (`with = [...]`) is not registered"
        ),
        "{}",
        text(&result)
    );
    assert!(script.requests().is_empty());
    a.stop().await;
}

/// Server B telling its clients when its tool list changes, and counting in `lists` the
/// listings of its tools: the `tools/list` requests for a first page (a listing of more tools
/// than a page asks for the next with a cursor).
async fn server_b_counting(lists: Arc<AtomicUsize>) -> Server {
    let app = App::new()
        .with_options(|opt| opt.with_tools(|tools| tools.with_list_changed()))
        .wrap_list_tools(move |ctx: MwContext, next: Next| {
            let params = ctx.request().and_then(|request| request.params.as_ref());
            if params.and_then(|params| params.get("cursor")).is_none() {
                lists.fetch_add(1, Ordering::SeqCst);
            }
            next(ctx)
        });
    Server::start(app).await
}

/// Waits until `tools` has been told of `count` changes, for at most 10 seconds.
async fn told(tools: &LiveTools, count: u64) {
    for _ in 0..100 {
        if tools.changes() >= count {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("told of {} changes, not {count}", tools.changes());
}

/// The tool names `request` offered, sorted.
fn offered(request: &SeenRequest) -> Vec<String> {
    let mut names = request.tool_names();
    names.sort_unstable();
    names
}

#[tokio::test]
async fn the_tool_list_is_renewed_when_the_server_says_it_changed() {
    let lists = Arc::new(AtomicUsize::new(0));
    let b = server_b_counting(lists.clone()).await;
    let live = LiveTools::connect(client_for(b.addr), |tools| {
        tools
            .filter(|tool| ["lookup", "toggle", "extra"].contains(&tool.name.as_str()))
            .with_prefix("b_")
    })
    .await
    .expect("connects to B");
    // Connecting lists once, to say in the log which tools cannot be offered; from then on,
    // every count below is of the listings since.
    assert_eq!(lists.load(Ordering::SeqCst), 1);
    lists.store(0, Ordering::SeqCst);
    let script = ScriptedModel::new([
        Reply::text("first"),
        Reply::text("again"),
        Reply::call("b_toggle", json!({})),
        Reply::text("added"),
        Reply::calls([("b_extra", json!({})), ("b_toggle", json!({}))]),
        Reply::text("removed"),
        Reply::text("after"),
        Reply::text("last"),
    ]);
    let (a, _model) = server_a(&script, live.clone()).await;

    assert_eq!(text(&ask(&a, "research_live").await), "first");
    assert_eq!(lists.load(Ordering::SeqCst), 1);
    // No change since: the second run lists nothing.
    assert_eq!(text(&ask(&a, "research_live").await), "again");
    assert_eq!(lists.load(Ordering::SeqCst), 1);
    // The third adds `extra` to B, the fourth removes it. Told each time, A lists once per
    // change: in the background, or when the next run starts if that comes first.
    assert_eq!(text(&ask(&a, "research_live").await), "added");
    told(&live, 1).await;
    assert_eq!(text(&ask(&a, "research_live").await), "removed");
    told(&live, 2).await;
    assert_eq!(text(&ask(&a, "research_live").await), "after");
    assert_eq!(lists.load(Ordering::SeqCst), 3);
    assert_eq!(text(&ask(&a, "research_live").await), "last");
    assert_eq!(lists.load(Ordering::SeqCst), 3);

    let requests = script.requests();
    assert_eq!(offered(&requests[0]), ["b_lookup", "b_toggle"]);
    assert_eq!(offered(&requests[1]), ["b_lookup", "b_toggle"]);
    assert_eq!(offered(&requests[2]), ["b_lookup", "b_toggle"]);
    assert_eq!(result_texts(&requests[3]), ["added"]);
    assert_eq!(offered(&requests[4]), ["b_extra", "b_lookup", "b_toggle"]);
    assert_eq!(result_texts(&requests[5]), ["found elsewhere", "removed"]);
    assert_eq!(offered(&requests[6]), ["b_lookup", "b_toggle"]);
    assert_eq!(offered(&requests[7]), ["b_lookup", "b_toggle"]);
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn a_server_that_takes_bearer_tokens_is_reached_with_one_and_refused_without() {
    const SECRET: &str = "a secret for the remote tools tests, 42 b.";
    let b = Server::start_guarded(App::new(), SECRET).await;
    let url = format!("http://{}/mcp", b.addr);
    let token = common::auth::token(
        SECRET,
        json!({"sub": "server a", "exp": common::auth::now() + 3600}),
    );
    let refused = LiveTools::connect_url(&url, |opt| opt, |tools| tools).await;
    assert!(refused.is_err(), "no token, no connection");
    let tools = LiveTools::connect_url_with_token(&url, &token, |opt| opt, |tools| tools)
        .await
        .expect("connects with its token");
    assert!(tools.renew().await.expect("lists with its token"));
    let names: Vec<String> = svir::Toolbox::tools(&tools)
        .into_iter()
        .map(|tool| tool.name)
        .collect();
    assert!(names.contains(&"lookup".to_owned()), "{names:?}");
    let answer = svir::Toolbox::call(
        &tools,
        &svir::ToolCall::new("1", "lookup", r#"{"term":"rust"}"#),
    )
    .await;
    assert!(!answer.is_error, "{answer:?}");
    assert!(answer.content.contains("rust"), "{answer:?}");
    drop(tools);
    b.stop().await;
}

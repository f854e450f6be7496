//! The tools of the matrix, which every server of this binary offers: `matrix_run`, the one
//! orchestrator every case calls, built by hand from its rows; `matrix_inner`, the orchestrator
//! it nests; and the tools their models call, each recording what it ran under the case's key.

use std::sync::Mutex;
use std::time::Duration;

use ladoga::{CallerModel, CompletionModel, Fallback, Model, Orchestrator, RunError, orchestrator};
use neva::prelude::*;
use neva::types::{Content, Meta, RequestParamsMeta};
use serde_json::{Value, json};

use super::setup::{ModelKind, PAGE_CHARS, SECOND_BRIEF, Setup, Summary, first_brief};

/// What the tools ran: `(case, tool, key)`, in order.
static RAN: Mutex<Vec<(String, String, String)>> = Mutex::new(Vec::new());

fn ran(case: &str, tool: &str, key: &str) {
    (RAN.lock().unwrap()).push((case.to_owned(), tool.to_owned(), key.to_owned()));
}

/// What the tools ran for `case`: `(tool, key)`, in order.
pub fn runs(case: &str) -> Vec<(String, String)> {
    (RAN.lock().unwrap().iter())
        .filter(|(of, _, _)| of == case)
        .map(|(_, tool, key)| (tool.clone(), key.clone()))
        .collect()
}

#[tool(descr = "Notes a line down")]
async fn note(case: String, key: String) -> String {
    ran(&case, "note", &key);
    format!("noted {key}")
}

#[tool(descr = "Wipes a board clean")]
async fn wipe(case: String, board: String) -> String {
    ran(&case, "wipe", &board);
    format!("wiped {board}")
}

#[tool(descr = "Reads one page of the archive")]
async fn page(case: String, number: u32) -> String {
    ran(&case, "page", &number.to_string());
    let mut text = format!("page {number}: ");
    while text.len() < PAGE_CHARS {
        text.push_str("The archive goes on about the release. ");
    }
    text.truncate(PAGE_CHARS);
    text
}

#[tool(descr = "Shelves an item in the archive")]
async fn shelve(case: String, item: String) -> String {
    ran(&case, "shelve", &item);
    format!("shelved {item}")
}

/// Server B's tool, offered on server A as `b_lookup`.
#[tool(descr = "Looks a term up")]
async fn lookup(case: String, term: String) -> String {
    ran(&case, "lookup", &term);
    format!("found {term}")
}

#[tool(descr = "Waits for something that takes a minute")]
async fn dawdle(case: String) -> String {
    tokio::time::sleep(Duration::from_secs(60)).await;
    ran(&case, "dawdle", "");
    "dawdled".to_owned()
}

/// The model of the nested orchestrator, apart from the case's own.
pub struct InnerModel(pub Model);

impl CompletionModel for InnerModel {
    fn name(&self) -> &str {
        "inner"
    }

    async fn complete(&self, request: &svir::Request) -> Result<svir::Completion, svir::Error> {
        self.0.complete(request).await
    }
}

/// Does a piece of the work on a model of its own: the orchestrator `nested` calls.
#[orchestrator(model = InnerModel, tools = ["note"])]
async fn matrix_inner(case: String) -> String {
    format!("Inner work for case {case}.")
}

/// Runs one case: the orchestrator its rows make (`pair`, as `session+context`), with the tools
/// keyed by `case`, going on with `session` when given.
#[tool(
    descr = "Runs one case of the feature matrix",
    task_support = "optional"
)]
async fn matrix_run(
    ctx: Context,
    meta: Meta<RequestParamsMeta>,
    pair: String,
    case: String,
    session: Option<String>,
) -> Result<CallToolResponse, Error> {
    let setup =
        Setup::of(&pair, &case).map_err(|error| Error::new(ErrorCode::InvalidParams, error))?;
    let task = task_of(&ctx, &meta.0);
    let brief = match session {
        Some(_) => SECOND_BRIEF.to_owned(),
        None => first_brief(&case),
    };
    let progress = meta.0.progress_token.clone();
    let orchestrator = setup.orchestrator(&ctx, session, task, progress)?;
    match setup.model() {
        ModelKind::Own => {
            answer(
                &setup,
                &orchestrator,
                &ctx,
                &*resolve::<Model>(&ctx)?,
                brief,
            )
            .await
        }
        ModelKind::Caller => {
            answer(
                &setup,
                &orchestrator,
                &ctx,
                &*resolve::<CallerModel>(&ctx)?,
                brief,
            )
            .await
        }
        ModelKind::Fallback | ModelKind::CallerFirst => {
            answer(
                &setup,
                &orchestrator,
                &ctx,
                &*resolve::<Fallback>(&ctx)?,
                brief,
            )
            .await
        }
    }
}

/// The model of type `M` the server registered.
fn resolve<M: Send + Sync + 'static>(ctx: &Context) -> Result<std::sync::Arc<M>, Error> {
    ctx.resolve_shared::<M>().map_err(|_| {
        let name = std::any::type_name::<M>();
        Error::new(
            ErrorCode::InternalError,
            format!("no `{name}` is registered"),
        )
    })
}

/// The MCP task the call runs as, bound to its caller as an orchestrator built by hand must.
fn task_of(ctx: &Context, meta: &RequestParamsMeta) -> Option<String> {
    ladoga::TaskOwners::claim(ctx, meta);
    if !ctx.is_task() {
        return None;
    }
    let meta = serde_json::to_value(meta).ok()?;
    let id = &meta["io.modelcontextprotocol/related-task"]["taskId"];
    id.as_str().map(str::to_owned)
}

/// The run's answer as a tool answers it: the text (or the typed value) with the report in
/// `_meta`, the session's id in a block of its own; a tool error with the bound it stopped at;
/// or, for a question to the caller, the error neva answers the round with.
async fn answer<M: CompletionModel + ?Sized>(
    setup: &Setup,
    orchestrator: &Orchestrator,
    ctx: &Context,
    model: &M,
    brief: String,
) -> Result<CallToolResponse, Error> {
    let (text, structure, outcome) = if setup.output {
        match Box::pin(orchestrator.run_as::<M, Summary>(ctx, model, brief)).await {
            Ok((summary, outcome)) => {
                let structure = serde_json::to_value(&summary).map_err(Error::from)?;
                (structure.to_string(), Some(structure), outcome)
            }
            Err(error) => return failed(error),
        }
    } else {
        match Box::pin(orchestrator.run(ctx, model, brief)).await {
            Ok(outcome) => (outcome.text.clone(), None, outcome),
            Err(error) => return failed(error),
        }
    };
    let mut response = reported(text, Some(outcome.report()), false);
    response.struct_content = structure;
    if let Some(id) = &outcome.session {
        response
            .content
            .push(Content::text(format!("session: {id}")));
    }
    Ok(response)
}

/// The tool error of a failed run, or the question its round ends with.
fn failed(error: RunError) -> Result<CallToolResponse, Error> {
    match error {
        RunError::Paused(question) => Err(question),
        error => {
            let report = error.stop().map(|stop| json!({"stop": stop.name()}));
            Ok(reported(error.to_string(), report, true))
        }
    }
}

/// A result of `text`, with `report` in its block's `_meta`.
fn reported(text: String, report: Option<Value>, is_error: bool) -> CallToolResponse {
    let mut content = Content::text(text);
    if let (Content::Text(block), Some(report)) = (&mut content, report) {
        block.meta = Some(json!({ ladoga::REPORT_KEY: report }));
    }
    CallToolResponse {
        content: vec![content],
        struct_content: None,
        is_error,
    }
}

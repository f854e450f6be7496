//! MCP 2026-07-28: the fixtures of the tasks extension's scenarios
//! (`io.modelcontextprotocol/tasks`, SEP-2663). A tool with `task_support` runs as a task when its
//! caller declared the extension; a question it asks then parks the task (`input_required`)
//! until `tasks/update` answers it. Without the extension, the same question is an MRTR round.

use std::time::Duration;

use neva::prelude::*;
use neva::types::elicitation::{ElicitRequestParams, ElicitResult};

/// A yes-or-no form with `message`.
fn confirmation(message: &str) -> ElicitRequestParams {
    ElicitRequestParams::form(message)
        .with_required("confirm", "boolean")
        .into()
}

/// `question`'s answer: parked in the task when the call is one, else an MRTR round (`key`).
async fn ask(
    ctx: &Context,
    key: &str,
    question: ElicitRequestParams,
) -> Result<ElicitResult, Error> {
    match ctx.is_task() {
        true => ctx.task().elicit(question).await,
        false => ctx.elicit(key, question).await,
    }
}

/// The tasks scenarios' call that never is a task.
#[tool(descr = "Greets `name`, at once")]
fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Scenarios `tasks-lifecycle` and others: a task that works for a while, or is cancelled.
#[tool(
    descr = "Sleeps `seconds` seconds, then answers; a task when its caller can follow one",
    task_support = "optional"
)]
async fn slow_compute(seconds: Option<u64>) -> String {
    let seconds = seconds.unwrap_or(0);
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    format!("Computed after {seconds} seconds")
}

/// Scenarios `tasks-lifecycle` and `tasks-required-task-error`.
#[tool(
    descr = "Fails with a tool error after about a second; always a task",
    task_support = "required"
)]
async fn failing_job() -> Result<String, Error> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(Error::new(ErrorCode::InternalError, "The job failed"))
}

/// Scenario `tasks-lifecycle`: a task that fails (`status: failed`).
#[tool(
    descr = "Fails with a protocol error; a task when its caller can follow one",
    task_support = "optional"
)]
async fn protocol_error_job() -> Result<CallToolResponse, Error> {
    Err(Error::new(ErrorCode::InternalError, "The job broke down"))
}

/// Scenarios `tasks-mrtr-input` and `tasks-dispatch-and-envelope`: a task that waits for an answer.
#[tool(
    descr = "Asks to confirm the deletion of `filename`, then deletes nothing",
    task_support = "optional"
)]
async fn confirm_delete(ctx: Context, filename: Option<String>) -> Result<String, Error> {
    let filename = filename.unwrap_or_default();
    let answer = ask(
        &ctx,
        "confirm",
        confirmation(&format!("Delete {filename}?")),
    )
    .await?;
    Ok(format!("Deletion of {filename}: {:?}", answer.action))
}

/// Scenario `tasks-mrtr-input`: a task that waits for two answers.
#[tool(
    descr = "Asks two questions at once, then answers with both",
    task_support = "optional"
)]
async fn multi_input(ctx: Context) -> Result<String, Error> {
    let (first, second) = tokio::join!(
        ask(&ctx, "first", confirmation("First question?")),
        ask(&ctx, "second", confirmation("Second question?")),
    );
    Ok(format!(
        "First: {:?}, second: {:?}",
        first?.action, second?.action
    ))
}

/// Scenario `tasks-mrtr-composition`.
#[tool(
    descr = "Asks its caller's name, then greets it as a task",
    task_support = "required"
)]
async fn test_tool_with_task(ctx: Context) -> Result<String, Error> {
    let question = ElicitRequestParams::form("What is your name?")
        .with_required("name", "string")
        .into();
    let answer = ask(&ctx, "user_name", question).await?;
    let name = answer
        .content
        .as_ref()
        .and_then(|content| content.get("name"))
        .and_then(|name| name.as_str())
        .unwrap_or("stranger")
        .to_owned();
    Ok(format!("Hello, {name}!"))
}

//! The task board: its state, the tools that keep it, the resource and prompt that show it, and
//! the orchestrators that plan and review with them.

use ladoga::orchestrator;
use neva::{di::Dc, prelude::*};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::remote::Remote;
use crate::store::Board;

/// A failure of the board's database, as a tool error.
fn failed(error: String) -> Error {
    Error::new(ErrorCode::InternalError, error)
}

#[tool(
    descr = "Adds a task to the board and returns its id",
    annotations = r#"{"destructiveHint": false}"#
)]
pub(crate) async fn add_task(board: Dc<Board>, title: String) -> Result<String, Error> {
    let id = board.add(title.clone()).await.map_err(failed)?;
    Ok(format!("Added task {id}: {title}"))
}

#[tool(
    descr = "Lists every task on the board with its id and whether it is done",
    annotations = r#"{"readOnlyHint": true}"#
)]
pub(crate) async fn list_tasks(board: Dc<Board>) -> Result<String, Error> {
    listing(&board).await
}

/// Every task with its id and whether it is done, one a line.
async fn listing(board: &Board) -> Result<String, Error> {
    let tasks = board.list().await.map_err(failed)?;
    if tasks.is_empty() {
        return Ok("The board is empty.".to_owned());
    }
    Ok(tasks
        .iter()
        .enumerate()
        .map(|(index, task)| {
            let mark = if task.done { "x" } else { " " };
            format!("{}. [{mark}] {}", index + 1, task.title)
        })
        .collect::<Vec<_>>()
        .join("\n"))
}

#[tool(
    descr = "Marks the task with this id as done",
    annotations = r#"{"destructiveHint": false, "idempotentHint": true}"#
)]
pub(crate) async fn complete_task(board: Dc<Board>, id: i64) -> Result<String, Error> {
    let title = match usize::try_from(id) {
        Ok(index) => board.complete(index).await.map_err(failed)?,
        Err(_) => None,
    };
    let title = title
        .ok_or_else(|| Error::new(ErrorCode::InvalidParams, format!("There is no task {id}")))?;
    Ok(format!("Completed task {id}: {title}"))
}

#[tool(
    descr = "Removes every task from the board",
    annotations = r#"{"destructiveHint": true}"#
)]
pub(crate) async fn clear_board(board: Dc<Board>) -> Result<String, Error> {
    let removed = board.clear().await.map_err(failed)?;
    Ok(format!("Removed {removed} tasks"))
}

/// Plans the week around a focus, keeping the task board up to date.
#[orchestrator(
    model = crate::planner::Planner,
    system = "You keep the user's task board with the tools you have. \
              Add the tasks the plan needs, then answer with the plan.",
    turns = 8,
    depth = 4,
    stream = true,
    with = [Remote],
    approve = destructive,
    session = true,
    durable = true,
    task_support = "optional"
)]
pub(crate) async fn plan_week(focus: String) -> String {
    format!("Plan my week around {focus}. Add the tasks to my board.")
}

/// The board as text, for a client to show or attach, and for `review` to read.
#[resource(
    uri = "board://tasks",
    descr = "Every task on the board with its id and whether it is done",
    mime = "text/plain"
)]
async fn board_tasks(board: Dc<Board>, uri: Uri) -> Result<TextResourceContents, Error> {
    Ok(TextResourceContents::new(uri, listing(&board).await?).with_mime("text/plain"))
}

/// The prompt a review opens with, which a client can offer its user too.
#[prompt(descr = "Asks for a review of the task board around a focus")]
async fn review_board(focus: String) -> PromptMessage {
    PromptMessage::user().with(format!(
        "Review my task board with {focus} in mind: summarize it and list the open tasks."
    ))
}

/// A review of the board: what it adds up to, and what is still to do.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Review {
    /// What the board adds up to, in a sentence or two.
    pub summary: String,
    /// The titles of the tasks not done yet.
    pub open_tasks: Vec<String>,
}

/// Reviews the task board around a focus: a summary and the open tasks, as structured data.
#[orchestrator(
    system = "You review the user's task board with the tools you have.",
    prompt = "review_board",
    attach = ["board://tasks"],
    output = Review,
    durable = true,
    turns = 4,
    tools = ["list_tasks"],
    annotations = r#"{"readOnlyHint": true}"#
)]
pub(crate) async fn review(focus: String) -> String {
    // The brief opens with the `review_board` prompt for this focus, then this, then the board.
    format!("The board as it stands is attached; keep {focus} first.")
}

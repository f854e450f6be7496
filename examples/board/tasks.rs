//! The task board: its state, the tools that keep it, and the orchestrator that plans with them.

use std::sync::Mutex;

use ladoga::orchestrator;
use neva::{di::Dc, prelude::*};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The tasks, shared by every tool through neva's DI.
#[derive(Default)]
pub struct Board {
    tasks: Mutex<Vec<Task>>,
}

struct Task {
    title: String,
    done: bool,
}

impl Board {
    fn tasks(&self) -> std::sync::MutexGuard<'_, Vec<Task>> {
        self.tasks
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[tool(descr = "Adds a task to the board and returns its id")]
async fn add_task(board: Dc<Board>, title: String) -> String {
    let mut tasks = board.tasks();
    tasks.push(Task {
        title: title.clone(),
        done: false,
    });
    format!("Added task {}: {title}", tasks.len())
}

#[tool(descr = "Lists every task on the board with its id and whether it is done")]
async fn list_tasks(board: Dc<Board>) -> String {
    let tasks = board.tasks();
    if tasks.is_empty() {
        return "The board is empty.".to_owned();
    }
    tasks
        .iter()
        .enumerate()
        .map(|(index, task)| {
            let mark = if task.done { "x" } else { " " };
            format!("{}. [{mark}] {}", index + 1, task.title)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[tool(descr = "Marks the task with this id as done")]
async fn complete_task(board: Dc<Board>, id: i64) -> Result<String, Error> {
    let mut tasks = board.tasks();
    let task = usize::try_from(id)
        .ok()
        .and_then(|id| id.checked_sub(1))
        .and_then(|index| tasks.get_mut(index))
        .ok_or_else(|| Error::new(ErrorCode::InvalidParams, format!("There is no task {id}")))?;
    task.done = true;
    Ok(format!("Completed task {id}: {}", task.title))
}

#[tool(descr = "Removes every task from the board", roles = ["admin"])]
async fn clear_board(board: Dc<Board>) -> String {
    let mut tasks = board.tasks();
    let removed = tasks.len();
    tasks.clear();
    format!("Removed {removed} tasks")
}

/// Plans the week around a focus, keeping the task board up to date.
#[orchestrator(
    system = "You keep the user's task board with the tools you have. \
              Add the tasks the plan needs, then answer with the plan.",
    turns = 8,
    depth = 4
)]
async fn plan_week(focus: String) -> String {
    format!("Plan my week around {focus}. Add the tasks to my board.")
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
    output = Review,
    turns = 4
)]
async fn review(focus: String) -> String {
    format!("Review my board with {focus} in mind: summarize it and list the open tasks.")
}

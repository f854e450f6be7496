//! The MCP sessions: each a neva client calling `plan_week` in a loop until the time is up (and,
//! when told, `add_task` before each, with a title of its own).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use neva::prelude::*;

/// What the sessions saw.
pub struct Outcome {
    /// When each correctly answered call started, and how long it took.
    pub latencies: Vec<(Instant, Duration)>,
    /// Calls answered, but not with the answer their own brief asks for.
    pub wrong: usize,
    /// Calls (or connections) that failed, with why.
    pub errors: Vec<String>,
    /// The titles of the tasks `add_task` said it added.
    pub added: Vec<String>,
}

impl Outcome {
    fn new() -> Self {
        Self {
            latencies: Vec::new(),
            wrong: 0,
            errors: Vec::new(),
            added: Vec::new(),
        }
    }
}

/// The answer the scripted model gives after `results` tool results for `brief`.
pub fn answer(results: usize, brief: &str) -> String {
    format!("{results} results for: {brief}")
}

/// Runs `sessions` concurrent sessions against `addr` until `deadline`; each answer must carry
/// `expected` tool results and its caller's own focus. With `add_tasks`, each session adds a
/// task before each `plan_week`.
pub async fn run(
    addr: SocketAddr,
    sessions: usize,
    deadline: Instant,
    expected: usize,
    add_tasks: bool,
) -> Outcome {
    let tasks: Vec<_> = (0..sessions)
        .map(|session| tokio::spawn(session_loop(addr, session, deadline, expected, add_tasks)))
        .collect();
    let mut outcome = Outcome::new();
    for task in tasks {
        match task.await {
            Ok(session) => {
                outcome.latencies.extend(session.latencies);
                outcome.wrong += session.wrong;
                outcome.errors.extend(session.errors);
                outcome.added.extend(session.added);
            }
            Err(error) => outcome.errors.push(format!("a session panicked: {error}")),
        }
    }
    outcome
}

async fn session_loop(
    addr: SocketAddr,
    session: usize,
    deadline: Instant,
    expected: usize,
    add_tasks: bool,
) -> Outcome {
    let mut outcome = Outcome::new();
    let mut client = Client::new().with_options(|opt| {
        opt.with_http(|http| http.bind(addr.to_string()).with_endpoint("/mcp"))
            .with_timeout(Duration::from_secs(60))
    });
    if let Err(error) = client.connect().await {
        outcome
            .errors
            .push(format!("session {session} connects: {error}"));
        return outcome;
    }
    let mut call = 0;
    while Instant::now() < deadline {
        call += 1;
        let focus = format!("[s{session} c{call}]");
        if add_tasks {
            add_task(&client, session, &focus, &mut outcome).await;
        }
        let started = Instant::now();
        match client
            .tools()
            .call("plan_week", [("focus", focus.as_str())])
            .await
        {
            Ok(result) if result.is_error => outcome.errors.push(format!(
                "session {session}: tool error {:?}",
                result.content
            )),
            Ok(result) => {
                let text = text(&result);
                if text.starts_with(&answer(expected, "")) && text.contains(&focus) {
                    outcome.latencies.push((started, started.elapsed()));
                } else {
                    outcome.wrong += 1;
                }
            }
            Err(error) => outcome.errors.push(format!("session {session}: {error}")),
        }
    }
    let _ = client.disconnect().await;
    outcome
}

/// Adds the task `title` through `client`, as session `session`, and records what came of it.
async fn add_task(client: &Client, session: usize, title: &str, outcome: &mut Outcome) {
    match client.tools().call("add_task", [("title", title)]).await {
        Ok(result) if result.is_error => outcome.errors.push(format!(
            "session {session}: add_task: tool error {:?}",
            result.content
        )),
        Ok(result) => {
            let text = text(&result);
            if text.starts_with("Added task ") && text.ends_with(&format!(": {title}")) {
                outcome.added.push(title.to_owned());
            } else {
                outcome.wrong += 1;
            }
        }
        Err(error) => outcome
            .errors
            .push(format!("session {session}: add_task: {error}")),
    }
}

/// What `list_tasks` answers at `addr`: every task on the board, one a line.
pub async fn list_tasks(addr: SocketAddr) -> Result<String, String> {
    let mut client = Client::new().with_options(|opt| {
        opt.with_http(|http| http.bind(addr.to_string()).with_endpoint("/mcp"))
            .with_timeout(Duration::from_secs(60))
    });
    client
        .connect()
        .await
        .map_err(|error| format!("cannot list the tasks: {error}"))?;
    let result = client
        .tools()
        .call("list_tasks", ())
        .await
        .map_err(|error| format!("cannot list the tasks: {error}"))?;
    let _ = client.disconnect().await;
    Ok(text(&result))
}

/// The text of a tool result, its blocks joined.
fn text(result: &CallToolResponse) -> String {
    result
        .content
        .iter()
        .filter_map(|content| content.as_text().map(|text| text.text.as_str()))
        .collect()
}

/// Waits until something accepts connections at `addr`, for at most 30 seconds.
pub async fn wait_for(addr: SocketAddr) -> Result<(), String> {
    for _ in 0..300 {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Err(format!("nothing listens at {addr} after 30 s"))
}

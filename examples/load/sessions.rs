//! The MCP sessions: each a neva client calling `plan_week` in a loop until the time is up.

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
}

/// The answer the scripted model gives after `results` tool results for `brief`.
pub fn answer(results: usize, brief: &str) -> String {
    format!("{results} results for: {brief}")
}

/// Runs `sessions` concurrent sessions against `addr` until `deadline`; each answer must carry
/// `expected` tool results and its caller's own focus.
pub async fn run(addr: SocketAddr, sessions: usize, deadline: Instant, expected: usize) -> Outcome {
    let tasks: Vec<_> = (0..sessions)
        .map(|session| tokio::spawn(session_loop(addr, session, deadline, expected)))
        .collect();
    let mut outcome = Outcome {
        latencies: Vec::new(),
        wrong: 0,
        errors: Vec::new(),
    };
    for task in tasks {
        match task.await {
            Ok(session) => {
                outcome.latencies.extend(session.latencies);
                outcome.wrong += session.wrong;
                outcome.errors.extend(session.errors);
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
) -> Outcome {
    let mut outcome = Outcome {
        latencies: Vec::new(),
        wrong: 0,
        errors: Vec::new(),
    };
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
                let text = result
                    .content
                    .iter()
                    .filter_map(|content| content.as_text().map(|text| text.text.as_str()))
                    .collect::<String>();
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

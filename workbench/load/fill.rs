//! `load --fill-sessions N`: N callers of `board --auth`, each with a token of its own, start
//! more `plan_week` sessions than a caller may keep and grow each past a session's own bound,
//! all at once, so that together they ask the board to keep far more than its session bounds
//! let it (`ladoga::session::SessionBounds`). The board's resident memory must stay under a
//! ceiling, and every call must be answered: a session let go to make room for another is
//! refused in the words of one that expired, and its caller starts another.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use ladoga::REPORT_KEY;
use ladoga::testing::{Reply, ScriptedModel};
use neva::prelude::*;
use serde_json::json;

use crate::memory::Sampler;
use crate::replicas::{Board, Launch};

/// The board's token secret in this run: HS256, at least 32 bytes.
const SECRET: &str = "the load harness's own token secret, 45 bytes.";

/// The bytes of each answer of the scripted model: a session grows by this much with each call.
const ANSWER_BYTES: usize = 200 << 10;

/// Calls on each session: six answers of 200 KiB are past a session's own bound (1 MiB).
const CALLS_PER_SESSION: usize = 6;

/// Sessions each caller starts: more than a caller may keep (32 by default).
const SESSIONS_PER_CALLER: usize = 40;

/// What the fill mode runs.
pub struct Fill {
    /// How many callers, each with a token of its own.
    pub callers: usize,
    /// The `board` binary.
    pub board: PathBuf,
    /// The most resident memory the board may reach, in MiB.
    pub ceiling_mib: f64,
}

/// What the callers saw.
#[derive(Default)]
struct Seen {
    calls: usize,
    started: usize,
    let_go: usize,
    errors: Vec<String>,
}

/// Runs the fill and prints its report; `Ok(false)` when the ceiling or an answer was missed.
pub async fn run(fill: &Fill) -> Result<bool, Box<dyn std::error::Error>> {
    let answer = "x".repeat(ANSWER_BYTES);
    let script = ScriptedModel::from_fn(move |_| Reply::text(answer.clone())).without_log();
    let model = script.serve().await?;
    let launch = Launch {
        binary: fill.board.clone(),
        args: ["--model-url", &model.url(), "--model", "scripted", "--auth"]
            .map(str::to_owned)
            .to_vec(),
        env: vec![("LADOGA_AUTH_SECRET".to_owned(), SECRET.to_owned())],
        token: Some(token("the harness")),
    };
    let addr = super::free_addr();
    let board = Board::start(&launch, addr).await?;
    let pid = board.pid().ok_or("the board exited at once")?;
    let sampler = Sampler::start(pid, Duration::from_millis(500));
    println!(
        "load: {} callers, each {SESSIONS_PER_CALLER} sessions of {CALLS_PER_SESSION} calls, answers of {} KiB, against board --auth (pid {pid})",
        fill.callers,
        ANSWER_BYTES >> 10
    );
    let callers = (0..fill.callers).map(|caller| tokio::spawn(fill_as(addr, caller)));
    let mut seen = Seen::default();
    for caller in futures_util::future::join_all(callers).await {
        let caller = caller?;
        seen.calls += caller.calls;
        seen.started += caller.started;
        seen.let_go += caller.let_go;
        seen.errors.extend(caller.errors);
    }
    // The memory once every caller is done, as an idle board holds it.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let memory = sampler.stop().await;
    board.kill().await?;

    let (peak, last) = (
        memory.peak_kib() / 1024.0,
        memory.last_mean_kib(Duration::from_secs(1)) / 1024.0,
    );
    println!(
        "calls answered: {}; sessions started: {}; continuing calls told their session was let go: {}; errors: {}",
        seen.calls,
        seen.started,
        seen.let_go,
        seen.errors.len()
    );
    for error in seen.errors.iter().take(5) {
        println!("  error: {error}");
    }
    println!(
        "board resident memory: peak {peak:.1} MiB, at the end {last:.1} MiB (ceiling {:.0} MiB)",
        fill.ceiling_mib
    );
    let mut ok = true;
    if !seen.errors.is_empty() {
        println!("FAILED: every call must be answered");
        ok = false;
    }
    if peak > fill.ceiling_mib {
        println!("FAILED: the board's resident memory passed its ceiling");
        ok = false;
    }
    Ok(ok)
}

/// One caller: its sessions, one after the other, each grown call by call.
async fn fill_as(addr: SocketAddr, caller: usize) -> Seen {
    let mut seen = Seen::default();
    let mut client = Client::new().with_options(|opt| {
        opt.with_http(|http| {
            (http.bind(addr.to_string()).with_endpoint("/mcp"))
                .with_auth(token(&format!("caller {caller}")))
        })
        .with_timeout(Duration::from_secs(120))
    });
    if let Err(error) = client.connect().await {
        seen.errors
            .push(format!("caller {caller} connects: {error}"));
        return seen;
    }
    for session in 0..SESSIONS_PER_CALLER {
        let mut id: Option<String> = None;
        for call in 0..CALLS_PER_SESSION {
            let focus = format!("caller {caller}, session {session}, call {call}");
            let mut args = vec![("focus", focus)];
            if let Some(id) = &id {
                args.push(("session", id.clone()));
            }
            let result = match client.tools().call("plan_week", args).await {
                Ok(result) => result,
                Err(error) => {
                    seen.errors.push(format!("caller {caller}: {error}"));
                    return seen;
                }
            };
            let said = texts(&result);
            if result.is_error && said.contains("no session with that id") {
                // Let go to make room for another: this caller starts a new one.
                seen.let_go += 1;
                id = None;
                continue;
            }
            if result.is_error {
                seen.errors.push(format!("caller {caller}: {said}"));
                return seen;
            }
            seen.calls += 1;
            if id.is_none() {
                seen.started += 1;
                id = session_of(&result);
            }
        }
    }
    let _ = client.disconnect().await;
    seen
}

/// A token naming `subject`, signed with the board's secret, valid for a day.
fn token(subject: &str) -> String {
    let exp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
        + 86_400;
    jsonwebtoken::encode(
        &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
        &json!({"sub": subject, "exp": exp}),
        &jsonwebtoken::EncodingKey::from_secret(SECRET.as_bytes()),
    )
    .expect("a token")
}

/// The texts of a result's blocks, joined.
fn texts(result: &CallToolResponse) -> String {
    (result.content.iter())
        .filter_map(|content| content.as_text().map(|text| text.text.as_str()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The session a result names in its report.
fn session_of(result: &CallToolResponse) -> Option<String> {
    let block = serde_json::to_value(result.content.first()?).ok()?;
    block["_meta"][REPORT_KEY]["session"]
        .as_str()
        .map(str::to_owned)
}

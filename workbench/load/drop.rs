//! `load --drop N`: N `plan_week` calls at once against `board --admin`, each dropped by its
//! caller while the model is still writing its answer; then, once the runs are over, the
//! board's live heap (`board_heap_live_bytes` on `/metrics`: the bytes its allocator handed out
//! and did not get back) must be back within 10 % of what it was before the burst. A leak keeps
//! live bytes; memory the allocator keeps for later shows only in the resident memory, of which
//! the board must have given back at least half of what the burst took once it trimmed its heap
//! (`board/heap.rs`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use ladoga::testing::{Reply, ScriptedModel};
use neva::prelude::*;

use crate::memory::Sampler;
use crate::replicas::{Board, Launch};

/// How long the model takes over a call that is dropped: the calls are dropped halfway.
const THINKING: Duration = Duration::from_secs(4);

/// How many MCP sessions the calls are made on, each with its share of them at once.
const SESSIONS: usize = 50;

/// How much the live heap may be above its baseline once the dropped runs are over.
const LIVE_GROWTH_LIMIT: f64 = 0.10;

/// What the drop mode runs.
pub struct Drop {
    /// How many calls to drop.
    pub calls: usize,
    /// The `board` binary.
    pub board: PathBuf,
}

/// Runs the burst and prints its report; `Ok(false)` when the live heap did not come back.
pub async fn run(drop: &Drop) -> Result<bool, Box<dyn std::error::Error>> {
    // Answers at once for the warm-up; after `THINKING` for a call that is to be dropped.
    let script = ScriptedModel::from_fn(|seen| {
        let brief = seen.first_user_text().unwrap_or_default();
        match brief.contains("dropped") {
            true => Reply::text("Too late.").after(THINKING),
            false => Reply::text("Planned."),
        }
    })
    .without_log();
    let model = script.serve().await?;
    let admin = super::free_addr();
    let launch = Launch {
        binary: drop.board.clone(),
        args: [
            "--model-url",
            &model.url(),
            "--model",
            "scripted",
            "--admin",
            &admin.to_string(),
        ]
        .map(str::to_owned)
        .to_vec(),
        env: Vec::new(),
        token: None,
    };
    let addr = super::free_addr();
    let board = Board::start(&launch, addr).await?;
    let pid = board.pid().ok_or("the board exited at once")?;
    let sampler = Sampler::start(pid, Duration::from_millis(250));
    println!(
        "load: {} calls of plan_week at once on {SESSIONS} sessions, each dropped after {:.0?}, against board --admin (pid {pid})",
        drop.calls,
        THINKING / 2
    );

    // The warm-up: calls answered, so the baseline has the board's buffers and caches.
    let sessions = connect_all(addr).await?;
    for _ in 0..2 {
        let calls = sessions.iter().map(|client| plan_week(client, "warm-up"));
        for answered in futures_util::future::join_all(calls).await {
            answered?;
        }
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let baseline = live_heap(admin).await?;

    // The burst: every call dropped halfway through its model's answer, its session dropped too.
    let per_session = drop.calls.div_ceil(SESSIONS);
    let bursts = sessions.into_iter().map(|client| async move {
        let calls = (0..per_session).map(|_| plan_week(&client, "a call that will be dropped"));
        let all = futures_util::future::join_all(calls);
        let ended = tokio::time::timeout(THINKING / 2, all).await.is_ok();
        drop_session(client);
        ended
    });
    let answered = (futures_util::future::join_all(bursts).await)
        .into_iter()
        .filter(|ended| *ended)
        .count();
    let peak_live = live_heap(admin).await?;
    // The runs end when their model answers, whether anyone waits or not; then a little more.
    tokio::time::sleep(THINKING + Duration::from_secs(4)).await;
    let after = live_heap(admin).await?;
    // The board hands its free pages back every 10 s (`malloc_trim`): one round of that.
    tokio::time::sleep(Duration::from_secs(12)).await;
    let memory = sampler.stop().await;
    board.kill().await?;

    let mib = |bytes: f64| bytes / f64::from(1 << 20);
    println!(
        "board live heap: before {:.1} MiB, just after the drop {:.1} MiB, once the runs ended {:.1} MiB ({:+.1} %)",
        mib(baseline),
        mib(peak_live),
        mib(after),
        (after / baseline - 1.0) * 100.0
    );
    let (first, peak, end) = (
        memory.first_mean_kib(Duration::from_secs(1)) / 1024.0,
        memory.peak_kib() / 1024.0,
        memory.last_mean_kib(Duration::from_secs(1)) / 1024.0,
    );
    println!(
        "board resident memory: first second {first:.1} MiB, peak {peak:.1} MiB, at the end {end:.1} MiB"
    );
    let mut ok = true;
    if answered > 0 {
        println!("FAILED: {answered} sessions' calls ended before they were dropped");
        ok = false;
    }
    if after > baseline * (1.0 + LIVE_GROWTH_LIMIT) {
        println!(
            "FAILED: the live heap did not come back within {:.0} % of its baseline",
            LIVE_GROWTH_LIMIT * 100.0
        );
        ok = false;
    }
    if end > first + (peak - first) / 2.0 {
        println!("FAILED: the resident memory did not give back half of what the burst took");
        ok = false;
    }
    Ok(ok)
}

/// `SESSIONS` MCP sessions with the board at `addr`.
async fn connect_all(addr: SocketAddr) -> Result<Vec<Client>, Box<dyn std::error::Error>> {
    let mut sessions = Vec::with_capacity(SESSIONS);
    for _ in 0..SESSIONS {
        let mut client = Client::new().with_options(|opt| {
            opt.with_http(|http| http.bind(addr.to_string()).with_endpoint("/mcp"))
                .with_timeout(Duration::from_secs(60))
        });
        client.connect().await?;
        sessions.push(client);
    }
    Ok(sessions)
}

/// A call of `plan_week` on `client`, about `focus`: an error unless it is answered.
async fn plan_week(client: &Client, focus: &str) -> Result<(), String> {
    let result = client
        .tools()
        .call("plan_week", [("focus", focus)])
        .await
        .map_err(|error| error.to_string())?;
    match result.is_error {
        true => Err(format!("plan_week failed: {result:?}")),
        false => Ok(()),
    }
}

/// Drops `client` as a caller that went away does: no goodbye.
fn drop_session(client: Client) {
    std::mem::drop(client);
}

/// The board's live heap, from `/metrics` at its admin address `admin`, in bytes.
async fn live_heap(admin: SocketAddr) -> Result<f64, Box<dyn std::error::Error>> {
    let metrics = reqwest::get(format!("http://{admin}/metrics"))
        .await?
        .text()
        .await?;
    let line = (metrics.lines())
        .find(|line| line.starts_with("board_heap_live_bytes "))
        .ok_or("no board_heap_live_bytes on /metrics")?;
    Ok(line["board_heap_live_bytes ".len()..].trim().parse()?)
}

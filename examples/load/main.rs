//! `load`: many MCP sessions calling `board`'s `plan_week` at once, for a while, with a scripted
//! model behind real HTTP; prints the latencies, the errors and the board's resident memory.
//!
//! ```text
//! load [--sessions 200] [--seconds 60] [--warmup 10] [--turns 3] [--calls 3] [--board PATH]
//! ```
//!
//! The sessions call for `--warmup` seconds first (connections, buffers and the allocator's
//! arenas settling), then for `--seconds`, the measured part: its latencies, its throughput and
//! the board's memory. Every call of both parts must be answered correctly. The scripted model answers each orchestration with `--turns` turns of `--calls` calls to
//! `list_tasks` each, then with a text naming the results it was sent and the brief. Every
//! answer is checked against what its caller asked. It fails (exit code 1) on any error, any
//! wrong answer, or a resident memory in the last 10 seconds more than 10 % above the first 10.
//! `scripts/load` builds it and `board` in release mode and runs it.

mod balancer;
mod latency;
mod memory;
mod sessions;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use ladoga::testing::{Reply, ScriptedModel, SeenRequest};
use serde_json::json;

use latency::Latencies;
use memory::Sampler;

/// Runs many concurrent MCP sessions against `board`, each calling `plan_week` in a loop.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Cli {
    /// Concurrent MCP sessions, each with its own client.
    #[arg(long, default_value_t = 200)]
    sessions: usize,
    /// How long the measured part lasts.
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// How long the sessions call before the measured part starts.
    #[arg(long, default_value_t = 10)]
    warmup: u64,
    /// Turns of tool calls the scripted model makes before it answers.
    #[arg(long, default_value_t = 3)]
    turns: usize,
    /// Tool calls in each of those turns.
    #[arg(long, default_value_t = 3)]
    calls: usize,
    /// The `board` binary; by default the one next to this binary.
    #[arg(long)]
    board: Option<PathBuf>,
    /// Replicas of the board; with more than one, the sessions call them through nginx, round
    /// robin (Debian's nginx, installed by `scripts/services`).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    replicas: u16,
}

/// How much resident memory may grow between the first and the last 10 seconds.
const GROWTH_LIMIT: f64 = 0.10;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli).await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("load: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the load and prints its report; `Ok(false)` when a target was missed.
async fn run(cli: &Cli) -> Result<bool, Box<dyn std::error::Error>> {
    let (turns, calls) = (cli.turns, cli.calls);
    let script = ScriptedModel::from_fn(move |request| reply(request, turns, calls)).without_log();
    let model = script.serve().await?;

    let board_path = match &cli.board {
        Some(path) => path.clone(),
        None => std::env::current_exe()?.with_file_name("board"),
    };
    let mut boards = Vec::new();
    for _ in 0..cli.replicas {
        let addr = free_addr()?;
        let board = tokio::process::Command::new(&board_path)
            .args(["--http", &addr.to_string(), "--model-url", &model.url()])
            .args(["--model", "scripted"])
            .env("RUST_LOG", "warn")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|error| format!("cannot start {}: {error}", board_path.display()))?;
        sessions::wait_for(addr).await?;
        boards.push((board, addr));
    }
    let pids: Vec<u32> = (boards.iter())
        .map(|(board, _)| board.id().ok_or("a board exited at once"))
        .collect::<Result<_, _>>()?;
    let replicas: Vec<SocketAddr> = boards.iter().map(|(_, addr)| *addr).collect();
    // One board is called directly; several through nginx.
    let balancer = match replicas.as_slice() {
        [_] => None,
        _ => Some(balancer::Balancer::start(&replicas, balancer::Routing::RoundRobin).await?),
    };
    let (addr, target) = match &balancer {
        None => (replicas[0], format!("board (pid {})", pids[0])),
        Some(balancer) => (
            balancer.addr,
            format!(
                "nginx ({}) in front of {} boards (pids {pids:?})",
                balancer.url(),
                replicas.len()
            ),
        ),
    };

    let expected = turns * calls;
    let duration = Duration::from_secs(cli.seconds);
    println!(
        "load: {} sessions for {} s after {} s of warm-up against {target}; each call {turns} turns x {calls} calls",
        cli.sessions, cli.seconds, cli.warmup
    );
    let measured = Instant::now() + Duration::from_secs(cli.warmup);
    let running = tokio::spawn(sessions::run(
        addr,
        cli.sessions,
        measured + duration,
        expected,
    ));
    tokio::time::sleep_until(measured.into()).await;
    let samplers: Vec<Sampler> = (pids.iter())
        .map(|&pid| Sampler::start(pid, Duration::from_secs(1)))
        .collect();
    let outcome = running.await?;
    let mut memories = Vec::new();
    for sampler in samplers {
        memories.push(sampler.stop().await);
    }
    drop(balancer);
    for (mut board, _) in boards {
        board.kill().await?;
    }

    let warmup_calls = outcome
        .latencies
        .iter()
        .filter(|(started, _)| *started < measured)
        .count();
    let latencies = Latencies::new(
        outcome
            .latencies
            .into_iter()
            .filter(|(started, _)| *started >= measured)
            .map(|(_, took)| took)
            .collect(),
    );
    println!("warm-up: {warmup_calls} calls answered correctly");
    let seconds = duration.as_secs_f64();
    println!(
        "measured: {} calls answered correctly; whole run: {} wrong answers, {} errors",
        latencies.count(),
        outcome.wrong,
        outcome.errors.len()
    );
    for error in outcome.errors.iter().take(5) {
        println!("  error: {error}");
    }
    println!(
        "throughput: {:.1} calls/s, {:.1} model requests/s",
        latencies.count() as f64 / seconds,
        (latencies.count() * (turns + 1)) as f64 / seconds
    );
    println!(
        "latency: p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        latencies.percentile_ms(50.0),
        latencies.percentile_ms(90.0),
        latencies.percentile_ms(99.0),
        latencies.max_ms()
    );
    let window = Duration::from_secs(10);
    let mut grew = false;
    for (index, memory) in memories.iter().enumerate() {
        let name = match memories.len() {
            1 => "board".to_owned(),
            _ => format!("board {}", index + 1),
        };
        grew |= report_memory(&name, memory, window) > GROWTH_LIMIT;
    }

    let mut ok = true;
    if !outcome.errors.is_empty() || outcome.wrong > 0 || latencies.count() == 0 {
        println!("FAILED: every call must be answered correctly");
        ok = false;
    }
    if grew {
        println!(
            "FAILED: resident memory grew more than {:.0} %",
            GROWTH_LIMIT * 100.0
        );
        ok = false;
    }
    Ok(ok)
}

/// Prints what a board's resident memory did; how much it grew from the first `window` to the
/// last.
fn report_memory(name: &str, memory: &memory::Samples, window: Duration) -> f64 {
    let (first, last) = (memory.first_mean_kib(window), memory.last_mean_kib(window));
    let growth = last / first - 1.0;
    println!(
        "{name} resident memory: first 10 s {:.1} MiB, last 10 s {:.1} MiB, growth {:+.1} %, peak {:.1} MiB",
        first / 1024.0,
        last / 1024.0,
        growth * 100.0,
        memory.peak_kib() / 1024.0
    );
    let windows: Vec<String> = memory
        .window_means_kib(window)
        .iter()
        .map(|kib| format!("{:.1}", kib / 1024.0))
        .collect();
    println!(
        "{name} resident memory by 10 s window (MiB): {}",
        windows.join(", ")
    );
    growth
}

/// The scripted model: `turns` turns of `calls` calls to `list_tasks`, then an answer naming
/// how many results it was sent and the brief, which the caller checks.
fn reply(request: &SeenRequest, turns: usize, calls: usize) -> Reply {
    let done = request
        .messages()
        .iter()
        .filter(|message| message["role"] == "assistant")
        .count();
    if done < turns {
        return Reply::calls((0..calls).map(|_| ("list_tasks", json!({}))));
    }
    let brief = request.first_user_text().unwrap_or_default();
    Reply::text(sessions::answer(request.tool_results().len(), &brief))
}

/// A loopback address no one listens on right now.
fn free_addr() -> std::io::Result<SocketAddr> {
    std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()
}

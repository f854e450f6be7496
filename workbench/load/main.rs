//! `load`: many MCP sessions calling `board`'s `plan_week` at once, for a while, with a scripted
//! model behind real HTTP; prints the latencies, the errors and the board's resident memory.
//!
//! ```text
//! load [--sessions 200] [--seconds 60] [--warmup 10] [--turns 3] [--calls 3] [--board PATH]
//!      [--replicas 1 [--restart]] [--model-delay 0]
//! load --durable 100 [--kill-every 10] [--spacing-ms 300] [--model-delay 1500]
//! load --fill-sessions 20 [--ceiling-mib 512]
//! load --drop 1000
//! ```
//!
//! The sessions call for `--warmup` seconds first (connections, buffers and the allocator's
//! arenas settling), then for `--seconds`, the measured part: its latencies, its throughput and
//! the board's memory. Every call of both parts must be answered correctly. The scripted model answers each orchestration with `--turns` turns of `--calls` calls to
//! `list_tasks` each, then with a text naming the results it was sent and the brief. Every
//! answer is checked against what its caller asked. It fails (exit code 1) on any error, any
//! wrong answer, or a resident memory in the last 10 seconds more than 10 % above the first 10.
//! `scripts/load` builds it and `board` in release mode and runs it. `board` is a binary of the
//! examples (`ladoga-examples`), another package of the workspace: `load` starts the one next to
//! it in the target folder, or the one `--board` names.
//!
//! With `--replicas 2 --restart`, a rolling deploy: the boards share a Redis server (Debian's
//! `redis-server`), a SQLite board (`--db`) and their request-state secret, behind nginx; each
//! session adds a task before each `plan_week`; and the boards are restarted one after the other
//! while the sessions call (SIGTERM, its exit, started again, its first answer). Its defaults:
//! 50 sessions, 2 s of warm-up, 1 turn of 1 call, model answers that take 1 s. It fails on any
//! error, any wrong answer, any task added twice or a board that does not exit 0; memory is not
//! watched, since the processes change.
//!
//! With `--durable N` (MCP 2026-07-28), N durable `plan_week` tasks through nginx to two boards
//! sharing a real restate-server (`LADOGA_RESTATE` names `.peers/restate`, which `scripts/peers
//! install` fills), one started every `--spacing-ms`, while a board is killed (`SIGKILL`) and
//! started again every `--kill-every` seconds (`durable.rs`). It fails on any task that does not
//! complete with its own answer, and any task on the board other than once.
//!
//! With `--fill-sessions N`, N callers of `board --auth`, each with a token of its own, start
//! 40 sessions each (a caller may keep 32) and grow each past a session's own bound (1 MiB), all
//! at once: far more than the board's session bounds let it keep (`fill.rs`). It fails on any
//! call not answered, and on a resident memory past `--ceiling-mib`.
//!
//! With `--drop N`, N `plan_week` calls at once on 50 sessions of `board --admin`, each dropped
//! (its session with it) while the model is still answering (`drop.rs`). It fails unless the
//! board's live heap (`board_heap_live_bytes`) is back within 10 % of its baseline once the runs
//! have ended, and prints the resident memory beside it.

mod balancer;
mod drop;
#[cfg(not(feature = "legacy-spec"))]
mod durable;
mod fill;
mod latency;
mod loopback;
mod memory;
mod redis;
mod replicas;
#[cfg(not(feature = "legacy-spec"))]
mod restate;
mod sessions;

use loopback::free_addr;

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
    /// Concurrent MCP sessions, each with its own client [default: 200; 50 with --restart].
    #[arg(long)]
    sessions: Option<usize>,
    /// How long the measured part lasts.
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// How long the sessions call before the measured part starts [default: 10; 2 with
    /// --restart].
    #[arg(long)]
    warmup: Option<u64>,
    /// Turns of tool calls the scripted model makes before it answers [default: 3; 1 with
    /// --restart].
    #[arg(long)]
    turns: Option<usize>,
    /// Tool calls in each of those turns [default: 3; 1 with --restart].
    #[arg(long)]
    calls: Option<usize>,
    /// How long each answer of the scripted model takes, in milliseconds [default: 0; 1000
    /// with --restart].
    #[arg(long, value_name = "MS")]
    model_delay: Option<u64>,
    /// The `board` binary; by default the one next to this binary, where cargo builds the
    /// examples' `board` too.
    #[arg(long)]
    board: Option<PathBuf>,
    /// Replicas of the board; with more than one, the sessions call them through nginx, round
    /// robin (Debian's nginx, installed by `scripts/services`).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    replicas: u16,
    /// Restart the replicas in turn while the sessions call (needs `--replicas 2` or more):
    /// they share Redis, a SQLite board and their request-state secret.
    #[arg(long)]
    restart: bool,
    /// Run this many durable tasks instead, through nginx to two boards on one restate-server,
    /// a board killed and started again every `--kill-every` seconds.
    #[arg(long, value_name = "TASKS")]
    durable: Option<usize>,
    /// With `--durable`: seconds between two kills.
    #[arg(long, default_value_t = 10)]
    kill_every: u64,
    /// With `--durable`: milliseconds between two tasks' starts.
    #[arg(long, default_value_t = 300)]
    spacing_ms: u64,
    /// Have this many callers fill the board's sessions past their bounds instead, and watch
    /// its resident memory.
    #[arg(long, value_name = "CALLERS")]
    fill_sessions: Option<usize>,
    /// With `--fill-sessions`: the most resident memory the board may reach, in MiB.
    #[arg(long, default_value_t = 512.0)]
    ceiling_mib: f64,
    /// Make this many calls at once and drop each while its model is still answering instead,
    /// and check that the board's live heap comes back within 10 % of its baseline.
    #[arg(long, value_name = "CALLS")]
    drop: Option<usize>,
}

/// The request-state secret the replicas share in the restart mode: 48 bytes.
const STATE_SECRET: &str = "the load harness's shared request-state secret.";

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

/// The `board` binary the load runs against: `--board`, else the one next to this binary,
/// which must have been built (`cargo build -p ladoga-examples --bin board`, in the same profile).
fn board(cli: &Cli) -> Result<PathBuf, String> {
    if let Some(path) = &cli.board {
        return Ok(path.clone());
    }
    let exe =
        std::env::current_exe().map_err(|error| format!("cannot find this binary: {error}"))?;
    let board = exe.with_file_name("board");
    match board.exists() {
        true => Ok(board),
        false => Err(format!(
            "no `board` at {}: build it first (`cargo build -p ladoga-examples --bin board`, in \
             this binary's profile and build), or name one with --board",
            board.display()
        )),
    }
}

/// Runs the load and prints its report; `Ok(false)` when a target was missed.
async fn run(cli: &Cli) -> Result<bool, Box<dyn std::error::Error>> {
    if let Some(calls) = cli.drop {
        return drop::run(&drop::Drop {
            calls,
            board: board(cli)?,
        })
        .await;
    }
    if let Some(callers) = cli.fill_sessions {
        return fill::run(&fill::Fill {
            callers,
            board: board(cli)?,
            ceiling_mib: cli.ceiling_mib,
        })
        .await;
    }
    if let Some(tasks) = cli.durable {
        #[cfg(feature = "legacy-spec")]
        return Err(format!(
            "--durable {tasks} runs MCP 2026-07-28 tasks: build without legacy-spec"
        )
        .into());
        #[cfg(not(feature = "legacy-spec"))]
        return durable::run(&durable::Durable {
            tasks,
            board: board(cli)?,
            kill_every: Duration::from_secs(cli.kill_every),
            delay: Duration::from_millis(cli.model_delay.unwrap_or(1500)),
            spacing: Duration::from_millis(cli.spacing_ms),
        })
        .await;
    }
    if cli.restart && cli.replicas < 2 {
        return Err("--restart needs --replicas 2 or more: one replica would have no other to take its calls".into());
    }
    let restart = cli.restart;
    let sessions = cli.sessions.unwrap_or(if restart { 50 } else { 200 });
    let warmup = cli.warmup.unwrap_or(if restart { 2 } else { 10 });
    let turns = cli.turns.unwrap_or(if restart { 1 } else { 3 });
    let calls = cli.calls.unwrap_or(if restart { 1 } else { 3 });
    let delay = Duration::from_millis(cli.model_delay.unwrap_or(if restart { 1000 } else { 0 }));
    let script = ScriptedModel::from_fn(move |request| reply(request, turns, calls).after(delay))
        .without_log();
    let model = script.serve().await?;

    let binary = board(cli)?;
    let mut launch = replicas::Launch {
        binary,
        args: ["--model-url", &model.url(), "--model", "scripted"]
            .map(str::to_owned)
            .to_vec(),
        env: Vec::new(),
        token: None,
    };
    // The restart mode's shared state: Redis, the board's database, the secret.
    let redis = match restart {
        true => Some(redis::Redis::start().await?),
        false => None,
    };
    let db = std::env::temp_dir().join(format!("ladoga-load-{}.db", std::process::id()));
    if let Some(redis) = &redis {
        let db = db.to_string_lossy().into_owned();
        launch
            .args
            .extend(["--redis".to_owned(), redis.url(), "--db".to_owned(), db]);
        launch
            .env
            .push(("LADOGA_STATE_SECRET".to_owned(), STATE_SECRET.to_owned()));
    }
    let mut boards = Vec::new();
    for _ in 0..cli.replicas {
        boards.push(replicas::Board::start(&launch, loopback::free_addr()).await?);
    }
    let pids: Vec<u32> = (boards.iter())
        .map(|board| board.pid().ok_or("a board exited at once"))
        .collect::<Result<_, _>>()?;
    let addrs: Vec<SocketAddr> = boards.iter().map(|board| board.addr).collect();
    // One board is called directly; several through nginx.
    let balancer = match addrs.as_slice() {
        [_] => None,
        _ => Some(balancer::Balancer::start(&addrs, balancer::Routing::RoundRobin).await?),
    };
    let (addr, target) = match &balancer {
        None => (addrs[0], format!("board (pid {})", pids[0])),
        Some(balancer) => (
            balancer.addr,
            format!(
                "nginx ({}) in front of {} boards (pids {pids:?})",
                balancer.url(),
                addrs.len()
            ),
        ),
    };

    let expected = turns * calls;
    let duration = Duration::from_secs(cli.seconds);
    println!(
        "load: {sessions} sessions for {} s after {warmup} s of warm-up against {target}; each call {turns} turns x {calls} calls, model answers after {} ms{}",
        cli.seconds,
        delay.as_millis(),
        if restart {
            "; each session adds a task before each call; boards restarted in turn"
        } else {
            ""
        }
    );
    let measured = Instant::now() + Duration::from_secs(warmup);
    let running = tokio::spawn(sessions::run(
        addr,
        sessions,
        measured + duration,
        expected,
        restart,
    ));
    tokio::time::sleep_until(measured.into()).await;
    // Memory is watched when the boards stay; in the restart mode each board is restarted about
    // twice within the measured part.
    let samplers: Vec<Sampler> = match restart {
        true => Vec::new(),
        false => (pids.iter())
            .map(|&pid| Sampler::start(pid, Duration::from_secs(1)))
            .collect(),
    };
    let restarts = match restart {
        true => {
            let pause = duration / (2 * u32::from(cli.replicas) + 2);
            replicas::restart_in_turn(&mut boards, &launch, pause, measured + duration).await?
        }
        false => Vec::new(),
    };
    let outcome = running.await?;
    let mut memories = Vec::new();
    for sampler in samplers {
        memories.push(sampler.stop().await);
    }
    let not_once = match restart {
        true => not_once(addrs[0], &outcome.added).await?,
        false => Vec::new(),
    };
    for board in boards {
        board.kill().await?;
    }
    // Every board has exited and been waited for, nginx not yet: the children counted are the
    // boards.
    let board_cpu = children_cpu()?;
    // What nginx logged, read before it stops, which removes its log.
    let nginx_logged = balancer.as_ref().map(balancer::Balancer::logged);
    drop(balancer);
    drop(redis);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
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
    let answered = warmup_calls + latencies.count();
    println!(
        "board CPU time (user and system, every board, warm-up included): {:.1} s, {:.0} us per call answered",
        board_cpu.as_secs_f64(),
        board_cpu.as_secs_f64() * 1e6 / answered.max(1) as f64
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
    if restart {
        println!(
            "restarts: {}; tasks added: {}, not on the board exactly once: {}",
            restarts.len(),
            outcome.added.len(),
            not_once.len()
        );
        for restart in &restarts {
            println!(
                "  board {}: drained and exited in {} ms (exit code {}), serving again {} ms later",
                restart.board,
                restart.drained.as_millis(),
                restart
                    .code
                    .map_or("none: a signal".to_owned(), |code| code.to_string()),
                restart.started.as_millis()
            );
        }
        for task in not_once.iter().take(5) {
            println!("  task {task}");
        }
        if restarts.is_empty() || restarts.iter().any(|restart| restart.code != Some(0)) {
            println!("FAILED: every board must be restarted, and exit 0");
            ok = false;
        }
        if !not_once.is_empty() {
            println!("FAILED: every task added must be on the board once");
            ok = false;
        }
    }
    if !outcome.errors.is_empty() || outcome.wrong > 0 || latencies.count() == 0 {
        println!("FAILED: every call must be answered correctly");
        // Why nginx answered a call itself, when it did.
        for line in nginx_logged.iter().flatten().take(10) {
            println!("  nginx: {line}");
        }
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

/// The tasks the board at `addr` holds more than once, and those of `added` it does not hold: a
/// call that ran twice, or an answer that was not true.
async fn not_once(addr: SocketAddr, added: &[String]) -> Result<Vec<String>, String> {
    let listing = sessions::list_tasks(addr).await?;
    let mut held = std::collections::HashMap::<&str, usize>::new();
    for line in listing.lines() {
        if let Some((_, title)) = line.split_once("] ") {
            *held.entry(title).or_default() += 1;
        }
    }
    let mut wrong: Vec<String> = held
        .iter()
        .filter(|(_, count)| **count > 1)
        .map(|(title, count)| format!("{title} ({count} times)"))
        .collect();
    wrong.extend(
        added
            .iter()
            .filter(|title| !held.contains_key(title.as_str()))
            .map(|title| format!("{title} (not on the board)")),
    );
    Ok(wrong)
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

/// The CPU time, user and system, of this process's children that have exited and been waited
/// for.
fn children_cpu() -> Result<Duration, String> {
    use nix::sys::resource::{UsageWho, getrusage};
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN)
        .map_err(|error| format!("cannot read the boards' CPU time: {error}"))?;
    let micros = |time: nix::sys::time::TimeVal| {
        Duration::from_secs(time.tv_sec().max(0) as u64)
            + Duration::from_micros(time.tv_usec().max(0) as u64)
    };
    Ok(micros(usage.user_time()) + micros(usage.system_time()))
}

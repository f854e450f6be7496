//! `board`: a task board MCP server whose `plan_week` tool hands the planning to a model,
//! with the board's own tools.
//!
//! ```text
//! board [--http 127.0.0.1:PORT [--auth | --oauth ISSUER_URL [--resource URL]] [--redis URL]
//!       | --stdio] [--model-url URL] [--model NAME] [--remote URL] [--db PATH] [--drain 30s]
//!       [--admin 127.0.0.1:PORT]
//!       [--restate-endpoint ADDR --restate-ingress URL [--restate-admin URL] [--restate-advertise URL]
//!        [--restate-identity-key KEY]] [--caller-model]
//! ```
//!
//! Served over Streamable HTTP at `/mcp` on `127.0.0.1:3000` unless told otherwise. The model is
//! any OpenAI-compatible server: `--model-url`, else `LADOGA_MODEL_URL`, else
//! `http://127.0.0.1:1234`; the name is `--model`, else `LADOGA_MODEL`, else `qwen3`. Each turn
//! of an orchestration is logged on stderr (`RUST_LOG` filters it; `ladoga=debug`, which shows
//! the calls' arguments and results, by default). With `--remote`, the tools of the MCP server at
//! that URL (`http://HOST:PORT/PATH`) join `plan_week`'s, each offered as `remote_` and its name,
//! listed again when that server says its list changed.
//!
//! `plan_week` asks its caller, through MCP elicitation, before any call that may destroy
//! (`approve = destructive`): of the board's tools, `clear_board`, and every remote tool, which
//! says nothing of itself. A caller that cannot be asked never has such a call run. A caller
//! that asks for an MCP task gets one (`task_support = "optional"`): it polls `tasks/get`, whose
//! `statusMessage` says how the run goes (`ladoga::TaskProgress`), answers the questions with
//! `tasks/update`, and may stop the run with `tasks/cancel`.
//!
//! With `--auth` (HTTP only), every request needs a bearer JWT signed HS256 with the secret in
//! `LADOGA_AUTH_SECRET` (at least 32 bytes), with an `exp`; the caller's roles are the token's
//! `role` claim (a string) and `roles` claim (an array). A caller without `admin` is never offered
//! `clear_board`; a request without a valid token gets `401` (see `auth.rs`).
//!
//! With `--oauth ISSUER_URL` (HTTP only) the board is an OAuth 2.1 resource server, as MCP's
//! authorization spec has it (`oauth.rs`): it publishes its Protected Resource Metadata, takes
//! the tokens that issuer signed for this board (`--resource`, its canonical URL, by default
//! `http://` and `--http` and `/mcp`), and the token's scopes open the tools (`access.rs`):
//! `board:read`, `board:write`, `board:admin`.
//!
//! Over HTTP, on SIGTERM or SIGINT the board drains (`grace.rs`): it answers new calls `503`
//! with `Retry-After` (so a load balancer moves them on), lets the calls in flight and their
//! later rounds finish within `--drain` (30 s by default), then stops the runs still going, each
//! with a clear tool error for its caller, and exits 0. A second signal ends it at once. Its
//! front (`front.rs`) listens at `--http` and passes the requests on to neva on a loopback
//! port of its own.
//!
//! With `--admin ADDR`, the probes and metrics are served there, apart from MCP (`admin.rs`):
//! `/healthz`, `/readyz` (`503` with the reason while draining, while a store does not answer, or
//! while restate-server does not know a durable board's deployment yet) and `/metrics` (what
//! `ladoga::metrics` records, in Prometheus' text format).
//!
//! With `OTEL_EXPORTER_OTLP_ENDPOINT` (an OTLP/HTTP backend's URL), its spans go there
//! (`traces.rs`): a call whose `_meta` carries a W3C `traceparent` is a span of its caller's
//! trace, and so are its run, the runs nested in it and the runs of `--remote`'s server.
//!
//! With `--caller-model`, `plan_week` plans with its caller's own model (`ladoga::CallerModel`,
//! `planner.rs`): each model request is put to the MCP client that called it as
//! `sampling/createMessage`, and the board's model is asked only when that client cannot sample.
//! `ask --model-url URL plan_week …` is such a client.
//!
//! With `--restate-endpoint ADDR --restate-ingress URL`, `plan_week` runs durable
//! (`ladoga::durable`): each call is a Restate workflow invocation, run through the Restate
//! endpoint the board serves at `ADDR` (registered with `--restate-admin URL`), each model
//! request and turn of tool calls journaled by restate-server. Without them, `plan_week` runs as
//! a plain orchestrator.

mod access;
mod admin;
mod auth;
mod body_limit;
mod front;
mod grace;
mod heap;
mod oauth;
mod owners;
mod planner;
mod remote;
mod replicas;
#[cfg(unix)]
mod signals;
#[cfg(unix)]
mod stdin;
#[cfg(feature = "legacy-spec")]
mod step_up;
mod store;
mod tasks;
mod traces;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use neva::prelude::*;

/// A task board MCP server with a model-driven `plan_week` tool.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Cli {
    /// Serve over Streamable HTTP at this loopback address, endpoint `/mcp`.
    #[arg(
        long,
        value_name = "ADDR",
        default_value = "127.0.0.1:3000",
        conflicts_with = "stdio"
    )]
    http: String,
    /// Serve over stdin and stdout instead; the server exits when stdin closes.
    #[arg(long)]
    stdio: bool,
    /// The OpenAI-compatible model server.
    #[arg(
        long,
        value_name = "URL",
        env = "LADOGA_MODEL_URL",
        default_value = "http://127.0.0.1:1234"
    )]
    model_url: String,
    /// The model name to ask that server for.
    #[arg(
        long,
        value_name = "NAME",
        env = "LADOGA_MODEL",
        default_value = "qwen3"
    )]
    model: String,
    /// What the model's tokens cost: `free` (a local model), or `IN,OUT` in US dollars a
    /// million tokens read and written. Without it, genai-prices' price for `--model`, if it
    /// has one; else each run's cost is unknown.
    #[arg(long, value_name = "free|IN,OUT", env = "LADOGA_MODEL_PRICE", value_parser = model_price)]
    model_price: Option<ladoga::Price>,
    /// Another MCP server (`http://HOST:PORT/PATH`) whose tools `plan_week` offers too, each
    /// as `remote_` and its name.
    #[arg(long, value_name = "URL")]
    remote: Option<String>,
    /// Require a bearer JWT, HS256, signed with the secret in `LADOGA_AUTH_SECRET`.
    ///
    /// The secret is read from the environment only, never from the command line, and must be
    /// at least 32 bytes. The token must carry `exp`. The caller's roles are the token's `role`
    /// claim (a string) and `roles` claim (an array of strings): a caller without `admin` is
    /// never offered `clear_board`. A request without a token, or whose token does not verify or
    /// has expired, gets `401`. HTTP only: refused with `--stdio`.
    #[arg(long, conflicts_with = "oauth")]
    auth: bool,
    /// Take the bearer tokens this OAuth 2.1 / OpenID issuer signs for the board, checked
    /// against its published keys (found through its metadata); the token's scopes open the
    /// tools: `board:read` (`list_tasks`, `review`), `board:write` (`add_task`, `complete_task`,
    /// `plan_week`), `board:admin` (`clear_board`).
    ///
    /// The board publishes its Protected Resource Metadata (RFC 9728) at
    /// `/.well-known/oauth-protected-resource[/mcp]`, which MCP hosts sign in from. A token must
    /// carry `iss` this issuer, `exp`, and `aud` the board's resource (`--resource`). HTTP
    /// only: refused with `--stdio`.
    #[arg(long, value_name = "ISSUER_URL")]
    oauth: Option<String>,
    /// With `--oauth`: the board's canonical URL, which its tokens' audience must name; by
    /// default `http://` and `--http` and `/mcp`. Behind a proxy, the URL callers use.
    #[arg(long, value_name = "URL", requires = "oauth")]
    resource: Option<String>,
    /// With `--oauth`: the least time between two fetches of the issuer's keys, which a token
    /// signed with a key the board does not know makes it fetch again: seconds, or a duration
    /// (`500ms`, `30s`, `2m`); 60 seconds by default.
    #[arg(long, value_name = "SECONDS", requires = "oauth", value_parser = oauth::cooldown)]
    jwks_cooldown: Option<std::time::Duration>,
    /// Keep paused runs and final rounds in the Redis server at this URL
    /// (`redis://HOST:PORT/`), which every replica of the board shares.
    ///
    /// Replicas behind one load balancer also share the secret that seals a round's state:
    /// `LADOGA_STATE_SECRET`, or the file `LADOGA_STATE_SECRET_FILE` names (at least 32
    /// bytes). Without it each process makes its own.
    #[arg(long, value_name = "URL")]
    redis: Option<String>,
    /// Keep the tasks in the SQLite database at this path (created if missing, WAL mode), which
    /// outlives a restart and which every replica on this host may open; without it, in memory.
    #[arg(long, value_name = "PATH")]
    db: Option<std::path::PathBuf>,
    /// On SIGTERM or SIGINT, how long the calls in flight have to finish before their runs are
    /// stopped (`500ms`, `30s`, `2m`). New calls are refused with `503` meanwhile. HTTP only.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = grace::parse)]
    drain: std::time::Duration,
    /// Serve the probes and metrics at this address, apart from MCP: `GET /healthz`,
    /// `GET /readyz` (`503` with the reason while the board cannot take calls) and
    /// `GET /metrics` (Prometheus' text format). No authentication: loopback or a private
    /// interface only.
    #[arg(long, value_name = "ADDR")]
    admin: Option<std::net::SocketAddr>,
    /// Run `plan_week` durable, on Restate: serve the Restate endpoint at this address, which
    /// restate-server runs each `plan_week` on (`ladoga::durable`). A replica killed in the
    /// middle of a run leaves it to another: nothing already asked or called is again. Needs
    /// `--restate-ingress`, and the secret each run's call is sealed with, the same on every
    /// replica: `LADOGA_STATE_SECRET` (or `LADOGA_STATE_SECRET_FILE`). With `--auth` or
    /// `--oauth`, the run's tools are called with the caller's roles or scopes.
    #[arg(long, value_name = "ADDR", requires = "restate_ingress")]
    restate_endpoint: Option<std::net::SocketAddr>,
    /// restate-server's ingress (`http://HOST:PORT`), where each durable `plan_week` starts.
    #[arg(long, value_name = "URL", requires = "restate_endpoint")]
    restate_ingress: Option<String>,
    /// restate-server's admin API (`http://HOST:PORT`): the board registers its endpoint there
    /// at start. Without it, register the deployment by hand.
    #[arg(long, value_name = "URL", requires = "restate_endpoint")]
    restate_admin: Option<String>,
    /// The URI restate-server reaches the endpoint at, when it is not `http://` and
    /// `--restate-endpoint`: the load balancer in front of every replica's endpoint.
    #[arg(long, value_name = "URL", requires = "restate_endpoint")]
    restate_advertise: Option<String>,
    /// Plan with the caller's own model: `plan_week` puts each model request to the MCP client
    /// that called it (sampling), and asks the board's model only when that client cannot.
    #[arg(long)]
    caller_model: bool,
    /// Take only the requests restate-server signs with the private key of this public key
    /// (`publickeyv1_…`, Restate's request identity); may be given twice, while a key is
    /// rotated. Without it the endpoint takes any request, and must be reachable by
    /// restate-server only.
    #[arg(long, value_name = "KEY", requires = "restate_endpoint")]
    restate_identity_key: Vec<String>,
}

/// Logs on stderr (`RUST_LOG`, `ladoga=debug` by default), and sends each request's progress
/// and its orchestrator's readable lines to the MCP caller that asked for them: on the
/// request's own HTTP stream (neva's layer), or on stdout among the other messages over stdio;
/// and its spans to an OTLP backend when `OTEL_EXPORTER_OTLP_ENDPOINT` names one (`traces.rs`).
fn log(stdio: bool) -> Result<(), String> {
    use neva::types::notification;
    use tracing_subscriber::EnvFilter;
    use tracing_subscriber::filter::{FilterExt, LevelFilter, filter_fn};
    use tracing_subscriber::prelude::*;

    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .without_time()
        .with_filter(
            EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "ladoga=debug".into())
                // The orchestrators' spans are for a tracing backend; each line names its turn.
                // The answer as it streams (the lines with a `logger`) is for the caller: the
                // whole answer is logged once it is done.
                .and(filter_fn(|line| {
                    !(line.target() == "ladoga"
                        && (line.is_span() || line.fields().field("logger").is_some()))
                })),
        );
    // Every span, so the layer finds the request an event belongs to; of the events, progress
    // and the orchestrators' readable lines only.
    let for_caller = || {
        filter_fn(|event| {
            event.is_span()
                || event.target() == "progress"
                || (event.target() == "ladoga" && *event.level() <= tracing::Level::INFO)
        })
    };
    let http = (!stdio).then(|| notification::fmt::layer().with_filter(for_caller()));
    let stdout = stdio.then(|| {
        tracing_subscriber::fmt::layer()
            .event_format(notification::NotificationFormatter)
            .with_writer(std::io::stdout)
            .with_filter(for_caller())
    });
    // The spans, to an OTLP backend when the environment names one (`traces.rs`).
    let traces = traces::layer()?.map(|layer| layer.with_filter(LevelFilter::INFO));
    tracing_subscriber::registry()
        .with(stderr)
        .with(http)
        .with(stdout)
        .with(traces)
        .init();
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Before the runtime starts any thread, which would not have them blocked (`signals.rs`).
    #[cfg(unix)]
    let signals = match cli.stdio {
        true => None,
        false => match signals::Signals::take() {
            Ok(signals) => Some(signals),
            Err(error) => {
                eprintln!("board: cannot take SIGTERM and SIGINT: {error}");
                return ExitCode::FAILURE;
            }
        },
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("board: cannot start: {error}");
            return ExitCode::FAILURE;
        }
    };
    let ended = runtime.block_on(serve(
        cli,
        #[cfg(unix)]
        signals,
    ));
    traces::flush();
    ended
}

/// The Restate `plan_week` runs durable on when `cli` says where, each run's call sealed with
/// `secret`; none otherwise.
fn restate(cli: &Cli, secret: Option<&[u8]>) -> Result<Option<ladoga::durable::Restate>, String> {
    let (Some(endpoint), Some(ingress)) = (cli.restate_endpoint, &cli.restate_ingress) else {
        return Ok(None);
    };
    let Some(secret) = secret else {
        return Err(format!(
            "--restate-endpoint seals each durable run's call with a secret every replica \
             shares, which a replica that starts again needs too: set {} or {}",
            replicas::SECRET_VAR,
            replicas::SECRET_FILE_VAR
        ));
    };
    let mut restate = ladoga::durable::Restate::new(ingress, endpoint).secret(secret);
    if let Some(admin) = &cli.restate_admin {
        restate = restate.admin(admin);
    }
    if let Some(uri) = &cli.restate_advertise {
        restate = restate.advertise(uri);
    }
    for key in &cli.restate_identity_key {
        restate = restate.identity_key(key);
    }
    Ok(Some(restate))
}

/// `app`, its durable `plan_week` on `restate`, if there is one; as it is otherwise.
async fn durable(
    cli: &Cli,
    restate: Option<ladoga::durable::Restate>,
    app: App,
) -> Result<App, String> {
    let (Some(restate), Some(endpoint)) = (restate, cli.restate_endpoint) else {
        return Ok(app);
    };
    restate
        .serve(app)
        .await
        .map_err(|error| format!("cannot serve the Restate endpoint at {endpoint}: {error}"))
}

/// Serves as `cli` says until a signal (`signals`, over HTTP) or the end of stdin stops it.
async fn serve(cli: Cli, #[cfg(unix)] signals: Option<signals::Signals>) -> ExitCode {
    // What a burst of calls freed goes back to the system (see `docs/operating.md`).
    heap::trim_now_and_then();
    let auth = match auth::Auth::from_flags(cli.auth, cli.stdio) {
        Ok(auth) => auth,
        Err(refusal) => {
            eprintln!("board: {refusal}");
            return ExitCode::FAILURE;
        }
    };
    let oauth = match oauth::OAuth::from_flags(
        cli.oauth.as_deref(),
        cli.resource.as_deref(),
        cli.jwks_cooldown,
        &cli.http,
        cli.stdio,
        cli.auth,
    ) {
        Ok(oauth) => {
            oauth::choose_tls_provider();
            oauth
        }
        Err(refusal) => {
            eprintln!("board: {refusal}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(error) = log(cli.stdio) {
        eprintln!("board: {error}");
        return ExitCode::FAILURE;
    }

    let client = match svir::Client::openai(&cli.model_url).build() {
        Ok(client) => client,
        Err(error) => {
            eprintln!(
                "board: the model URL `{}` is not usable: {error}",
                cli.model_url
            );
            return ExitCode::FAILURE;
        }
    };
    let mut model = ladoga::Model::new(client, &cli.model);
    if let Some(price) = cli.model_price {
        tracing::info!(
            input = price.input(),
            output = price.output(),
            "the model's tokens are priced by --model-price (dollars a million tokens)"
        );
        model = model.with_price(price);
    }
    let planner = planner::Planner::new(model.clone(), cli.caller_model);
    let remote = match &cli.remote {
        Some(url) => match remote::Remote::connect(url).await {
            Ok(remote) => remote,
            Err(error) => {
                eprintln!("board: cannot offer the tools of `{url}`: {error}");
                return ExitCode::FAILURE;
            }
        },
        None => remote::Remote::default(),
    };

    let board = match &cli.db {
        Some(path) => match store::Board::open(path) {
            Ok(board) => board,
            Err(refusal) => {
                eprintln!("board: {refusal}");
                return ExitCode::FAILURE;
            }
        },
        None => store::Board::default(),
    };
    let shared = match replicas::Shared::from_env(cli.redis.as_deref()).await {
        Ok(shared) => shared,
        Err(refusal) => {
            eprintln!("board: {refusal}");
            return ExitCode::FAILURE;
        }
    };
    // Whether the board drains: the runs find it in neva's DI, the probes ask it.
    let drain = ladoga::Drain::new();
    let restate = match restate(&cli, shared.secret()) {
        Ok(restate) => restate,
        Err(refusal) => {
            eprintln!("board: {refusal}");
            return ExitCode::FAILURE;
        }
    };
    // The probes say the board is not ready until restate-server knows its deployment.
    let registration = restate.as_ref().map(ladoga::durable::Restate::registration);
    if let Some(addr) = cli.admin {
        let admin = admin::Admin::start(
            addr,
            shared.runs(),
            board.answers(),
            drain.clone(),
            registration,
        );
        if let Err(refusal) = admin.await {
            eprintln!("board: {refusal}");
            return ExitCode::FAILURE;
        }
    }

    // Over HTTP the front listens at `--http`; neva serves behind it, on a loopback port.
    let (listener, backend) = match cli.stdio {
        true => (None, None),
        false => match front::listen(&cli.http).await {
            Ok((listener, backend)) => (Some(listener), Some(backend)),
            Err(refusal) => {
                eprintln!("board: {refusal}");
                return ExitCode::FAILURE;
            }
        },
    };
    let runs = shared.runs();

    let app = App::new()
        .without_greeting()
        .with_options(|opt| {
            // neva's request timeout (`with_timeout`) bounds the server's own requests to its
            // client, not a call's handling. Under `legacy-spec` an approval is such a request,
            // and a person needs far longer than the default 10 s to answer it: the 300 s a
            // paused run waits under MCP 2026-07-28.
            let opt = opt
                .with_name("board")
                .with_timeout(std::time::Duration::from_secs(300));
            // `plan_week` runs as an MCP task when its caller asks (`task_support`).
            #[cfg(not(feature = "legacy-spec"))]
            let opt = opt.with_tasks();
            #[cfg(feature = "legacy-spec")]
            let opt = opt.with_tasks(|tasks| tasks.with_cancel().with_tools());
            match backend {
                None => opt.with_stdio(),
                Some(backend) => opt.with_http(|http| {
                    let http = http.bind(backend.to_string()).with_endpoint("/mcp");
                    // neva checks `Host` against loopback names for a loopback address only.
                    let http = match front::is_loopback(&cli.http) {
                        true => http,
                        false => http.allow_any_origin(),
                    };
                    match &oauth {
                        Some(oauth) => oauth::guard(oauth, http),
                        None => auth::guard(auth.as_ref(), http),
                    }
                }),
            }
        })
        .add_singleton(model)
        .add_singleton(planner)
        .add_singleton(board)
        .add_singleton(remote)
        .add_singleton(drain.clone());
    // Room in neva's sealed state for the samples of a long run on the caller's model.
    #[cfg(not(feature = "legacy-spec"))]
    let app = app.with_max_state_bytes(ladoga::CALLER_MODEL_STATE_BYTES);
    let mut app = app;
    access::gate(&mut app, oauth.is_some());
    // Every MCP tool call answered, in `mcp_server_operation_duration_seconds`.
    let app = match cli.admin {
        Some(_) => ladoga::metrics::serve(app),
        None => app,
    };
    // A `plan_week` task's `tasks/get` tells how its run goes, to the task's owner only
    // (`TaskProgress` binds each task to its caller, as `TaskOwners` does alone under
    // `legacy-spec`).
    #[cfg(not(feature = "legacy-spec"))]
    let app = ladoga::TaskProgress::new().serve(app);
    #[cfg(feature = "legacy-spec")]
    let app = ladoga::TaskOwners::new().serve(app);
    // `plan_week` durable, on Restate, with `--restate-endpoint`.
    let app = match durable(&cli, restate, app).await {
        Ok(app) => app,
        Err(refusal) => {
            eprintln!("board: {refusal}");
            return ExitCode::FAILURE;
        }
    };
    let (app, shutdown) = shared.apply(app).with_shutdown();

    #[cfg(unix)]
    if cli.stdio
        && let Err(error) = stdin::shut_down_at_end_of_input(shutdown.clone())
    {
        eprintln!("board: cannot watch stdin: {error}");
        return ExitCode::FAILURE;
    }
    #[cfg(not(unix))]
    let _ = shutdown;

    if let (Some(listener), Some(backend)) = (listener, backend) {
        let guarded = auth.is_some() || oauth.is_some();
        let front = front::Front::new(backend, drain.clone(), guarded);
        tokio::spawn(front.clone().serve(listener));
        #[cfg(unix)]
        if let Some(signals) = signals {
            let grace = grace::Grace {
                runs: drain,
                front,
                paused: runs,
                grace: cli.drain,
                shutdown: shutdown.clone(),
            };
            tokio::spawn(async move {
                if let Some(signal) = signals.first().await {
                    tracing::info!("board: {signal}");
                    grace.run().await;
                }
            });
        }
    }

    app.run().await;
    ExitCode::SUCCESS
}

/// `--model-price`: `free`, or `IN,OUT` dollars a million tokens.
fn model_price(value: &str) -> Result<ladoga::Price, String> {
    if value == "free" {
        return Ok(ladoga::Price::FREE);
    }
    let parsed = value.split_once(',').and_then(|(input, output)| {
        Some((
            input.trim().parse::<f64>().ok()?,
            output.trim().parse::<f64>().ok()?,
        ))
    });
    match parsed {
        Some((input, output)) if input >= 0.0 && output >= 0.0 => {
            Ok(ladoga::Price::per_million_tokens(input, output))
        }
        _ => Err(format!(
            "`{value}` is not `free` nor `IN,OUT` (dollars a million tokens, e.g. `0.15,0.60`)"
        )),
    }
}

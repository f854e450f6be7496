//! What the durable tests share: the replicas' secret, the model they run, and the wait for its
//! requests.

use std::time::Duration;

use ladoga::testing::{Reply, ScriptedModel};
use serde_json::json;

/// The secret the replicas seal their runs' calls with.
pub const STATE_SECRET: (&str, &str) = (
    "LADOGA_STATE_SECRET",
    "the replicas' secret, 32 bytes or more",
);

/// What [`adding_then_answering`]'s model answers at last.
pub const PLANNED: &str = "Planned: tag v1.0 first.";

/// A model that adds one task, then answers [`PLANNED`] after `thinking`.
pub fn adding_then_answering(thinking: Duration) -> ScriptedModel {
    ScriptedModel::from_fn(move |seen| match seen.tool_results().len() {
        0 => Reply::call("add_task", json!({"title": "Tag v1.0"})),
        _ => Reply::text(PLANNED).after(thinking),
    })
}

/// A model that adds a task, asks to clear the board, then answers that it is clear.
pub fn adding_then_clearing() -> ScriptedModel {
    ScriptedModel::from_fn(|seen| match seen.tool_results().len() {
        0 => Reply::call("add_task", json!({"title": "Tag v1.0"})),
        1 => Reply::call("clear_board", json!({})).with_text("Now the board can go."),
        _ => Reply::text("The board is clear."),
    })
}

/// Waits, for at most 30 s, until `script` has been asked `count` times.
pub async fn asked(script: &ScriptedModel, count: usize) {
    for _ in 0..300 {
        if script.requests().len() >= count {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the model was not asked {count} times in 30 s");
}

/// What a durable replica reads, set by [`Replica::start`]: its MCP address, its Restate
/// endpoint, restate-server's ingress and admin, comma-separated.
const REPLICA_VAR: &str = "LADOGA_TEST_REPLICA";

/// Serves the runs of this test binary as a durable replica, with tasks, when it was started by
/// [`Replica::start`], else returns at once: on the model at its `LADOGA_MODEL_URL`, with the
/// singletons `more` adds. Called by the test that [`Replica::start`] names.
#[cfg(not(feature = "legacy-spec"))]
pub async fn serve_replica(more: impl FnOnce(neva::App) -> neva::App) {
    let Ok(replica) = std::env::var(REPLICA_VAR) else {
        return;
    };
    let [http, endpoint, ingress, admin] = replica.split(',').collect::<Vec<_>>()[..] else {
        panic!("four comma-separated parts: {replica}");
    };
    let _ = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .try_init();
    let model_url = std::env::var("LADOGA_MODEL_URL").expect("the model's URL");
    let client = svir::Client::openai(model_url).build().expect("a client");
    let app = neva::App::new()
        .without_greeting()
        .with_options(|opt| {
            opt.with_tasks()
                .with_http(|http_options| http_options.bind(http).with_endpoint("/mcp"))
                .with_timeout(Duration::from_secs(60))
        })
        .add_singleton(ladoga::Model::new(client, "scripted"));
    let app = ladoga::TaskProgress::new().serve(more(app));
    let app = ladoga::durable::Restate::new(ingress, endpoint.parse().expect("an address"))
        .admin(admin)
        .secret("the replicas' secret, for this test")
        .serve(app)
        .await
        .expect("the Restate endpoint");
    app.run().await;
}

/// The file a durable replica notes each call it makes in, one tool a line, so that the counts
/// outlive a replica killed.
const CALLS_VAR: &str = "LADOGA_TEST_CALLS";

/// Notes a call of `tool` in the calls file, when this binary runs as a durable replica.
pub fn noted(tool: &str) {
    use std::io::Write;

    if let Ok(path) = std::env::var(CALLS_VAR) {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path);
        let _ = writeln!(file.expect("the calls file"), "{tool}");
    }
}

/// A durable replica: this test binary again, running the test `serving` (which calls
/// [`serve_replica`]), killed when dropped.
#[cfg(not(feature = "legacy-spec"))]
pub struct Replica(std::process::Child);

#[cfg(not(feature = "legacy-spec"))]
impl Replica {
    /// The replica serving MCP at `http` and its Restate endpoint at `endpoint`, on `restate`,
    /// asking the model at `model_url` and noting its calls in `calls` ([`noted`]).
    pub async fn start(
        serving: &str,
        (http, endpoint): (std::net::SocketAddr, std::net::SocketAddr),
        restate: &super::restate::Restate,
        model_url: &str,
        calls: &std::path::Path,
    ) -> Self {
        let replica = format!(
            "{http},{endpoint},{},{}",
            restate.ingress(),
            restate.admin()
        );
        let child = std::process::Command::new(std::env::current_exe().expect("this binary"))
            .args(["--exact", serving, "--nocapture"])
            .env(REPLICA_VAR, replica)
            .env("LADOGA_MODEL_URL", model_url)
            .env(CALLS_VAR, calls)
            .spawn()
            .expect("a replica");
        super::wait_for(http).await;
        restate.wait_for_service("LadogaRun").await;
        Self(child)
    }
}

#[cfg(not(feature = "legacy-spec"))]
impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

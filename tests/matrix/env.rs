//! One case run through the real MCP path: the scripted models behind loopback HTTP, server A
//! with `matrix_run` (and server B when the case offers another server's tools), and a neva
//! client that answers what the case asks of it (forms, samples, a task's questions), asks for
//! log lines, and keeps everything it saw for the checks.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, Instant};

use ladoga::testing::{ScriptedModel, ScriptedServer, SeenRequest};
use ladoga::{CallerModel, CompletionModel, Fallback, Model, TaskProgress};
use neva::prelude::*;
use neva::shared::{Either, TaskApi};
use neva::svir::RemoteTools;
use neva::types::elicitation::{ElicitRequestParams, ElicitResult};
use neva::types::mrtr::InputResponses;
use neva::types::notification::{LoggingLevel, Notification};
use neva::types::sampling::CreateMessageRequestParams;
use neva::types::{CallToolRequestParams, CreateTaskResult, TaskMetadata, TaskStatus};
use serde_json::{Value, json};

use super::script::{Heard, Script, down, inner};
use super::setup::{ModelKind, Setup};
use super::tools::{InnerModel, runs};
use crate::common::{self, Server};

/// How long a client waits for one request: a case that hangs fails in this time.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);
/// How often a task's client polls it.
const POLL_EVERY: Duration = Duration::from_millis(20);

/// One call of `matrix_run`, as its client got it.
#[derive(Debug, Clone)]
pub struct Called {
    /// The result, or the error of a call that got none.
    pub result: Result<CallToolResponse, String>,
    /// How long the call took, its rounds and its task's polls included.
    pub took: Duration,
}

impl Called {
    /// The result, which a call that got none fails the case on.
    pub fn response(&self) -> Option<&CallToolResponse> {
        self.result.as_ref().ok()
    }

    pub fn is_error(&self) -> bool {
        self.response().is_none_or(|result| result.is_error)
    }

    /// The text of the result's first block, or the error.
    pub fn text(&self) -> String {
        match &self.result {
            Ok(result) => (result.content.first())
                .and_then(|block| block.as_text())
                .map(|text| text.text.clone())
                .unwrap_or_default(),
            Err(error) => error.clone(),
        }
    }

    /// The run's report, in the first block's `_meta`; `null` without one.
    pub fn report(&self) -> Value {
        let block = (self.response())
            .and_then(|result| result.content.first())
            .and_then(|block| serde_json::to_value(block).ok());
        block.map_or(Value::Null, |block| {
            block["_meta"][ladoga::REPORT_KEY].clone()
        })
    }
}

/// Everything a case saw, for the checks.
pub struct Case {
    pub setup: Setup,
    pub first: Called,
    /// The call that went on with the first one's session, when the case has one to go on with.
    pub second: Option<Called>,
    /// The requests of the model that followed the plan (the server's, the caller's, or the
    /// fallback's backup), both calls'.
    pub requests: Vec<SeenRequest>,
    /// Its answers to them.
    pub heard: Vec<Heard>,
    /// How many of them the first call made.
    pub split: usize,
    /// The requests of the other models: `fallback`'s primary, the backup that must not be asked
    /// when the caller samples, the nested orchestrator's.
    pub primary: Vec<SeenRequest>,
    pub unused: Vec<SeenRequest>,
    pub inner: Vec<SeenRequest>,
    /// The forms the client was shown, each as JSON, in order, and how many by the first
    /// call's end.
    pub forms: Vec<Value>,
    pub forms_first: usize,
    /// The samples the client made.
    pub samples: usize,
    /// The log lines of the streamed answer the client got, in order.
    pub lines: Vec<String>,
    /// What the tools ran for the case, `(tool, key)`, and how many of those by the first
    /// call's end.
    pub runs: Vec<(String, String)>,
    pub runs_first: usize,
}

impl Case {
    /// The plan model's requests of the first call, with its answers.
    pub fn first_requests(&self) -> impl Iterator<Item = (&SeenRequest, &Heard)> {
        self.requests.iter().zip(&self.heard).take(self.split)
    }
}

/// Sends the orchestrators' log lines to the MCP callers that ask for them, as a server does
/// with neva's layer: once for the whole binary.
fn send_log_lines_to_callers() {
    use tracing_subscriber::filter::filter_fn;
    use tracing_subscriber::prelude::*;

    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let for_caller = filter_fn(|event| {
            event.is_span()
                || (event.target() == "ladoga" && *event.level() <= tracing::Level::INFO)
        });
        tracing_subscriber::registry()
            .with(neva::types::notification::fmt::layer().with_filter(for_caller))
            .init();
    });
}

/// What a client keeps of what it was asked and told.
#[derive(Clone, Default)]
struct Kept {
    forms: Arc<Mutex<Vec<Value>>>,
    samples: Arc<AtomicUsize>,
    lines: Arc<Mutex<Vec<String>>>,
}

/// The models and servers of a case, kept alive while it runs.
struct Running {
    script: Script,
    _plan: ScriptedServer,
    primary: ScriptedModel,
    unused: ScriptedModel,
    inner: ScriptedModel,
    _others: Vec<ScriptedServer>,
    b: Option<Server>,
    server: Server,
    client: Client,
    kept: Kept,
}

/// Runs `setup`'s case: its first call, and the second when it goes on with a session.
pub async fn run(setup: Setup) -> Case {
    send_log_lines_to_callers();
    let running = start(&setup).await;
    let first = call(&setup, &running.client, None).await;
    let split = running.script.model.requests().len();
    let runs_first = runs(&setup.case).len();
    let forms_first = running.kept.forms.lock().unwrap().len();
    let id = first.report()["session"].as_str().map(str::to_owned);
    let second = match (setup.session, id) {
        (true, Some(id)) => Some(call(&setup, &running.client, Some(&id)).await),
        _ => None,
    };
    let Running {
        script,
        primary,
        unused,
        inner,
        b,
        server,
        client,
        kept,
        ..
    } = running;
    drop(client);
    server.stop().await;
    if let Some(b) = b {
        b.stop().await;
    }
    Case {
        requests: script.model.requests(),
        heard: script.heard(),
        split,
        primary: primary.requests(),
        unused: unused.requests(),
        inner: inner.requests(),
        forms: kept.forms.lock().unwrap().clone(),
        forms_first,
        samples: kept.samples.load(Ordering::SeqCst),
        lines: kept.lines.lock().unwrap().clone(),
        runs: runs(&setup.case),
        runs_first,
        first,
        second,
        setup,
    }
}

/// The model `name` served by `server`.
fn named(server: &ScriptedServer, name: &str) -> Model {
    let client = svir::Client::openai(server.url())
        .build()
        .expect("a loopback URL");
    Model::new(client, name).with_retries(0)
}

/// Starts the case's models, its servers and its client.
async fn start(setup: &Setup) -> Running {
    let script = Script::of(setup);
    let plan = script.model.serve().await.expect("the plan's model serves");
    let (primary, unused, inner) = (down(), down(), inner(&setup.case));
    let mut others = Vec::new();
    let mut app = App::new();
    if setup.caller {
        // neva seals every sample of a call into each later round's state.
        app = app.with_max_state_bytes(ladoga::CALLER_MODEL_STATE_BYTES);
    }
    match setup.model() {
        ModelKind::Own => app = app.add_singleton(plan.model()),
        ModelKind::Caller => app = app.add_singleton(CallerModel::new()),
        ModelKind::Fallback => {
            let down = primary.serve().await.expect("serves");
            let models = [named(&down, "primary"), named(&plan, "backup")];
            app = app.add_singleton(Fallback::new(models));
            others.push(down);
        }
        ModelKind::CallerFirst => {
            let (down, backup) = (primary.serve().await, unused.serve().await);
            let (down, backup) = (down.expect("serves"), backup.expect("serves"));
            let fallback = Fallback::new([CallerModel::new()])
                .or(named(&down, "primary"))
                .or(named(&backup, "backup"));
            app = app.add_singleton(fallback);
            others.extend([down, backup]);
        }
    }
    if setup.nested {
        let served = inner.serve().await.expect("serves");
        app = app.add_singleton(InnerModel(served.model()));
        others.push(served);
    }
    let b = match setup.with {
        true => Some(Server::start(App::new()).await),
        false => None,
    };
    if let Some(b) = &b {
        let remote = RemoteTools::new(common::connect(b.addr).await)
            .filter(|tool| tool.name == "lookup")
            .with_prefix("b_");
        app = app.add_singleton(remote);
    }
    if setup.task {
        app = TaskProgress::new().serve(app.with_options(|opt| opt.with_tasks()));
    }
    let server = Server::start(app).await;
    let kept = Kept::default();
    let client = connect(setup, &server, &plan, &kept).await;
    Running {
        script,
        _plan: plan,
        primary,
        unused,
        inner,
        _others: others,
        b,
        server,
        client,
        kept,
    }
}

/// The case's client, connected: it answers every form as a person who approves and picks
/// Friday, samples with the plan's model when the case runs on the caller's, and keeps the log
/// lines of the streamed answer.
async fn connect(setup: &Setup, server: &Server, plan: &ScriptedServer, kept: &Kept) -> Client {
    let addr = server.addr;
    #[allow(deprecated)] // request-scoped logging, which MCP 2026-07-28 marks deprecated
    let mut client = Client::new().with_options(|opt| {
        opt.with_http(|http| http.bind(addr.to_string()).with_endpoint("/mcp"))
            .with_timeout(REQUEST_TIMEOUT)
            .with_log_level(LoggingLevel::Info)
            // Each sample of a run on the caller's model is a round: more than neva's 8.
            .with_max_mrtr_rounds(64)
    });
    let forms = Arc::clone(&kept.forms);
    let pause = setup.slow_caller;
    client.map_elicitation(move |params: ElicitRequestParams| {
        let forms = Arc::clone(&forms);
        async move {
            let form = serde_json::to_value(&params).unwrap_or_default();
            forms.lock().unwrap().push(form.clone());
            tokio::time::sleep(pause).await;
            match form["requestedSchema"]["properties"].get("answer") {
                Some(_) => ElicitResult::accept().with_content(json!({"answer": "Friday"})),
                None => ElicitResult::accept(),
            }
        }
    });
    if setup.caller {
        sample_with(&mut client, plan.model(), Arc::clone(&kept.samples), pause);
    }
    client.connect().await.expect("the client connects");
    // After `connect`, which puts its own handler of log messages in place.
    let lines = Arc::clone(&kept.lines);
    client.subscribe(
        "notifications/message",
        move |notification: Notification| {
            let lines = Arc::clone(&lines);
            async move {
                let params = notification.params.unwrap_or_default();
                if params["logger"] == ladoga::STREAM_LOGGER {
                    let text = params["data"]["message"].as_str().unwrap_or_default();
                    lines.lock().unwrap().push(text.to_owned());
                }
            }
        },
    );
    client
}

/// Makes `client` answer each sampling request with `model`, as a host does with its own, after
/// `pause`, counting the samples in `sampled`.
fn sample_with(client: &mut Client, model: Model, sampled: Arc<AtomicUsize>, pause: Duration) {
    let model = Arc::new(model);
    #[allow(deprecated)] // sampling, deprecated in MCP 2026-07-28
    client.map_sampling(move |params: CreateMessageRequestParams| {
        let (model, sampled) = (Arc::clone(&model), Arc::clone(&sampled));
        async move {
            sampled.fetch_add(1, Ordering::SeqCst);
            tokio::time::sleep(pause).await;
            let request = neva::svir::sampling_request(model.name(), params)?;
            let done = model
                .complete(&request)
                .await
                .map_err(|error| Error::new(ErrorCode::InternalError, error.to_string()))?;
            neva::svir::sampling_result(&request, done)
        }
    });
}

/// One call of `matrix_run` for `setup`'s case, going on with `session` when given: as an MCP
/// task the client follows when the case runs as one.
async fn call(setup: &Setup, client: &Client, session: Option<&str>) -> Called {
    let mut args = vec![("pair", setup.name.clone()), ("case", setup.case.clone())];
    if let Some(session) = session {
        args.push(("session", session.to_owned()));
    }
    let started = Instant::now();
    let result = match setup.task {
        true => as_task(client, args).await,
        false => (client.tools().call("matrix_run", args).await).map_err(|error| error.to_string()),
    };
    Called {
        result,
        took: started.elapsed(),
    }
}

/// A task-augmented call, followed with `tasks/get` until it ends, its questions answered with
/// `tasks/update` by the client's own handlers.
async fn as_task(client: &Client, args: Vec<(&str, String)>) -> Result<CallToolResponse, String> {
    let mut params = CallToolRequestParams::new("matrix_run").with_args(args);
    params.task = Some(TaskMetadata { ttl: Some(60_000) });
    let created = client.tools().call_raw(params).await;
    let created: Either<CreateTaskResult, CallToolResponse> = created
        .and_then(|response| response.into_result())
        .map_err(|error| format!("tools/call: {error}"))?;
    let id = match created {
        Either::Left(created) => created.task.id,
        Either::Right(result) => return Err(format!("answered without a task: {result:?}")),
    };
    let deadline = Instant::now() + REQUEST_TIMEOUT;
    while Instant::now() < deadline {
        let task =
            (client.tasks().get(&id).await).map_err(|error| format!("tasks/get: {error}"))?;
        match task.task.status {
            TaskStatus::Completed => {
                let result = task.result.unwrap_or_default();
                return serde_json::from_value(result).map_err(|error| error.to_string());
            }
            TaskStatus::Failed => return Err(format!("the task failed: {:?}", task.error)),
            TaskStatus::Cancelled => return Err("the task was cancelled".to_owned()),
            TaskStatus::InputRequired => {
                let mut answers = InputResponses::new();
                for (key, request) in task.input_requests.unwrap_or_default() {
                    let answer = client.fulfil_input(&request).await;
                    answers.insert(key, answer.map_err(|error| error.to_string())?);
                }
                (client.tasks().update(&id, answers).await)
                    .map_err(|error| format!("tasks/update: {error}"))?;
            }
            TaskStatus::Working => tokio::time::sleep(POLL_EVERY).await,
        }
    }
    Err(format!("the task {id} did not end in {REQUEST_TIMEOUT:?}"))
}

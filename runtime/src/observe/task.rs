//! How a run that is an MCP task tells its caller how it goes: the `statusMessage` of the
//! task's `tasks/get`.
//!
//! Under MCP 2026-07-28 a task's caller follows it by polling `tasks/get`, and a working task's
//! `statusMessage` is the one place a line of progress can go: the call's own stream, where
//! progress notifications travel, closed when the call answered with the task. neva 0.9 keeps
//! a task's state to itself and gives a running tool no way to set that message, so
//! [`TaskProgress`] answers `tasks/get` for a task whose run is working: the task as neva
//! created it (its id, creation time and `ttl`, which the run knows) with the run's last line.
//! Every other `tasks/get` (a question waiting, a result, an error, a cancellation, a task of
//! another tool) is neva's.

use super::TaskSink;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use neva::App;
use neva::middleware::{MwContext, Next};
use neva::types::{DetailedTask, IntoResponse, Response, Task, TaskStatus};

/// How long neva 0.9 keeps a task whose call asked for no `ttl`, in milliseconds: what its
/// `tools/call` answer says, and so what `tasks/get` says too.
const NEVA_DEFAULT_TTL_MS: usize = 30_000;

/// What the runs that are MCP tasks are doing, for `tasks/get` to tell their callers.
///
/// Register it once, with [`Self::serve`]: the middleware it adds answers the `tasks/get` of a
/// task whose run is working with the run's progress as the task's `statusMessage`
/// (`"turn 2/8: add_task answered"`), and leaves every other `tasks/get` to neva. In-process,
/// as neva's tasks are.
///
/// ```rust,no_run
/// # #[cfg(not(feature = "legacy-spec"))] {
/// use neva::App;
///
/// let app = ladoga::TaskProgress::new().serve(App::new().with_options(|opt| opt.with_tasks()));
/// # let _ = app;
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct TaskProgress {
    tasks: Arc<Mutex<HashMap<String, Followed>>>,
}

/// One task whose run is followed.
#[derive(Debug)]
struct Followed {
    /// The task as neva created it.
    task: Task,
    /// The run's last line.
    line: Option<String>,
    /// The run waits for its caller's answer: neva tells that, with the question.
    asking: bool,
}

/// When the task-augmented `tools/call` being handled was made, and the `ttl` it asked for:
/// what neva creates its task with; once neva has answered, its task's own creation time. One
/// per request (a scoped service).
#[derive(Debug, Default)]
pub(crate) struct TaskCall(Mutex<Option<(DateTime<Utc>, Option<usize>)>>);

impl TaskProgress {
    /// No task followed yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// `app` with this registered: as a service orchestrators find, and as the middleware of
    /// `tools/call` (a task's creation), `tasks/get` and `tasks/cancel`; after a
    /// [`TaskOwners`](crate::TaskOwners) of its own, so that a task's progress is told to its
    /// owner only.
    pub fn serve(self, app: App) -> App {
        let mut app = crate::access::TaskOwners::new()
            .serve(app)
            .add_singleton(self.clone())
            .add_scoped_default::<TaskCall>()
            .wrap_tools(on_call);
        let polled = self.clone();
        app.wrap_command(neva::types::task::commands::GET, move |ctx, next| {
            polled.clone().on_get(ctx, next)
        });
        let cancelled = self;
        app.wrap_command(neva::types::task::commands::CANCEL, move |ctx, next| {
            cancelled.clone().on_cancel(ctx, next)
        });
        // Steering: a `tasks/update` may carry a message to the task's run.
        app.wrap_command(neva::types::task::commands::UPDATE, super::steer::steered);
        app
    }

    /// A `tasks/get`: the run's progress while it works, else neva's answer.
    async fn on_get(self, ctx: MwContext, next: Next) -> Response {
        match asked_task(&ctx).and_then(|id| self.working(&id)) {
            Some(task) => task.into_response(ctx.id()),
            None => next(ctx).await,
        }
    }

    /// A `tasks/cancel`: neva's from now on.
    async fn on_cancel(self, ctx: MwContext, next: Next) -> Response {
        if let Some(id) = asked_task(&ctx) {
            self.lock().remove(&id);
        }
        next(ctx).await
    }

    /// The task `id` with the run's last line, while its run works and has said how.
    fn working(&self, id: &str) -> Option<DetailedTask> {
        let tasks = self.lock();
        let followed = tasks.get(id).filter(|followed| !followed.asking)?;
        let mut task = followed.task.clone();
        task.status_msg = Some(followed.line.clone()?);
        Some(DetailedTask::from(task))
    }

    /// The line of the run that is the task `id`, created by `call`, which says how the run
    /// goes until it is dropped.
    pub(crate) fn follow(&self, id: String, call: &TaskCall) -> TaskLine {
        // Under the tasks' lock, which `on_call` also reads neva's creation time under.
        let mut tasks = self.lock();
        let (created, ttl) = call.get().unwrap_or_else(|| (Utc::now(), None));
        let mut task = Task::new();
        task.id = id.clone();
        task.created_at = created;
        task.last_updated_at = created;
        task.ttl = Some(ttl.unwrap_or(NEVA_DEFAULT_TTL_MS));
        task.status = TaskStatus::Working;
        let followed = Followed {
            task,
            line: None,
            asking: false,
        };
        tasks.insert(id.clone(), followed);
        drop(tasks);
        TaskLine::Kept {
            tasks: self.clone(),
            id,
        }
    }

    /// Changes what is known of the task `id`, if it is still followed.
    fn update(&self, id: &str, change: impl FnOnce(&mut Followed)) {
        if let Some(followed) = self.lock().get_mut(id) {
            change(followed);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Followed>> {
        self.tasks
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Takes neva's own creation time of the task `answer` created, for `call`'s run: the time
    /// the middleware read before neva created the task is off by however long that took.
    fn created(&self, call: &TaskCall, answer: &Response) {
        let Response::Ok(ok) = answer else { return };
        // `{"task": {..}}` under `legacy-spec`, the task's fields themselves under 2026-07-28.
        let task = ok.result.get("task").unwrap_or(&ok.result);
        let (Some(id), Some(created)) = (
            task.get("taskId").and_then(serde_json::Value::as_str),
            task.get("createdAt")
                .and_then(|created| serde_json::from_value::<DateTime<Utc>>(created.clone()).ok()),
        ) else {
            return;
        };
        let mut tasks = self.lock();
        call.set_created(created);
        if let Some(followed) = tasks.get_mut(id) {
            followed.task.created_at = created;
            followed.task.last_updated_at = created;
        }
    }
}

impl TaskCall {
    /// When the call was made, and the `ttl` it asked for.
    fn get(&self) -> Option<(DateTime<Utc>, Option<usize>)> {
        *self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// When neva created the call's task.
    fn set_created(&self, created: DateTime<Utc>) {
        if let Some((at, _)) = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .as_mut()
        {
            *at = created;
        }
    }
}

/// A `tools/call`: when one that asks for a task was made, and with which `ttl`, for the run
/// it starts.
async fn on_call(ctx: MwContext, next: Next) -> Response {
    let task = ctx
        .request()
        .and_then(|request| request.params.as_ref())
        .and_then(|params| params.get("task"));
    let Some(task) = task else {
        return next(ctx).await;
    };
    let ttl = task
        .get("ttl")
        .and_then(serde_json::Value::as_u64)
        .and_then(|ttl| usize::try_from(ttl).ok());
    let (Ok(call), Ok(progress)) = (
        ctx.resolve_shared::<TaskCall>(),
        ctx.resolve::<TaskProgress>(),
    ) else {
        return next(ctx).await;
    };
    *call
        .0
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some((Utc::now(), ttl));
    let answer = next(ctx).await;
    progress.created(&call, &answer);
    answer
}

/// The `taskId` a `tasks/*` request names.
fn asked_task(ctx: &MwContext) -> Option<String> {
    let params = ctx.request()?.params.as_ref()?;
    Some(params.get("taskId")?.as_str()?.to_owned())
}

/// What one run that is an MCP task says of itself; a task neva keeps stops being followed
/// when this is dropped, as its run ends, however it ends.
#[derive(Debug)]
pub(crate) enum TaskLine {
    /// A task neva keeps, followed by [`TaskProgress`].
    Kept { tasks: TaskProgress, id: String },
    /// A task kept elsewhere (a durable run's, by Restate), told through its sink.
    #[cfg_attr(not(feature = "restate"), allow(dead_code))]
    Elsewhere(Box<dyn TaskSink>),
}

impl TaskLine {
    /// The line of a task kept elsewhere, told through `sink`.
    #[cfg_attr(not(feature = "restate"), allow(dead_code))]
    pub(crate) fn elsewhere(sink: impl TaskSink + 'static) -> Self {
        Self::Elsewhere(Box::new(sink))
    }

    /// The run's progress now: `line`, which says `progress` of `total`.
    pub(crate) fn say(&self, line: String, progress: f64, total: f64) {
        match self {
            Self::Kept { tasks, id } => tasks.update(id, |followed| {
                followed.line = Some(line);
                followed.task.last_updated_at = Utc::now();
            }),
            Self::Elsewhere(sink) => sink.say(line, progress, total),
        }
    }

    /// The run waits for its caller's answer (`true`), or has it (`false`).
    pub(crate) fn asking(&self, asking: bool) {
        if let Self::Kept { tasks, id } = self {
            tasks.update(id, |followed| followed.asking = asking);
        }
    }
}

impl Drop for TaskLine {
    /// neva's answer from now on: the result, the error or the cancellation.
    fn drop(&mut self) {
        if let Self::Kept { tasks, id } = self {
            tasks.lock().remove(id.as_str());
        }
    }
}

/// The id of the MCP task `ctx`'s tool call runs as, from its request's `_meta`; none for a call
/// that is no task. The task is bound to its caller first
/// ([`TaskOwners`](crate::TaskOwners)).
pub fn task_id(ctx: &neva::Context, meta: &neva::types::RequestParamsMeta) -> Option<String> {
    crate::access::task_owners::bind_task(ctx, meta);
    if !ctx.is_task() {
        return None;
    }
    // neva keeps the field to itself: it is read from the `_meta` as it travels.
    let meta = serde_json::to_value(meta).ok()?;
    let id = meta
        .get("io.modelcontextprotocol/related-task")?
        .get("taskId")?;
    id.as_str().map(str::to_owned)
}

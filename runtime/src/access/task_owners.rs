//! [`TaskOwners`]: the tasks neva keeps, each answered to the principal that created it only.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, watch};

use neva::App;
use neva::auth::Claims;
use neva::error::{Error, ErrorCode};
use neva::middleware::{MwContext, Next};
use neva::types::Response;
use neva::types::task::commands;

use crate::session::principal;

/// How long a task's owner is remembered past the task's own `ttl`, for a task still working
/// then: neva keeps a working task past its `ttl`, and until its owner is forgotten no one else
/// reaches it. About 200 bytes a task.
pub const OWNER_RETENTION: Duration = Duration::from_secs(24 * 60 * 60);

/// Why a task-augmented call with a token that names no subject is refused.
pub const NAMELESS: &str = "this server binds each task to the subject (`sub`) of its caller's \
                            token, and this token names none: ask its issuer for one that does";

/// Why `tasks/list` (MCP 2025-11-25) is refused to a caller with a token.
#[cfg(feature = "legacy-spec")]
const UNLISTED: &str = "tasks/list is not served to a caller with a token: it would list other \
                        callers' tasks; follow each task by the id its call returned";

/// How long neva keeps a task whose call asked for no `ttl`, in milliseconds.
const NEVA_DEFAULT_TTL_MS: u64 = 30_000;

/// How often the owners of forgotten tasks are swept out, at most.
const SWEEP_EVERY: Duration = Duration::from_secs(60);

/// How long a task's creation waits for its tool to bind it, and a request naming a task no one
/// owns yet waits for the creations under way: the tool starts as neva answers the call.
const BINDING_WAIT: Duration = Duration::from_secs(1);

/// The owners of the tasks neva keeps in this process: `tasks/get`, `tasks/update`,
/// `tasks/cancel` and `tasks/result` answer a task's owner only.
///
/// Register it with [`Self::serve`] before any other middleware of tasks (it must see a task's
/// creation and every request naming it first; [`TaskProgress::serve`](crate::TaskProgress::serve)
/// registers it itself). A task is bound to the caller whose `tools/call` created it, by its
/// token's issuer and subject; anyone else naming its id gets neva's own answer for an id that
/// does not exist (`-32602`, `Could not find task with id: …`), and `tasks/list` (MCP
/// 2025-11-25), which neva would answer with every caller's tasks, is refused to a caller with
/// a token. See [the module](crate::access).
///
/// ```rust,no_run
/// use neva::App;
///
/// # #[cfg(not(feature = "legacy-spec"))]
/// let app = ladoga::TaskOwners::new().serve(App::new().with_options(|opt| opt.with_tasks()));
/// # #[cfg(feature = "legacy-spec")]
/// # let app = ladoga::TaskOwners::new().serve(App::new().with_options(|opt| opt.with_tasks(|t| t)));
/// # let _ = app;
/// ```
#[derive(Debug, Clone, Default)]
pub struct TaskOwners {
    inner: Arc<Mutex<Owners>>,
    /// How many tasks are being created and not bound yet.
    creating: Arc<watch::Sender<usize>>,
}

/// The task a task-augmented `tools/call` creates, until its tool binds it to its caller: neva
/// answers the call itself, so the task's id is the tool's to tell (its request's `_meta`). One
/// per request (a scoped service); the tool runs in the request's scope.
#[derive(Debug, Default)]
pub(crate) struct TaskCreation {
    creating: Mutex<Option<Creating>>,
    bound: Notify,
}

/// A task under creation: whose it is, where it is bound, counted until dropped.
#[derive(Debug)]
struct Creating {
    owners: TaskOwners,
    caller: Caller,
    /// How long neva keeps the task, in milliseconds.
    ttl: u64,
}

impl Drop for Creating {
    fn drop(&mut self) {
        self.owners
            .creating
            .send_modify(|creating| *creating = creating.saturating_sub(1));
    }
}

/// The owners, by task id, and when they were last swept.
#[derive(Debug, Default)]
struct Owners {
    by_task: HashMap<String, Owned>,
    swept: Option<Instant>,
}

/// One task's owner, and until when it is remembered.
#[derive(Debug)]
struct Owned {
    owner: Caller,
    until: Instant,
}

/// Who a request comes from, as a task's owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Caller {
    /// No token: a server that takes none.
    Anonymous,
    /// A token's issuer and subject, digested.
    Principal(String),
    /// A token that names no subject: it owns nothing.
    Nameless,
}

impl Caller {
    /// The caller whose token holds `claims`, if any.
    pub(crate) fn of(claims: Option<&dyn Claims>) -> Self {
        match claims {
            None => Self::Anonymous,
            Some(claims) => match principal::of_claims(claims) {
                Some(principal) => Self::Principal(principal::digest(&principal)),
                None => Self::Nameless,
            },
        }
    }

    /// The caller of the request `ctx` handles.
    fn of_request(ctx: &MwContext) -> Self {
        Self::of(ctx.claims())
    }

    /// What a task records of its owner: the principal's digest; none for an anonymous caller.
    /// A nameless one records nothing either, but is never taken as an owner.
    pub(crate) fn key(&self) -> Option<&str> {
        match self {
            Self::Principal(digest) => Some(digest),
            Self::Anonymous | Self::Nameless => None,
        }
    }

    /// Whether this caller owns a task that recorded `owner` ([`Self::key`]).
    pub(crate) fn owns(&self, owner: Option<&str>) -> bool {
        match self {
            Self::Nameless => false,
            caller => caller.key() == owner,
        }
    }
}

impl TaskOwners {
    /// No task owned yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// `app` with this registered, as the middleware of `tools/call` (a task's creation) and of
    /// every `tasks/*` request this generation has.
    pub fn serve(self, app: App) -> App {
        let created = self.clone();
        let mut app = app
            .add_scoped_default::<TaskCreation>()
            .wrap_tools(move |ctx, next| created.clone().on_call(ctx, next));
        #[cfg(not(feature = "legacy-spec"))]
        let named = [commands::GET, commands::UPDATE, commands::CANCEL];
        #[cfg(feature = "legacy-spec")]
        let named = [commands::GET, commands::RESULT, commands::CANCEL];
        for command in named {
            let owners = self.clone();
            app.wrap_command(command, move |ctx, next| owners.clone().on_task(ctx, next));
        }
        #[cfg(feature = "legacy-spec")]
        app.wrap_command(commands::LIST, move |ctx, next| {
            self.clone().on_list(ctx, next)
        });
        app
    }

    /// A `tools/call`: one that asks for a task is refused to a nameless token; the task it
    /// creates is bound to its caller.
    async fn on_call(self, ctx: MwContext, next: Next) -> Response {
        let asks_for_task = ctx
            .request()
            .and_then(|request| request.params.as_ref())
            .is_some_and(|params| params.get("task").is_some());
        if !asks_for_task {
            return next(ctx).await;
        }
        let caller = Caller::of_request(&ctx);
        if caller == Caller::Nameless {
            return Response::error(ctx.id(), Error::new(ErrorCode::InvalidRequest, NAMELESS));
        }
        let Ok(creation) = ctx.resolve_shared::<TaskCreation>() else {
            return next(ctx).await;
        };
        let ttl = ctx
            .request()
            .and_then(|request| request.params.as_ref())
            .and_then(|params| params["task"]["ttl"].as_u64())
            .unwrap_or(NEVA_DEFAULT_TTL_MS);
        self.creating.send_modify(|creating| *creating += 1);
        *creation.lock() = Some(Creating {
            owners: self.clone(),
            caller,
            ttl,
        });
        let answer = next(ctx).await;
        match created_task(&answer) {
            // A middleware answered with the task it made (a durable run's): bound here.
            Some((id, ttl)) => {
                if let Some(creating) = creation.lock().take() {
                    self.bind(id, creating.caller.clone(), ttl);
                }
            }
            // neva answered, and its tool binds the task as it starts ([`bind_task`]); a tool
            // that does not (no orchestrator) leaves it to neva.
            None => {
                let bound = creation.bound.notified();
                if creation.lock().is_some() {
                    let _ = tokio::time::timeout(BINDING_WAIT, bound).await;
                }
            }
        }
        creation.lock().take();
        answer
    }

    /// A request naming a task: another caller's task is one that does not exist.
    async fn on_task(self, ctx: MwContext, next: Next) -> Response {
        let Some(id) = asked_task(&ctx) else {
            return next(ctx).await;
        };
        let caller = Caller::of_request(&ctx);
        if caller == Caller::Nameless {
            return not_found(&ctx, &id);
        }
        self.until_created(&id).await;
        if self.owned_by_another(&id, &caller) {
            return not_found(&ctx, &id);
        }
        let answer = next(ctx).await;
        if is_not_found(&answer) {
            self.lock().by_task.remove(&id);
        }
        answer
    }

    /// A `tasks/list` (MCP 2025-11-25): refused to a caller with a token. neva lists every
    /// caller's tasks and sends its answer itself, past any middleware, so it cannot be cut to
    /// the caller's own: a caller keeps the ids its calls returned.
    #[cfg(feature = "legacy-spec")]
    async fn on_list(self, ctx: MwContext, next: Next) -> Response {
        match Caller::of_request(&ctx) {
            Caller::Anonymous => next(ctx).await,
            _ => Response::error(ctx.id(), Error::new(ErrorCode::InvalidRequest, UNLISTED)),
        }
    }

    /// Binds the MCP task `ctx`'s tool call runs as (its request's `_meta` names it) to the
    /// caller that asked for it; nothing for a call that asked for no task, or on a server
    /// without `TaskOwners`. `#[orchestrator]`'s handler does it as it starts; a tool of your
    /// own that runs as a task (a `#[tool]` with `task_support`, or an orchestrator built
    /// without the macro) calls this first, or its task stays neva's alone, reached by anyone
    /// who learns its id.
    ///
    /// ```rust,no_run
    /// use neva::prelude::*;
    ///
    /// #[tool(task_support = "optional")]
    /// async fn export(ctx: Context, meta: Meta<RequestParamsMeta>, what: String) -> String {
    ///     ladoga::TaskOwners::claim(&ctx, &meta);
    ///     format!("Exported {what}")
    /// }
    /// # fn main() {}
    /// ```
    pub fn claim(ctx: &neva::Context, meta: &neva::types::RequestParamsMeta) {
        bind_task(ctx, meta);
    }

    /// Waits, for a task `id` no one owns, until no task is under creation (at most
    /// [`BINDING_WAIT`]): it may be one whose tool has not bound it yet.
    async fn until_created(&self, id: &str) {
        if self.lock().by_task.contains_key(id) {
            return;
        }
        let mut creating = self.creating.subscribe();
        let _ =
            tokio::time::timeout(BINDING_WAIT, creating.wait_for(|creating| *creating == 0)).await;
    }

    /// Binds the task `id`, kept `ttl_ms` by neva, to `owner`.
    fn bind(&self, id: String, owner: Caller, ttl_ms: u64) {
        let now = Instant::now();
        let until = now + Duration::from_millis(ttl_ms) + OWNER_RETENTION;
        let mut owners = self.lock();
        if owners
            .swept
            .is_none_or(|swept| now.duration_since(swept) >= SWEEP_EVERY)
        {
            owners.by_task.retain(|_, owned| owned.until > now);
            owners.swept = Some(now);
        }
        owners.by_task.entry(id).or_insert(Owned { owner, until });
    }

    /// Whether the task `id` is bound to a caller other than `caller`.
    fn owned_by_another(&self, id: &str, caller: &Caller) -> bool {
        self.lock()
            .by_task
            .get(id)
            .is_some_and(|owned| !caller.owns(owned.owner.key()))
    }

    /// How many tasks have an owner remembered.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().by_task.len()
    }

    fn lock(&self) -> MutexGuard<'_, Owners> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl TaskCreation {
    fn lock(&self) -> MutexGuard<'_, Option<Creating>> {
        self.creating
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Binds the MCP task `ctx`'s tool call runs as (its request's `_meta` names it) to the caller
/// that asked for it, in the [`TaskOwners`] that saw the call; nothing for a call that asked for
/// no task. The tool does it as it starts: neva made the task and answered the call itself.
pub(crate) fn bind_task(ctx: &neva::Context, meta: &neva::types::RequestParamsMeta) {
    let Ok(creation) = ctx.resolve_shared::<TaskCreation>() else {
        return;
    };
    let Some(creating) = creation.lock().take() else {
        return;
    };
    // neva keeps the field to itself: it is read from the `_meta` as it travels.
    let id = serde_json::to_value(meta).ok().and_then(|meta| {
        let id = meta["io.modelcontextprotocol/related-task"]["taskId"].as_str()?;
        Some(id.to_owned())
    });
    if let Some(id) = id {
        let (caller, ttl) = (creating.caller.clone(), creating.ttl);
        creating.owners.bind(id, caller, ttl);
    }
    drop(creating);
    creation.bound.notify_one();
}

/// The id and `ttl` of the task a `tools/call` answer created, if it did.
fn created_task(answer: &Response) -> Option<(String, u64)> {
    let Response::Ok(ok) = answer else {
        return None;
    };
    // `{"task": {..}}` under `legacy-spec`, the task's fields themselves under 2026-07-28.
    let task = ok.result.get("task").unwrap_or(&ok.result);
    let id = task.get("taskId")?.as_str()?.to_owned();
    // `ttlMs` under 2026-07-28, `ttl` under `legacy-spec`.
    let ttl = ["ttlMs", "ttl"]
        .iter()
        .find_map(|key| task.get(key)?.as_u64())
        .unwrap_or(NEVA_DEFAULT_TTL_MS);
    Some((id, ttl))
}

/// The `taskId` a `tasks/*` request names.
fn asked_task(ctx: &MwContext) -> Option<String> {
    let params = ctx.request()?.params.as_ref()?;
    Some(params.get("taskId")?.as_str()?.to_owned())
}

/// neva's own answer to a request naming a task it does not have.
fn not_found(ctx: &MwContext, id: &str) -> Response {
    Response::error(ctx.id(), not_found_error(id))
}

/// neva's own error for a task `id` it does not have.
pub(crate) fn not_found_error(id: &str) -> Error {
    Error::new(
        ErrorCode::InvalidParams,
        format!("Could not find task with id: {id}"),
    )
}

/// Whether `answer` is neva's for a task it does not have (any longer).
fn is_not_found(answer: &Response) -> bool {
    matches!(answer, Response::Err(err)
        if err.error.code == ErrorCode::InvalidParams
            && err.error.message.starts_with("Could not find task with id"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alice() -> Caller {
        Caller::Principal(principal::digest("token:https://id\u{0}alice"))
    }

    fn bob() -> Caller {
        Caller::Principal(principal::digest("token:https://id\u{0}bob"))
    }

    #[test]
    fn a_task_is_its_owners_only() {
        let owners = TaskOwners::new();
        owners.bind("t1".into(), alice(), 1_000);
        assert!(!owners.owned_by_another("t1", &alice()));
        assert!(owners.owned_by_another("t1", &bob()));
        assert!(owners.owned_by_another("t1", &Caller::Anonymous));
        assert!(
            !owners.owned_by_another("t2", &bob()),
            "an id never bound is neva's to answer"
        );
    }

    #[test]
    fn a_nameless_token_owns_nothing_not_even_an_anonymous_task() {
        let owners = TaskOwners::new();
        owners.bind("t1".into(), Caller::Anonymous, 1_000);
        assert!(!owners.owned_by_another("t1", &Caller::Anonymous));
        assert!(owners.owned_by_another("t1", &Caller::Nameless));
        assert!(!Caller::Nameless.owns(None));
    }

    #[test]
    fn owners_past_their_retention_are_swept_at_the_next_binding() {
        let owners = TaskOwners::new();
        owners.bind("old".into(), alice(), 0);
        {
            let mut inner = owners.lock();
            let past = Instant::now()
                .checked_sub(Duration::from_secs(1))
                .expect("a second ago");
            inner.by_task.get_mut("old").expect("bound").until = past;
            inner.swept = Some(past - SWEEP_EVERY);
        }
        owners.bind("new".into(), alice(), 0);
        assert_eq!(owners.len(), 1);
        assert!(!owners.owned_by_another("old", &bob()), "forgotten");
    }

    #[test]
    fn a_task_a_middleware_made_is_read_in_either_generations_shape() {
        let id = neva::types::RequestId::Number(1);
        let current = serde_json::json!({"resultType": "task", "taskId": "t1", "ttlMs": 60_000});
        let legacy = serde_json::json!({"task": {"taskId": "t2", "ttl": 5_000}});
        let plain = serde_json::json!({"content": []});
        let read = |result| created_task(&Response::success(id.clone(), result));
        assert_eq!(read(current), Some(("t1".to_owned(), 60_000)));
        assert_eq!(read(legacy), Some(("t2".to_owned(), 5_000)));
        assert_eq!(read(plain), None);
    }

    #[test]
    fn the_answer_for_another_callers_task_is_nevas_for_no_task() {
        let error = not_found_error("abc");
        let answer = Response::error(neva::types::RequestId::Number(1), error);
        assert!(is_not_found(&answer));
    }
}

//! The agent tree: where a call of a run stands in it, and the way up to the person at the top.
//!
//! An orchestrator that another's model calls runs in process, on its caller's task (neva's
//! `LocalTools`), where its own MCP caller is no peer that can be asked anything. So a run
//! whose caller can be asked sets a [`Site`] around each call of a turn: a run started inside
//! one asks what it would have asked its own caller (an approval, an `ask_caller` question, a
//! sample for a [`CallerModel`](crate::CallerModel), a `with` server's elicitation) of the
//! person at the top instead, through the top call's [`Top`], its question tagged with its path
//! (`plan_week › research › clear_board`). Its own calls get sites of their own, so a question
//! travels up any number of levels.
//!
//! Under MCP 2026-07-28 an answer that comes in a later round of the top call pauses the run
//! that asked, and every run above it: each keeps its state in the run store, the calls of its
//! turn that were answered included, and a run above goes on in the next round by calling again
//! only the calls that paused ([`Site::resumed`]). The run below finds its state by an id made
//! from its caller's ([`Site::run_id`]): nothing is asked or called twice.
//!
//! A durable run that is an MCP task is a top of its own ([`Journaled`]): a question below
//! pauses its call in the same way, the turn's recorded step keeps it with the paused runs'
//! state, and the run asks it through its task before it makes the paused calls again.

use std::sync::{Arc, Mutex, PoisonError};

use futures_util::future::BoxFuture;
use neva::error::{Error, ErrorCode};
use neva::types::elicitation::{ElicitRequestParams, ElicitResult};
use serde_json::Value;
use sha2::{Digest, Sha256};
use svir::{ToolCall, ToolResult};
use tokio::sync::Notify;

use crate::wire::PATH_KEY;

tokio::task_local! {
    /// The call of a run this task is answering, when its run's caller can be asked.
    static SITE: Site;
}

/// What a run's path is written with, between its parts.
pub(crate) const PATH_SEPARATOR: &str = " › ";

/// Who asks the person at the top of a tree: the MCP caller of the top call.
pub(crate) trait Top: Send + Sync {
    /// The top call's context: a [`CallerModel`](crate::CallerModel) below samples its caller.
    fn context(&self) -> &neva::Context;

    /// Whether a form can be put to the top call's caller.
    fn answers_forms(&self) -> bool;

    /// Whether a question is answered in a later round of the top call (MCP 2026-07-28, a call
    /// that is not a task), rather than in place.
    fn answers_later(&self) -> bool;

    /// The person's answer to the form `params`, filed under `key`: now, or an error of code
    /// `InputRequired` when it comes in a later round.
    fn elicit(
        &self,
        key: String,
        params: ElicitRequestParams,
    ) -> BoxFuture<'_, Result<ElicitResult, Error>>;

    /// The top of a durable run, which asks what its calls' runs below ask between its turn's
    /// recorded steps: none for another.
    fn journaled(&self) -> Option<&dyn Journaled> {
        None
    }
}

/// The top of a durable run: a question asked below one of its calls pauses the call, as a round
/// would, and the turn's recorded step keeps it, with the paused runs' state; the run asks it
/// in place once the step is recorded (a durable promise, which a replay waits on again), then
/// makes the paused calls again, and the runs below find their answers.
pub(crate) trait Journaled: Send + Sync {
    /// What the calls of `turn` left, as results under reserved ids for the turn's step to
    /// record: the questions asked below them, the state of the runs that paused, and the
    /// reports of those that ended.
    fn recorded<'a>(&'a self, turn: &'a Turn) -> BoxFuture<'a, Vec<ToolResult>>;

    /// Takes what [`Self::recorded`] left out of a turn's `results`, recorded or read back from
    /// the journal: puts the paused runs back where the calls made again find them, asks the
    /// questions and files their answers. The calls that paused, and the reports of the runs
    /// below that ended.
    fn answered<'a>(&'a self, results: &'a mut Vec<ToolResult>) -> BoxFuture<'a, Heard>;
}

/// A run's place in the tree: who is at its top, and the agents from there down to it.
#[derive(Clone)]
pub(crate) struct Above {
    pub(crate) top: Arc<dyn Top>,
    /// The orchestrating tools from the top one down to the run's own.
    pub(crate) path: Arc<[String]>,
}

impl Above {
    /// The place of a run at the top, the orchestrating tool `agent`, asking `top`.
    pub(crate) fn top(top: Arc<dyn Top>, agent: &str) -> Self {
        Self {
            top,
            path: Arc::from([agent.to_owned()]),
        }
    }
}

/// One turn of a run whose calls may pause for a question asked below them.
pub(crate) struct Turn {
    above: Above,
    /// The run's id, and the turn's number in it: what a run below's id is made from.
    run: String,
    turn: usize,
    /// The calls that paused in the round before, called again now.
    resumed: Vec<String>,
    /// The calls that paused in this round, for a question answered in a later one.
    paused: Mutex<Vec<String>>,
    /// The reports of the runs below that ended, with the call each answered.
    reports: Mutex<Vec<(String, Value)>>,
}

/// What a run's calls did that the run keeps: which paused, and the reports of the runs they
/// started.
pub(crate) struct Heard {
    /// The ids of the calls that paused.
    pub(crate) paused: Vec<String>,
    /// Each ended run's report, with the id of the call it answered.
    pub(crate) reports: Vec<(String, Value)>,
}

impl Turn {
    /// The `turn`-th turn of the run `run`, placed at `above`, calling again the calls in
    /// `resumed`.
    pub(crate) fn new(above: Above, run: &str, turn: usize, resumed: Vec<String>) -> Arc<Self> {
        Arc::new(Self {
            above,
            run: run.to_owned(),
            turn,
            resumed,
            paused: Mutex::default(),
            reports: Mutex::default(),
        })
    }

    /// `call`'s `result`, made at its site: a run started inside it asks the person at the top.
    /// A call that pauses for a question answered later ends at once, with a placeholder result
    /// the run never shows, since it pauses too.
    pub(crate) async fn call<F>(self: &Arc<Self>, call: &ToolCall, result: F) -> ToolResult
    where
        F: Future<Output = ToolResult>,
    {
        let paused = Arc::new(Notify::new());
        let site = Site {
            turn: Arc::clone(self),
            call: call.id.clone(),
            tool: call.name.clone(),
            paused: Arc::clone(&paused),
        };
        tokio::select! {
            biased;
            result = SITE.scope(site, result) => result,
            () = paused.notified() => ToolResult::error(&call.id, "paused for a question asked below"),
        }
    }

    /// The calls of this turn that paused so far, each with the id of the run it started.
    #[cfg_attr(
        any(feature = "legacy-spec", not(feature = "restate")),
        expect(
            dead_code,
            reason = "a durable task's, which asks below it under MCP 2026-07-28"
        )
    )]
    pub(crate) fn paused_runs(&self) -> Vec<(String, String)> {
        let paused = lock(&self.paused).clone();
        let run = |call: &String| digest(&[&self.run, &self.turn.to_string(), call]);
        paused
            .iter()
            .map(|call| (call.clone(), run(call)))
            .collect()
    }

    /// The reports of the runs below that ended so far, with the call each answered.
    #[cfg_attr(
        any(feature = "legacy-spec", not(feature = "restate")),
        expect(
            dead_code,
            reason = "a durable task's, which asks below it under MCP 2026-07-28"
        )
    )]
    pub(crate) fn reports(&self) -> Vec<(String, Value)> {
        lock(&self.reports).clone()
    }

    /// What the turn's calls did, once they all answered.
    pub(crate) fn heard(&self) -> Heard {
        Heard {
            paused: std::mem::take(&mut *lock(&self.paused)),
            reports: std::mem::take(&mut *lock(&self.reports)),
        }
    }
}

/// One call of a run's turn, as the run it starts sees it.
#[derive(Clone)]
pub(crate) struct Site {
    turn: Arc<Turn>,
    call: String,
    tool: String,
    paused: Arc<Notify>,
}

impl Site {
    /// The call this task is answering, if its run's caller can be asked.
    pub(crate) fn current() -> Option<Self> {
        SITE.try_with(Clone::clone).ok()
    }

    /// The place of a run this call starts: under its caller's, named by the call's tool.
    pub(crate) fn above(&self) -> Above {
        let mut path = self.turn.above.path.to_vec();
        path.push(self.tool.clone());
        Above {
            top: Arc::clone(&self.turn.above.top),
            path: path.into(),
        }
    }

    /// Who is asked at the top.
    pub(crate) fn top(&self) -> &Arc<dyn Top> {
        &self.turn.above.top
    }

    /// The id of the run this call starts: made from its caller's, the turn and the call, so the
    /// next round's call finds the run this one paused.
    pub(crate) fn run_id(&self) -> String {
        digest(&[&self.turn.run, &self.turn.turn.to_string(), &self.call])
    }

    /// Whether this call paused in the round before and is made again to go on.
    pub(crate) fn resumed(&self) -> bool {
        self.turn.resumed.contains(&self.call)
    }

    /// Notes that the run this call started paused for a question answered in a later round:
    /// the call ends, and its caller pauses once its turn's other calls answered.
    pub(crate) fn pause(&self) {
        lock(&self.turn.paused).push(self.call.clone());
        self.paused.notify_one();
    }

    /// Keeps the report of the run this call started, which ended: its caller's report nests it.
    pub(crate) fn report(&self, report: Value) {
        lock(&self.turn.reports).push((self.call.clone(), report));
    }

    /// The person's answer to `params`, a question of the run this call started (or of a server
    /// it called), filed under `key` at this call: tagged with the path from the top down to the
    /// run, then `about`, the tool the question is about, if it is about one.
    pub(crate) async fn elicit(
        &self,
        key: &str,
        about: Option<&str>,
        params: ElicitRequestParams,
    ) -> Result<ElicitResult, Error> {
        let mut path = self.above().path.to_vec();
        path.extend(about.map(str::to_owned));
        let key = format!("ladoga/below/{}", digest(&[&self.run_id(), key]));
        self.top().elicit(key, tagged(params, &path)).await
    }
}

impl Site {
    /// The top caller's sample for `params`, a request of a server this call reached, filed
    /// under `key` at this call: now, or an error of code `InputRequired` when it comes in a
    /// later round of the top call.
    #[cfg(not(feature = "legacy-spec"))]
    pub(crate) async fn sample(
        &self,
        key: &str,
        params: neva::types::sampling::CreateMessageRequestParams,
    ) -> Result<neva::types::sampling::CreateMessageResult, Error> {
        let key = format!("ladoga/below/{}", digest(&[&self.run_id(), key]));
        #[allow(deprecated)] // sampling, kept in MCP 2026-07-28 for migration
        self.top().context().sample(key, params).await
    }
}

/// The baggage member a call to a `with` server made at a site carries, under `legacy-spec`:
/// the token its site is lent under ([`Site::lend`]). The relay in front of the server takes it
/// out of the call, and gives it to the server's requests that come back on the call's stream.
pub(crate) const LENT_MEMBER: &str = "io.github.ladoga-rs.site";

/// Where the relay gives a server's request the token of the call it came back on, in its
/// `_meta`.
pub(crate) const LENT_KEY: &str = "io.github.ladoga-rs/site";

/// The sites lent to calls in flight to `with` servers, by token: under `legacy-spec` neva's
/// client answers a server's request on a task of its own, outside the call that made it.
#[cfg(feature = "legacy-spec")]
static LENT: std::sync::LazyLock<Mutex<std::collections::HashMap<String, Site>>> =
    std::sync::LazyLock::new(Mutex::default);

/// A site lent to a call in flight, under its token, until dropped.
#[cfg(feature = "legacy-spec")]
pub(crate) struct Lent(String);

#[cfg(feature = "legacy-spec")]
impl Lent {
    /// The token the site is lent under.
    pub(crate) fn token(&self) -> &str {
        &self.0
    }
}

#[cfg(feature = "legacy-spec")]
impl Drop for Lent {
    fn drop(&mut self) {
        lock(&LENT).remove(&self.0);
    }
}

#[cfg(feature = "legacy-spec")]
impl Site {
    /// Lends this site to a call to a `with` server while it is in flight: a question the
    /// server asks on the call's stream finds it by the token ([`lent`]).
    pub(crate) fn lend(&self) -> Lent {
        let token = uuid::Uuid::new_v4().simple().to_string();
        lock(&LENT).insert(token.clone(), self.clone());
        Lent(token)
    }
}

/// The site lent under `token`, while its call is in flight.
#[cfg(feature = "legacy-spec")]
pub(crate) fn lent(token: &str) -> Option<Site> {
    lock(&LENT).get(token).cloned()
}

/// `params` with the path of the run that asks: its message opens with it, and its `_meta`
/// holds it as a list ([`PATH_KEY`]).
pub(crate) fn tagged(params: ElicitRequestParams, path: &[String]) -> ElicitRequestParams {
    let from = path.join(PATH_SEPARATOR);
    match params {
        ElicitRequestParams::Form(mut form) => {
            form.message = format!("[{from}] {}", form.message);
            let mut meta = form
                .meta
                .take()
                .unwrap_or_else(|| Value::Object(Default::default()));
            if let Value::Object(map) = &mut meta {
                map.insert(PATH_KEY.to_owned(), Value::from(path.to_vec()));
            }
            form.meta = Some(meta);
            ElicitRequestParams::Form(form)
        }
        ElicitRequestParams::Url(mut url) => {
            url.message = format!("[{from}] {}", url.message);
            ElicitRequestParams::Url(url)
        }
    }
}

/// The error a run above returns while a question below waits for a later round: neva answers
/// the top call's round with the question, whatever the handler returned.
pub(crate) fn waiting() -> Error {
    #[cfg(not(feature = "legacy-spec"))]
    let code = ErrorCode::InputRequired;
    // Never made: a legacy caller answers in place, and no run pauses.
    #[cfg(feature = "legacy-spec")]
    let code = ErrorCode::InternalError;
    Error::new(code, "a run below waits for its caller's answer")
}

/// The hex SHA-256 of `parts`, each length-prefixed so no two lists write the same bytes: what
/// a question and a run below are filed under.
pub(crate) fn digest(parts: &[&str]) -> String {
    let mut hash = Sha256::new();
    for part in parts {
        hash.update((part.len() as u64).to_be_bytes());
        hash.update(part.as_bytes());
    }
    hash.finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

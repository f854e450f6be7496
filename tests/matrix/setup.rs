//! What a case's rows make of it: the orchestrator's settings, the turns its model takes, what
//! its client does, and how its run must end.
//!
//! Every row writes to one [`Setup`]; the tool handler builds its `Orchestrator` from it, the
//! scripted model answers from it, the client acts on it, and the checks read it. Both sides build
//! it from the rows' names, so the server and the test never disagree on a case.

use std::num::{NonZeroU64, NonZeroUsize};
use std::time::Duration;

use ladoga::{Approvals, Limits, OnLimit, Orchestrator, Session, ToolPattern, ToolSelection};
use neva::prelude::*;
use neva::svir::RemoteTools;
use neva::types::ProgressToken;
use serde_json::{Value, json};

use super::TABLE;
use super::table::Row;

/// The turn bound of a case no `turns` row bounds: far past what any case takes.
pub const TURNS: usize = 20;
/// The context bound of `context`, in tokens.
pub const CONTEXT: u64 = 8_000;
/// How many pages `context` reads, a turn each: together past [`CONTEXT`], each well within half
/// of it.
pub const PAGES: usize = 4;
/// The characters of one page: some 2,000 tokens.
pub const PAGE_CHARS: usize = 8_000;
/// The time bound of `timeout`.
pub const TIMEOUT: Duration = Duration::from_secs(1);
/// The token budget of `budget`: far past what the other rows' turns use.
pub const BUDGET: u64 = 1_000_000;
/// The tokens each answer of a runaway model reports under `budget`: the budget is reached after
/// three of them, or fewer when the turns before used many.
pub const COSTLY: u64 = 400_000;
/// The token budget of `budget` on the caller's model, whose samples carry no token counts: the
/// run counts its estimate of each request and sample, a few hundred tokens a turn here.
pub const CALLER_BUDGET: u64 = 3_000;
/// The tokens each answer of the nested orchestrator's model reports, `(input, output)`: enough
/// to take a turn of [`COSTLY`] ones off what the budget lets through.
pub const INNER_TOKENS: (u64, u64) = (150_000, 5);
/// The repeat bound of `repeat`: the second identical call is refused, the third stops the run.
pub const REPEAT: usize = 2;
/// How often `stream` passes the text on, at most.
pub const STREAM_EVERY: Duration = Duration::from_millis(100);

/// The brief of a case's second call, which goes on with the first one's session.
pub const SECOND_BRIEF: &str = "Go on from where we stopped.";
/// The model's final answer.
pub const ANSWER: &str = "All done.";
/// The model's answer to the second call of a session.
pub const WENT_ON: &str = "Went on.";
/// The model's answer at a bound, tools refused (`on_limit = "answer"`).
pub const AT_BOUND: &str = "Answered at the bound.";

/// The brief of a case's first call.
pub fn first_brief(case: &str) -> String {
    format!("Case {case}: do the work.")
}

/// The typed answer of `output`.
#[derive(Debug, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Summary {
    /// What the run did.
    pub summary: String,
}

/// The typed answer the model gives when it is asked for JSON.
pub fn typed_answer() -> Value {
    json!({ "summary": ANSWER })
}

/// One call the model makes.
#[derive(Debug, Clone)]
pub struct Call {
    pub tool: String,
    pub arguments: Value,
}

impl Call {
    pub fn new(tool: &str, arguments: Value) -> Self {
        Self {
            tool: tool.to_owned(),
            arguments,
        }
    }
}

/// What the model does once the rows' turns are done, instead of answering, when a bound is to
/// stop it: ordered by which bound a case tests when two rows bring one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Runaway {
    /// A new call each turn, until the turn bound.
    Fresh,
    /// A new call each turn, each answer reporting [`COSTLY`] tokens, until the budget.
    Costly,
    /// The same call each turn, until the repeat bound.
    Same,
    /// A call of a tool that takes longer than the run may, until the deadline.
    Dawdle,
}

impl Runaway {
    /// The stop the run ends with, as the report names it.
    pub fn stop(self) -> &'static str {
        match self {
            Self::Fresh => "turns",
            Self::Costly => "budget",
            Self::Same => "stuck",
            Self::Dawdle => "deadline",
        }
    }
}

/// The model a case's orchestrator runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelKind {
    /// The server's own `ladoga::Model`.
    Own,
    /// `ladoga::CallerModel`: the client samples each request.
    Caller,
    /// `ladoga::Fallback`: a primary that fails every request, then the backup.
    Fallback,
    /// `ladoga::Fallback` with the caller's model first, the primary and the backup after it.
    CallerFirst,
}

/// How a case's call must end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The model answers.
    Answered,
    /// The run stops at the bound the report names, and its policy decides.
    Bound(&'static str),
    /// The two features cannot combine: a tool error saying why, with these words, before any
    /// tool runs.
    Refused(&'static [&'static str]),
}

/// Everything a case's rows decide.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The rows' names joined by `+`: what the client passes as `pair`.
    pub name: String,
    /// The case's unique key: every call of its model carries it, so the tools' records of
    /// cases that run at once stay apart.
    pub case: String,
    pub rows: Vec<&'static Row>,
    pub session: bool,
    pub context: Option<u64>,
    /// The tools found with `search_tools` instead of offered.
    pub deferred: Vec<&'static str>,
    pub ask: bool,
    pub approve: bool,
    pub output: bool,
    pub stream: bool,
    pub with: bool,
    pub caller: bool,
    pub fallback: bool,
    pub task: bool,
    pub nested: bool,
    /// A `turns` row is in the case: the turn bound stops it, unless another bound does.
    pub turns_bound: bool,
    pub timeout: Option<Duration>,
    pub budget: Option<u64>,
    pub repeat: Option<usize>,
    pub policy: OnLimit,
    /// The tools offered, as patterns over the server's and server B's.
    pub tools: Vec<&'static str>,
    /// Each row's turns, in the table's order: the model makes their calls turn by turn, the
    /// calls of one turn of every row in one answer.
    pub steps: Vec<Vec<Vec<Call>>>,
    pub runaway: Option<Runaway>,
    /// How long the client takes to answer each form and each sample.
    pub slow_caller: Duration,
}

impl Setup {
    /// The case `case` of the rows named in `pair` (`session+context`), each applied in the
    /// table's order.
    pub fn of(pair: &str, case: &str) -> Result<Self, String> {
        let mut rows = Vec::new();
        for name in pair.split('+') {
            let row = TABLE
                .iter()
                .find(|row| row.name == name)
                .ok_or_else(|| format!("no row of the matrix is named `{name}`"))?;
            rows.push(row);
        }
        rows.sort_by_key(|row| TABLE.iter().position(|other| other.name == row.name));
        let mut setup = Self {
            name: pair.to_owned(),
            case: case.to_owned(),
            rows: rows.clone(),
            session: false,
            context: None,
            deferred: Vec::new(),
            ask: false,
            approve: false,
            output: false,
            stream: false,
            with: false,
            caller: false,
            fallback: false,
            task: false,
            nested: false,
            turns_bound: false,
            timeout: None,
            budget: None,
            repeat: None,
            policy: OnLimit::Error,
            tools: vec!["note"],
            // Every case makes one call of its own first.
            steps: vec![vec![vec![Call::new(
                "note",
                json!({"case": case, "key": "first"}),
            )]]],
            runaway: None,
            slow_caller: Duration::ZERO,
        };
        for row in rows {
            (row.apply)(&mut setup);
        }
        if setup.turns_bound && setup.runaway.is_none() {
            setup.runaway = Some(Runaway::Fresh);
        }
        Ok(setup)
    }

    /// Makes the model keep going with `runaway` after its turns, unless another row's bound
    /// takes precedence.
    pub fn run_away(&mut self, runaway: Runaway) {
        self.runaway = self.runaway.max(Some(runaway));
    }

    /// Adds a row's turns.
    pub fn add_turns(&mut self, turns: Vec<Vec<Call>>) {
        self.steps.push(turns);
    }

    /// The calls of each turn before the model answers or runs away: turn `i` holds every row's
    /// `i`-th turn.
    pub fn turns(&self) -> Vec<Vec<Call>> {
        let longest = self.steps.iter().map(Vec::len).max().unwrap_or(0);
        (0..longest)
            .map(|turn| {
                (self.steps.iter())
                    .filter_map(|row| row.get(turn))
                    .flatten()
                    .cloned()
                    .collect()
            })
            .collect()
    }

    /// The turn bound: one past the turns when a `turns` row is the bound that stops the run.
    pub fn turn_bound(&self) -> usize {
        match self.runaway {
            Some(Runaway::Fresh) => self.turns().len() + 1,
            _ => TURNS,
        }
    }

    /// The model the orchestrator runs on.
    pub fn model(&self) -> ModelKind {
        match (self.caller, self.fallback) {
            (true, true) => ModelKind::CallerFirst,
            (true, false) => ModelKind::Caller,
            (false, true) => ModelKind::Fallback,
            (false, false) => ModelKind::Own,
        }
    }

    /// How the first call must end.
    pub fn end(&self) -> End {
        if self.task && self.model() == ModelKind::Caller {
            // neva 0.9 samples no task's caller, and there is no other model to ask.
            return End::Refused(&["task", "sample"]);
        }
        match self.runaway {
            None => End::Answered,
            Some(runaway) => End::Bound(runaway.stop()),
        }
    }

    /// Whether the model's answers reach the run as they stream: the caller's sample comes
    /// whole.
    pub fn streams(&self) -> bool {
        self.model() != ModelKind::Caller && self.model() != ModelKind::CallerFirst
    }

    /// The orchestrator of the case's call, as a handler builds it by hand: `continuing` is the
    /// session the call passed, `task` the MCP task it runs as.
    pub fn orchestrator(
        &self,
        ctx: &Context,
        continuing: Option<String>,
        task: Option<String>,
        progress: Option<ProgressToken>,
    ) -> Result<Orchestrator, Error> {
        let mut limits = Limits::new()
            .turns(NonZeroUsize::new(self.turn_bound()).expect("at least one turn"))
            .on_limit(self.policy);
        if let Some(timeout) = self.timeout {
            limits = limits.timeout(timeout);
        }
        let budget = self.budget.map(|budget| match self.caller {
            true => CALLER_BUDGET,
            false => budget,
        });
        if let Some(budget) = budget.and_then(NonZeroU64::new) {
            limits = limits.budget(budget);
        }
        if let Some(repeat) = self.repeat.and_then(NonZeroUsize::new) {
            limits = limits.repeat(repeat);
        }
        let mut orchestrator = Orchestrator::new()
            .name("matrix_run")
            .select(ToolSelection::all().only(patterns(&self.tools)))
            .limits(limits)
            .task(task)
            .progress(progress);
        if self.session {
            orchestrator = orchestrator.session(Session::ById).continuing(continuing);
        }
        if let Some(tokens) = self.context.and_then(NonZeroU64::new) {
            orchestrator = orchestrator.context(tokens);
        }
        if !self.deferred.is_empty() {
            orchestrator = orchestrator.defer(patterns(&self.deferred));
        }
        if self.ask {
            orchestrator = orchestrator.ask(true);
        }
        if self.approve {
            orchestrator = orchestrator.approvals(Approvals::tools(patterns(&["wipe"])));
        }
        if self.stream {
            orchestrator = orchestrator.stream(STREAM_EVERY);
        }
        if self.with {
            let remote = ctx.resolve_shared::<RemoteTools>().map_err(|_| {
                Error::new(
                    ErrorCode::InternalError,
                    "server B's tools are not registered",
                )
            })?;
            orchestrator = orchestrator.with_named("server B", remote);
        }
        Ok(orchestrator)
    }
}

/// `names` as tool patterns.
fn patterns(names: &[&str]) -> Vec<ToolPattern> {
    (names.iter())
        .map(|name| ToolPattern::new(*name).expect("a valid pattern"))
        .collect()
}

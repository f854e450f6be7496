//! How an orchestration ended.

use crate::approval::{Approval, Inquired};
use svir::FinishReason;

/// What a finished orchestration returns.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Outcome {
    /// The model's final answer; under [`OnLimit::Partial`](crate::OnLimit::Partial) at a
    /// bound, the work so far (see [`Self::partial`]).
    pub text: String,
    /// How many requests were sent to the model.
    pub turns: usize,
    /// The tokens used, summed over the requests the server reported usage for, those of the
    /// orchestrators this run called in-process (and theirs) included.
    pub usage: TokenUsage,
    /// Why the loop stopped.
    pub stop: Stop,
    /// Why the model stopped writing its final answer; `Length` means the output limit cut it.
    pub finish: FinishReason,
    /// The run stopped at a bound and `text` is the work so far: the last text the model wrote
    /// and every tool result, under a first line saying so.
    pub partial: bool,
    /// The name of the model that answered the last request: the model's own, or for a
    /// [`Fallback`](crate::Fallback), the one of its models that answered. `None` when no
    /// request was answered, as for a partial result at a deadline the first request missed.
    pub model: Option<String>,
    /// How long the run's first model request took to its first piece (text, reasoning or a
    /// piece of a tool call): what a caller of a streaming run waits before it hears anything.
    /// `None` for a model that does not stream ([`CompletionModel::complete_streaming`]'s
    /// default), or when no piece came.
    ///
    /// [`CompletionModel::complete_streaming`]: crate::CompletionModel::complete_streaming
    pub first_token: Option<std::time::Duration>,
    /// Every approval the run asked its caller for, in order, with the answer
    /// ([`Approvals`](crate::Approvals)).
    pub approvals: Vec<Approval>,
    /// Every question the model put to the caller's person with `ask_caller`, in order, with
    /// the reply ([`Orchestrator::ask`](crate::Orchestrator::ask)).
    pub inquiries: Vec<Inquired>,
    /// The id of the session the run went on with, which a later call passes to go on
    /// ([`Session::ById`](crate::Session::ById)); `None` without one.
    pub session: Option<String>,
    /// How often the conversation was compacted to keep it within its context bound
    /// ([`Orchestration::context`](crate::Orchestration::context)), and how much that removed;
    /// all zero without a bound, or when it was never reached.
    pub compacted: crate::context::Compacted,
    /// The calls a crash cut in a durable run, to tools that may not run twice: not made again,
    /// and the model told their outcome is unknown (`restate` feature); empty otherwise.
    pub unknown: Vec<UnknownCall>,
    /// What the run's model requests cost, in US dollars, the runs nested in it included;
    /// `None` when a request's model has no known price, or its answer no usage (see
    /// [`cost`](crate::cost)). Never `0` for an unknown price.
    pub cost_usd: Option<f64>,
    /// The runs of the orchestrators this run's model called in process, each with its report,
    /// in the order they ended; empty when none reported (a run whose caller cannot be asked
    /// keeps none).
    pub runs: Vec<NestedRun>,
    /// The messages its caller sent the run while it ran, in the order it read them
    /// ([`Orchestrator::steer`](crate::Orchestrator::steer)).
    pub steered: Vec<Steering>,
    /// What the run's [guards](crate::guard) held back, in order, and why; empty without one.
    pub held: Vec<crate::guard::Held>,
    /// Where the untrusted text that entered the run's conversation came from (a tool's name,
    /// or `resource <uri>`), first first: the answer was written after reading it. Kept only
    /// by a run with a guard.
    pub untrusted: Vec<String>,
}

/// A message a caller sent a run in flight, which it read as the person's words.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Steering {
    /// The turns the run had made when it read it: the message comes before the next.
    pub turn: usize,
    /// What the caller said.
    pub text: String,
}

impl Outcome {
    /// What a call that steers answers: its message went to the run in flight on the session
    /// `session` (its id, for a session by id).
    pub(crate) fn of_steering(session: Option<String>) -> Self {
        Self {
            text: "Your message was given to the run in flight on this session: it reads it \
                   before its next turn."
                .to_owned(),
            turns: 0,
            usage: TokenUsage::default(),
            stop: Stop::Steered,
            finish: FinishReason::Stop,
            partial: false,
            model: None,
            first_token: None,
            approvals: Vec::new(),
            inquiries: Vec::new(),
            session,
            compacted: crate::context::Compacted::default(),
            unknown: Vec::new(),
            cost_usd: Some(0.0),
            runs: Vec::new(),
            steered: Vec::new(),
            held: Vec::new(),
            untrusted: Vec::new(),
        }
    }
}

/// The run of an orchestrator that a run's model called in process, as its report tells it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct NestedRun {
    /// The orchestrating tool called.
    pub tool: String,
    /// The turn of the calling run that called it, counted from 1.
    pub turn: usize,
    /// Its report ([`Outcome::report`]): how it ended, the questions it asked, and its own
    /// nested runs under `runs`.
    pub report: serde_json::Value,
}

/// A call a crash cut in a durable run, to a tool that is neither read-only nor idempotent: it
/// may have been made, and is not made again.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnknownCall {
    /// The tool.
    pub tool: String,
    /// Its arguments, as the model wrote them.
    pub arguments: String,
}

/// Why an orchestration stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Stop {
    /// The model answered without calling a tool.
    Answered,
    /// The model was still calling tools after the last turn.
    TurnLimit,
    /// The run's time ran out ([`Limits::timeout`](crate::Limits::timeout)).
    Deadline,
    /// The run's tokens ran out ([`Limits::budget`](crate::Limits::budget)).
    Budget,
    /// The run's dollars ran out: the next request could have taken it past its dollar budget
    /// ([`Limits::budget_usd`](crate::Limits::budget_usd)).
    BudgetUsd,
    /// The caller's quota was spent: the next request could have taken it past it
    /// ([`Orchestrator::quota`](crate::Orchestrator::quota)).
    Quota,
    /// The model kept making the same call ([`Limits::repeat`](crate::Limits::repeat)).
    Stuck,
    /// The run was nested as deep as its depth bound lets calls go
    /// ([`Orchestrator::depth`](crate::Orchestrator::depth)), so none of its calls could be
    /// made: it was offered no tools, told why, and answered in one request.
    Depth,
    /// The call ran no model: it was a message to the run in flight on its session, which reads
    /// it at its next turn ([`Orchestrator::steer`](crate::Orchestrator::steer)).
    Steered,
}

impl Stop {
    /// The name a report gives it: `answered`, `turns`, `deadline`, `budget`, `budget_usd`,
    /// `quota`, `stuck`, `depth` or `steered`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Answered => "answered",
            Self::TurnLimit => "turns",
            Self::Deadline => "deadline",
            Self::Budget => "budget",
            Self::BudgetUsd => "budget_usd",
            Self::Quota => "quota",
            Self::Stuck => "stuck",
            Self::Depth => "depth",
            Self::Steered => "steered",
        }
    }

    /// The stop whose [`name`](Self::name) is `name`.
    pub(crate) fn named(name: &str) -> Option<Self> {
        [
            Self::Answered,
            Self::TurnLimit,
            Self::Deadline,
            Self::Budget,
            Self::BudgetUsd,
            Self::Quota,
            Self::Stuck,
            Self::Depth,
            Self::Steered,
        ]
        .into_iter()
        .find(|stop| stop.name() == name)
    }
}

/// Tokens used, summed over the requests of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct TokenUsage {
    /// Tokens the model read.
    pub input: u64,
    /// Tokens the model wrote.
    pub output: u64,
}

impl TokenUsage {
    /// Adds what one answer used, when the server reported it.
    pub fn add(&mut self, usage: Option<svir::Usage>) {
        if let Some(usage) = usage {
            self.input += usage.input;
            self.output += usage.output;
        }
    }

    /// Input and output together.
    pub fn total(&self) -> u64 {
        self.input + self.output
    }
}

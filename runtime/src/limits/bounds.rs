//! The bounds of one run, and what happens at them.

use std::num::{NonZeroU64, NonZeroUsize};
use std::time::Duration;

use crate::cost::Dollars;
use crate::limits::{DEFAULT_MAX_ARGUMENTS, DEFAULT_MAX_RESULT, OnLimit};
use crate::outcome::TokenUsage;

/// How many model answers a run takes unless told otherwise.
pub const DEFAULT_TURNS: NonZeroUsize = NonZeroUsize::new(8).expect("8 is not zero");

/// How long a run may take unless told otherwise: ten minutes. Every run ends, even one whose
/// model server keeps its answer open forever; [`Limits::timeout`] changes it, and
/// [`Limits::no_timeout`] takes it away.
pub const DEFAULT_RUN_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// How many times a typed run tells the model its answer did not parse, unless told otherwise.
pub const DEFAULT_OUTPUT_RETRIES: usize = 1;

/// The bounds of a run: turns, time, tokens and repeated calls, the policy that applies at any
/// of them, how large one call's arguments may be, and how much of a tool result reaches the
/// model.
///
/// # Examples
/// ```
/// use std::num::{NonZeroU64, NonZeroUsize};
/// use std::time::Duration;
///
/// let limits = ladoga::Limits::new()
///     .turns(NonZeroUsize::new(12).unwrap())
///     .timeout(Duration::from_secs(90))
///     .budget(NonZeroU64::new(20_000).unwrap())
///     .repeat(NonZeroUsize::new(3).unwrap())
///     .on_limit(ladoga::OnLimit::Partial);
/// assert_eq!(limits.turns.get(), 12);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// At most this many model answers, tool calls and final answer together.
    pub turns: NonZeroUsize,
    /// The whole run, model requests and tool calls, within this time: [`DEFAULT_RUN_TIMEOUT`]
    /// unless told otherwise; `None` only after [`Limits::no_timeout`].
    pub timeout: Option<Duration>,
    /// At most this many tokens (input and output, every turn, the runs of orchestrators it
    /// calls in-process included), checked before each request.
    pub budget: Option<NonZeroU64>,
    /// At most this many dollars, the runs of orchestrators it calls in-process included,
    /// checked before each request against what was spent and the request's worst case
    /// ([`Limits::budget_usd`]).
    pub budget_usd: Option<Dollars>,
    /// The same tool with the same arguments this many times in a run is a stuck model.
    pub repeat: Option<NonZeroUsize>,
    /// What happens at any of the bounds above.
    pub on_limit: OnLimit,
    /// At most this many characters of each tool result reach the model.
    pub max_result: usize,
    /// At most this many bytes of one call's arguments, as the model wrote them: a call past it
    /// is not run, and its arguments are left out of the conversation.
    pub max_arguments: usize,
    /// How many times an answer that does not parse as a typed run's output type is told back
    /// to the model ([`Orchestration::run_as`](crate::Orchestration::run_as)).
    pub retries: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self::new()
    }
}

impl Limits {
    /// [`DEFAULT_TURNS`] turns, [`DEFAULT_RUN_TIMEOUT`], no token or repeat bound,
    /// [`OnLimit::Error`], [`DEFAULT_MAX_RESULT`] characters of a result and
    /// [`DEFAULT_MAX_ARGUMENTS`] bytes of a call's arguments.
    pub fn new() -> Self {
        Self {
            turns: DEFAULT_TURNS,
            timeout: Some(DEFAULT_RUN_TIMEOUT),
            budget: None,
            budget_usd: None,
            repeat: None,
            on_limit: OnLimit::default(),
            max_result: DEFAULT_MAX_RESULT,
            max_arguments: DEFAULT_MAX_ARGUMENTS,
            retries: DEFAULT_OUTPUT_RETRIES,
        }
    }

    /// At most `turns` model answers, tool calls and final answer together.
    pub fn turns(mut self, turns: NonZeroUsize) -> Self {
        self.turns = turns;
        self
    }

    /// Bounds the whole run in time: at `timeout`, the request or the calls in flight are
    /// dropped and the run stops as [`Stop::Deadline`](crate::Stop::Deadline). The requests
    /// for a typed answer, and the last one of [`OnLimit::Answer`](crate::OnLimit::Answer) at
    /// another bound, are within it too (past it the run fails with
    /// [`RunError::Deadline`](crate::RunError::Deadline)); at the deadline itself, `Answer`
    /// makes its one last request after it, bounded by the model's own response timeout
    /// ([`Model::with_response_timeout`](crate::Model::with_response_timeout)).
    ///
    /// [`DEFAULT_RUN_TIMEOUT`] unless set. The time a paused run waits for its caller (an
    /// approval, a question, a sample of the caller's model) does not count: the bound is on the
    /// run's own work, over all its rounds.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Takes the time bound away: the run is bounded by its turns, and each model request by
    /// its model's own timeouts, but a tool that never answers holds it forever. For a run whose
    /// caller bounds it in time already.
    ///
    /// # Examples
    /// ```
    /// let limits = ladoga::Limits::new();
    /// assert_eq!(limits.timeout, Some(ladoga::DEFAULT_RUN_TIMEOUT));
    /// assert_eq!(limits.no_timeout().timeout, None);
    /// ```
    pub fn no_timeout(mut self) -> Self {
        self.timeout = None;
        self
    }

    /// Stops the run as [`Stop::Budget`](crate::Stop::Budget) before a request once `tokens`
    /// (input and output, summed over the turns) are used.
    pub fn budget(mut self, tokens: NonZeroU64) -> Self {
        self.budget = Some(tokens);
        self
    }

    /// Stops the run as [`Stop::BudgetUsd`](crate::Stop::BudgetUsd) before a request that could
    /// take what the run spent past `dollars`: what it spent so far (the runs of orchestrators it
    /// calls in-process included, and what `with` servers that are Ladoga servers say they spent),
    /// plus the request's worst case, its input tokens at the model's input price and its output
    /// limit at the output price. A request without an output limit of its own is sent with one
    /// when what is left would not pay for 4,096 tokens, and not sent when it would not pay for
    /// 256. An orchestrator called in-process has at most what this run has left.
    ///
    /// The model must have a known price ([`cost`](crate::cost)): a run under a dollar budget
    /// does not ask a model whose price it does not know, and fails saying so.
    ///
    /// # Panics
    /// When `dollars` is not a positive, finite number; `#[orchestrator(budget_usd = …)]`
    /// checks it at compile time.
    ///
    /// # Examples
    /// ```
    /// let limits = ladoga::Limits::new().budget_usd(0.50);
    /// assert_eq!(limits.budget_usd.unwrap().get(), 0.50);
    /// ```
    pub fn budget_usd(mut self, dollars: f64) -> Self {
        let budget = Dollars::new(dollars);
        self.budget_usd = Some(
            budget.unwrap_or_else(|| panic!("a dollar budget is a positive amount, not {dollars}")),
        );
        self
    }

    /// The `times`-th call of one tool with the same arguments is not run: the model is told
    /// once, and the next such call stops the run as [`Stop::Stuck`](crate::Stop::Stuck).
    pub fn repeat(mut self, times: NonZeroUsize) -> Self {
        self.repeat = Some(times);
        self
    }

    /// What happens at a bound.
    pub fn on_limit(mut self, policy: OnLimit) -> Self {
        self.on_limit = policy;
        self
    }

    /// At most `chars` characters of each tool result reach the model; a longer one is cut and
    /// ends with a note saying so.
    pub fn max_result(mut self, chars: usize) -> Self {
        self.max_result = chars;
        self
    }

    /// At most `bytes` bytes of one call's arguments, as the model wrote them
    /// ([`DEFAULT_MAX_ARGUMENTS`] unless set). A call past it is not run, nor put to an
    /// approver: the model gets an error result saying how large its arguments were and the
    /// bound, and the arguments are left out of the conversation (the call keeps its id and
    /// name, its arguments become `{"ladoga_omitted_bytes": N}`), so they are not sent again
    /// with each later request.
    pub fn max_arguments(mut self, bytes: usize) -> Self {
        self.max_arguments = bytes;
        self
    }

    /// Tells the model at most `retries` times that its answer did not parse as the output type
    /// of a typed run, and asks again.
    pub fn retries(mut self, retries: usize) -> Self {
        self.retries = retries;
        self
    }

    /// Whether `used` has reached the token budget, if there is one.
    pub(crate) fn spent(&self, used: &TokenUsage) -> bool {
        self.budget
            .is_some_and(|budget| used.total() >= budget.get())
    }
}

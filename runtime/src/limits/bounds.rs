//! The bounds of one run, and what happens at them.

use std::num::{NonZeroU64, NonZeroUsize};
use std::time::Duration;

use crate::limits::{DEFAULT_MAX_RESULT, OnLimit};
use crate::outcome::TokenUsage;

/// How many model answers a run takes unless told otherwise.
pub const DEFAULT_TURNS: NonZeroUsize = NonZeroUsize::new(8).expect("8 is not zero");

/// How many times a typed run tells the model its answer did not parse, unless told otherwise.
pub const DEFAULT_OUTPUT_RETRIES: usize = 1;

/// The bounds of a run: turns, time, tokens and repeated calls, the policy that applies at any
/// of them, and how much of a tool result reaches the model.
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
    /// The whole run, model requests and tool calls, within this time.
    pub timeout: Option<Duration>,
    /// At most this many tokens (input and output, every turn, the runs of orchestrators it
    /// calls in-process included), checked before each request.
    pub budget: Option<NonZeroU64>,
    /// The same tool with the same arguments this many times in a run is a stuck model.
    pub repeat: Option<NonZeroUsize>,
    /// What happens at any of the bounds above.
    pub on_limit: OnLimit,
    /// At most this many characters of each tool result reach the model.
    pub max_result: usize,
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
    /// [`DEFAULT_TURNS`] turns, no time, token or repeat bound, [`OnLimit::Error`], and
    /// [`DEFAULT_MAX_RESULT`] characters of a result.
    pub fn new() -> Self {
        Self {
            turns: DEFAULT_TURNS,
            timeout: None,
            budget: None,
            repeat: None,
            on_limit: OnLimit::default(),
            max_result: DEFAULT_MAX_RESULT,
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
    /// makes its one last request after it, bounded by the model client's own timeouts.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Stops the run as [`Stop::Budget`](crate::Stop::Budget) before a request once `tokens`
    /// (input and output, summed over the turns) are used.
    pub fn budget(mut self, tokens: NonZeroU64) -> Self {
        self.budget = Some(tokens);
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

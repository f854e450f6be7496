//! The dollar budget, checked before each of a run's requests (its turns, its answer at a bound,
//! a typed answer, a summary): what the run and the runs it is nested in have left against the
//! request's worst case, its input tokens at the model's input price and its output limit at the
//! output price.

use svir::{Completion, Request, Toolbox};
use tokio::time::Instant;

use crate::context::size;
use crate::cost::{self, Price};
use crate::error::RunError;
use crate::model::CompletionModel;
use crate::outcome::Stop;
use crate::run::Orchestration;
use crate::run::booking::Reserved;
use crate::run::pause::Halt;
use crate::run::state::Run;

/// The output limit a request without one of its own is counted at, and below which what is
/// left becomes its limit: every model of note writes at least this much in one answer.
pub(crate) const ASSUMED_OUTPUT_TOKENS: u64 = 4_096;

/// The least output worth a request: when what is left pays for fewer tokens, none is made.
pub(crate) const LEAST_OUTPUT_TOKENS: u64 = 256;

/// More tokens than any model reads in one request: a budget that pays for this many in and the
/// output limit out pays for any request, and its check needs no estimate of the request.
const MORE_THAN_ANY_CONTEXT: u64 = 10_000_000;

/// Whether a run can afford its next request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Afford {
    /// Yes, as it is (or no dollar budget applies).
    Yes,
    /// Yes, with its output limited to this many tokens.
    Capped(u64),
    /// No: the run is at its dollar bound.
    No,
}

/// Whether `left` dollars pay for a request of `input` tokens and `max_tokens` of output (the
/// request's own limit, if it has one) at `price`.
pub(crate) fn afford(left: f64, price: Price, input: u64, max_tokens: Option<u64>) -> Afford {
    let after_input = left - input as f64 * price.input() / 1_000_000.0;
    if after_input < 0.0 || left <= 0.0 {
        return Afford::No;
    }
    let per_output = price.output() / 1_000_000.0;
    if per_output <= 0.0 {
        return Afford::Yes;
    }
    // A hair over, so that a budget of exactly N tokens' price pays for N.
    let affordable = (after_input / per_output + 1e-6).floor();
    let wanted = max_tokens.unwrap_or(ASSUMED_OUTPUT_TOKENS);
    if affordable >= wanted as f64 {
        Afford::Yes
    } else if affordable >= LEAST_OUTPUT_TOKENS.min(wanted) as f64 {
        Afford::Capped(affordable as u64)
    } else {
        Afford::No
    }
}

/// What a request may do under the run's dollar budget and its caller's quota.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Funded {
    /// It goes, its output at most `cap` tokens; `booked` is the quota's booking of its worst
    /// case, corrected once it is answered.
    Yes {
        cap: Option<u64>,
        booked: Option<f64>,
    },
    /// It does not: the run is at this bound (`budget_usd`, or `quota`).
    No(Stop),
}

impl<M, T> Orchestration<'_, M, T>
where
    M: CompletionModel + ?Sized,
    T: Toolbox + Sync + ?Sized,
{
    /// Whether `run`'s next request goes, under the tightest dollar budget it is within and its
    /// caller's quota, and with what output at most; the quota's booking of it made.
    pub(super) async fn fund(&self, run: &Run) -> Result<Funded, RunError> {
        let cap = match self.afford(run)? {
            Afford::Yes => None,
            Afford::Capped(tokens) => Some(tokens),
            Afford::No => return Ok(Funded::No(Stop::BudgetUsd)),
        };
        Ok(match self.book_request(run, cap).await? {
            Reserved::Free => Funded::Yes { cap, booked: None },
            Reserved::Held { worst, cap } => Funded::Yes {
                cap,
                booked: Some(worst),
            },
            Reserved::Refused => Funded::No(Stop::Quota),
        })
    }

    /// The answer to `run`'s request, made within what its dollar budget and quota have left
    /// (its output limited to what they pay for), before `deadline` if there is one; the
    /// bound it is at when they pay for no answer, and it is not made. The one way a run asks
    /// past its turns: its answer at a bound, a typed answer, the answer at the depth bound.
    pub(super) async fn ask_funded(
        &self,
        deadline: Option<Instant>,
        run: &mut Run,
    ) -> Result<Result<Completion, Stop>, Halt> {
        let (cap, booked) = match self.fund(run).await? {
            Funded::Yes { cap, booked } => (cap, booked),
            Funded::No(stop) => {
                tracing::info!(target: "ladoga", ?stop, "what is left pays for no answer: none is asked for");
                return Ok(Err(stop));
            }
        };
        let own = run.request.max_tokens;
        if cap.is_some() {
            run.request.max_tokens = cap;
        }
        let asked = self.ask_by(deadline, &run.request, &run.usage).await;
        run.request.max_tokens = own;
        if let Some(worst) = booked {
            self.booked_request(run, worst).await; // quota
        }
        Ok(Ok(run.heard(asked?)))
    }

    /// Whether `run` can afford its next request under the tightest dollar budget it is within
    /// (its own, or a run's it is nested in); a model with no known price cannot be afforded.
    pub(super) fn afford(&self, run: &Run) -> Result<Afford, RunError> {
        let Some(left) = run.usage.left() else {
            return Ok(Afford::Yes);
        };
        let price = self.price()?;
        // Far from the bound, no request can pass it: no estimate of this one's size is needed.
        if afford(
            left.usd(),
            price,
            MORE_THAN_ANY_CONTEXT,
            run.request.max_tokens,
        ) == Afford::Yes
        {
            return Ok(Afford::Yes);
        }
        let input = size::tokens(&run.request, run.window.counted());
        let afford = afford(left.usd(), price, input, run.request.max_tokens);
        if afford == Afford::No {
            tracing::debug!(target: "ladoga", budget = %left.budget, spent = left.spent, input, "the next request could pass the dollar budget");
        }
        Ok(afford)
    }

    /// Limits `request`, a summary for `run` that a model priced at `price` writes, to what the
    /// run's dollar budget has left: `false` when that pays for no summary, and it is not asked.
    pub(super) fn afford_summary(
        &self,
        run: &Run,
        price: Option<Price>,
        request: &mut Request,
    ) -> Result<bool, RunError> {
        let Some(left) = run.usage.left() else {
            return Ok(true);
        };
        let price = price.ok_or_else(|| RunError::Unpriced {
            model: request.model.clone(),
        })?;
        let input = size::estimate(request);
        Ok(match afford(left.usd(), price, input, request.max_tokens) {
            Afford::Yes => true,
            Afford::Capped(tokens) => {
                request.max_tokens = Some(tokens);
                true
            }
            Afford::No => false,
        })
    }

    /// The price of the run's model before it answers, which a bound in dollars needs.
    pub(super) fn price(&self) -> Result<Price, RunError> {
        let name = self.model.name();
        cost::price_of(name, self.model.price(), self.model.price_provider()).ok_or_else(|| {
            RunError::Unpriced {
                model: name.to_owned(),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// $1 a million tokens read, $10 a million written.
    const PRICE: Price = Price::per_million_tokens(1.0, 10.0);

    #[test]
    fn a_request_that_fits_goes_as_it_is() {
        // 1,000 tokens read: $0.001; 4,096 written at most: $0.04096.
        assert_eq!(afford(0.05, PRICE, 1_000, None), Afford::Yes);
        assert_eq!(afford(0.02, PRICE, 1_000, Some(1_000)), Afford::Yes);
    }

    #[test]
    fn near_the_bound_the_output_is_limited_to_what_is_left() {
        // $0.011 left: $0.001 to read, $0.01 pays for 1,000 tokens written.
        assert_eq!(afford(0.011, PRICE, 1_000, None), Afford::Capped(1_000));
    }

    #[test]
    fn past_the_bound_no_request_is_made() {
        // $0.003 left: $0.001 to read, $0.002 pays for 200 tokens, fewer than the least.
        assert_eq!(afford(0.003, PRICE, 1_000, None), Afford::No);
        assert_eq!(afford(0.0005, PRICE, 1_000, None), Afford::No);
        assert_eq!(afford(-0.1, Price::FREE, 0, None), Afford::No);
    }

    #[test]
    fn a_free_model_is_always_afforded_while_anything_is_left() {
        assert_eq!(afford(0.01, Price::FREE, 1_000_000, None), Afford::Yes);
    }
}

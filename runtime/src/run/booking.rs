//! A quota's bookings, as a run makes them: each turn's request booked at its worst case before
//! it is made and corrected to its cost once known; what the run spent otherwise (its nested
//! runs, its summaries, its answer at a bound) booked at the next turn, and as the run ends or
//! pauses. The quota itself, its caller and its store are the tool's (`tool/quota.rs`).

use std::future::Future;
use std::pin::Pin;

use svir::Toolbox;

use crate::context::size;
use crate::error::RunError;
use crate::model::CompletionModel;
use crate::run::Orchestration;
use crate::run::spend::{ASSUMED_OUTPUT_TOKENS, Afford, afford};
use crate::run::state::Run;
use crate::usage::SharedUsage;

/// A request's booking against the quota.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Reserved {
    /// No quota applies.
    Free,
    /// Booked at `worst`, its output at most `cap` tokens.
    Held { worst: f64, cap: Option<u64> },
    /// The quota would pass.
    Refused,
}

/// A future of a booking.
pub(crate) type BookingFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Where a run books what it spends against its caller's quota.
pub(crate) trait Booking: Send + Sync {
    /// Whether the run is admitted only with a whole run's worth reserved: a call's top run,
    /// not one nested in a run that was.
    fn admits(&self) -> bool;

    /// Reserves `dollars`, a whole run's worth, before the run's first request: `false`, and
    /// nothing reserved, when the quota does not have them left. What the run books is drawn
    /// from the reservation first.
    fn reserve(&self, dollars: f64) -> BookingFuture<'_, Result<bool, RunError>>;

    /// Books `dollars`; when the quota would pass, books nothing and answers what is left.
    fn book(&self, dollars: f64) -> BookingFuture<'_, Result<Result<(), f64>, RunError>>;

    /// Books `dollars` whatever the quota; negative, gives them back.
    fn correct(&self, dollars: f64) -> BookingFuture<'_, ()>;

    /// Gives back what is left of the run's reservation, as it ends or pauses.
    fn release(&self) -> BookingFuture<'_, ()>;

    /// The error of a run whose quota is spent.
    fn spent(&self) -> RunError;
}

impl<M, T> Orchestration<'_, M, T>
where
    M: CompletionModel + ?Sized,
    T: Toolbox + Sync + ?Sized,
{
    /// Books what the run of `usage` spent since its last booking, and gives back what is left
    /// of its reservation, as it ends or pauses.
    pub(super) async fn book_last(&self, usage: &SharedUsage) {
        self.book_spent(usage).await;
        if let Some(book) = self.seams.booking {
            book.release().await;
        }
    }

    /// Books what the run of `usage` spent since its last booking, if it books against a quota.
    pub(super) async fn book_spent(&self, usage: &SharedUsage) {
        if let Some(book) = self.seams.booking {
            let unbooked = usage.book_all();
            if unbooked != 0.0 {
                book.correct(unbooked).await;
            }
        }
    }

    /// Books the next request's worst case, its output at most `cap` tokens, against the
    /// caller's quota: with less left than that, its output is limited to what is left, as
    /// under a dollar budget.
    pub(super) async fn book_request(
        &self,
        run: &Run,
        cap: Option<u64>,
    ) -> Result<Reserved, RunError> {
        let Some(book) = self.seams.booking else {
            return Ok(Reserved::Free);
        };
        self.book_spent(&run.usage).await;
        let price = self.price()?;
        let input = size::tokens(&run.request, run.window.counted());
        let wanted = cap.or(run.request.max_tokens);
        let worst = |output: u64| {
            (input as f64 * price.input() + output as f64 * price.output()) / 1_000_000.0
        };
        let full = worst(wanted.unwrap_or(ASSUMED_OUTPUT_TOKENS));
        // A call's first request: admitted only with a whole run's worth reserved. Not a
        // durable run's: a replica killed mid-run could not give its reservation back, and the
        // run replayed elsewhere would reserve again; it books request by request.
        if run.turns == 0 && book.admits() && self.seams.recorder.is_none() {
            let worth = self.run_worth(run, full);
            if !book.reserve(worth).await? {
                return Ok(Reserved::Refused);
            }
        }
        let left = match book.book(full).await? {
            Ok(()) => return Ok(Reserved::Held { worst: full, cap }),
            Err(left) => left,
        };
        // What is left may still pay for a shorter answer.
        let Afford::Capped(tokens) = afford(left, price, input, wanted) else {
            return Ok(Reserved::Refused);
        };
        let worst = worst(tokens);
        Ok(match book.book(worst).await? {
            Ok(()) => Reserved::Held {
                worst,
                cap: Some(tokens),
            },
            Err(_) => Reserved::Refused,
        })
    }

    /// A whole run's worth, which a call's top run reserves before its first request, whose
    /// worst case is `first`: what is left of its dollar budget when it has one, else its turn
    /// bound's worth of requests as large as the first.
    fn run_worth(&self, run: &Run, first: f64) -> f64 {
        match run.usage.left() {
            Some(left) => left.usd().max(0.0),
            None => first * self.settings.limits.turns.get() as f64,
        }
    }

    /// The error of a run whose caller spent its quota.
    pub(super) fn quota_spent(&self) -> RunError {
        self.seams
            .booking
            .map_or_else(|| RunError::Store("no quota".into()), |book| book.spent())
    }

    /// Corrects the booking of a request's worst case `worst` to what the run spent since.
    pub(super) async fn booked_request(&self, run: &Run, worst: f64) {
        if let Some(book) = self.seams.booking {
            let spent = run.usage.book_all();
            book.correct(spent - worst).await;
        }
    }
}

//! A tool's quotas for its call's caller, its own and the server's: the counters of the caller's
//! current windows in the run store, checked before the run and booked by it
//! (`run/booking.rs`). A call's top run is admitted with a whole run's worth reserved, draws
//! what it books from that reservation, and gives back what it did not spend as it ends.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use neva::Context;

use crate::cost::{Quota, ServerQuota};
use crate::error::RunError;
use crate::run::booking::{Booking, BookingFuture};
use crate::session::principal;
use crate::store::{QUOTA_PREFIX, Runs};
use crate::toolbox::arguments::digest;
use crate::usage::SharedUsage;

/// Billionths of a dollar: what the store counts.
const NANOS: f64 = 1e9;

/// How long a window's counter outlives the window, for a clock a little behind.
const SLACK: Duration = Duration::from_secs(60);

/// The quotas of one tool call's caller, the tool's and the server's, booked together: a
/// booking one refuses is given back to those that took it.
pub(super) struct QuotaBooks {
    books: Vec<QuotaBook>,
    /// The book that refused last.
    refused: AtomicUsize,
    /// Whether the run reserves a whole run's worth before its first request: a call's top
    /// run, not one nested in process in another run, whose reservation holds for it.
    admits: bool,
}

impl QuotaBooks {
    /// The quotas of `ctx`'s call of `tool`: its own `quota`, and the server's, if it has one;
    /// none when neither is.
    pub(super) async fn of(
        ctx: &Context,
        tool: &str,
        quota: Option<Quota>,
    ) -> Result<Option<Self>, RunError> {
        let mut books = Vec::new();
        if let Some(quota) = quota {
            books.push(QuotaBook::of(
                ctx,
                &format!("tool/{tool}"),
                "this tool",
                quota,
            ));
        }
        // A run nested in process in another of the server's runs spends for that run, which
        // books what its tree spent against the server's quota: booked here too, it would count
        // twice.
        let top = SharedUsage::nesting() == 0;
        if let Ok(ServerQuota(quota)) = ctx.resolve::<ServerQuota>()
            && top
        {
            books.push(QuotaBook::of(ctx, "server", "this server", quota));
        }
        for book in &books {
            book.open().await?;
        }
        Ok((!books.is_empty()).then(|| Self {
            books,
            refused: AtomicUsize::new(0),
            admits: top,
        }))
    }
}

impl Booking for QuotaBooks {
    fn admits(&self) -> bool {
        self.admits
    }

    fn reserve(&self, dollars: f64) -> BookingFuture<'_, Result<bool, RunError>> {
        Box::pin(async move {
            for (index, book) in self.books.iter().enumerate() {
                if !book.reserve(dollars).await? {
                    for taken in &self.books[..index] {
                        taken.release().await;
                    }
                    self.refused.store(index, Ordering::Relaxed);
                    return Ok(false);
                }
            }
            Ok(true)
        })
    }

    fn release(&self) -> BookingFuture<'_, ()> {
        Box::pin(async move {
            for book in &self.books {
                book.release().await;
            }
        })
    }

    fn book(&self, dollars: f64) -> BookingFuture<'_, Result<Result<(), f64>, RunError>> {
        Box::pin(async move {
            for (index, book) in self.books.iter().enumerate() {
                if let Err(left) = book.book(dollars).await? {
                    for taken in &self.books[..index] {
                        taken.correct(-dollars).await;
                    }
                    self.refused.store(index, Ordering::Relaxed);
                    return Ok(Err(left));
                }
            }
            Ok(Ok(()))
        })
    }

    fn correct(&self, dollars: f64) -> BookingFuture<'_, ()> {
        Box::pin(async move {
            for book in &self.books {
                book.correct(dollars).await;
            }
        })
    }

    fn spent(&self) -> RunError {
        let refused = self
            .refused
            .load(Ordering::Relaxed)
            .min(self.books.len() - 1);
        self.books[refused].spent()
    }
}

/// One quota of one tool call's caller, in the window the call began in.
struct QuotaBook {
    runs: Runs,
    key: String,
    /// What it is the quota of, for its error: `this tool`.
    on: &'static str,
    quota: Quota,
    /// When the window ends: when the quota frees up.
    ends: SystemTime,
    /// What is left of the run's reservation, in billionths: booked in the store, not spent.
    held: Mutex<i64>,
    /// Whether the run reserved: what it gives back then stays held for it until it ends.
    reserved: std::sync::atomic::AtomicBool,
}

impl QuotaBook {
    /// The quota `quota` of `scope` (`tool/NAME`, or `server`) for `ctx`'s caller (its token's
    /// issuer and subject; callers without a token together), in the current window.
    fn of(ctx: &Context, scope: &str, on: &'static str, quota: Quota) -> Self {
        let runs = ctx
            .resolve_shared::<Runs>()
            .map_or_else(|_| Runs::in_process(), |runs| (*runs).clone());
        let caller = principal::of(ctx).unwrap_or_else(|| "anonymous".to_owned());
        let window = quota.per().duration().as_secs().max(1);
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        let index = now / window;
        let per = quota.per().name();
        Self {
            runs,
            key: format!("{QUOTA_PREFIX}{scope}/{per}/{}/{index}", digest(&caller)),
            on,
            quota,
            ends: UNIX_EPOCH + Duration::from_secs((index + 1) * window),
            held: Mutex::new(0),
            reserved: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Refuses the call when its caller has spent the quota: before its model is asked.
    async fn open(&self) -> Result<(), RunError> {
        let limit = self.limit();
        match self.store(0, limit).await? {
            (_, total) if total < limit => Ok(()),
            _ => Err(self.spent()),
        }
    }

    fn limit(&self) -> i64 {
        (self.quota.dollars().get() * NANOS) as i64
    }

    /// Books `amount` billionths under `limit` in the store: whether it did, and the total.
    async fn store(&self, amount: i64, limit: i64) -> Result<(bool, i64), RunError> {
        let ttl = self
            .ends
            .duration_since(SystemTime::now())
            .unwrap_or_default()
            + SLACK;
        self.runs
            .store()
            .book(&self.key, amount, limit, ttl)
            .await
            .map_err(|error| {
                tracing::warn!(target: "ladoga", parent: None, %error, "the run store did not book the quota");
                RunError::Store("the quota could not be checked: the run store did not answer".into())
            })
    }
}

impl QuotaBook {
    /// Reserves `dollars` for the run, at most the whole quota (a run worth more than it runs
    /// alone): `false`, nothing reserved, when the quota does not have them left.
    async fn reserve(&self, dollars: f64) -> Result<bool, RunError> {
        let limit = self.limit();
        let amount = ((dollars * NANOS).ceil() as i64).clamp(0, limit);
        let (booked, _) = self.store(amount, limit).await?;
        if booked {
            *self.held() += amount;
            self.reserved.store(true, Ordering::Relaxed);
        }
        Ok(booked)
    }

    /// Gives back what is left of the run's reservation.
    async fn release(&self) {
        let held = std::mem::take(&mut *self.held());
        self.reserved.store(false, Ordering::Relaxed);
        if held > 0 {
            let _ = self.store(-held, i64::MAX).await;
        }
    }

    /// What is left of the run's reservation, locked.
    fn held(&self) -> std::sync::MutexGuard<'_, i64> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Draws up to `amount` billionths from the reservation: what it drew.
    fn draw(&self, amount: i64) -> i64 {
        let mut held = self.held();
        let drawn = amount.clamp(0, *held);
        *held -= drawn;
        drawn
    }

    /// Books `dollars`, from the run's reservation first; when the quota would pass, books
    /// nothing and answers what is left (the reservation's rest included).
    async fn book(&self, dollars: f64) -> Result<Result<(), f64>, RunError> {
        let amount = ((dollars * NANOS).ceil() as i64).max(0);
        let drawn = self.draw(amount);
        if drawn == amount {
            return Ok(Ok(()));
        }
        let limit = self.limit();
        match self.store(amount - drawn, limit).await? {
            (true, _) => Ok(Ok(())),
            (false, total) => {
                let held = {
                    let mut held = self.held();
                    *held += drawn;
                    *held
                };
                Ok(Err(((limit - total).max(0) + held) as f64 / NANOS))
            }
        }
    }

    /// Books `dollars` whatever the quota: a cost past the worst case counts too, drawn from
    /// the reservation first; a negative amount is never refused, and goes back to the
    /// reservation while the run holds one.
    async fn correct(&self, dollars: f64) {
        let amount = (dollars * NANOS).round() as i64;
        let rest = match amount {
            ..0 if self.reserved.load(Ordering::Relaxed) => {
                *self.held() -= amount;
                0
            }
            ..0 => amount,
            _ => amount - self.draw(amount),
        };
        if rest != 0 {
            let _ = self.store(rest, i64::MAX).await;
        }
    }

    /// The error of a call whose caller spent this quota.
    fn spent(&self) -> RunError {
        let left = self
            .ends
            .duration_since(SystemTime::now())
            .unwrap_or_default();
        let frees_at = chrono::DateTime::<chrono::Utc>::from(self.ends);
        RunError::OverQuota {
            quota: self.quota.to_string(),
            on: self.on.to_owned(),
            frees_at: frees_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            frees_in: span(left),
        }
    }
}

impl Drop for QuotaBook {
    /// A run dropped before it ended (its call cancelled, its server stopping) gives back its
    /// reservation all the same.
    fn drop(&mut self) {
        let held = std::mem::take(self.held.get_mut().unwrap_or_else(PoisonError::into_inner));
        if held <= 0 {
            return;
        }
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (runs, key, ttl) = (self.runs.clone(), self.key.clone(), SLACK);
        handle.spawn(async move {
            let _ = runs.store().book(&key, -held, i64::MAX, ttl).await;
        });
    }
}

/// `left` as a person reads it: `3h 12m`, `4m 5s`, `12s`.
fn span(left: Duration) -> String {
    let secs = left.as_secs();
    match (secs / 3600, secs % 3600 / 60, secs % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m {s}s"),
        (h, m, _) => format!("{h}h {m}m"),
    }
}

#[cfg(test)]
mod tests {
    use super::span;
    use std::time::Duration;

    #[test]
    fn the_time_left_reads_in_its_largest_units() {
        assert_eq!(span(Duration::from_secs(12)), "12s");
        assert_eq!(span(Duration::from_secs(245)), "4m 5s");
        assert_eq!(span(Duration::from_secs(3 * 3600 + 12 * 60 + 9)), "3h 12m");
    }
}

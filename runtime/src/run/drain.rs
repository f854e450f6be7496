//! A server that stops on purpose: it stops taking calls, lets the ones in flight finish within
//! a grace period, and then stops the runs still going, each with a clear error for its caller.
//!
//! The server's front (the `board` example's, or one of a user's own) decides what "stops
//! taking calls" means on its transport (HTTP answers `503` with `Retry-After`); the runs learn
//! of the end of the grace period here. Register one [`Drain`] in neva's DI
//! (`App::add_singleton(drain.clone())`) and keep a clone to drive it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::watch;

/// The shutdown of one server process, as its runs see it. Clones share one state.
///
/// # Examples
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let drain = ladoga::Drain::new();
/// assert!(!drain.is_draining());
/// drain.begin();
/// assert!(drain.is_draining());
/// drain.stop_runs();
/// drain.stopping().await; // resolves at once: the grace period is over
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Drain {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    draining: AtomicBool,
    stop: watch::Sender<bool>,
}

impl Default for Drain {
    fn default() -> Self {
        Self::new()
    }
}

impl Drain {
    /// A server that serves.
    pub fn new() -> Self {
        Self {
            inner: Arc::new(Inner {
                draining: AtomicBool::new(false),
                stop: watch::Sender::new(false),
            }),
        }
    }

    /// The server stops taking new calls; those in flight go on.
    pub fn begin(&self) {
        self.inner.draining.store(true, Ordering::SeqCst);
    }

    /// Whether [`Self::begin`] was called.
    pub fn is_draining(&self) -> bool {
        self.inner.draining.load(Ordering::SeqCst)
    }

    /// The grace period is over: every run still going stops, its model request and calls
    /// dropped, and answers its caller with [`RunError::Stopped`](crate::RunError::Stopped).
    /// Implies [`Self::begin`].
    pub fn stop_runs(&self) {
        self.begin();
        self.inner.stop.send_replace(true);
    }

    /// Whether [`Self::stop_runs`] was called.
    pub fn is_stopping(&self) -> bool {
        *self.inner.stop.borrow()
    }

    /// Resolves once [`Self::stop_runs`] is called (at once if it was).
    pub async fn stopping(&self) {
        let mut stop = self.inner.stop.subscribe();
        // The sender lives as long as `self`: this cannot fail while it is awaited.
        let _ = stop.wait_for(|stop| *stop).await;
    }
}

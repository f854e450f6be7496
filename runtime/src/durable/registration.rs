//! Whether restate-server knows a server's Restate deployment yet: until it does, a durable
//! run started at its ingress would be refused (`404`), so the run waits, and a readiness probe
//! says the server is not ready.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

/// Whether restate-server knows this server's Restate deployment, so that its durable runs can
/// start. A [`Restate`](crate::durable::Restate) told its admin API
/// ([`Restate::admin`](crate::durable::Restate::admin)) registers the deployment as it serves:
/// until that is done, a durable call waits for it (at most the minute registering takes), and a
/// readiness probe should say the server is not ready. Without an admin API the deployment is
/// registered by hand, and taken to be.
///
/// # Examples
/// ```
/// use ladoga::durable::Restate;
///
/// let restate = Restate::new("http://127.0.0.1:8080", "127.0.0.1:9080".parse().unwrap());
/// // Registered by hand: ready from the start.
/// assert!(restate.registration().is_done());
/// let restate = restate.admin("http://127.0.0.1:9070");
/// // Registered once `serve` has told restate-server.
/// assert!(!restate.registration().is_done());
/// ```
#[derive(Debug, Clone)]
pub struct Registration(Arc<watch::Sender<bool>>);

impl Registration {
    /// A registration done (`true`), or still to do.
    pub(super) fn new(done: bool) -> Self {
        Self(Arc::new(watch::Sender::new(done)))
    }

    /// Whether restate-server knows the deployment.
    pub fn is_done(&self) -> bool {
        *self.0.borrow()
    }

    /// Notes that restate-server knows the deployment.
    pub(super) fn done(&self) {
        self.0.send_replace(true);
    }

    /// Waits until restate-server knows the deployment, at most `within`: whether it does.
    pub(super) async fn wait(&self, within: Duration) -> bool {
        let mut seen = self.0.subscribe();
        let known = tokio::time::timeout(within, seen.wait_for(|done| *done)).await;
        matches!(known, Ok(Ok(_)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_wait_ends_when_the_registration_is_done_or_at_its_bound() {
        let registration = Registration::new(false);
        assert!(!registration.wait(Duration::from_millis(20)).await);
        let done = registration.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            done.done();
        });
        assert!(registration.wait(Duration::from_secs(5)).await);
        assert!(registration.is_done());
    }
}

//! SIGTERM and SIGINT, kept from neva so that the board drains before it stops.
//!
//! neva's `App::run` listens for both itself and, on the first, stops its HTTP transport within
//! two seconds, cutting the calls in flight. Blocked in every thread (each thread inherits the
//! mask of the one that starts it, so they are blocked in `main` before the tokio runtime
//! starts), the signals are never delivered to a handler: a thread of their own takes them with
//! `sigwait`. The first starts the drain; a second ends the process at once.

use nix::sys::signal::{SigSet, Signal};
use tokio::sync::oneshot;

/// The exit code of a process ended by a second signal while it drained.
const EXIT_ON_SECOND_SIGNAL: i32 = 1;

/// The first SIGTERM or SIGINT, once it comes.
pub struct Signals {
    first: oneshot::Receiver<Signal>,
}

impl Signals {
    /// Blocks SIGTERM and SIGINT in this thread, and so in every thread started from it, and
    /// starts the thread that waits for them. Call it before any other thread starts.
    pub fn take() -> std::io::Result<Self> {
        let mut set = SigSet::empty();
        set.add(Signal::SIGTERM);
        set.add(Signal::SIGINT);
        set.thread_block().map_err(std::io::Error::from)?;
        let (tell, first) = oneshot::channel();
        std::thread::Builder::new()
            .name("signals".to_owned())
            .spawn(move || wait(set, tell))?;
        Ok(Self { first })
    }

    /// Resolves with the first signal.
    pub async fn first(self) -> Option<Signal> {
        self.first.await.ok()
    }
}

/// Waits for the signals in `set`: tells the first, and ends the process on the second.
fn wait(set: SigSet, tell: oneshot::Sender<Signal>) {
    let mut tell = Some(tell);
    loop {
        let Ok(signal) = set.wait() else { continue };
        match tell.take() {
            Some(tell) => {
                let _ = tell.send(signal);
            }
            None => {
                eprintln!("board: {signal} again while draining: stopping now");
                std::process::exit(EXIT_ON_SECOND_SIGNAL);
            }
        }
    }
}

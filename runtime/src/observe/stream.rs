//! One model request heard as it streams: the time its first piece took, and its text passed
//! on to the caller a few times a second as log lines.
//!
//! neva turns every `tracing` event but those of target `progress` into a
//! `notifications/message` for a caller that asked for log messages. neva 0.9's progress
//! notification has no `message` field, so the text goes out as log lines, under the logger
//! [`STREAM_LOGGER`], apart from the run's step lines.

use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use svir::Event;

/// How often an orchestration that streams passes the model's text on unless told otherwise:
/// at most one log line every 250 ms, never one per token.
pub const DEFAULT_STREAM_INTERVAL: Duration = Duration::from_millis(250);

/// The logger name of the log lines that carry the model's text as it streams
/// (`notifications/message` `logger`), apart from the run's steps.
pub const STREAM_LOGGER: &str = "ladoga.answer";

/// Listens to one model request as it streams.
pub(crate) struct Listener {
    sent: Instant,
    first_piece: OnceLock<Duration>,
    /// Passes text on at most this often; `None`: it keeps no text.
    interval: Option<Duration>,
    text: Mutex<Pending>,
}

/// Text heard and not passed on yet, and when text was last passed on.
struct Pending {
    text: String,
    passed_on: Instant,
}

impl Listener {
    /// Listens from now, the request being sent; passes text on at most every `interval`, or
    /// not at all.
    pub(crate) fn new(interval: Option<Duration>) -> Self {
        let sent = Instant::now();
        Self {
            sent,
            first_piece: OnceLock::new(),
            interval,
            text: Mutex::new(Pending {
                text: String::new(),
                passed_on: sent,
            }),
        }
    }

    /// One piece of the answer: the first of any kind stops the first-token clock; text is
    /// passed on once `interval` has gone by since text was last passed on.
    pub(crate) fn hear(&self, event: &Event) {
        if self.first_piece.get().is_none() {
            let _ = self.first_piece.set(self.sent.elapsed());
        }
        let (Some(interval), Event::Text(piece)) = (self.interval, event) else {
            return;
        };
        let mut pending = lock(&self.text);
        pending.text.push_str(piece);
        let now = Instant::now();
        if now.duration_since(pending.passed_on) >= interval {
            pending.passed_on = now;
            pass_on(&mut pending.text);
        }
    }

    /// The answer is whole: passes on the text not passed on yet.
    pub(crate) fn finish(&self) {
        pass_on(&mut lock(&self.text).text);
    }

    /// How long after the request was sent its first piece came, if one did.
    pub(crate) fn first_piece(&self) -> Option<Duration> {
        self.first_piece.get().copied()
    }
}

/// `text` as a log line to the caller, then empty.
fn pass_on(text: &mut String) {
    if text.is_empty() {
        return;
    }
    tracing::info!(target: "ladoga", logger = STREAM_LOGGER, "{text}");
    text.clear();
}

fn lock(pending: &Mutex<Pending>) -> std::sync::MutexGuard<'_, Pending> {
    pending
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_piece_of_any_kind_stops_the_clock_once() {
        let listener = Listener::new(None);
        assert_eq!(listener.first_piece(), None);
        std::thread::sleep(Duration::from_millis(5));
        let thought = svir::Reasoning::new(svir::ReasoningSource::Think, "hmm");
        listener.hear(&Event::Reasoning(thought));
        let first = listener.first_piece().unwrap();
        assert!(first >= Duration::from_millis(5), "{first:?}");
        std::thread::sleep(Duration::from_millis(5));
        listener.hear(&Event::Text("late".into()));
        assert_eq!(listener.first_piece(), Some(first));
    }

    #[test]
    fn text_waits_for_the_interval_and_is_kept_whole() {
        let listener = Listener::new(Some(Duration::from_secs(60)));
        listener.hear(&Event::Text("Mon".into()));
        listener.hear(&Event::Text("day".into()));
        assert_eq!(lock(&listener.text).text, "Monday");
        listener.finish();
        assert_eq!(lock(&listener.text).text, "");
    }

    #[test]
    fn without_an_interval_no_text_is_kept() {
        let listener = Listener::new(None);
        listener.hear(&Event::Text("Monday".into()));
        assert_eq!(lock(&listener.text).text, "");
    }
}

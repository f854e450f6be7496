//! A durable run's lines: told, in order, to its `LadogaTask` object, where a task's `tasks/get`
//! reads its status message, and where the replica a caller without a task waits on reads them
//! to notify that caller's progress token, as a plain run does.

use std::sync::Arc;
use std::time::Duration;

use neva::types::ProgressToken;

use super::Restate;
use super::restate::Ingress;
use super::task_state::{OBJECT, Said};

/// How often the replica a caller without a task waits on reads the run's lines, when the
/// caller asked for progress.
const LINES_POLLED: Duration = Duration::from_millis(250);

impl Restate {
    /// `answer`, the durable run `key`'s, awaited while each line the run tells is notified to
    /// `token`, as a plain run notifies its progress, and logged (the caller's log messages).
    pub(super) async fn notifying<T>(
        &self,
        key: &str,
        token: &ProgressToken,
        answer: impl Future<Output = T>,
    ) -> T {
        let mut answer = std::pin::pin!(answer);
        let mut every = tokio::time::interval(LINES_POLLED);
        // How many lines were read, and the progress last notified: a run replayed after a
        // crash tells its lines again, and progress must only grow.
        let mut told = (0, f64::NEG_INFINITY);
        let tell = async |(read, last): &mut (usize, f64)| {
            let Ok(followed) = self.followed(key).await else {
                return;
            };
            for said in followed.said.iter().skip(*read) {
                if said.progress > *last {
                    tracing::info!(target: "ladoga", "{}", said.line);
                    crate::observe::notify(token, said.progress, said.total);
                    *last = said.progress;
                }
            }
            *read = (*read).max(followed.said.len());
        };
        loop {
            tokio::select! {
                answer = &mut answer => {
                    // The run's last lines were kept before it answered.
                    tell(&mut told).await;
                    return answer;
                }
                _ = every.tick() => tell(&mut told).await,
            }
        }
    }
}

impl Ingress {
    /// Where the lines of the durable run `key` go: to its `LadogaTask` object, in order.
    /// Each is told once the one before it is kept.
    pub(super) fn lines(self: &Arc<Self>, key: &str) -> Lines {
        let (say, mut lines) = tokio::sync::mpsc::unbounded_channel::<Told>();
        let (ingress, path) = (self.clone(), format!("{OBJECT}/{key}/say"));
        tokio::spawn(async move {
            while let Some(told) = lines.recv().await {
                match told {
                    Told::Line(said) => {
                        if let Err(error) = ingress.post(&path, &said).await {
                            tracing::debug!(target: "ladoga::durable", %error, "a durable run's line was not told");
                        }
                    }
                    Told::Flush(flushed) => {
                        let _ = flushed.send(());
                    }
                }
            }
        });
        Lines(say)
    }
}

/// What a durable run tells its `LadogaTask` object.
#[derive(Debug)]
enum Told {
    /// A line.
    Line(Said),
    /// A question: are the lines before it kept?
    Flush(tokio::sync::oneshot::Sender<()>),
}

/// Where a durable run tells its lines: its task's `tasks/get` says them, or the replica its
/// caller waits on notifies them.
#[derive(Debug, Clone)]
pub(crate) struct Lines(tokio::sync::mpsc::UnboundedSender<Told>);

impl crate::observe::TaskSink for Lines {
    fn say(&self, line: String, progress: f64, total: f64) {
        Lines::say(self, line, progress, total);
    }
}

impl Lines {
    /// The run's line now, which says `progress` of `total`.
    pub(crate) fn say(&self, line: String, progress: f64, total: f64) {
        let _ = self.0.send(Told::Line(Said {
            line,
            progress,
            total,
        }));
    }

    /// Once the lines told so far are kept, or after `within`: the run's answer comes after
    /// its last line.
    pub(super) async fn flushed(&self, within: Duration) {
        let (flushed, kept) = tokio::sync::oneshot::channel();
        if self.0.send(Told::Flush(flushed)).is_ok() {
            let _ = tokio::time::timeout(within, kept).await;
        }
    }
}

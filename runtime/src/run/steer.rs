//! Steering: the messages a caller sends a run in flight, read at each turn boundary and added
//! to the conversation as the person's words (see [`Orchestrator::steer`](crate::Orchestrator::steer)).
//!
//! A durable run reads its inbox inside each turn's calls step, so that its journal records what
//! it read: the messages ride with the step's results under reserved call ids, and a run replayed
//! after a crash reads them back from the journal, not from the inbox that gave them.

use svir::{ToolResult, Toolbox};

use crate::model::CompletionModel;
use crate::outcome::Steering;
use crate::run::{Orchestration, Run};

/// The reserved call id of a durable turn's result that notes the inbox's count as the run began.
const COUNTED: &str = "ladoga/inbox-counted/";

/// The reserved call id of a durable turn's result that holds a message of the inbox.
const MESSAGE: &str = "ladoga/inbox-message/";

impl<M, T> Orchestration<'_, M, T>
where
    M: CompletionModel + ?Sized,
    T: Toolbox + Sync + ?Sized,
{
    /// Adds the messages its caller sent `run` since it last looked, before its next request.
    /// The first look only notes where the inbox is: what was there was sent to a run before.
    pub(super) async fn read_inbox(&self, run: &mut Run) {
        let Some(inbox) = &self.seams.inbox else {
            return;
        };
        // A durable run's messages come with its turns' recorded calls.
        if self.journals_inbox() {
            for text in std::mem::take(&mut run.inbox_held) {
                heard(run, text);
            }
            return;
        }
        let read = match run.inbox_read {
            Some(read) => inbox.read_after(read).await,
            None => inbox.count().await.map(|count| {
                run.inbox_read = Some(count);
                Vec::new()
            }),
        };
        let messages = match read {
            Ok(messages) => messages,
            Err(error) => {
                tracing::warn!(target: "ladoga", %error, "the run's inbox could not be read: it is read again at the next turn");
                return;
            }
        };
        for (number, text) in messages {
            run.inbox_read = Some(number);
            heard(run, text);
        }
    }

    /// Whether the run reads its inbox inside its turns' recorded calls: a durable run's.
    pub(super) fn journals_inbox(&self) -> bool {
        self.seams.recorder.is_some() && self.seams.inbox.is_some()
    }

    /// A durable turn's `results`, then what its inbox holds past `read` as results under
    /// reserved ids: the count it began with, on its first look, else each message.
    pub(super) async fn with_inbox(
        &self,
        results: impl Future<Output = Vec<ToolResult>>,
        read: Option<u64>,
    ) -> Vec<ToolResult> {
        let mut results = results.await;
        let Some(inbox) = &self.seams.inbox else {
            return results;
        };
        let held = match read {
            None => (inbox.count().await)
                .map(|count| vec![ToolResult::new(format!("{COUNTED}{count}"), "")]),
            Some(read) => inbox.read_after(read).await.map(|messages| {
                let held = messages.into_iter();
                held.map(|(number, text)| ToolResult::new(format!("{MESSAGE}{number}"), text))
                    .collect()
            }),
        };
        match held {
            Ok(held) => results.extend(held),
            Err(error) => {
                tracing::warn!(target: "ladoga", %error, "the run's inbox could not be read: it is read again at the next turn");
            }
        }
        results
    }
}

/// Takes the inbox's results out of a durable turn's `results`, recorded or read back, into
/// `run`: its messages are heard before its next turn.
pub(super) fn held_from(results: &mut Vec<ToolResult>, run: &mut Run) {
    results.retain(|result| {
        if let Some(count) = result.call_id.strip_prefix(COUNTED) {
            run.inbox_read = count.parse().ok().or(run.inbox_read);
            return false;
        }
        if let Some(number) = result.call_id.strip_prefix(MESSAGE) {
            run.inbox_read = number.parse().ok().or(run.inbox_read);
            run.inbox_held.push(result.content.clone());
            return false;
        }
        true
    });
}

/// `text`, a message its caller sent `run`, added as the person's words and noted.
fn heard(run: &mut Run, text: String) {
    tracing::info!(target: "ladoga", turn = run.turns, "the run reads a message its caller sent it");
    let request = std::mem::replace(&mut run.request, svir::Request::new(""));
    run.request = request.user(text.clone());
    run.steered.push(Steering {
        turn: run.turns,
        text,
    });
}

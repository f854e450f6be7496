//! Steering: the messages a caller sends a run in flight, read at each turn boundary and added
//! to the conversation as the person's words (see [`Orchestrator::steer`](crate::Orchestrator::steer)).

use svir::Toolbox;

use crate::model::CompletionModel;
use crate::outcome::Steering;
use crate::run::{Orchestration, Run};

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
            tracing::info!(target: "ladoga", turn = run.turns, "the run reads a message its caller sent it");
            let request = std::mem::replace(&mut run.request, svir::Request::new(""));
            run.request = request.user(text.clone());
            run.inbox_read = Some(number);
            run.steered.push(Steering {
                turn: run.turns,
                text,
            });
        }
    }
}

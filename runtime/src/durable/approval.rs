//! Approvals in a durable run that is an MCP task: each question is a durable promise of the
//! run's workflow, which the caller's answer resolves through whichever replica `tasks/update`
//! reaches; the question waits as long as the run does.

use std::sync::Arc;

use tokio::sync::Mutex;

use super::relay::Relay;
use super::restate::Ingress;
use super::task_state::{Asking, OBJECT};
use crate::approval::{AskFuture, Asked, Decision, Question};

/// Who answers the questions of a durable task's run: its caller, through the task.
pub(crate) struct Approver {
    relay: Relay,
    ingress: Arc<Ingress>,
    /// The run's key, which names its task.
    key: String,
    /// How many questions the run asked, which names the next one's promise. Held while one is
    /// asked: the questions of a turn are asked one after the other, in the order put, so that
    /// a replay waits on the same promises in the same order.
    asked: Mutex<usize>,
}

impl Approver {
    /// The approver of the run `key`, waiting on promises through `relay`.
    pub(super) fn new(relay: Relay, ingress: Arc<Ingress>, key: &str) -> Self {
        Self {
            relay,
            ingress,
            key: key.to_owned(),
            asked: Mutex::new(0),
        }
    }
}

impl crate::approval::Approver for Approver {
    fn ask<'a>(&'a self, question: &'a Question) -> AskFuture<'a> {
        Box::pin(async move {
            let mut asked = self.asked.lock().await;
            *asked += 1;
            let asking = Asking {
                key: question.key.clone(),
                promise: format!("approval {asked}"),
                message: question.message(),
            };
            let task = |what: &str| format!("{OBJECT}/{}/{what}", self.key);
            // Told before the wait, and again on a replay: the question is the same.
            if let Err(error) = self.ingress.post(&task("ask"), &asking).await {
                tracing::warn!(target: "ladoga::durable", %error, "a durable run's question was not told");
                return Asked::Answered(Decision::Unavailable);
            }
            let answer = self.relay.promise(asking.promise).await;
            if let Err(error) = self.ingress.post(&task("answered"), &()).await {
                tracing::debug!(target: "ladoga::durable", %error, "a durable run's answer was not told");
            }
            match answer {
                Ok(answer) => Asked::Answered(decision(&answer)),
                Err(error) => {
                    tracing::warn!(target: "ladoga::durable", %error, tool = %question.tool, "a durable run's question got no answer");
                    Asked::Answered(Decision::Unavailable)
                }
            }
        })
    }
}

/// What an elicitation's answer (`ElicitResult`'s JSON) decides.
fn decision(answer: &serde_json::Value) -> Decision {
    match answer["action"].as_str() {
        Some("accept") => Decision::Approved,
        Some("decline") => Decision::Declined,
        _ => Decision::Cancelled,
    }
}

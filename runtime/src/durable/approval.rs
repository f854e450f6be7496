//! Approvals in a durable run that is an MCP task: each question is a durable promise of the
//! run's workflow, which the caller's answer resolves through whichever replica `tasks/update`
//! reaches; the question waits as long as the run does.

use std::sync::Arc;

use tokio::sync::Mutex;

use super::relay::Relay;
use super::restate::Ingress;
use super::task_state::{Asking, OBJECT};
use crate::approval::{AskFuture, Asked, Decision, Question};
use crate::store::Seal;

/// Who answers the questions of a durable task's run: its caller, through the task. Its clones
/// count the run's questions together, the runs' below included.
#[derive(Clone)]
pub(crate) struct Approver {
    relay: Relay,
    ingress: Arc<Ingress>,
    /// The run's key, which names its task.
    key: String,
    /// How many questions the run asked, which names the next one's promise. Held while one is
    /// asked: the questions of a turn are asked one after the other, in the order put, so that
    /// a replay waits on the same promises in the same order.
    asked: Arc<Mutex<usize>>,
    /// The replicas' seal: what the runs below a durable run are kept in its journal with.
    #[cfg_attr(
        feature = "legacy-spec",
        expect(
            dead_code,
            reason = "a durable run asks nothing below it under legacy-spec"
        )
    )]
    pub(super) seal: Arc<Seal>,
}

impl Approver {
    /// The approver of the run `key`, waiting on promises through `relay`, keeping with `seal`.
    pub(super) fn new(relay: Relay, ingress: Arc<Ingress>, key: &str, seal: Arc<Seal>) -> Self {
        Self {
            relay,
            ingress,
            key: key.to_owned(),
            asked: Arc::default(),
            seal,
        }
    }
}

impl Approver {
    /// The caller's answer to the form `params` (its JSON), filed under `key`, which reads
    /// `message`: the JSON of an `ElicitResult`, or none when no answer came.
    pub(super) async fn ask_form(
        &self,
        key: &str,
        message: String,
        params: Option<serde_json::Value>,
    ) -> Option<serde_json::Value> {
        let mut asked = self.asked.lock().await;
        *asked += 1;
        let asking = Asking {
            key: key.to_owned(),
            promise: format!("approval {asked}"),
            message,
            params,
        };
        let task = |what: &str| format!("{OBJECT}/{}/{what}", self.key);
        // Told before the wait, and again on a replay: the question is the same.
        if let Err(error) = self.ingress.post(&task("ask"), &asking).await {
            tracing::warn!(target: "ladoga::durable", %error, "a durable run's question was not told");
            return None;
        }
        let answer = self.relay.promise(asking.promise).await;
        if let Err(error) = self.ingress.post(&task("answered"), &()).await {
            tracing::debug!(target: "ladoga::durable", %error, "a durable run's answer was not told");
        }
        answer
            .inspect_err(|error| {
                tracing::warn!(target: "ladoga::durable", %error, "a durable run's question got no answer");
            })
            .ok()
    }
}

impl crate::approval::Approver for Approver {
    fn ask<'a>(&'a self, question: &'a Question) -> AskFuture<'a> {
        Box::pin(async move {
            let answer = self.ask_form(&question.key, question.message(), None).await;
            Asked::Answered(answer.as_ref().map_or(Decision::Unavailable, decision))
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

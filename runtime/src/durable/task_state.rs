//! What Restate keeps of a durable run's MCP task, beside the run: the object `LadogaTask`,
//! keyed by the run's key, with when the task was made, the invocation it is, the run's lines
//! and the question it waits on. A run that is no task but whose caller asked for progress tells
//! its lines there too, for the replica its caller waits on.

use chrono::{DateTime, Utc};
use restate_sdk::prelude::*;
use serde::{Deserialize, Serialize};

/// The name the tasks' object is registered under.
pub(super) const OBJECT: &str = "LadogaTask";

/// What is kept of a durable task beside its run: when it was made, how long its caller asked
/// it kept, the invocation it is, and who made it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Begun {
    pub(super) created_at: DateTime<Utc>,
    pub(super) ttl: usize,
    pub(super) invocation: String,
    /// The principal that created the task, digested
    /// ([`Caller::key`](crate::access::task_owners::Caller::key)); none for a caller without a
    /// token. Only its owner reaches the task.
    #[serde(default)]
    pub(super) owner: Option<String>,
}

/// The question a durable run waits on: the key its caller answers it under, the durable
/// promise the answer resolves, and what it asks.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Asking {
    pub(super) key: String,
    pub(super) promise: String,
    pub(super) message: String,
    /// The form asked, when it is not the approval `message` alone: a question asked below the
    /// run, of an orchestrator its model called (`ElicitRequestParams`' JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) params: Option<serde_json::Value>,
}

/// One of a run's lines, and the progress it says, of the total.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Said {
    pub(crate) line: String,
    pub(crate) progress: f64,
    pub(crate) total: f64,
}

/// What `tasks/get` is told of a durable task, besides its run's state.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct Followed {
    pub(super) begun: Option<Begun>,
    pub(super) line: Option<String>,
    #[serde(default)]
    pub(super) asking: Option<Asking>,
    /// Every line the run told, in order.
    #[serde(default)]
    pub(super) said: Vec<Said>,
}

/// The object `LadogaTask`, keyed by a durable run's key: what its task's `tasks/get` says.
pub(super) struct Tasks;

#[restate_sdk::object(name = "LadogaTask")]
impl Tasks {
    /// The task is made.
    #[handler]
    async fn begin(&self, ctx: ObjectContext<'_>, begun: Json<Begun>) -> Result<(), HandlerError> {
        ctx.set("begun", begun);
        Ok(())
    }

    /// The run's line now.
    #[handler]
    async fn say(&self, ctx: ObjectContext<'_>, said: Json<Said>) -> Result<(), HandlerError> {
        let Json(said) = said;
        let mut all = ctx
            .get::<Json<Vec<Said>>>("said")
            .await?
            .map(|Json(all)| all)
            .unwrap_or_default();
        ctx.set("line", Json(said.line.clone()));
        all.push(said);
        ctx.set("said", Json(all));
        Ok(())
    }

    /// Nothing is kept any more: the run was no task, and its caller has its answer.
    #[handler]
    async fn forget(&self, ctx: ObjectContext<'_>) -> Result<(), HandlerError> {
        ctx.clear_all();
        Ok(())
    }

    /// The run waits on `asking`.
    #[handler]
    async fn ask(&self, ctx: ObjectContext<'_>, asking: Json<Asking>) -> Result<(), HandlerError> {
        ctx.set("asking", asking);
        Ok(())
    }

    /// The run has its answer.
    #[handler]
    async fn answered(&self, ctx: ObjectContext<'_>) -> Result<(), HandlerError> {
        ctx.clear("asking");
        Ok(())
    }

    /// What is kept.
    #[handler]
    async fn get(&self, ctx: SharedObjectContext<'_>) -> Result<Json<Followed>, HandlerError> {
        Ok(Json(Followed {
            begun: ctx
                .get::<Json<Begun>>("begun")
                .await?
                .map(|Json(begun)| begun),
            line: ctx
                .get::<Json<String>>("line")
                .await?
                .map(|Json(line)| line),
            asking: ctx
                .get::<Json<Asking>>("asking")
                .await?
                .map(|Json(asking)| asking),
            said: ctx
                .get::<Json<Vec<Said>>>("said")
                .await?
                .map(|Json(said)| said)
                .unwrap_or_default(),
        }))
    }
}

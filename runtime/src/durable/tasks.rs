//! The MCP tasks of durable runs, answered from Restate by any replica: a task-augmented call of
//! a durable orchestrator starts its run on Restate and answers with a task named by the run's
//! key; `tasks/get` and `tasks/cancel` of such a task are answered from restate-server,
//! whichever replica they reach, and so are `tasks/update` (MCP 2026-07-28) and `tasks/result`
//! (MCP 2025-11-25, `legacy-spec`). Every other task is neva's.

use std::sync::Arc;

use neva::error::Error;
use neva::error::ErrorCode;
use neva::middleware::{MwContext, Next};
#[cfg(not(feature = "legacy-spec"))]
use neva::types::DetailedTask;
#[cfg(not(feature = "legacy-spec"))]
use neva::types::elicitation::ElicitRequestParams;
#[cfg(not(feature = "legacy-spec"))]
use neva::types::mrtr::InputRequest;
use neva::types::{CreateTaskResult, IntoResponse, Response, Task, TaskStatus};

use super::Restate;
use super::restate::{failure, unreachable};
use super::sealed::Sealed;
use super::task_state::{Begun, Followed, OBJECT};
#[cfg(not(feature = "legacy-spec"))]
use super::workflow::Answer;
use super::workflow::{Call, SERVICE};
use crate::access::NAMELESS;
use crate::access::task_owners::Caller;

/// How long neva keeps a task whose call asked for no `ttl`, in milliseconds; durable tasks
/// say the same.
const DEFAULT_TTL_MS: usize = 30_000;

/// How often a caller is told to poll a durable task, in milliseconds.
const POLL_INTERVAL_MS: usize = 1_000;

impl Restate {
    /// Posts `body` to restate-server's ingress at `path`: `run`'s JSON answer.
    async fn ingress_post(
        &self,
        path: &str,
        body: &impl serde::Serialize,
    ) -> Result<serde_json::Value, Error> {
        self.ingress.post(path, body).await
    }

    /// What restate-server's ingress says of the durable run `key` at `what` (`output`, now,
    /// or `attach`, once it has ended): the status, and the body.
    async fn workflow(&self, key: &str, what: &str) -> Result<(u16, serde_json::Value), Error> {
        let url = format!(
            "{}/restate/workflow/{SERVICE}/{key}/{what}",
            self.ingress.url
        );
        let answer = self
            .ingress
            .client
            .get(url)
            .send()
            .await
            .map_err(unreachable)?;
        let status = answer.status().as_u16();
        Ok((status, answer.json().await.unwrap_or_default()))
    }

    /// Where the durable run `key` is; none when restate-server knows no such run.
    async fn output(&self, key: &str) -> Result<Option<Output>, Error> {
        let (status, body) = self.workflow(key, "output").await?;
        Ok(match status {
            404 => None,
            470 => Some(Output::Working),
            200..=299 => Some(Output::Answered(body)),
            409 => Some(Output::Cancelled),
            _ => Some(Output::Failed(
                body["message"]
                    .as_str()
                    .unwrap_or("the run failed")
                    .to_owned(),
            )),
        })
    }

    /// Cancels the invocation `id`, through the admin API.
    async fn cancel_invocation(&self, id: &str) -> Result<(), Error> {
        let Some(admin) = &self.admin else {
            return Err(failure(
                "this server cannot cancel a durable run: it knows no restate-server admin API",
            ));
        };
        let url = format!("{admin}/invocations/{id}/cancel");
        let answer = self
            .ingress
            .client
            .patch(url)
            .send()
            .await
            .map_err(unreachable)?;
        match answer.status().is_success() {
            true => Ok(()),
            false => {
                let status = answer.status();
                tracing::error!(target: "ladoga::durable", %status, invocation = id, "a durable run was not cancelled");
                Err(failure(format!(
                    "the durable run could not be cancelled ({status})"
                )))
            }
        }
    }

    /// Starts the run of `call`, a task-augmented call, as a task: its key the task's id.
    pub(super) async fn start_task(
        &self,
        call: Call,
        ttl: Option<usize>,
        owner: Option<String>,
    ) -> Result<Task, Error> {
        let key = uuid::Uuid::new_v4().to_string();
        let sealed = Sealed::new(self.seal(), &key, &call).map_err(failure)?;
        let path = format!("{SERVICE}/{key}/run/send");
        let started = self.ingress_post(&path, &sealed).await?;
        let invocation = started["invocationId"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let mut task = Task::new();
        task.id = key.clone();
        task.ttl = Some(ttl.unwrap_or(DEFAULT_TTL_MS));
        task.poll_interval = Some(POLL_INTERVAL_MS);
        let begun = Begun {
            created_at: task.created_at,
            ttl: task.ttl.unwrap_or(DEFAULT_TTL_MS),
            invocation,
            owner,
        };
        self.ingress_post(&format!("{OBJECT}/{key}/begin"), &begun)
            .await?;
        Ok(task)
    }

    /// What is kept of the durable task `key` for `caller`: none when there is no such task, or
    /// when it is another caller's (an id that does not exist, as far as `caller` can tell).
    async fn owned(&self, key: &str, caller: &Caller) -> Result<Option<Followed>, Error> {
        let followed = self.followed(key).await?;
        let owns = followed
            .begun
            .as_ref()
            .is_some_and(|begun| caller.owns(begun.owner.as_deref()));
        Ok(owns.then_some(followed))
    }

    /// The durable task `key` as it began, where its run is, and what is kept beside it
    /// (`followed`); none when there is no such run.
    async fn state(
        &self,
        key: &str,
        followed: Followed,
    ) -> Result<Option<(Task, Output, Followed)>, Error> {
        let Some(output) = self.output(key).await? else {
            return Ok(None);
        };
        let mut task = Task::new();
        task.id = key.to_owned();
        task.poll_interval = Some(POLL_INTERVAL_MS);
        if let Some(begun) = &followed.begun {
            task.created_at = begun.created_at;
            task.ttl = Some(begun.ttl);
        }
        Ok(Some((task, output, followed)))
    }

    /// The durable task `key` as MCP 2025-11-25's `tasks/get` tells it: its status, and its
    /// run's last line while it works; none when there is no such run.
    #[cfg(feature = "legacy-spec")]
    async fn task(&self, key: &str, followed: Followed) -> Result<Option<Task>, Error> {
        let Some((mut task, output, followed)) = self.state(key, followed).await? else {
            return Ok(None);
        };
        task.status = match output {
            Output::Working => {
                task.status_msg = followed.line;
                TaskStatus::Working
            }
            Output::Answered(_) => TaskStatus::Completed,
            Output::Cancelled => TaskStatus::Cancelled,
            Output::Failed(message) => {
                task.status_msg = Some(message);
                TaskStatus::Failed
            }
        };
        Ok(Some(task))
    }

    /// The durable task `key`'s result, once its run has ended, as MCP 2025-11-25's
    /// `tasks/result` gives it: the tool's result, related to the task; none when there is no
    /// such run.
    #[cfg(feature = "legacy-spec")]
    async fn result(&self, key: &str) -> Result<Option<serde_json::Value>, Error> {
        let related = |mut result: serde_json::Value| {
            result["_meta"]["io.modelcontextprotocol/related-task"] =
                serde_json::json!({ "taskId": key });
            Some(result)
        };
        match self.output(key).await? {
            None => return Ok(None),
            Some(Output::Answered(result)) => return Ok(related(result)),
            // Still running: its answer is waited for, below.
            Some(_) => {}
        }
        let (status, body) = self.workflow(key, "attach").await?;
        match status {
            200..=299 => Ok(related(body)),
            409 => Err(failure("the task was cancelled")),
            _ => Err(failure(
                body["message"]
                    .as_str()
                    .unwrap_or("the run failed")
                    .to_owned(),
            )),
        }
    }

    /// The durable task `key` as MCP 2026-07-28's `tasks/get` tells it, or none when there is
    /// no such run.
    #[cfg(not(feature = "legacy-spec"))]
    async fn task(&self, key: &str, followed: Followed) -> Result<Option<DetailedTask>, Error> {
        let Some((task, output, followed)) = self.state(key, followed).await? else {
            return Ok(None);
        };
        let mut detailed = DetailedTask::from(task);
        match output {
            Output::Working => match followed.asking {
                // The question the run waits on, which `tasks/update` answers under its key.
                Some(asking) => {
                    detailed.task.status = TaskStatus::InputRequired;
                    let asked = asking
                        .params
                        .and_then(|params| serde_json::from_value(params).ok());
                    let params =
                        asked.unwrap_or_else(|| ElicitRequestParams::form(asking.message).into());
                    let request = InputRequest::Elicitation(params);
                    detailed.input_requests = Some([(asking.key, request)].into());
                }
                None => {
                    detailed.task.status = TaskStatus::Working;
                    detailed.task.status_msg = followed.line;
                }
            },
            Output::Answered(result) => {
                detailed.task.status = TaskStatus::Completed;
                detailed.result = Some(result);
            }
            Output::Cancelled => detailed.task.status = TaskStatus::Cancelled,
            Output::Failed(message) => {
                detailed.task.status = TaskStatus::Failed;
                detailed.error = Some(serde_json::json!({
                    "code": i32::from(ErrorCode::InternalError),
                    "message": message,
                }));
            }
        }
        Ok(Some(detailed))
    }

    /// Resolves the promise the durable task `key`'s run waits on with its answer among
    /// `responses`, if they hold one; none when there is no such task.
    #[cfg(not(feature = "legacy-spec"))]
    async fn answer(
        &self,
        key: &str,
        followed: Followed,
        responses: &serde_json::Value,
    ) -> Result<(), Error> {
        if let Some(asking) = followed.asking
            && let Some(response) = responses.get(&asking.key)
        {
            let answer = Answer {
                promise: asking.promise,
                response: response.clone(),
            };
            self.ingress_post(&format!("{SERVICE}/{key}/answer"), &answer)
                .await?;
        }
        Ok(())
    }

    /// What is kept of the durable task `key` beside its run.
    pub(super) async fn followed(&self, key: &str) -> Result<Followed, Error> {
        let followed = self
            .ingress_post(&format!("{OBJECT}/{key}/get"), &())
            .await?;
        Ok(serde_json::from_value(followed).unwrap_or_default())
    }

    /// Cancels the run of the durable task kept as `followed`.
    async fn cancel(&self, followed: &Followed) -> Result<(), Error> {
        match &followed.begun {
            Some(begun) => self.cancel_invocation(&begun.invocation).await,
            None => Ok(()),
        }
    }
}

/// Where a durable run is, as restate-server tells.
enum Output {
    /// Still running.
    Working,
    /// Answered: the tool's result.
    Answered(serde_json::Value),
    /// Cancelled.
    Cancelled,
    /// Ended without an answer, for this reason.
    Failed(String),
}

/// A `tools/call` that asks for a task, of a durable orchestrator: started on Restate.
pub(super) async fn call(
    restate: Arc<Restate>,
    ctx: MwContext,
    call: Call,
    ttl: Option<usize>,
) -> Response {
    let caller = Caller::of(ctx.claims());
    if caller == Caller::Nameless {
        return Response::error(ctx.id(), Error::new(ErrorCode::InvalidRequest, NAMELESS));
    }
    let owner = caller.key().map(str::to_owned);
    match restate.start_task(call, ttl, owner).await {
        Ok(task) => CreateTaskResult::new(task).into_response(ctx.id()),
        Err(error) => Response::error(ctx.id(), error),
    }
}

/// The durable task a `tasks/*` request names, when the caller owns it: the key, and what is
/// kept beside it. `Ok(None)` hands the request on: to neva, which has no such task either
/// unless it is one of its own.
async fn owned(ctx: &MwContext) -> Result<Option<(Arc<Restate>, String, Followed)>, Error> {
    let (Some(restate), Some(key)) = (ctx.resolve_shared::<Restate>().ok(), asked(ctx)) else {
        return Ok(None);
    };
    let caller = Caller::of(ctx.claims());
    Ok(restate
        .owned(&key, &caller)
        .await
        .map_err(not_now)?
        .map(|followed| (restate, key, followed)))
}

/// What a `tasks/*` request is told while restate-server, which keeps the durable tasks, does
/// not answer: nothing has failed, and the same request later gets its answer. (Whose task it
/// is cannot be told either, so not even a task's status is given.)
fn not_now(_: Error) -> Error {
    Error::new(
        ErrorCode::InternalError,
        "restate-server, which keeps this server's durable tasks, does not answer now; no task \
         has failed for it: ask again in a moment",
    )
}

/// A `tasks/get`: a durable task's from Restate, any other neva's.
pub(super) async fn get(ctx: MwContext, next: Next) -> Response {
    let (restate, key, followed) = match owned(&ctx).await {
        Ok(Some(owned)) => owned,
        Ok(None) => return next(ctx).await,
        Err(error) => return Response::error(ctx.id(), error),
    };
    match restate.task(&key, followed).await {
        Ok(Some(task)) => task.into_response(ctx.id()),
        Ok(None) => next(ctx).await,
        Err(error) => Response::error(ctx.id(), not_now(error)),
    }
}

/// A `tasks/cancel`: a durable task's run cancelled on Restate, any other task neva's. Under
/// MCP 2026-07-28 the answer is empty; under 2025-11-25 it is the task, cancelled.
pub(super) async fn cancel(ctx: MwContext, next: Next) -> Response {
    let (restate, key, followed) = match owned(&ctx).await {
        Ok(Some(owned)) => owned,
        Ok(None) => return next(ctx).await,
        Err(error) => return Response::error(ctx.id(), error),
    };
    match restate.cancel(&followed).await {
        #[cfg(not(feature = "legacy-spec"))]
        Ok(()) => {
            let _ = key; // the task's state is not told back under MCP 2026-07-28
            Response::empty(ctx.id())
        }
        #[cfg(feature = "legacy-spec")]
        Ok(()) => match restate.state(&key, followed).await {
            Ok(Some((mut task, _, _))) => {
                task.status = TaskStatus::Cancelled;
                task.into_response(ctx.id())
            }
            Ok(None) => next(ctx).await,
            Err(error) => Response::error(ctx.id(), error),
        },
        Err(error) => Response::error(ctx.id(), error),
    }
}

/// A `tasks/result` (MCP 2025-11-25): a durable task's result once its run has ended, from
/// Restate; any other task's neva's.
#[cfg(feature = "legacy-spec")]
pub(super) async fn result(ctx: MwContext, next: Next) -> Response {
    let (restate, key, _) = match owned(&ctx).await {
        Ok(Some(owned)) => owned,
        Ok(None) => return next(ctx).await,
        Err(error) => return Response::error(ctx.id(), error),
    };
    match restate.result(&key).await {
        Ok(Some(result)) => Response::success(ctx.id(), result),
        Ok(None) => next(ctx).await,
        Err(error) => Response::error(ctx.id(), error),
    }
}

/// A `tasks/update` (MCP 2026-07-28): a durable task's answer to the question its run waits on,
/// resolving the run's promise; an answer to no such question is ignored, as MCP says. Any
/// other task's is neva's.
#[cfg(not(feature = "legacy-spec"))]
pub(super) async fn update(ctx: MwContext, next: Next) -> Response {
    let (restate, key, followed) = match owned(&ctx).await {
        Ok(Some(owned)) => owned,
        Ok(None) => return next(ctx).await,
        Err(error) => return Response::error(ctx.id(), error),
    };
    let responses = ctx
        .request()
        .and_then(|request| request.params.as_ref())
        .map(|params| params["inputResponses"].clone())
        .unwrap_or_default();
    match restate.answer(&key, followed, &responses).await {
        Ok(()) => Response::empty(ctx.id()),
        Err(error) => Response::error(ctx.id(), error),
    }
}

/// The `taskId` a `tasks/*` request names.
fn asked(ctx: &MwContext) -> Option<String> {
    let params = ctx.request()?.params.as_ref()?;
    Some(params.get("taskId")?.as_str()?.to_owned())
}

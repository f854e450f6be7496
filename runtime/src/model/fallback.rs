//! A model that falls back: an ordered list of models, each asked when the one before it could
//! not answer, and a note of which one did.

use std::borrow::Cow;
use std::fmt;

use svir::{Completion, ErrorKind, Event, Request};

use crate::cost::{self, Price};
use crate::model::CompletionModel;
use crate::model::erased;
use crate::schema::SchemaProfile;

/// A [`CompletionModel`] over an ordered list of models: each request goes to the first, and to
/// the next only when the one before could not answer because its server failed.
///
/// It moves to the next model when the server could not be reached (a refused connection, a
/// timeout), failed (HTTP 5xx, an error inside the answer stream, a malformed answer), kept
/// rate limiting (HTTP 429, after a [`Model`](crate::Model)'s own retries), or cut the answer
/// stream before its end. It never moves on a request the server rejected (HTTP 400, 422 and
/// every other 4xx: a bad request, a prompt that does not fit the context or the content filter,
/// refused credentials), nor on an error of the client's own configuration: those would fail
/// the same way on the next model, or hide a mistake. [`Fallback::moves_on`] says which is which.
///
/// Every request starts again at the first model, so a primary that comes back is used again
/// at once. Each model is sent the request under its own name. When the last model fails too,
/// the error is the last model's, its kind, status and server message kept, saying that every
/// model failed (as PydanticAI's `FallbackModel` raises one error for all of them); each
/// failure before it is a `warn` event of the `ladoga` target. As any model failure, it reaches
/// the MCP caller as a tool error without the server's message.
///
/// [`name`](CompletionModel::name) is the first model's, the one every request asks for
/// (`gen_ai.request.model`); the model that answered is in the run's report (`"model":
/// "backup"`, [`Outcome::model`](crate::Outcome::model)) and on the request's `chat` span
/// (`gen_ai.response.model`). A type that wraps a `Fallback` and forwards `complete` keeps
/// that: the `Fallback` notes the model in the request's task, not in its answer.
///
/// Register it with `App::add_singleton` and name it with
/// `#[orchestrator(model = ladoga::Fallback)]`.
///
/// # Examples
/// ```
/// use ladoga::{Fallback, Model};
///
/// # fn main() -> Result<(), svir::Error> {
/// let primary = Model::new(svir::Client::openai("http://127.0.0.1:8080").build()?, "qwen3");
/// let backup = Model::new(svir::Client::openai("http://127.0.0.1:8081").build()?, "backup");
/// let model = Fallback::new([primary, backup]);
/// assert_eq!(ladoga::CompletionModel::name(&model), "qwen3");
/// assert_eq!(model.names().collect::<Vec<_>>(), ["qwen3", "backup"]);
/// # Ok(())
/// # }
/// ```
pub struct Fallback {
    /// Never empty.
    models: Vec<Box<dyn erased::DynModel>>,
}

impl Fallback {
    /// Asks `models` in this order.
    ///
    /// # Panics
    /// When `models` is empty.
    pub fn new<M: CompletionModel + 'static>(models: impl IntoIterator<Item = M>) -> Self {
        let models: Vec<Box<dyn erased::DynModel>> = models
            .into_iter()
            .map(|model| Box::new(model) as Box<dyn erased::DynModel>)
            .collect();
        assert!(
            !models.is_empty(),
            "a `ladoga::Fallback` needs at least one model"
        );
        Self { models }
    }

    /// Asks `model` after the others, when they all failed: a model of another type than
    /// those given to [`Fallback::new`].
    ///
    /// # Examples
    /// ```
    /// use ladoga::testing::{Reply, ScriptedModel};
    /// use ladoga::{Fallback, Model};
    ///
    /// # fn main() -> Result<(), svir::Error> {
    /// let primary = Model::new(svir::Client::openai("http://127.0.0.1:8080").build()?, "qwen3");
    /// let model = Fallback::new([primary]).or(ScriptedModel::new([Reply::text("Later.")]));
    /// assert_eq!(model.names().collect::<Vec<_>>(), ["qwen3", "scripted"]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn or(mut self, model: impl CompletionModel + 'static) -> Self {
        self.models.push(Box::new(model));
        self
    }

    /// The names of its models, in the order they are asked.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.models
            .iter()
            .map(|model| erased::DynModel::name(&**model))
    }

    /// Whether a `Fallback` asks its next model after `error`: the server failed, rather than
    /// rejected the request.
    ///
    /// An HTTP status decides when there is one: 429 and 5xx move, every other status does
    /// not. Without one, the kind does: an unreachable server (`Transport`), a timeout, a cut
    /// stream (`TruncatedStream`), a failure inside the stream (`Server`) and a malformed
    /// answer (`Protocol`) move; the rest (`Unsupported`, `ContextOverflow`, `ContentFilter`,
    /// `Authentication`, `ResponseLimit`, `Attachment`, `Config`) does not.
    ///
    /// # Examples
    /// ```
    /// use ladoga::Fallback;
    /// use svir::{Error, ErrorKind};
    ///
    /// assert!(Fallback::moves_on(&Error::new(ErrorKind::Transport).with_unsent()));
    /// assert!(Fallback::moves_on(&Error::new(ErrorKind::Transport).with_status(503)));
    /// assert!(Fallback::moves_on(&Error::new(ErrorKind::RateLimited).with_status(429)));
    /// assert!(Fallback::moves_on(&Error::new(ErrorKind::TruncatedStream)));
    /// assert!(!Fallback::moves_on(&Error::new(ErrorKind::Unsupported).with_status(400)));
    /// assert!(!Fallback::moves_on(&Error::new(ErrorKind::ContextOverflow).with_status(422)));
    /// assert!(!Fallback::moves_on(&Error::new(ErrorKind::Timeout).with_status(408)));
    /// ```
    pub fn moves_on(error: &svir::Error) -> bool {
        if let Some(status) = error.status() {
            return status == 429 || status >= 500;
        }
        matches!(
            error.kind(),
            ErrorKind::Transport
                | ErrorKind::Timeout
                | ErrorKind::RateLimited
                | ErrorKind::TruncatedStream
                | ErrorKind::Server
                | ErrorKind::Protocol
        )
    }
}

impl fmt::Debug for Fallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fallback")
            .field("models", &self.names().collect::<Vec<_>>())
            .finish()
    }
}

impl CompletionModel for Fallback {
    fn name(&self) -> &str {
        erased::DynModel::name(&*self.models[0])
    }

    /// The models' schema profile when they all have the same one, else the default: the
    /// tools are offered once, in one form, whichever model answers.
    /// Whether any of its models asks the run's caller.
    fn asks_caller(&self) -> bool {
        self.models
            .iter()
            .any(|model| erased::DynModel::asks_caller(&**model))
    }

    fn schema_profile(&self) -> SchemaProfile {
        let first = erased::DynModel::schema_profile(&*self.models[0]);
        let shared = self
            .models
            .iter()
            .all(|model| erased::DynModel::schema_profile(&**model) == first);
        if shared {
            first
        } else {
            SchemaProfile::default()
        }
    }

    /// The dearest of its models' prices, when each has a known one: what a dollar budget
    /// counts a request at before it knows which model answers. The one that answered notes its
    /// own, which its cost is reckoned at.
    fn price(&self) -> Option<Price> {
        let mut dearest: Option<Price> = None;
        for model in &self.models {
            let name = erased::DynModel::name(&**model);
            let price = erased::DynModel::price(&**model);
            let provider = erased::DynModel::price_provider(&**model);
            let price = cost::price_of(name, price, provider)?;
            dearest = match dearest {
                Some(dear) if dear.input() + dear.output() >= price.input() + price.output() => {
                    Some(dear)
                }
                _ => Some(price),
            };
        }
        dearest
    }

    async fn complete(&self, request: &Request) -> Result<Completion, svir::Error> {
        CompletionModel::complete_streaming(self, request, &|_| {}).await
    }

    /// Each model is heard as it streams. A model whose stream is cut hands on the pieces it
    /// had sent, and the next model's answer follows them.
    async fn complete_streaming(
        &self,
        request: &Request,
        heard: &(dyn Fn(&Event) + Sync),
    ) -> Result<Completion, svir::Error> {
        let count = self.models.len();
        // Why each model before the last was passed over, for the error when none answers.
        let mut passed_over = Vec::new();
        for (index, model) in self.models.iter().enumerate() {
            let name = erased::DynModel::name(&**model);
            let error = match erased::DynModel::complete_streaming(
                &**model,
                &addressed(request, name),
                heard,
            )
            .await
            {
                Ok(done) => {
                    note(&**model);
                    return Ok(done);
                }
                Err(error) => error,
            };
            if !Self::moves_on(&error) {
                return Err(error);
            }
            let Some(next) = self.models.get(index + 1) else {
                return Err(if count == 1 {
                    error
                } else {
                    every_one_failed(error, &passed_over)
                });
            };
            passed_over.push(format!("`{name}`: {error}"));
            tracing::warn!(
                target: "ladoga",
                model = name,
                next = erased::DynModel::name(&**next),
                ?error,
                "the model could not answer; asking the next"
            );
        }
        unreachable!("a `Fallback` has at least one model")
    }
}

/// `request` under `model`'s name; copied only when it was sent under another.
fn addressed<'r>(request: &'r Request, model: &str) -> Cow<'r, Request> {
    if request.model == model {
        return Cow::Borrowed(request);
    }
    let mut request = request.clone();
    model.clone_into(&mut request.model);
    Cow::Owned(request)
}

/// The last model's error, saying that all failed and why each one before it was
/// `passed_over` (a caller that cannot sample, say): its kind, status, wait, server message and
/// whether it was sent are kept, and it is the source. No server's message is in the words.
fn every_one_failed(last: svir::Error, passed_over: &[String]) -> svir::Error {
    let all = format!(
        "all {} models failed ({})",
        passed_over.len() + 1,
        passed_over.join("; ")
    );
    let mut error = svir::Error::new(last.kind()).with_detail(match last.detail() {
        Some(detail) => format!("{all}; the last: {detail}"),
        None => all,
    });
    if let Some(status) = last.status() {
        error = error.with_status(status);
    }
    if let Some(wait) = last.retry_after() {
        error = error.with_retry_after(wait);
    }
    if let Some(message) = last.server_message() {
        error = error.with_server_message(message);
    }
    if last.is_unsent() {
        error = error.with_unsent();
    }
    error.with_source(last)
}

/// Notes `model` as the one that answered, when the orchestration is listening: its name, and
/// how it is priced.
/// The innermost note wins: a fallback within a fallback names the model that answered, not
/// itself.
fn note(model: &dyn erased::DynModel) {
    crate::cost::note_chosen(model.name());
    crate::cost::note(model.price(), model.price_provider());
}

/// The model that answered a request: the run's own, or one a [`Fallback`] within it named.
/// Kept without its name until an outcome needs it: a request costs no copy.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) enum AnsweredBy {
    Own,
    Named(String),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Reply, ScriptedModel};

    fn asked() -> Request {
        Request::new("scripted").user("Hello")
    }

    #[tokio::test]
    async fn a_failing_server_moves_to_the_next_model_which_is_noted() {
        let first = ScriptedModel::new([Reply::failure(503, "down")]);
        let second = ScriptedModel::new([Reply::text("Hi.")]);
        let model = Fallback::new([first.clone(), second.clone()]);

        let (done, noted) = crate::cost::noted(model.complete(&asked())).await;
        let by = noted.by;
        assert_eq!(done.unwrap().text, "Hi.");
        assert_eq!(by.as_deref(), Some("scripted"));
        assert_eq!((first.requests().len(), second.requests().len()), (1, 1));
    }

    #[tokio::test]
    async fn a_rejected_request_stays_with_the_model_that_rejected_it() {
        let first = ScriptedModel::new([Reply::failure(400, "bad field")]);
        let second = ScriptedModel::new([Reply::text("Hi.")]);
        let model = Fallback::new([first, second.clone()]);

        let (done, noted) = crate::cost::noted(model.complete(&asked())).await;
        let by = noted.by;
        let error = done.unwrap_err();
        assert_eq!(error.status(), Some(400));
        assert_eq!(by, None);
        assert!(second.requests().is_empty());
    }

    #[tokio::test]
    async fn when_every_model_fails_the_error_is_the_last_saying_so() {
        let model = Fallback::new([
            ScriptedModel::new([Reply::failure(500, "first down")]),
            ScriptedModel::new([Reply::failure(502, "second down")]),
        ]);
        let error = model.complete(&asked()).await.unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Transport);
        assert_eq!(error.status(), Some(502));
        assert_eq!(error.server_message(), Some("second down"));
        assert_eq!(
            error.to_string(),
            "could not reach the model server: all 2 models failed (`scripted`: could not reach \
             the model server)"
        );
        assert!(!format!("{error:?}").contains("down"));
    }

    #[tokio::test]
    async fn each_model_is_asked_under_its_own_name() {
        let backup = ScriptedModel::new([Reply::text("Hi.")]);
        let server = backup.serve().await.unwrap();
        let client = svir::Client::openai(server.url()).build().unwrap();
        let model = Fallback::new([ScriptedModel::new([Reply::failure(500, "down")])])
            .or(crate::model::Model::new(client, "backup"));

        let (done, noted) = crate::cost::noted(model.complete(&asked())).await;
        let by = noted.by;
        assert_eq!(done.unwrap().text, "Hi.");
        assert_eq!(by.as_deref(), Some("backup"));
        assert_eq!(backup.requests()[0].model(), "backup");
    }

    #[tokio::test]
    async fn an_orchestrations_outcome_names_the_model_that_answered() {
        let server = ScriptedModel::new([Reply::text("Hi.")])
            .serve()
            .await
            .unwrap();
        let client = svir::Client::openai(server.url()).build().unwrap();
        let model = Fallback::new([ScriptedModel::new([Reply::failure(500, "down")])])
            .or(crate::model::Model::new(client, "backup"));

        let outcome = crate::run::Orchestration::new(&model, &svir::Tools::new())
            .run("Hello")
            .await
            .unwrap();
        assert_eq!(outcome.model.as_deref(), Some("backup"));
        assert_eq!(outcome.report()["model"], "backup");
    }

    #[tokio::test]
    async fn within_a_fallback_of_fallbacks_the_model_that_answered_is_noted() {
        let inner = Fallback::new([ScriptedModel::new([Reply::failure(500, "down")])]);
        let server = ScriptedModel::new([Reply::text("Hi.")])
            .serve()
            .await
            .unwrap();
        let client = svir::Client::openai(server.url()).build().unwrap();
        let model = Fallback::new([inner.or(crate::model::Model::new(client, "deep"))]);

        let (done, noted) = crate::cost::noted(model.complete(&asked())).await;
        let by = noted.by;
        assert_eq!(done.unwrap().text, "Hi.");
        assert_eq!(by.as_deref(), Some("deep"));
    }
}

//! The model an orchestration talks to: a trait, and the default type behind it.

use std::fmt;
use std::future::Future;
use std::time::Duration;

use svir::{Completion, ErrorKind, Event, Request};

use crate::cost::Price;
use crate::schema::SchemaProfile;

/// How many times [`Model`] retries a rate-limited request unless told otherwise.
pub const DEFAULT_RETRIES: u32 = 2;

/// How long [`Model`] waits for one whole answer unless told otherwise: five minutes, from the
/// request to its last event, however often the server sends a piece (an empty one, or a
/// keep-alive comment, included).
pub const DEFAULT_RESPONSE_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// The longest [`Model`] waits before a retry, whatever the server asks.
const LONGEST_WAIT: Duration = Duration::from_secs(10);

/// A chat model the orchestration loop can send requests to.
///
/// [`Model`] implements it over an OpenAI-compatible server through `svir`;
/// [`testing::ScriptedModel`](crate::testing::ScriptedModel) implements it from a script.
/// Implement it for your own type to route, cache or meter requests, or to keep two models on
/// one server apart: `#[orchestrator(model = MyType)]` injects `Dc<MyType>`.
///
/// # Examples
/// ```
/// use ladoga::CompletionModel;
///
/// /// A model that always answers the same.
/// struct Parrot;
///
/// impl CompletionModel for Parrot {
///     fn name(&self) -> &str {
///         "parrot"
///     }
///
///     async fn complete(&self, _request: &svir::Request) -> Result<svir::Completion, svir::Error> {
///         let mut done = svir::Completion::new(svir::FinishReason::Stop);
///         done.text = "Polly wants a cracker".into();
///         Ok(done)
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a model an orchestrator can talk to",
    label = "this type does not implement `ladoga::CompletionModel`",
    note = "inject a `ladoga::Model`, or implement `ladoga::CompletionModel` for `{Self}`"
)]
pub trait CompletionModel: Send + Sync {
    /// The model name every request is sent with.
    fn name(&self) -> &str;

    /// Sends `request` and returns the model's whole answer.
    fn complete(
        &self,
        request: &Request,
    ) -> impl Future<Output = Result<Completion, svir::Error>> + Send;

    /// Sends `request` and returns the model's whole answer, handing `heard` each piece of it
    /// (text, reasoning, a piece of a tool call) as it arrives, the whole answer excepted.
    ///
    /// An orchestration always asks through this method: the pieces time the first token, and
    /// stream the text to the caller when it streams. The default hands over no piece and
    /// waits for [`complete`](Self::complete); a model that streams overrides it. Dropping the
    /// future stops the answer where it is.
    fn complete_streaming(
        &self,
        request: &Request,
        heard: &(dyn Fn(&Event) + Sync),
    ) -> impl Future<Output = Result<Completion, svir::Error>> + Send {
        let _ = heard;
        self.complete(request)
    }

    /// The form the tools' input schemas are offered in, for the provider behind this model:
    /// [`SchemaProfile::Portable`] unless the type says otherwise.
    fn schema_profile(&self) -> SchemaProfile {
        SchemaProfile::default()
    }

    /// Whether this model asks the MCP caller of the run, as [`CallerModel`](crate::CallerModel)
    /// does: a run on it is kept between the rounds of its tool call. `false` unless the type
    /// says otherwise.
    fn asks_caller(&self) -> bool {
        false
    }

    /// What this model's tokens cost, when it says: else its price is looked up by its name
    /// (and [`Self::price_provider`]) in genai-prices (see [`cost`](crate::cost)). `None` unless
    /// the type says otherwise.
    fn price(&self) -> Option<Price> {
        None
    }

    /// The provider whose price genai-prices gives for this model's name (`"openai"`,
    /// `"anthropic"`, …), when one name could be several providers'. `None` unless the type says
    /// otherwise.
    fn price_provider(&self) -> Option<&str> {
        None
    }
}

/// The default model: an `svir::Client` for an OpenAI-compatible server, and the model name to
/// ask it for. Register it with `App::add_singleton`; an `#[orchestrator]` without a `model`
/// argument takes it as `Dc<ladoga::Model>`.
///
/// A request the server rate-limits (HTTP 429) is retried [`DEFAULT_RETRIES`] times, after the
/// delay the server asks for (`Retry-After`, at most 10 s) or a short backoff. Every other
/// failure is returned at once: a retry of a cut answer or of a server error is the caller's
/// decision, and an orchestration reports it as a tool error.
///
/// Each answer is whole within [`DEFAULT_RESPONSE_TIMEOUT`] of its request
/// ([`Model::with_response_timeout`]), or fails with [`ErrorKind::Timeout`]: a server that keeps
/// the answer open with empty pieces resets svir's idle timeout each time, never this one.
///
/// # Examples
/// ```
/// let client = svir::Client::openai("http://127.0.0.1:1234").build()?;
/// let model = ladoga::Model::new(client, "qwen3");
/// assert_eq!(ladoga::CompletionModel::name(&model), "qwen3");
/// # Ok::<(), svir::Error>(())
/// ```
#[derive(Clone)]
pub struct Model {
    client: svir::Client,
    name: String,
    retries: u32,
    first_token: Option<Duration>,
    /// How long one whole answer may take.
    response: Duration,
    schema_profile: SchemaProfile,
    price: Option<Price>,
    price_provider: Option<String>,
}

impl Model {
    /// The model `name` on the server `client` talks to.
    pub fn new(client: svir::Client, name: impl Into<String>) -> Self {
        Self {
            client,
            name: name.into(),
            retries: DEFAULT_RETRIES,
            first_token: None,
            response: DEFAULT_RESPONSE_TIMEOUT,
            schema_profile: SchemaProfile::default(),
            price: None,
            price_provider: None,
        }
    }

    /// Prices this model's tokens at `price`, instead of genai-prices' price for its name: for
    /// a model the database does not know, or a local one ([`Price::FREE`]).
    ///
    /// # Examples
    /// ```
    /// use ladoga::{CompletionModel, Model, Price};
    ///
    /// let client = svir::Client::openai("http://127.0.0.1:1234").build()?;
    /// let model = Model::new(client, "smollm2").with_price(Price::FREE);
    /// assert_eq!(model.price(), Some(Price::FREE));
    /// # Ok::<(), svir::Error>(())
    /// ```
    pub fn with_price(mut self, price: Price) -> Self {
        self.price = Some(price);
        self
    }

    /// Looks this model's price up as `provider`'s (genai-prices' provider id: `"openai"`,
    /// `"anthropic"`, `"google"`, …): a model name several providers serve is priced as the
    /// one that serves this request.
    pub fn with_price_provider(mut self, provider: impl Into<String>) -> Self {
        self.price_provider = Some(provider.into());
        self
    }

    /// Offers the tools' input schemas in the form `profile`'s provider accepts (by default
    /// [`SchemaProfile::Portable`], which every provider accepts).
    pub fn with_schema_profile(mut self, profile: SchemaProfile) -> Self {
        self.schema_profile = profile;
        self
    }

    /// Fails a request with [`ErrorKind::Timeout`] when nothing of the answer has arrived
    /// `limit` after it was sent. Off unless set; a stream that stalls after it started is
    /// bounded by the client's own idle timeout (`svir::ClientBuilder::idle_timeout`), and the
    /// whole answer by [`Self::with_response_timeout`].
    pub fn with_first_token_timeout(mut self, limit: Duration) -> Self {
        self.first_token = Some(limit);
        self
    }

    /// Fails a request with [`ErrorKind::Timeout`] when its answer is not whole `limit` after it
    /// was sent, however many pieces of it arrived: [`DEFAULT_RESPONSE_TIMEOUT`] unless set.
    /// Each try of a rate-limited request has its own `limit`.
    ///
    /// # Examples
    /// ```
    /// use std::time::Duration;
    ///
    /// let client = svir::Client::openai("http://127.0.0.1:1234").build()?;
    /// // A local model that writes long answers slowly.
    /// let model = ladoga::Model::new(client, "qwen3").with_response_timeout(Duration::from_secs(900));
    /// # let _ = model;
    /// # Ok::<(), svir::Error>(())
    /// ```
    pub fn with_response_timeout(mut self, limit: Duration) -> Self {
        self.response = limit;
        self
    }

    /// Retries a rate-limited request up to `retries` times; `0` turns retrying off.
    pub fn with_retries(mut self, retries: u32) -> Self {
        self.retries = retries;
        self
    }

    /// The client the requests go through.
    pub fn client(&self) -> &svir::Client {
        &self.client
    }
}

impl fmt::Debug for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Model")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Model {
    /// One try, whole within the response timeout, handing `heard` each piece.
    async fn attempt(
        &self,
        request: &Request,
        heard: &(dyn Fn(&Event) + Sync),
    ) -> Result<Completion, svir::Error> {
        let limit = self.response;
        tokio::time::timeout(limit, self.answer(request, heard))
            .await
            .unwrap_or_else(|_| {
                Err(svir::Error::new(ErrorKind::Timeout)
                    .with_detail(format!("the answer was not whole within {limit:?}")))
            })
    }

    /// One answer, within the first-token bound when there is one, handing `heard` each piece.
    async fn answer(
        &self,
        request: &Request,
        heard: &(dyn Fn(&Event) + Sync),
    ) -> Result<Completion, svir::Error> {
        let mut stream = match self.first_token {
            None => self.client.stream(request).await?,
            Some(limit) => {
                let late = || {
                    svir::Error::new(ErrorKind::Timeout)
                        .with_detail(format!("nothing of the answer arrived within {limit:?}"))
                };
                let deadline = std::time::Instant::now() + limit;
                tokio::time::timeout_at(deadline.into(), self.client.stream(request))
                    .await
                    .map_err(|_| late())??
                    .first_token_by(deadline)
            }
        };
        while let Some(event) = stream.next().await {
            match event? {
                Event::Completed(done) => return Ok(done),
                piece => heard(&piece),
            }
        }
        Err(svir::Error::new(ErrorKind::TruncatedStream)
            .with_detail("the stream ended before [DONE]"))
    }
}

impl CompletionModel for Model {
    fn name(&self) -> &str {
        &self.name
    }

    fn schema_profile(&self) -> SchemaProfile {
        self.schema_profile
    }

    fn price(&self) -> Option<Price> {
        self.price
    }

    fn price_provider(&self) -> Option<&str> {
        self.price_provider.as_deref()
    }

    async fn complete(&self, request: &Request) -> Result<Completion, svir::Error> {
        self.complete_streaming(request, &|_| {}).await
    }

    async fn complete_streaming(
        &self,
        request: &Request,
        heard: &(dyn Fn(&Event) + Sync),
    ) -> Result<Completion, svir::Error> {
        let mut retried = 0;
        loop {
            match self.attempt(request, heard).await {
                Err(error) if error.kind() == ErrorKind::RateLimited && retried < self.retries => {
                    retried += 1;
                    let backoff = Duration::from_millis(250 << retried);
                    let wait = error.retry_after().unwrap_or(backoff).min(LONGEST_WAIT);
                    tracing::info!(target: "ladoga", retried, ?wait, "the model server is rate limiting; retrying");
                    tokio::time::sleep(wait).await;
                }
                answer => {
                    if answer.is_ok() {
                        crate::cost::note(self.price, self.price_provider.as_deref());
                    }
                    return answer;
                }
            }
        }
    }
}

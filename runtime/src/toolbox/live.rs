//! Another MCP server's tools, listed again when that server says its list changed.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use neva::Client;
use neva::error::Error;
use neva::svir::RemoteTools;
use neva::types::tool::commands::LIST_CHANGED;
use neva::types::{CallToolRequestParams, CallToolResponse, RequestParamsMeta};
use svir::{Tool, ToolCall, ToolResult, Toolbox};

use super::printable::printable;
use super::relay::Relay;
use super::screen::Screen;
use super::union::DEFAULT_CALL_TIMEOUT;
use crate::cost;

/// The tools neva may refuse in one renewal ([`LiveTools::renew`]) before it fails, should it
/// refuse any the screen let through: each one costs a listing. Those refused are left out of
/// the listings after, so the next renewal goes on from there.
const REFUSED_PER_RENEWAL: usize = 64;

/// The tools of another MCP server as a [`Toolbox`]: a `neva::svir::RemoteTools` whose snapshot
/// is renewed when the server sends `notifications/tools/list_changed`, not on every run.
///
/// [`Self::connect`] handles the notification on the client, connects it, and on MCP 2026-07-28
/// opens the `subscriptions/listen` stream that carries it (under `legacy-spec` it comes over
/// the session). On the notification it lists the tools again in the background
/// ([`Self::renew`]); a run that starts before that listing ended, or after it failed, lists
/// them itself, once, when its [`ToolUnion`](crate::ToolUnion) loads, within its call timeout.
/// A run with no change since the last listing lists nothing.
///
/// # A bad remote tool costs only itself
///
/// The server chooses its tools, and each one offered is sent to the model on every request of
/// every run. A tool is left out, and the log says so once (its name escaped), while the rest
/// are offered:
///
/// - a tool whose name, after `offer`'s renames, a model API cannot carry
///   (`[a-zA-Z0-9_-]{1,64}`), or that takes a name another took (neva's
///   `RemoteTools::refresh` would refuse the whole listing for it): [`Self::remote`]'s snapshot
///   holds it under a placeholder name, `left_out_…`, which this toolbox neither offers nor
///   calls;
/// - a name the server lists twice, but the first;
/// - a tool whose name, description and input schema take more than
///   [`MAX_REMOTE_TOOL_BYTES`](crate::MAX_REMOTE_TOOL_BYTES), or whose schema nests deeper than
///   [`MAX_REMOTE_SCHEMA_DEPTH`](crate::MAX_REMOTE_SCHEMA_DEPTH);
/// - the tools past the first [`MAX_REMOTE_TOOLS`](crate::MAX_REMOTE_TOOLS), in listing order,
///   and each one that would take all of them past
///   [`MAX_REMOTE_BYTES`](crate::MAX_REMOTE_BYTES);
/// - in an [`Orchestrator`](crate::Orchestrator)'s run, a tool whose schema cannot be written for
///   the model's [`SchemaProfile`](crate::SchemaProfile) (a recursive `$ref` for
///   [`SchemaProfile::Portable`](crate::SchemaProfile::Portable)), or whose name another toolbox
///   of the run offers already ([`ToolUnion`](crate::ToolUnion)).
///
/// These checks come after `offer`'s filters and renames: a tool `offer` leaves out is neither
/// measured nor counted. Should neva refuse a listing all the same, the tool it refused is left
/// out and the listing tried again, at most 64 times in one renewal. Renew through
/// [`Self::renew`]: a [`RemoteTools::refresh`] called on [`Self::remote`] fails as neva's does.
///
/// Register it in neva's DI container and offer it with `with = [LiveTools]`,
/// [`Orchestrator::with`](crate::Orchestrator::with) or a [`ToolUnion`](crate::ToolUnion). It is
/// a handle: clones share the client, the snapshot and the subscription.
///
/// # Examples
/// ```no_run
/// use ladoga::{LiveTools, Model, orchestrator};
/// use neva::prelude::*;
///
/// /// Researches with this server's tools and the docs server's, offered as `docs_…`.
/// #[orchestrator(with = [LiveTools])]
/// async fn research(question: String) -> String {
///     question
/// }
///
/// #[tokio::main]
/// async fn main() -> Result<(), Box<dyn std::error::Error>> {
///     let docs = Client::new().with_options(|opt| {
///         opt.with_http(|http| http.bind("127.0.0.1:3001").with_endpoint("/mcp"))
///     });
///     let docs = LiveTools::connect(docs, |tools| tools.with_prefix("docs_")).await?;
///     let model = Model::new(svir::Client::openai("http://127.0.0.1:1234").build()?, "qwen3");
///     App::new()
///         .with_options(|opt| opt.with_default_http())
///         .add_singleton(model)
///         .add_singleton(docs)
///         .run()
///         .await;
///     Ok(())
/// }
/// ```
#[derive(Clone)]
pub struct LiveTools {
    inner: Arc<Inner>,
}

struct Inner {
    tools: RemoteTools,
    /// How many times the server has said its list changed; the client's handler counts.
    changes: Arc<AtomicU64>,
    /// The count at the last listing, `None` before the first; held while listing, so runs
    /// that start together list once.
    listed: tokio::sync::Mutex<Option<u64>>,
    /// The last filter of `tools`: the bounds, and the tools neva refused.
    screen: Arc<Screen>,
    /// The `subscriptions/listen` stream, open as long as the toolbox is.
    #[cfg(not(feature = "legacy-spec"))]
    _subscription: Option<neva::client::Subscription>,
    /// The relay in front of a server reached by [`LiveTools::connect_url`], serving as long as
    /// the toolbox is.
    #[cfg_attr(
        not(feature = "legacy-spec"),
        allow(dead_code, reason = "kept serving; read under legacy-spec only")
    )]
    relay: Option<Relay>,
}

impl fmt::Debug for LiveTools {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveTools")
            .field("tools", &self.inner.tools)
            .field("changes", &self.changes())
            .finish_non_exhaustive()
    }
}

impl LiveTools {
    /// Connects `client` (configured, not connected yet) and offers the tools of its server as
    /// `offer` configures them (`RemoteTools::filter`, `with_prefix`, `rename`); nothing is
    /// listed yet.
    ///
    /// Fails if the client cannot connect. A server that refuses the subscription, or does
    /// not advertise `tools.listChanged`, is still offered: its snapshot is then the first,
    /// renewed only by [`RemoteTools::refresh`] on [`Self::remote`].
    ///
    /// The client's own request timeout (`McpOptions::with_timeout`, 10 s unless set) bounds
    /// every request it sends, each tool call included: a call to this toolbox ends at the
    /// shorter of it and the run's [`call_timeout`](crate::Orchestrator::call_timeout). Give the
    /// client a timeout no shorter than the call timeout, or use [`Self::connect_url`], whose
    /// client leaves the bound to the call timeout. A listing on the server's notification is
    /// bounded by [`DEFAULT_CALL_TIMEOUT`] too.
    ///
    /// Responses reach their calls as neva's client matches them, by JSON-RPC id alone:
    /// [`Self::connect_url`] also checks that each answers a request of the POST it came back
    /// to.
    ///
    /// # Examples
    /// ```no_run
    /// use ladoga::LiveTools;
    /// use neva::Client;
    ///
    /// # async fn run() -> Result<(), neva::error::Error> {
    /// let client = Client::new().with_options(|opt| {
    ///     opt.with_http(|http| http.bind("127.0.0.1:3001").with_endpoint("/mcp"))
    /// });
    /// let tools = LiveTools::connect(client, |tools| {
    ///     tools.filter(|tool| tool.name != "delete_everything").with_prefix("docs_")
    /// })
    /// .await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn connect(
        client: Client,
        offer: impl FnOnce(RemoteTools) -> RemoteTools,
    ) -> Result<Self, Error> {
        Self::connect_relayed(client, offer, None).await
    }

    /// Connects to the MCP server at `url` (`http://HOST:PORT/PATH`, Streamable HTTP), of either
    /// generation, with a client of `options` (a timeout, say), and offers its tools as `offer`
    /// configures them. Its transport is `url`'s: a `with_http` in `options` is replaced; for a
    /// bearer token, [`Self::connect_url_with_token`].
    ///
    /// A server of MCP 2026-07-28 is reached as [`Self::connect`] reaches it. One of the older
    /// generation (2025-11-25 and before, such as every server on the TypeScript SDK 1.x) is
    /// reached too: neva 0.9's client falls back to `initialize` for it only through a loopback
    /// relay, which words the server's errors for it when the server's answer to
    /// `server/discover` calls for it (see `toolbox/relay.rs`). Under `legacy-spec` the client
    /// speaks the older generation itself.
    ///
    /// # The server's questions
    ///
    /// Under MCP 2026-07-28 the client answers a server's elicitation with
    /// [`elicit_above`](crate::toolbox::elicit_above): the person at the top of the run whose call
    /// asks is asked, the question tagged with the run's path, and an answer in a later round of
    /// the top call pauses the run and makes the call again then. Its sampling requests go the
    /// same way to the host of that person ([`sample_above`](crate::toolbox::sample_above)), whose
    /// model makes the sample in a later round. Under `legacy-spec` the server asks mid-call, on
    /// the call's stream, and the relay (below) ties the question to the call it came back on;
    /// the client declares no sampling there.
    ///
    /// # Each call gets its own answer
    ///
    /// Every server is reached through a loopback relay that checks each JSON-RPC response (a
    /// JSON body, or each event of a stream, as it comes) against the requests of the POST it
    /// answers: neva 0.9's client matches a response by its id alone, whichever POST it came
    /// back to, so a server, or a proxy in front of several, that answers one call's POST with
    /// another call's answer would hand that answer to the other call. Such a response is
    /// dropped and logged, and its POST's own call gets an error saying the server answered
    /// another call; the model reads it as that call's result. Notifications and the server's
    /// own requests pass as they are.
    ///
    /// # Time bounds
    ///
    /// A call is bounded by the run's [`call_timeout`](crate::Orchestrator::call_timeout)
    /// ([`DEFAULT_CALL_TIMEOUT`] unless set): the client's own request timeout is set long
    /// enough never to cut below it, before `options` runs. A `with_timeout` in `options` takes
    /// precedence: it then bounds every request of the client, each call included, and a call
    /// ends at the shorter of the two. Connecting (the handshake, the first listing, the
    /// subscription) and a listing on the server's notification are bounded by
    /// [`DEFAULT_CALL_TIMEOUT`]; a listing as a run starts, by its call timeout. A call made on
    /// [`Self::remote`] outside a run has only the client's bound: set one in `options` for
    /// those.
    ///
    /// # Examples
    /// ```no_run
    /// # async fn run() -> Result<(), neva::error::Error> {
    /// let everything = ladoga::LiveTools::connect_url(
    ///     "http://127.0.0.1:3001/mcp",
    ///     |opt| opt,
    ///     |tools| tools.with_prefix("everything_"),
    /// )
    /// .await?;
    /// # let _ = everything;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn connect_url(
        url: &str,
        options: impl FnOnce(neva::client::options::McpOptions) -> neva::client::options::McpOptions,
        offer: impl FnOnce(RemoteTools) -> RemoteTools,
    ) -> Result<Self, Error> {
        Self::connect_url_as(url, None, options, offer).await
    }

    /// [`Self::connect_url`], sending `token` as the bearer token of every request.
    ///
    /// # Examples
    /// ```no_run
    /// # async fn run() -> Result<(), neva::error::Error> {
    /// let token = std::env::var("DOCS_TOKEN").unwrap_or_default();
    /// let docs = ladoga::LiveTools::connect_url_with_token(
    ///     "http://127.0.0.1:3001/mcp",
    ///     &token,
    ///     |opt| opt,
    ///     |tools| tools.with_prefix("docs_"),
    /// )
    /// .await?;
    /// # let _ = docs;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn connect_url_with_token(
        url: &str,
        token: &str,
        options: impl FnOnce(neva::client::options::McpOptions) -> neva::client::options::McpOptions,
        offer: impl FnOnce(RemoteTools) -> RemoteTools,
    ) -> Result<Self, Error> {
        Self::connect_url_as(url, Some(token), options, offer).await
    }

    /// [`Self::connect_url`], with `token` as the bearer token if there is one.
    async fn connect_url_as(
        url: &str,
        token: Option<&str>,
        options: impl FnOnce(neva::client::options::McpOptions) -> neva::client::options::McpOptions,
        offer: impl FnOnce(RemoteTools) -> RemoteTools,
    ) -> Result<Self, Error> {
        let (addr, endpoint) = split_url(url)?;
        let relay = relay_to(url, addr).await?;
        let to = relay.addr().to_string();
        let mut client = Client::new().with_options(|opt| {
            options(opt.with_timeout(NO_CLIENT_BOUND)).with_http(|http| {
                let http = http.bind(to).with_endpoint(endpoint);
                match token {
                    Some(token) => http.with_auth(token),
                    None => http,
                }
            })
        });
        // The server's questions go to the person at the top of the run whose call asks, and
        // its sampling requests (MCP 2026-07-28, through its rounds) to that person's host.
        client.map_elicitation(super::elicit_above);
        #[cfg(not(feature = "legacy-spec"))]
        #[allow(deprecated)] // sampling, kept in MCP 2026-07-28 for migration
        client.map_sampling(super::sample_above);
        let connecting = Self::connect_relayed(client, offer, Some(relay));
        tokio::time::timeout(LISTING_TIMEOUT, connecting)
            .await
            .unwrap_or_else(|_| {
                Err(Error::new(
                    neva::error::ErrorCode::Timeout,
                    format!("the MCP server at {url} was not connected within {LISTING_TIMEOUT:?}"),
                ))
            })
    }

    /// [`Self::connect`], keeping `relay` serving as long as the toolbox.
    async fn connect_relayed(
        mut client: Client,
        offer: impl FnOnce(RemoteTools) -> RemoteTools,
        relay: Option<Relay>,
    ) -> Result<Self, Error> {
        let changes = Arc::new(AtomicU64::new(0));
        let this: Arc<OnceLock<Weak<Inner>>> = Arc::default();
        let (told, renewed) = (Arc::clone(&changes), Arc::clone(&this));
        // Before `connect`: the running connection dispatches to the handlers it starts with.
        client.subscribe(LIST_CHANGED, move |_| {
            let (told, renewed) = (Arc::clone(&told), Arc::clone(&renewed));
            async move {
                told.fetch_add(1, Ordering::AcqRel);
                if let Some(inner) = renewed.get().and_then(Weak::upgrade) {
                    // Spawned: the listing's answer comes through the loop running this handler.
                    tokio::spawn(LiveTools { inner }.renew_in_background());
                }
            }
        });
        client.connect().await?;
        say_unoffered(&client).await;
        #[cfg(not(feature = "legacy-spec"))]
        let subscription = listen(&client).await;
        let screen = Arc::new(Screen::default());
        let (keeping, screening) = (Arc::clone(&screen), Arc::clone(&screen));
        let inner = Arc::new(Inner {
            // Last, after `offer`'s filters and renames: it sees only the tools they keep, and
            // the names they make.
            tools: offer(RemoteTools::new(client))
                .filter(move |tool| keeping.keeps(tool))
                .rename(move |name| screening.rename(name)),
            screen,
            changes,
            listed: tokio::sync::Mutex::new(None),
            #[cfg(not(feature = "legacy-spec"))]
            _subscription: subscription,
            relay,
        });
        let _ = this.set(Arc::downgrade(&inner));
        Ok(Self { inner })
    }

    /// [`Self::renew`] on a notification, logged if it fails: the next run tries again.
    async fn renew_in_background(self) {
        let renewed = tokio::time::timeout(LISTING_TIMEOUT, self.renew()).await;
        let renewed = renewed.unwrap_or_else(|_| {
            Err(Error::new(
                neva::error::ErrorCode::Timeout,
                format!("no answer within {LISTING_TIMEOUT:?}"),
            ))
        });
        if let Err(error) = renewed {
            tracing::warn!(target: "ladoga", error = %printable(&error.to_string()), "the server's changed tool list could not be listed");
        }
    }

    /// Lists the server's tools if there is no snapshot yet, or if the server has said its list
    /// changed since the last listing; answers whether it listed. A bad tool is left out (see
    /// [A bad remote tool costs only itself](Self#a-bad-remote-tool-costs-only-itself)). Fails if
    /// the server cannot list its tools, or if neva refused more than 64 of them in this
    /// renewal, keeping the previous snapshot; the next call tries again.
    ///
    /// # Examples
    /// ```no_run
    /// # async fn run(tools: ladoga::LiveTools) -> Result<(), neva::error::Error> {
    /// assert!(tools.renew().await?, "the first call lists");
    /// assert!(!tools.renew().await?, "no change, no listing");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn renew(&self) -> Result<bool, Error> {
        let mut listed = self.inner.listed.lock().await;
        // Read before listing: a change told while listing is listed by the next call.
        let changes = self.changes();
        if *listed == Some(changes) {
            return Ok(false);
        }
        self.list().await?;
        *listed = Some(changes);
        Ok(true)
    }

    /// Lists the server's tools, leaving out each one neva refuses, up to
    /// [`REFUSED_PER_RENEWAL`] of them.
    async fn list(&self) -> Result<(), Error> {
        let screen = &self.inner.screen;
        for _ in 0..=REFUSED_PER_RENEWAL {
            screen.start();
            match self.inner.tools.refresh().await {
                Ok(()) => {
                    screen.finish();
                    return Ok(());
                }
                Err(error) if screen.blame(&error) => continue,
                Err(error) => return Err(error),
            }
        }
        Err(Error::new(
            neva::error::ErrorCode::InternalError,
            format!(
                "neva refused more than {REFUSED_PER_RENEWAL} of the server's tools in one \
                 renewal: they are left out, and the next renewal goes on from there"
            ),
        ))
    }

    /// How many times the server has said its tool list changed since [`Self::connect`].
    ///
    /// # Examples
    /// ```no_run
    /// # fn run(tools: ladoga::LiveTools) {
    /// println!("the docs server changed its tools {} times", tools.changes());
    /// # }
    /// ```
    pub fn changes(&self) -> u64 {
        self.inner.changes.load(Ordering::Acquire)
    }

    /// The `RemoteTools` inside, and through it the client, for the rest of what the server
    /// offers.
    ///
    /// # Examples
    /// ```no_run
    /// # fn run(tools: ladoga::LiveTools) {
    /// let instructions = tools.remote().client().server_instructions();
    /// # let _ = instructions;
    /// # }
    /// ```
    pub fn remote(&self) -> &RemoteTools {
        &self.inner.tools
    }

    /// What a run's guards know of the tool offered as `name`: untrusted, and read-only or
    /// reaching outside as its server's annotations said at the last listing.
    pub(crate) fn hints_of(&self, name: &str) -> crate::toolbox::ToolHints {
        self.inner.screen.hints_of(name)
    }
}

/// Says in the log, once as it connects, which tools the server lists that no model call can
/// use: those that run only as an MCP task (a model's call is none), which neva's `RemoteTools`
/// leaves out without a word. One listing, at connect only: a renewal lists once per change.
async fn say_unoffered(client: &Client) {
    let Ok(listed) = client.tools().list_all().await else {
        return;
    };
    for tool in listed {
        if tool.task_support() == Some(neva::types::tool::TaskSupport::Required) {
            tracing::warn!(target: "ladoga", tool = %printable(&tool.name), "a remote tool is not offered to the model: it runs only as an MCP task, and a model's call is none");
        }
    }
}

/// Opens the stream that carries `notifications/tools/list_changed` under MCP 2026-07-28; a
/// server that refuses it is logged, and offered without it.
#[cfg(not(feature = "legacy-spec"))]
async fn listen(client: &Client) -> Option<neva::client::Subscription> {
    let filter = neva::types::SubscriptionFilter::new().with_tools_changed();
    match client.listen(filter).await {
        Ok(subscription) => Some(subscription),
        // A server of the older generation tells its changes over its session, unasked.
        Err(error) if error.to_string().contains("legacy protocol") => None,
        Err(error) => {
            tracing::warn!(target: "ladoga", error = %printable(&error.to_string()), "the server's tool list will not be renewed: it refused to tell its changes");
            None
        }
    }
}

impl Toolbox for LiveTools {
    fn tools(&self) -> Vec<Tool> {
        let mut tools = self.inner.tools.tools();
        tools.retain(|tool| self.inner.screen.offers(&tool.name));
        tools
    }

    /// Calls the tool on its server, the answer told as `told.rs` tells it: an
    /// image (or audio, or a binary resource) in it said in its place, its text kept.
    async fn call(&self, call: &ToolCall) -> ToolResult {
        if !self.inner.screen.offers(&call.name) {
            return ToolResult::error(&call.id, format!("There is no tool named `{}`", call.name));
        }
        let Some(server_name) = self.inner.screen.server_name(&call.name) else {
            return self.inner.tools.call(call).await;
        };
        let arguments = match super::arguments::object(call) {
            Ok(arguments) => arguments,
            Err(refusal) => return ToolResult::error(&call.id, refusal),
        };
        let client = self.inner.tools.client();
        let mut params = CallToolRequestParams::new(server_name).with_args(arguments);
        // What the run has left goes with the call, and the trace it is made in; what the
        // server's run spent counts here.
        let (left, trace) = (cost::purse::left(), crate::trace::current());
        // Under `legacy-spec` the server's questions come outside the call: its site is lent to
        // them, through the relay (which takes the token out), when there is one.
        #[cfg(feature = "legacy-spec")]
        let lent = (crate::tree::Site::current())
            .filter(|_| self.inner.relay.is_some())
            .map(|site| site.lend());
        #[cfg(feature = "legacy-spec")]
        let lent_member =
            (lent.as_ref()).map(|lent| format!("{}={}", crate::tree::LENT_MEMBER, lent.token()));
        #[cfg(not(feature = "legacy-spec"))]
        let lent_member: Option<String> = None;
        if left.is_some() || trace.is_some() || lent_member.is_some() {
            let mut meta = RequestParamsMeta::default();
            meta.baggage = left.map(|left| cost::with_budget(None, left));
            if let Some(member) = lent_member {
                meta.baggage = Some(match meta.baggage.take() {
                    Some(baggage) => format!("{baggage},{member}"),
                    None => member,
                });
            }
            if let Some(trace) = trace {
                meta.traceparent = Some(trace.parent);
                meta.tracestate = trace.state;
            }
            params = params.with_meta(meta);
        }
        let outcome = (client.tools().call_raw(params).await)
            .and_then(|response| response.into_result::<CallToolResponse>());
        if let Some(spent) = outcome.as_ref().ok().and_then(cost::spent_by) {
            cost::purse::spent(spent);
        }
        super::told::told(&call.id, outcome)
    }

    fn call_all(&self, calls: &[ToolCall]) -> impl Future<Output = Vec<ToolResult>> + Send
    where
        Self: Sync,
    {
        futures_util::future::join_all(calls.iter().map(|call| Toolbox::call(self, call)))
    }
}

/// The address (`HOST:PORT`) and the endpoint (`/PATH`) of an `http://` URL.
fn split_url(url: &str) -> Result<(&str, &str), Error> {
    let rest = url.strip_prefix("http://").ok_or_else(|| {
        Error::new(
            neva::error::ErrorCode::InvalidParams,
            format!(
                "`{url}` is not an http:// URL: for https, give LiveTools::connect a client \
                 configured with TLS"
            ),
        )
    })?;
    Ok(match rest.find('/') {
        Some(slash) => rest.split_at(slash),
        None => (rest, "/"),
    })
}

/// The request timeout of [`LiveTools::connect_url`]'s client unless its `options` set one: a
/// century, which no call timeout reaches. The run's call timeout bounds each call; neva's own
/// 10 s would cut every call below it.
const NO_CLIENT_BOUND: Duration = Duration::from_secs(100 * 365 * 24 * 60 * 60);

/// The bound of what no run's call timeout covers: connecting in [`LiveTools::connect_url`], and
/// a listing on the server's notification.
const LISTING_TIMEOUT: Duration = DEFAULT_CALL_TIMEOUT;

/// A relay to the server at `url` (at `addr`), started on a loopback port: every server reached
/// by URL gets one, which checks each response against its request (`toolbox/guard.rs`), and,
/// under MCP 2026-07-28, words the errors of a server of the older generation for neva's client.
async fn relay_to(url: &str, addr: &str) -> Result<Relay, Error> {
    let older = is_older(url).await;
    let relay = Relay::start(format!("http://{addr}"), older)
        .await
        .map_err(|error| {
            Error::new(
                neva::error::ErrorCode::InternalError,
                format!("no relay to the MCP server at {url}: {error}"),
            )
        })?;
    if older {
        tracing::info!(target: "ladoga", %url, "an MCP server of the older generation: its errors worded for neva's client");
    }
    Ok(relay)
}

/// Whether the server at `url` is one of the older generation, under MCP 2026-07-28.
#[cfg(not(feature = "legacy-spec"))]
async fn is_older(url: &str) -> bool {
    Relay::older(url).await
}

/// Never under `legacy-spec`: the client speaks the older generation itself.
#[cfg(feature = "legacy-spec")]
async fn is_older(_url: &str) -> bool {
    false
}

//! Another MCP server's tools, listed again when that server says its list changed.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};

use neva::Client;
use neva::error::Error;
use neva::svir::RemoteTools;
use neva::types::tool::commands::LIST_CHANGED;
use svir::{Tool, ToolCall, ToolResult, Toolbox};

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
    /// The `subscriptions/listen` stream, open as long as the toolbox is.
    #[cfg(not(feature = "legacy-spec"))]
    _subscription: Option<neva::client::Subscription>,
    /// The relay to a server of the older generation, serving as long as the toolbox is.
    _relay: Option<Relay>,
}

/// What reaches a server of the older generation: a relay, under MCP 2026-07-28.
#[cfg(not(feature = "legacy-spec"))]
type Relay = super::relay::Relay;

/// Nothing, under `legacy-spec`: the client speaks the older generation itself.
#[cfg(feature = "legacy-spec")]
type Relay = std::convert::Infallible;

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
    /// generation, with a client of `options` (a timeout, a bearer token with `with_http`'s
    /// `with_auth`: its address and endpoint are `url`'s), and offers its tools as `offer`
    /// configures them.
    ///
    /// A server of MCP 2026-07-28 is reached as [`Self::connect`] reaches it. One of the older
    /// generation (2025-11-25 and before, such as every server on the TypeScript SDK 1.x) is
    /// reached too: neva 0.9's client falls back to `initialize` for it only through a loopback
    /// relay, which this starts when the server's answer to `server/discover` calls for it (see
    /// `toolbox/relay.rs`). Under `legacy-spec` the client speaks the older generation itself.
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
        let (addr, endpoint) = split_url(url)?;
        let relay = relay_for(url, addr).await?;
        let to = relay.as_ref().map_or_else(|| addr.to_owned(), relay_addr);
        let client = Client::new().with_options(|opt| {
            options(opt).with_http(|http| http.bind(to).with_endpoint(endpoint))
        });
        Self::connect_relayed(client, offer, relay).await
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
        let inner = Arc::new(Inner {
            tools: offer(RemoteTools::new(client)),
            changes,
            listed: tokio::sync::Mutex::new(None),
            #[cfg(not(feature = "legacy-spec"))]
            _subscription: subscription,
            _relay: relay,
        });
        let _ = this.set(Arc::downgrade(&inner));
        Ok(Self { inner })
    }

    /// [`Self::renew`] on a notification, logged if it fails: the next run tries again.
    async fn renew_in_background(self) {
        if let Err(error) = self.renew().await {
            tracing::warn!(target: "ladoga", %error, "the server's changed tool list could not be listed");
        }
    }

    /// Lists the server's tools if there is no snapshot yet, or if the server has said its list
    /// changed since the last listing; answers whether it listed. Fails as
    /// [`RemoteTools::refresh`] does, keeping the previous snapshot, and the next call tries
    /// again.
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
        self.inner.tools.refresh().await?;
        *listed = Some(changes);
        Ok(true)
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
            tracing::warn!(target: "ladoga", tool = %tool.name, "a remote tool is not offered to the model: it runs only as an MCP task, and a model's call is none");
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
            tracing::warn!(target: "ladoga", %error, "the server's tool list will not be renewed: it refused to tell its changes");
            None
        }
    }
}

impl Toolbox for LiveTools {
    fn tools(&self) -> Vec<Tool> {
        self.inner.tools.tools()
    }

    async fn call(&self, call: &ToolCall) -> ToolResult {
        self.inner.tools.call(call).await
    }

    fn call_all(&self, calls: &[ToolCall]) -> impl Future<Output = Vec<ToolResult>> + Send
    where
        Self: Sync,
    {
        self.inner.tools.call_all(calls)
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

/// The relay the server at `url` (at `addr`) needs: one of the older generation, under MCP
/// 2026-07-28.
#[cfg(not(feature = "legacy-spec"))]
async fn relay_for(url: &str, addr: &str) -> Result<Option<Relay>, Error> {
    if !Relay::needed(url).await {
        return Ok(None);
    }
    let relay = Relay::start(format!("http://{addr}"))
        .await
        .map_err(|error| {
            Error::new(
                neva::error::ErrorCode::InternalError,
                format!("no relay to the MCP server at {url}: {error}"),
            )
        })?;
    tracing::info!(target: "ladoga", %url, "an MCP server of the older generation: reached through a relay");
    Ok(Some(relay))
}

/// None under `legacy-spec`: the client speaks the older generation itself.
#[cfg(feature = "legacy-spec")]
async fn relay_for(_url: &str, _addr: &str) -> Result<Option<Relay>, Error> {
    Ok(None)
}

/// Where `relay` listens.
#[cfg(not(feature = "legacy-spec"))]
fn relay_addr(relay: &Relay) -> String {
    relay.addr().to_string()
}

/// Where `relay` listens: there is none under `legacy-spec`.
#[cfg(feature = "legacy-spec")]
fn relay_addr(relay: &Relay) -> String {
    match *relay {}
}

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
        mut client: Client,
        offer: impl FnOnce(RemoteTools) -> RemoteTools,
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
        #[cfg(not(feature = "legacy-spec"))]
        let subscription = listen(&client).await;
        let inner = Arc::new(Inner {
            tools: offer(RemoteTools::new(client)),
            changes,
            listed: tokio::sync::Mutex::new(None),
            #[cfg(not(feature = "legacy-spec"))]
            _subscription: subscription,
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

/// Opens the stream that carries `notifications/tools/list_changed` under MCP 2026-07-28; a
/// server that refuses it is logged, and offered without it.
#[cfg(not(feature = "legacy-spec"))]
async fn listen(client: &Client) -> Option<neva::client::Subscription> {
    let filter = neva::types::SubscriptionFilter::new().with_tools_changed();
    match client.listen(filter).await {
        Ok(subscription) => Some(subscription),
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

//! The tools of several toolboxes offered as one, each call routed to the toolbox that offers it.

use std::any::Any;
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use neva::svir::{LocalTools, RemoteTools};
use svir::{Tool, ToolCall, ToolResult, Toolbox};

use crate::error::RunError;
use crate::schema::SchemaProfile;
use crate::toolbox::ToolHints;
use crate::toolbox::said::Said;
use crate::toolbox::{LiveTools, ToolSelection, printable};

/// How long a call to an added toolbox may take unless told otherwise
/// ([`ToolUnion::call_timeout`], [`Orchestrator::call_timeout`](crate::Orchestrator::call_timeout)).
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

type Boxed<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What the unions said of their added toolboxes' tools left out, for all the runs.
static SAID: LazyLock<Said> = LazyLock::new(Said::default);

/// A [`Toolbox`] behind a pointer: svir's trait returns `impl Future`, so it cannot be a
/// `dyn Toolbox` itself.
trait Erased: Send + Sync {
    fn tools(&self) -> Vec<Tool>;
    fn call<'a>(&'a self, call: &'a ToolCall) -> Boxed<'a, ToolResult>;
    /// Makes the toolbox ready to list its tools: a `RemoteTools` with no snapshot yet takes one,
    /// a [`LiveTools`] renews its own.
    fn prepare(&self) -> Boxed<'_, Result<(), String>>;
    /// What the guards know of its tool `name`: untrusted, and what a [`LiveTools`]'s server
    /// annotated.
    fn hints_of(&self, name: &str) -> ToolHints;
}

impl<T: Toolbox + Send + Sync + 'static> Erased for T {
    fn tools(&self) -> Vec<Tool> {
        Toolbox::tools(self)
    }

    fn call<'a>(&'a self, call: &'a ToolCall) -> Boxed<'a, ToolResult> {
        Box::pin(Toolbox::call(self, call))
    }

    fn hints_of(&self, name: &str) -> ToolHints {
        match (self as &dyn Any).downcast_ref::<LiveTools>() {
            Some(live) => live.hints_of(name),
            None => ToolHints::untrusted(),
        }
    }

    fn prepare(&self) -> Boxed<'_, Result<(), String>> {
        let remote = (self as &dyn Any).downcast_ref::<RemoteTools>();
        let live = (self as &dyn Any).downcast_ref::<LiveTools>();
        Box::pin(async move {
            match (remote, live) {
                (Some(remote), _) if Toolbox::tools(remote).is_empty() => {
                    remote.refresh().await.map_err(|error| error.to_string())
                }
                (_, Some(live)) => live
                    .renew()
                    .await
                    .map(drop)
                    .map_err(|error| error.to_string()),
                _ => Ok(()),
            }
        })
    }
}

/// A toolbox added to a run's: what it is called in errors, and the toolbox itself.
#[derive(Clone)]
pub(crate) struct Source {
    name: String,
    toolbox: Arc<dyn Erased>,
}

impl Source {
    pub(crate) fn new<T: Toolbox + Send + Sync + 'static>(
        name: impl Into<String>,
        toolbox: Arc<T>,
    ) -> Self {
        Self {
            name: name.into(),
            toolbox,
        }
    }
}

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Source").field(&self.name).finish()
    }
}

/// How a part's calls are made.
enum Reach {
    /// The server's own tools, called as they are (in the union's own future, with no boxed
    /// future of the erased part), bounded only by the run.
    Own(Arc<LocalTools>),
    /// An added toolbox, each call bounded by this.
    Added(Duration),
}

/// One toolbox of a union: its source, its label in errors, and how its calls are made.
struct Part {
    source: Source,
    label: String,
    reach: Reach,
}

impl Part {
    /// Whether it is the server's own tools, whose calls only the run bounds.
    fn own(&self) -> bool {
        matches!(self.reach, Reach::Own(_))
    }

    /// Says once, for all the runs this toolbox is added to, that its tool `name` is not
    /// offered, and why.
    fn say_left_out(&self, name: &str, reason: &str) {
        // By the toolbox's address: a run's union, and its sources, are made for each run.
        let toolbox = Arc::as_ptr(&self.source.toolbox).cast::<()>() as usize;
        if SAID.first((toolbox, name, reason)) {
            tracing::warn!(target: "ladoga", tool = %printable(name), toolbox = %self.label, reason = %printable(reason), "a tool of an added toolbox is not offered to the model");
        }
    }
}

/// The tools of several [`Toolbox`]es offered as one, each call routed by name to the toolbox
/// that offers it. Each keeps its own names (a `RemoteTools`'s prefix included): two tools of
/// the same name are never renamed: the first toolbox's is offered, and the later one's is
/// left out, the log saying so once (for all runs, whatever unions it is in). A tool of an added
/// toolbox costs only itself: most often another server chose it (a `neva::svir::RemoteTools`,
/// a [`LiveTools`]), and one bad tool there must not fail every run.
///
/// With [`Self::schema_profile`], an added toolbox's tool whose name or schema cannot be written
/// for that profile ([`SchemaProfile::tool`]) is left out the same way. The server's own tools
/// (an [`Orchestrator`](crate::Orchestrator)'s) are the developer's: the run fails naming such a
/// tool, so that it is fixed.
///
/// [`Self::load`] takes the first snapshot of a `neva::svir::RemoteTools` that has none, applies
/// the selection to every toolbox's tools, and checks the names; until then the union offers no
/// tool. A call to an added toolbox is bounded by the call timeout
/// ([`DEFAULT_CALL_TIMEOUT`]); past it, or when its server is down, the model gets an error
/// result for that call and the other calls of the turn still answer.
///
/// [`Orchestrator::with`](crate::Orchestrator::with) adds toolboxes to the server's own tools
/// through one; any [`Orchestration`](crate::Orchestration) can run over one.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use ladoga::{ToolPattern, ToolSelection, ToolUnion};
/// use svir::{Tool, ToolCall, Toolbox, Tools};
///
/// fn one(name: &str, answer: &'static str) -> Arc<Tools> {
///     Arc::new(Tools::new().add_tool(Tool::new(name, "A tool"), move |_: serde_json::Value| async move { answer }))
/// }
///
/// #[tokio::main]
/// async fn main() -> Result<(), Box<dyn std::error::Error>> {
///     let tools = ToolUnion::new()
///         .with("clock", one("now", "noon"))
///         .with("notes", one("note", "noted"))
///         .with("admin", one("wipe", "wiped"))
///         .select(ToolSelection::all().except([ToolPattern::new("wipe")?]))
///         .load()
///         .await?;
///     let names: Vec<String> = tools.tools().into_iter().map(|tool| tool.name).collect();
///     assert_eq!(names, ["now", "note"]);
///     assert_eq!(tools.call(&ToolCall::new("1", "note", "{}")).await.content, "noted");
///
///     // Two `now`: the first toolbox's is offered, the sundial's left out, and the log says so.
///     let twice = ToolUnion::new().with("clock", one("now", "noon")).with("sundial", one("now", "dusk"));
///     let twice = twice.load().await?;
///     assert_eq!(twice.tools().len(), 1);
///     assert_eq!(twice.call(&ToolCall::new("2", "now", "{}")).await.content, "noon");
///     Ok(())
/// }
/// ```
pub struct ToolUnion {
    parts: Vec<Part>,
    selection: ToolSelection,
    call_timeout: Duration,
    /// The profile the added toolboxes' tools are checked against when it loads, if any.
    profile: Option<SchemaProfile>,
    /// Each tool offered, by name, and the part that offers it; `None` once loaded with one
    /// part, whose tools need no routing and cannot clash. The tools themselves stay with their
    /// toolboxes: [`Toolbox::tools`] takes them from there, so a run copies them once.
    routes: Option<HashMap<String, usize>>,
}

impl fmt::Debug for ToolUnion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolUnion")
            .field(
                "parts",
                &self
                    .parts
                    .iter()
                    .map(|part| &part.label)
                    .collect::<Vec<_>>(),
            )
            .field("call_timeout", &self.call_timeout)
            .field("routes", &self.routes.as_ref().map(HashMap::len))
            .finish_non_exhaustive()
    }
}

impl Default for ToolUnion {
    fn default() -> Self {
        Self::new()
    }
}

impl ToolUnion {
    /// No toolbox yet, every tool selected, calls bounded by [`DEFAULT_CALL_TIMEOUT`].
    pub fn new() -> Self {
        Self {
            parts: Vec::new(),
            selection: ToolSelection::all(),
            call_timeout: DEFAULT_CALL_TIMEOUT,
            profile: None,
            routes: Some(HashMap::new()),
        }
    }

    /// [`Self::new`], with room for `parts` toolboxes.
    pub(crate) fn with_parts(parts: usize) -> Self {
        Self {
            parts: Vec::with_capacity(parts),
            ..Self::new()
        }
    }

    /// Adds `toolbox`, called `name` in errors, its calls bounded by the call timeout.
    pub fn with<T>(self, name: impl Into<String>, toolbox: Arc<T>) -> Self
    where
        T: Toolbox + Send + Sync + 'static,
    {
        self.add(Source::new(name, toolbox))
    }

    pub(crate) fn add(mut self, source: Source) -> Self {
        let label = format!("`{}`", source.name);
        self.parts.push(Part {
            source,
            label,
            reach: Reach::Added(self.call_timeout),
        });
        self
    }

    /// Adds the server's own tools, called "this server" in errors, their calls bounded only by
    /// the run.
    pub(crate) fn with_own(mut self, toolbox: LocalTools) -> Self {
        let toolbox = Arc::new(toolbox);
        self.parts.push(Part {
            source: Source::new("this server", Arc::clone(&toolbox)),
            label: "this server".to_owned(),
            reach: Reach::Own(toolbox),
        });
        self
    }

    /// The tools an added toolbox offers (not the server's own), once loaded, each with what
    /// the guards know of it: untrusted, and what a [`LiveTools`]'s server annotated.
    pub(crate) fn added_tools(&self) -> Vec<(String, ToolHints)> {
        let hinted = |part: &Part, name: String| {
            let hints = part.source.toolbox.hints_of(&name);
            (name, hints)
        };
        match &self.routes {
            Some(routes) => (routes.iter())
                .filter(|&(_, &index)| !self.parts[index].own())
                .map(|(name, &index)| hinted(&self.parts[index], name.clone()))
                .collect(),
            None => (self.parts.iter())
                .filter(|part| !part.own())
                .flat_map(|part| {
                    let tools = part.source.toolbox.tools().into_iter();
                    let admitted = tools.filter(|tool| self.selection.admits(&tool.name));
                    admitted.map(move |tool| hinted(part, tool.name))
                })
                .collect(),
        }
    }

    /// Bounds each call to an added toolbox, those added before and after.
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        for part in &mut self.parts {
            if let Reach::Added(bound) = &mut part.reach {
                *bound = timeout;
            }
        }
        self
    }

    /// Offers only the tools `selection` admits, of every toolbox.
    pub fn select(mut self, selection: ToolSelection) -> Self {
        self.selection = selection;
        self
    }

    /// Leaves out, when it loads, each tool of an added toolbox whose name or input schema
    /// cannot be written for `profile`, the model's; the log says so once for each. An
    /// [`Orchestrator`](crate::Orchestrator) sets its model's.
    pub fn schema_profile(mut self, profile: SchemaProfile) -> Self {
        self.profile = Some(profile);
        self
    }

    /// Takes the tools to offer: a `neva::svir::RemoteTools` without a snapshot takes its first,
    /// and a [`LiveTools`] renews its own if its server said the list changed
    /// ([`LiveTools::renew`]), within the call timeout (one that cannot list its tools is a
    /// [`RunError::Toolbox`] naming it); the selection is applied, and an added toolbox's tool
    /// that cannot be offered (see [`Self::schema_profile`]), or whose name an earlier toolbox
    /// offers, is left out.
    pub async fn load(mut self) -> Result<Self, RunError> {
        for part in &self.parts {
            // The server's own tools are listed already: only an added toolbox is made ready.
            let Reach::Added(timeout) = part.reach else {
                continue;
            };
            let prepared = tokio::time::timeout(timeout, part.source.toolbox.prepare())
                .await
                .unwrap_or_else(|_| Err(format!("no answer within {timeout:?}")));
            prepared.map_err(|error| {
                let error = printable(&error);
                RunError::Toolbox(format!("{} could not list its tools: {error}", part.label))
            })?;
        }
        let checked = |part: &Part| self.profile.is_some() && !part.own();
        if self.parts.len() == 1 && !checked(&self.parts[0]) {
            self.routes = None;
            return Ok(self);
        }
        let mut routes: HashMap<String, usize> = HashMap::new();
        for (index, part) in self.parts.iter().enumerate() {
            for tool in part.source.toolbox.tools() {
                if !self.selection.admits(&tool.name) {
                    continue;
                }
                if checked(part)
                    && let Some(profile) = self.profile
                    && let Err(error) = profile.tool(tool.clone())
                {
                    part.say_left_out(&tool.name, &error.to_string());
                    continue;
                }
                match routes.get(&tool.name) {
                    Some(&first) => {
                        let earlier = &self.parts[first].label;
                        part.say_left_out(
                            &tool.name,
                            &format!("{earlier} offers a tool of that name"),
                        );
                    }
                    None => {
                        routes.insert(tool.name, index);
                    }
                }
            }
        }
        self.routes = Some(routes);
        Ok(self)
    }
}

impl Toolbox for ToolUnion {
    fn tools(&self) -> Vec<Tool> {
        let mut tools = Vec::new();
        for (index, part) in self.parts.iter().enumerate() {
            let offered = part.source.toolbox.tools().into_iter();
            tools.extend(offered.filter(|tool| match &self.routes {
                Some(routes) => routes.get(&tool.name) == Some(&index),
                None => self.selection.admits(&tool.name),
            }));
        }
        tools
    }

    async fn call(&self, call: &ToolCall) -> ToolResult {
        let part = match &self.routes {
            Some(routes) => routes.get(&call.name).map(|&index| &self.parts[index]),
            None => self
                .parts
                .first()
                .filter(|_| self.selection.admits(&call.name)),
        };
        let Some(part) = part else {
            return ToolResult::error(&call.id, format!("There is no tool named `{}`", call.name));
        };
        let timeout = match &part.reach {
            Reach::Own(own) => return Toolbox::call(&**own, call).await,
            Reach::Added(timeout) => *timeout,
        };
        let answer = part.source.toolbox.call(call);
        match tokio::time::timeout(timeout, answer).await {
            Ok(result) => result,
            Err(_) => ToolResult::error(
                &call.id,
                format!(
                    "{} did not answer the call to `{}` within {timeout:?}",
                    part.label, call.name
                ),
            ),
        }
    }

    fn call_all(&self, calls: &[ToolCall]) -> impl Future<Output = Vec<ToolResult>> + Send
    where
        Self: Sync,
    {
        futures_util::future::join_all(calls.iter().map(|call| Toolbox::call(self, call)))
    }
}

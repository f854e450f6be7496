//! What a run knows of a tool, for its guards: whether its text is untrusted, whether it only
//! reads, whether it reaches outside.

/// What a run knows of a tool, for its guards: whether its text is untrusted, whether it only
/// reads, and whether it reaches outside.
///
/// An [`Orchestrator`](crate::Orchestrator) reads its own server's tools' MCP annotations, and
/// a `with` server's, with MCP's defaults: `readOnlyHint: true` makes one read-only (absent, it
/// may change things), and a tool reaches outside unless it says `openWorldHint: false` (absent,
/// it does, as MCP has it), so what it answers is untrusted and what goes in its arguments
/// leaves. Say otherwise with [`Orchestrator::hints`](crate::Orchestrator::hints). Every tool of
/// an added toolbox is untrusted.
///
/// # Examples
/// ```
/// use ladoga::guard::ToolHints;
///
/// // A mail server's tools, as its own server does not annotate them.
/// let reads = ToolHints::untrusted().read_only();
/// assert!(reads.untrusted && reads.read_only && !reads.open_world);
/// let fetches = ToolHints::untrusted().read_only().open_world();
/// assert!(fetches.reaches_outside());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ToolHints {
    /// Its results may hold text anyone wrote: a tool of another server, or one that reaches
    /// outside.
    pub untrusted: bool,
    /// It changes nothing (MCP's `readOnlyHint: true`).
    pub read_only: bool,
    /// It reaches outside the server, the Web say (MCP's `openWorldHint: true`): what goes in
    /// its arguments leaves, and what comes back anyone may have written.
    pub open_world: bool,
}

impl ToolHints {
    /// A tool whose results anyone may have written, saying nothing else.
    pub fn untrusted() -> Self {
        Self {
            untrusted: true,
            ..Self::default()
        }
    }

    /// With `read_only` set: it changes nothing.
    pub fn read_only(mut self) -> Self {
        self.read_only = true;
        self
    }

    /// With `open_world` set: it reaches outside the server.
    pub fn open_world(mut self) -> Self {
        self.open_world = true;
        self
    }

    /// Whether the text of its results is untrusted: it is, or it reaches outside.
    pub fn taints(&self) -> bool {
        self.untrusted || self.open_world
    }

    /// Whether its calls can carry text out of the server.
    pub fn reaches_outside(&self) -> bool {
        self.open_world
    }
}

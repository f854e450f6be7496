//! How many sessions a server keeps, and how much of them.

/// The most sessions one caller keeps at once, unless told otherwise.
pub const DEFAULT_SESSIONS_PER_CALLER: usize = 32;

/// The most sessions a server process keeps at once, every caller's together, unless told
/// otherwise.
pub const DEFAULT_SESSIONS: usize = 10_000;

/// The most bytes of conversation a server process keeps in its sessions, every caller's
/// together, unless told otherwise: 256 MiB.
pub const DEFAULT_SESSION_BYTES: usize = 256 << 20;

/// How many sessions a server keeps, and how much of them: what callers can leave behind is
/// bounded, whoever they are and however many.
///
/// Past a bound the oldest idle session goes first (the one whose last call ended longest
/// ago, among those no call is using): one of the caller's own, when it is the caller's bound
/// that is reached, else any caller's. A call that would start a session when every session
/// the bound counts is in use is refused
/// ([`RunError::SessionLimit`](crate::RunError::SessionLimit)), and nothing runs.
///
/// A caller is the token's issuer and subject (under `legacy-spec`, a `session = caller` call
/// without a token is its MCP session); sessions started without a token count in the total
/// bounds only. Each session is also bounded itself
/// ([`MAX_SESSION_BYTES`](crate::session::MAX_SESSION_BYTES)). The bounds count the sessions this
/// process kept: with a store shared by replicas (`RedisStore`), each replica keeps within
/// them, and Redis's own `maxmemory` bounds the whole.
///
/// Set on the server's [`Runs`](crate::store::Runs) with
/// [`Runs::with_session_bounds`](crate::store::Runs::with_session_bounds).
///
/// # Examples
/// ```
/// use ladoga::session::SessionBounds;
/// use ladoga::store::{MemoryRuns, Runs};
///
/// let runs = Runs::new(MemoryRuns::default()).with_session_bounds(
///     SessionBounds::default().per_caller(8).total(1_000).total_bytes(64 << 20),
/// );
/// assert_eq!(runs.session_bounds().per_caller, 8);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionBounds {
    /// The most sessions one caller keeps.
    pub per_caller: usize,
    /// The most sessions kept, every caller's together.
    pub total: usize,
    /// The most bytes of conversation kept, every caller's together.
    pub total_bytes: usize,
}

impl Default for SessionBounds {
    fn default() -> Self {
        Self {
            per_caller: DEFAULT_SESSIONS_PER_CALLER,
            total: DEFAULT_SESSIONS,
            total_bytes: DEFAULT_SESSION_BYTES,
        }
    }
}

impl SessionBounds {
    /// At most `sessions` sessions per caller (at least one).
    pub fn per_caller(mut self, sessions: usize) -> Self {
        self.per_caller = sessions.max(1);
        self
    }

    /// At most `sessions` sessions in all (at least one).
    pub fn total(mut self, sessions: usize) -> Self {
        self.total = sessions.max(1);
        self
    }

    /// At most `bytes` bytes of conversation in all.
    pub fn total_bytes(mut self, bytes: usize) -> Self {
        self.total_bytes = bytes;
        self
    }
}

//! Who may call which of the board's tools, by how the board was started.
//!
//! - With `--oauth`, the token's scopes open the tools: `board:read` `list_tasks` and `review`,
//!   `board:write` `add_task`, `complete_task` and `plan_week`, `board:admin` `clear_board`. Each
//!   scope opens its own tools only: a writer who should read too is granted both. A call short
//!   of its scope is answered `403` with `WWW-Authenticate: Bearer error="insufficient_scope",
//!   scope="…"` (neva's), so the host can ask its person for more and call again.
//! - Otherwise (`--auth`, or no token at all) `clear_board` needs the `admin` role, and the
//!   other tools are open to every caller.
//!
//! Either way an orchestrator offers its model only the tools the caller may call.
//!
//! neva's `#[tool]` registers its tool when the server starts, and keeps a tool registered
//! already under that name, applying the attribute's settings (description, schema,
//! annotations) to it. So the gates are set here, on the same handlers, before the server
//! starts: which gate depends on the flags, which an attribute cannot read.

use neva::App;

use crate::tasks;

/// Registers `$tool` of `tasks` needing `$scope`.
macro_rules! scoped {
    ($app:ident, $tool:ident, $scope:literal) => {
        $app.map_tool(stringify!($tool), tasks::$tool)
            .with_scopes([$scope]);
    };
}

/// Sets the gates on the board's tools: the scopes of [`crate::oauth::SCOPES`] with `oauth`,
/// else the `admin` role on `clear_board`.
pub fn gate(app: &mut App, oauth: bool) {
    if !oauth {
        app.map_tool("clear_board", tasks::clear_board)
            .with_roles(["admin"]);
        return;
    }
    scoped!(app, list_tasks, "board:read");
    scoped!(app, review, "board:read");
    scoped!(app, add_task, "board:write");
    scoped!(app, complete_task, "board:write");
    scoped!(app, plan_week, "board:write");
    scoped!(app, clear_board, "board:admin");
}

//! Every argument at once, as documented.

use ladoga::orchestrator;
use neva::prelude::*;

async fn audit(ctx: MwContext, next: Next) -> Response {
    next(ctx).await
}

struct Second(ladoga::Model);

impl ladoga::CompletionModel for Second {
    fn name(&self) -> &str {
        "second"
    }

    async fn complete(&self, request: &svir::Request) -> Result<svir::Completion, svir::Error> {
        self.0.complete(request).await
    }
}

/// A plan.
#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Plan {
    steps: Vec<String>,
}

#[orchestrator(
    descr = "Plans the week",
    title = "Week planner",
    system = "You keep the user's task board.",
    prompt = "plan_week",
    attach = ["board://tasks/{focus}"],
    turns = 8,
    depth = 4,
    recurse,
    tools = ["add_*", "list_tasks"],
    exclude = ["clear_*"],
    on_limit = "answer",
    timeout = "90s",
    call_timeout = "20s",
    stream = "500ms",
    budget = 20000,
    budget_usd = 0.50,
    quota = "5 USD/day",
    context = 32000,
    repeat = 3,
    max_result = 8000,
    max_arguments = 16384,
    output = Plan,
    retries = 2,
    session = true,
    session_ttl = "2h",
    model = Second,
    compact_model = ladoga::Model,
    with = [svir::Tools],
    guard = [ladoga::guard::Fence, ladoga::guard::Provenance],
    roles = ["planner"],
    permissions = ["board:write"],
    scopes = ["board"],
    middleware = [audit],
    annotations = r#"{"readOnlyHint": false}"#,
    task_support = "optional"
)]
async fn plan_week(focus: String) -> String {
    format!("Plan my week around {focus}.")
}

fn main() {}

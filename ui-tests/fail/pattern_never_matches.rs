use ladoga::orchestrator;

/// Plans.
#[orchestrator(tools = ["add_*", "add task"])]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

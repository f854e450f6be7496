use ladoga::orchestrator;

/// Plans.
#[orchestrator(turns = 0, depth = "four", colour = "blue", on_limit = "retry")]
fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

use ladoga::orchestrator;

/// Plans.
#[orchestrator(recurse = "yes")]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

use ladoga::orchestrator;

/// Plans.
#[orchestrator(depth = 0)]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

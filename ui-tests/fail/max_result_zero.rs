use ladoga::orchestrator;

/// Plans.
#[orchestrator(max_result = 0)]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

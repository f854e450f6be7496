use ladoga::orchestrator;

/// Plans.
#[orchestrator(on_limit = "retry")]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

use ladoga::orchestrator;

/// Plans.
#[orchestrator(model = String)]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

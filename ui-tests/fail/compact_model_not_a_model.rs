use ladoga::orchestrator;

/// Plans.
#[orchestrator(context = 32000, compact_model = String)]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

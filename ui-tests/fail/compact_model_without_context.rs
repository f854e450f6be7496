use ladoga::orchestrator;

/// Plans.
#[orchestrator(compact_model = ladoga::Model)]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

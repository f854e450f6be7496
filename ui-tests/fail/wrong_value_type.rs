use ladoga::orchestrator;

/// Plans.
#[orchestrator(turns = "8")]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

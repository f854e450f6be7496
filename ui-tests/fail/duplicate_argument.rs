use ladoga::orchestrator;

/// Plans.
#[orchestrator(turns = 8, turns = 4)]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

use ladoga::orchestrator;

/// Plans.
#[orchestrator]
async fn plan_week(focus: String) -> usize {
    focus.len()
}

fn main() {}

use ladoga::orchestrator;

/// Plans.
#[orchestrator]
async fn plan_week(focus: String) {
    let _ = focus;
}

fn main() {}

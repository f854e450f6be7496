use ladoga::orchestrator;

/// Plans.
#[orchestrator]
fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

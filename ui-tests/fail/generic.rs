use ladoga::orchestrator;

/// Plans.
#[orchestrator]
async fn plan_week<T: Into<String>>(focus: String) -> String {
    focus
}

fn main() {}

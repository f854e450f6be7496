use ladoga::orchestrator;

/// Plans.
#[orchestrator(max_arguments = 0)]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

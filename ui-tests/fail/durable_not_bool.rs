use ladoga::orchestrator;

/// Plans the week.
#[orchestrator(durable = "yes")]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

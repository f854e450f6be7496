use ladoga::orchestrator;

/// Plans the week, durable: which needs ladoga's `restate` feature, not enabled here.
#[orchestrator(durable = true)]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

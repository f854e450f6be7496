use ladoga::orchestrator;

/// Plans, asking the caller's person when it must.
#[orchestrator(ask = 3)]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

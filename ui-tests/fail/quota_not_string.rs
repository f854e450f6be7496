use ladoga::orchestrator;

#[orchestrator(quota = 5)]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

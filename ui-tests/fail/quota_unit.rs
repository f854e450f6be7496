use ladoga::orchestrator;

#[orchestrator(quota = "5 EUR/day")]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

use ladoga::orchestrator;

#[orchestrator(budget_usd = "0.50")]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

use ladoga::orchestrator;

#[orchestrator(quota = "5 USD/week")]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

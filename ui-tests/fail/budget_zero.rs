use ladoga::orchestrator;

#[orchestrator(budget = 0)]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

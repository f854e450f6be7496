use ladoga::orchestrator;

#[orchestrator(timeout = "90 seconds")]
async fn plan_week(focus: String) -> String {
    focus
}

#[orchestrator(timeout = 90)]
async fn plan_month(focus: String) -> String {
    focus
}

fn main() {}

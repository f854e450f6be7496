use ladoga::orchestrator;

#[orchestrator(call_timeout = "20 seconds")]
async fn plan_week(focus: String) -> String {
    focus
}

#[orchestrator(call_timeout = "0s")]
async fn plan_month(focus: String) -> String {
    focus
}

fn main() {}

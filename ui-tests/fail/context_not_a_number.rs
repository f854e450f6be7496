use ladoga::orchestrator;

#[orchestrator(context = "32k")]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

use ladoga::orchestrator;

#[orchestrator(context = 0)]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

use ladoga::orchestrator;

struct Plan {
    steps: Vec<String>,
}

#[orchestrator(output = Plan)]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

use ladoga::orchestrator;

#[orchestrator(repeat = 1)]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {}

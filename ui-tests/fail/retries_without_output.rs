use ladoga::orchestrator;

#[orchestrator(retries = 2)]
async fn plan_week(focus: String) -> String {
    focus
}

#[orchestrator(output = Plan, retries = "two")]
async fn plan_month(focus: String) -> String {
    focus
}

#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Plan {
    steps: Vec<String>,
}

fn main() {}

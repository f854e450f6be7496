use ladoga::orchestrator;

struct Planner;

impl Planner {
    /// Plans.
    #[orchestrator]
    async fn plan_week(&self, focus: String) -> String {
        focus
    }
}

fn main() {}

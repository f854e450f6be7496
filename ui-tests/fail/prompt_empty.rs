use ladoga::orchestrator;

/// Reviews.
#[orchestrator(prompt = "")]
async fn review(focus: String) -> String {
    focus
}

fn main() {}

use ladoga::orchestrator;

/// Reviews.
#[orchestrator(prompt = review_board)]
async fn review(focus: String) -> String {
    focus
}

fn main() {}

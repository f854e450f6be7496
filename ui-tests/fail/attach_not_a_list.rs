use ladoga::orchestrator;

/// Reviews.
#[orchestrator(attach = "board://tasks")]
async fn review(focus: String) -> String {
    focus
}

fn main() {}

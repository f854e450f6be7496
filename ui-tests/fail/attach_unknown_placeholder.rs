use ladoga::orchestrator;

/// Reviews.
#[orchestrator(attach = ["board://tasks/{status}"])]
async fn review(focus: String) -> String {
    focus
}

fn main() {}

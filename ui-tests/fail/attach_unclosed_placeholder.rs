use ladoga::orchestrator;

/// Reviews.
#[orchestrator(attach = ["board://tasks/{focus"])]
async fn review(focus: String) -> String {
    focus
}

fn main() {}

use ladoga::orchestrator;

/// Reviews.
#[orchestrator(attach = ["board://tasks/{tags}"])]
async fn review(tags: Vec<String>) -> String {
    tags.join(", ")
}

fn main() {}

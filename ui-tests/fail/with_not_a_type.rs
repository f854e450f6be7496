use ladoga::orchestrator;

/// Researches.
#[orchestrator(with = ["docs"])]
async fn research(question: String) -> String {
    question
}

fn main() {}

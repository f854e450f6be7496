use ladoga::orchestrator;

/// Researches.
#[orchestrator(with = [String])]
async fn research(question: String) -> String {
    question
}

fn main() {}

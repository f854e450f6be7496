use ladoga::orchestrator;

/// Reads the mail.
#[orchestrator(guard = Fence)]
async fn read_mail(task: String) -> String {
    task
}

fn main() {}

//! The work of a run that stopped at a bound, for [`OnLimit::Partial`](crate::OnLimit::Partial).

use svir::ToolResult;

use crate::Stop;

/// The partial result: a first line saying so and why, the last text the model wrote, and
/// every call made with its result, in order.
pub(crate) fn text(stop: Stop, last_text: &str, done: &[(String, ToolResult)]) -> String {
    let mut text = format!("[partial: the run stopped at its {} bound]", stop.name());
    if !last_text.trim().is_empty() {
        text.push_str("\n\n");
        text.push_str(last_text.trim());
    }
    if !done.is_empty() {
        text.push_str("\n\nTool results so far:");
        for (tool, result) in done {
            let error = if result.is_error { " (error)" } else { "" };
            text.push_str(&format!("\n- {tool}{error}: {}", result.content));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_why_and_keeps_the_text_and_every_result() {
        let done = [
            ("add_task".to_owned(), ToolResult::new("c1", "Added task 1")),
            ("list_tasks".to_owned(), ToolResult::error("c2", "no board")),
        ];
        let text = text(Stop::Budget, "Adding the tasks.", &done);
        assert_eq!(
            text,
            "[partial: the run stopped at its budget bound]\n\nAdding the tasks.\n\n\
             Tool results so far:\n- add_task: Added task 1\n- list_tasks (error): no board"
        );
        assert_eq!(
            super::text(Stop::TurnLimit, "", &[]),
            "[partial: the run stopped at its turns bound]"
        );
    }
}

//! What an orchestrator's body returns: the request the conversation opens with.

use std::fmt::Display;

use svir::Request;

/// The brief an orchestrator's body builds: the conversation the model starts from.
///
/// A `String` or `&str` is the first user message. A whole [`svir::Request`] sets the messages,
/// the temperature and the rest; its `model` is replaced by the injected model's name, and its
/// `system` prompt, when it has one, wins over the orchestrator's. A `Result` is its value, or
/// an error the MCP caller is answered with.
///
/// # Examples
/// ```
/// use ladoga::IntoBrief;
///
/// let request = "Plan my week.".into_brief()?;
/// assert_eq!(request.messages.len(), 1);
///
/// let request = svir::Request::new("any").temperature(0.2).user("Plan my week.").into_brief()?;
/// assert_eq!(request.temperature, Some(0.2));
/// # Ok::<(), String>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "an orchestrator's body must return its brief, not `{Self}`",
    label = "the brief is the first user message or a whole request",
    note = "return a `String`, a `&str`, an `svir::Request`, or a `Result` of one whose error implements `Display`"
)]
pub trait IntoBrief {
    /// The request the conversation opens with, or why it could not be built.
    fn into_brief(self) -> Result<Request, String>;
}

impl IntoBrief for String {
    fn into_brief(self) -> Result<Request, String> {
        Ok(Request::new(String::new()).user(self))
    }
}

impl IntoBrief for &str {
    fn into_brief(self) -> Result<Request, String> {
        self.to_owned().into_brief()
    }
}

impl IntoBrief for Request {
    fn into_brief(self) -> Result<Request, String> {
        Ok(self)
    }
}

impl<T: IntoBrief, E: Display> IntoBrief for Result<T, E> {
    fn into_brief(self) -> Result<Request, String> {
        self.map_err(|error| error.to_string())?.into_brief()
    }
}

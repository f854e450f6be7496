//! The server's own prompt and resources a brief opens with: `prompts/get` and `resources/read`
//! inside the handler, turned into messages and parts by neva's svir bridge.

use std::collections::HashMap;

use neva::Context;
use neva::shared::IntoArgs;
use serde_json::Value;
use svir::{Message, Part, Request, Role};

use crate::error::RunError;

/// What the brief takes from the server before the model is asked: a prompt that opens the
/// conversation, and resources attached to it. Empty by default, which leaves the brief as the
/// body built it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Briefing {
    prompt: Option<PromptUse>,
    attach: Vec<String>,
}

/// A server prompt and the values its arguments may take.
#[derive(Debug, Clone)]
struct PromptUse {
    name: String,
    args: HashMap<String, Value>,
}

impl Briefing {
    /// Opens the brief with the prompt `name`, its arguments taken from `args`.
    pub(crate) fn prompt(&mut self, name: String, args: impl IntoArgs) {
        let args = args.into_args().unwrap_or_default();
        self.prompt = Some(PromptUse { name, args });
    }

    /// Whether the brief is left as the body built it: no prompt, no resource.
    pub(crate) fn is_empty(&self) -> bool {
        self.prompt.is_none() && self.attach.is_empty()
    }

    /// Attaches the resource at `uri`, after those attached before.
    pub(crate) fn attach(&mut self, uri: String) {
        self.attach.push(uri);
    }

    /// The URIs of the resources attached.
    pub(crate) fn attached(&self) -> &[String] {
        &self.attach
    }

    /// `brief` with the prompt's messages before it and the resources attached to its last user
    /// message, read through `ctx` as the request's own caller may read them. Fails, naming
    /// the prompt or the URI, before any model request.
    pub(crate) async fn open(&self, ctx: &Context, brief: Request) -> Result<Request, RunError> {
        if self.prompt.is_none() && self.attach.is_empty() {
            return Ok(brief);
        }
        let mut request = brief;
        if let Some(prompt) = &self.prompt {
            let opening = prompt.messages(ctx).await.map_err(RunError::Brief)?;
            request.messages = join(opening, std::mem::take(&mut request.messages));
        }
        let mut parts = Vec::new();
        for uri in &self.attach {
            parts.extend(read(ctx, uri).await.map_err(RunError::Brief)?);
        }
        if !parts.is_empty() {
            attach(&mut request.messages, parts);
        }
        Ok(request)
    }
}

impl PromptUse {
    /// The prompt's messages, rendered with the arguments it declares.
    async fn messages(&self, ctx: &Context) -> Result<Vec<Message>, String> {
        let name = &self.name;
        let declared = ctx
            .prompts()
            .list()
            .await
            .into_iter()
            .find(|prompt| &prompt.name == name)
            .ok_or_else(|| format!("this server has no prompt `{name}`"))?;
        let mut args = HashMap::new();
        for arg in declared.args.unwrap_or_default() {
            match self.args.get(&arg.name).and_then(prompt_value) {
                Some(value) => {
                    args.insert(arg.name, Value::String(value));
                }
                None if arg.required == Some(true) => {
                    return Err(format!(
                        "the prompt `{name}` needs the argument `{}`, and none was given",
                        arg.name
                    ));
                }
                None => {}
            }
        }
        let rendered = ctx
            .prompts()
            .get(name.as_str(), args)
            .await
            .map_err(|error| format!("the prompt `{name}` failed: {error}"))?;
        neva::svir::prompt_messages(rendered)
            .map_err(|error| format!("the prompt `{name}` cannot be passed on: {error}"))
    }
}

/// A prompt argument's value as MCP carries it, a string: a string as it is, any other value as
/// its JSON; `null` is no value.
fn prompt_value(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(text) => Some(text.clone()),
        other => Some(other.to_string()),
    }
}

/// The resource at `uri` as parts of a message.
async fn read(ctx: &Context, uri: &str) -> Result<Vec<Part>, String> {
    let contents = ctx
        .resources()
        .read(uri)
        .await
        .map_err(|error| format!("the resource `{uri}` could not be read: {error}"))?;
    neva::svir::resource_parts(contents)
        .map_err(|error| format!("the resource `{uri}` cannot be passed on: {error}"))
}

/// The prompt's messages, then the brief's; the brief's first message continues the prompt's
/// last one when both are the user's, so the turn stays one message.
fn join(opening: Vec<Message>, brief: Vec<Message>) -> Vec<Message> {
    let mut messages = opening;
    let mut brief = brief.into_iter();
    match (messages.last_mut(), brief.next()) {
        (Some(last), Some(first)) if last.role == Role::User && first.role == Role::User => {
            last.parts.extend(first.parts);
        }
        (_, Some(first)) => messages.push(first),
        (_, None) => {}
    }
    messages.extend(brief);
    messages
}

/// `parts` at the end of the last user message, or as a user message of their own at the end
/// when there is none.
fn attach(messages: &mut Vec<Message>, parts: Vec<Part>) {
    match messages
        .iter_mut()
        .rev()
        .find(|message| message.role == Role::User)
    {
        Some(message) => message.parts.extend(parts),
        None => messages.push(
            parts
                .into_iter()
                .fold(Message::new(Role::User), Message::with),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_brief_continues_the_prompts_user_turn() {
        let opening = vec![
            Message::user("Review the board."),
            Message::assistant("Sure."),
        ];
        let joined = join(opening, vec![Message::user("Focus on the release.")]);
        assert_eq!(joined.len(), 3);

        let opening = vec![Message::user("Review the board.")];
        let joined = join(opening, vec![Message::user("Focus on the release.")]);
        assert_eq!(joined.len(), 1);
        assert_eq!(joined[0].parts.len(), 2);
    }

    #[test]
    fn resources_go_to_the_last_user_message() {
        let mut messages = vec![
            Message::user("first"),
            Message::assistant("ok"),
            Message::user("second"),
        ];
        attach(&mut messages, vec![Part::Text("file".into())]);
        assert_eq!(messages[2].parts.len(), 2);
        assert_eq!(messages[0].parts.len(), 1);

        let mut none = Vec::new();
        attach(&mut none, vec![Part::Text("file".into())]);
        assert_eq!(none.len(), 1);
        assert_eq!(none[0].role, Role::User);
    }

    #[test]
    fn prompt_values_are_strings() {
        assert_eq!(prompt_value(&Value::from("a")), Some("a".to_owned()));
        assert_eq!(prompt_value(&Value::from(3)), Some("3".to_owned()));
        assert_eq!(prompt_value(&Value::Null), None);
    }
}

//! A remote tool's answer as its model is told it: the text, and in the place of each part that
//! cannot be passed on to a model (an image, audio, a binary resource) a line saying so, so the
//! text around it still reaches the model. neva 0.9's bridge fails the whole result at the first
//! such part, its text with it.

use neva::error::Error;
use neva::types::{CallToolResponse, Content, ResourceContents};
use svir::ToolResult;

use super::printable::printable;

/// What separates the parts of a result, as neva's bridge and svir join them.
const SEPARATOR: &str = "\n\n";

/// The result of call `call_id` that `outcome` tells.
pub(crate) fn told(call_id: &str, outcome: Result<CallToolResponse, Error>) -> ToolResult {
    let response = match outcome {
        Ok(response) => response,
        Err(error) => return ToolResult::error(call_id, error.to_string()),
    };
    let mut parts = Vec::new();
    let mut has_text = false;
    for part in response.content {
        match part {
            Content::Text(text) => {
                has_text = true;
                parts.push(text.text);
            }
            Content::ResourceLink(link) => parts.push(format!("{}: {}", link.name, link.uri)),
            Content::Resource(embedded) => match embedded.resource {
                ResourceContents::Text(resource) => parts.push(resource.text),
                ResourceContents::Json(resource) => parts.push(resource.value.to_string()),
                ResourceContents::Blob(resource) => parts.push(left_out(&format!(
                    "a binary resource ({})",
                    printable(&resource.uri.to_string())
                ))),
                ResourceContents::Empty(_) => {}
            },
            Content::Image(image) => {
                parts.push(left_out(&format!("an image ({})", printable(&image.mime))));
            }
            Content::Audio(audio) => {
                parts.push(left_out(&format!("audio ({})", printable(&audio.mime))));
            }
            Content::ToolUse(_) | Content::ToolResult(_) => {
                parts.push(left_out("sampling content"))
            }
            Content::Empty(_) => {}
        }
    }
    if !has_text && let Some(structured) = response.struct_content {
        parts.push(structured.to_string());
    }
    let text = parts.join(SEPARATOR);
    match response.is_error {
        true => ToolResult::error(call_id, text),
        false => ToolResult::new(call_id, text),
    }
}

/// What the model is told in the place of `what`.
fn left_out(what: &str) -> String {
    format!("[The tool returned {what} here, which cannot be passed on to the model.]")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_image_between_two_texts_leaves_both_texts_and_says_what_was_left_out() {
        let response: CallToolResponse = serde_json::from_value(json!({
            "content": [
                {"type": "text", "text": "before"},
                {"type": "image", "data": "aGk=", "mimeType": "image/png"},
                {"type": "text", "text": "after"},
            ],
        }))
        .expect("a result");
        let result = told("1", Ok(response));
        assert!(!result.is_error);
        assert_eq!(
            result.content,
            "before\n\n[The tool returned an image (image/png) here, which cannot be passed on \
             to the model.]\n\nafter"
        );
    }
}

//! The prompts of every protocol version, and the completion of their arguments.

use neva::prelude::*;
use neva::types::{CompleteRequestParams, Completion};

/// Scenario `prompts-get-simple`.
#[prompt(descr = "A prompt without arguments")]
fn test_simple_prompt() -> PromptMessage {
    PromptMessage::user().with("This is a simple prompt for testing.")
}

/// Scenario `prompts-get-with-args`; `completion-complete` completes its arguments.
#[prompt(
    descr = "A prompt with two required arguments",
    args = r#"[
        { "name": "arg1", "description": "First test argument", "required": true },
        { "name": "arg2", "description": "Second test argument", "required": true }
    ]"#
)]
fn test_prompt_with_arguments(arg1: String, arg2: String) -> PromptMessage {
    PromptMessage::user().with(format!(
        "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
    ))
}

/// Scenario `prompts-get-embedded-resource`.
#[prompt(
    descr = "A prompt that embeds the resource it is given",
    args = r#"[
        { "name": "resourceUri", "description": "URI of the resource to embed", "required": true }
    ]"#
)]
fn test_prompt_with_embedded_resource(resource_uri: String) -> Vec<PromptMessage> {
    let embedded = ResourceContents::new(resource_uri)
        .with_mime("text/plain")
        .with_text("Embedded resource content for testing.");
    vec![
        PromptMessage::user().with(Content::resource(embedded)),
        PromptMessage::user().with("Please process the embedded resource above."),
    ]
}

/// Scenario `prompts-get-with-image`.
#[prompt(descr = "A prompt that shows an image")]
fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::user().with(crate::content::red_pixel()),
        PromptMessage::user().with("Please analyze the image above."),
    ]
}

/// The words an argument's value is completed from.
const WORDS: [&str; 5] = ["paris", "park", "party", "hello", "world"];

/// Scenario `completion-complete`: the words of [`WORDS`] that start with the typed value.
#[completion]
fn complete(params: CompleteRequestParams) -> Completion {
    let typed = params.arg.value;
    let values: Vec<&str> = WORDS
        .into_iter()
        .filter(|word| word.starts_with(typed.as_str()))
        .collect();
    let total = values.len();
    Completion::new(values, total)
}

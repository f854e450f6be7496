//! A model request as MCP's `sampling/createMessage` puts it to a caller, and the caller's
//! sample as the model's answer: the reverse of neva's `sampling_request` and
//! `sampling_result`, which a caller answers sampling with.
//!
//! The system prompt, the conversation, the tools, `toolChoice`, `maxTokens` and the
//! temperature carry over. A model's call is a `tool_use` block in the assistant's message, its
//! result a `tool_result` block in a user message (MCP has no tool role). Images, files and
//! reasoning have no place in a sample the server asks for: an image or a file is an error,
//! reasoning is left out.

use neva::types::sampling::{CreateMessageRequestParams, CreateMessageResult};
use serde_json::{Value, json};
use svir::{Completion, ErrorKind, FinishReason, Part, Request, Role, ToolCall, ToolChoice};

/// How many tokens a sample may have when the request sets no bound: MCP's `maxTokens` is
/// required.
pub(crate) const DEFAULT_MAX_TOKENS: u64 = 4096;

/// `request` as the params of `sampling/createMessage`.
pub(crate) fn params(request: &Request) -> Result<CreateMessageRequestParams, svir::Error> {
    let mut messages: Vec<Value> = Vec::new();
    for message in &request.messages {
        // A tool's result is the user's to give back.
        let role = match message.role {
            Role::Assistant => "assistant",
            _ => "user",
        };
        let content = message
            .parts
            .iter()
            .filter_map(|part| block(part).transpose())
            .collect::<Result<Vec<_>, _>>()?;
        if content.is_empty() {
            continue;
        }
        messages.push(json!({ "role": role, "content": content }));
    }
    let mut params = json!({
        "messages": messages,
        "maxTokens": request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
    });
    if let Some(system) = &request.system {
        params["systemPrompt"] = json!(system);
    }
    if let Some(temperature) = request.temperature {
        params["temperature"] = json!(temperature);
    }
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "name": tool.name,
                    "description": tool.description,
                    "inputSchema": tool.input_schema,
                })
            })
            .collect();
        params["tools"] = json!(tools);
        let mode = match &request.tool_choice {
            ToolChoice::Required => "required",
            ToolChoice::None => "none",
            _ => "auto",
        };
        params["toolChoice"] = json!({ "mode": mode });
    }
    serde_json::from_value(params)
        .map_err(|error| unsupported("a request MCP sampling cannot carry").with_source(error))
}

/// One part of a message as a sampling content block; none for what is left out.
fn block(part: &Part) -> Result<Option<Value>, svir::Error> {
    Ok(Some(match part {
        Part::Text(text) if text.is_empty() => return Ok(None),
        Part::Text(text) => json!({ "type": "text", "text": text }),
        Part::ToolCall(call) => {
            let input: Value = serde_json::from_str(&call.arguments)
                .ok()
                .filter(Value::is_object)
                .unwrap_or_else(|| json!({}));
            json!({ "type": "tool_use", "id": call.id, "name": call.name, "input": input })
        }
        Part::ToolResult(result) => json!({
            "type": "tool_result",
            "toolUseId": result.call_id,
            "content": [{ "type": "text", "text": result.content }],
            "isError": result.is_error,
        }),
        Part::Reasoning(_) => return Ok(None),
        _ => return Err(unsupported("an image or a file in the conversation")),
    }))
}

/// The caller's `sample` as the model's answer: its text, and a call per `tool_use` block.
pub(crate) fn completion(sample: &CreateMessageResult) -> Result<Completion, svir::Error> {
    let sample = serde_json::to_value(sample)
        .map_err(|error| protocol("the caller's sample does not read").with_source(error))?;
    let blocks = match &sample["content"] {
        Value::Array(blocks) => blocks.clone(),
        Value::Null => Vec::new(),
        block => vec![block.clone()],
    };
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    for block in blocks {
        match block["type"].as_str() {
            Some("text") => texts.push(block["text"].as_str().unwrap_or_default().to_owned()),
            Some("tool_use") => {
                let (Some(id), Some(name)) = (block["id"].as_str(), block["name"].as_str()) else {
                    return Err(protocol("a tool_use block of the sample has no id or name"));
                };
                let input = match &block["input"] {
                    Value::Null => json!({}),
                    input => input.clone(),
                };
                calls.push(ToolCall::new(id, name, input.to_string()));
            }
            _ => {
                return Err(protocol(
                    "the sample holds a block that is not text nor a call",
                ));
            }
        }
    }
    let finish = match (sample["stopReason"].as_str(), calls.is_empty()) {
        (_, false) => FinishReason::ToolCalls,
        (Some("maxTokens"), true) => FinishReason::Length,
        (Some("refusal"), true) => FinishReason::Refusal,
        (Some("contentFilter"), true) => FinishReason::ContentFilter,
        _ => FinishReason::Stop,
    };
    let mut done = Completion::new(finish);
    done.text = texts.join("\n");
    done.calls = calls;
    Ok(done)
}

/// The error of a request sampling cannot carry.
fn unsupported(what: &'static str) -> svir::Error {
    svir::Error::new(ErrorKind::Unsupported)
        .with_detail(format!("MCP sampling cannot carry {what}"))
}

/// The error of a sample that does not read.
fn protocol(what: &'static str) -> svir::Error {
    svir::Error::new(ErrorKind::Protocol).with_detail(what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_with_calls_and_results_is_a_sampling_request_neva_reads_back() {
        let tool = svir::Tool::new("add_task", "Adds a task")
            .schema(json!({"type": "object", "properties": {"title": {"type": "string"}}}));
        let mut done = Completion::new(FinishReason::ToolCalls);
        done.calls = vec![ToolCall::new("c1", "add_task", r#"{"title":"Ship"}"#)];
        let request = Request::new("caller")
            .system("Plan the week.")
            .user("Around the release.")
            .tool(tool)
            .assistant(done)
            .tool_results(vec![svir::ToolResult::new("c1", "Added task 1: Ship")]);

        let params = params(&request).expect("carried");
        // neva turns it back into the request a caller's model is sent.
        let back = neva::svir::sampling_request("qwen3", params).expect("read back");
        assert_eq!(back.system.as_deref(), Some("Plan the week."));
        assert_eq!(back.tools.len(), 1);
        assert_eq!(back.tools[0].name, "add_task");
        let roles: Vec<_> = back.messages.iter().map(|message| message.role).collect();
        assert_eq!(roles, [Role::User, Role::Assistant, Role::Tool]);
        assert_eq!(back.max_tokens, Some(DEFAULT_MAX_TOKENS));
    }

    #[test]
    fn a_sample_with_a_call_is_a_completion_that_calls() {
        let request = Request::new("qwen3").user("Plan.");
        let mut answer = Completion::new(FinishReason::ToolCalls);
        answer.text = "Adding it.".into();
        answer.calls = vec![ToolCall::new("c7", "add_task", r#"{"title":"Ship"}"#)];
        let sample = neva::svir::sampling_result(&request, answer).expect("a sample");

        let done = completion(&sample).expect("read");
        assert_eq!(done.finish, FinishReason::ToolCalls);
        assert_eq!(done.text, "Adding it.");
        assert_eq!(done.calls.len(), 1);
        assert_eq!(done.calls[0].id, "c7");
        let arguments: Value = serde_json::from_str(&done.calls[0].arguments).unwrap();
        assert_eq!(arguments, json!({"title": "Ship"}));
    }

    #[test]
    fn an_image_in_the_conversation_is_refused_not_dropped() {
        let image = svir::Image::bytes(vec![0x89, 0x50], "image/png");
        let request = Request::new("caller").message(svir::Message::user("Look").with(image));
        let error = params(&request).expect_err("refused");
        assert_eq!(error.kind(), ErrorKind::Unsupported);
    }
}

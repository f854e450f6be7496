//! MCP 2026-07-28: the diagnostic tools of the stateless scenario (SEP-2575). One asks for
//! input its caller did not declare it can give, one asks for input on the call's own stream,
//! one logs, and two change the tool and prompt lists for a `subscriptions/listen` stream to
//! hear.

use neva::prelude::*;
use neva::types::sampling::CreateMessageRequestParams;

/// The tool and the prompt the two triggers put in their lists again.
const DYNAMIC: &str = "test_dynamic";

/// Scenario `server-stateless`: neva refuses the question with -32021 when sampling was not
/// declared.
#[tool(descr = "Asks its caller's model, whether or not the caller declared sampling")]
async fn test_missing_capability(ctx: Context) -> Result<String, Error> {
    let params = CreateMessageRequestParams::new()
        .with_message("Say hello")
        .with_max_tokens(10);
    #[allow(deprecated)] // sampling, kept in MCP 2026-07-28 as an input request
    let answer = ctx.sample("hello", params).await?;
    Ok(format!("The model answered with {:?}", answer.content))
}

/// Scenario `server-stateless`: the call's stream carries no request of the server's.
#[tool(descr = "Asks its caller a question before it answers")]
async fn test_streaming_elicitation(ctx: Context) -> Result<String, Error> {
    let question = neva::types::elicitation::ElicitRequestParams::form("Go on?")
        .with_required("go", "boolean")
        .into();
    let answer = ctx.elicit("go", question).await?;
    Ok(format!("Answered {:?}", answer.action))
}

/// Scenario `server-stateless`: nothing is logged to a caller that asked for no log level.
#[tool(descr = "Logs three lines at info, then answers")]
fn test_logging_tool() -> &'static str {
    for line in ["started", "working", "done"] {
        tracing::info!(target: crate::TO_CALLER, "{line}");
    }
    "Logged three lines"
}

/// Scenario `server-stateless`: a `subscriptions/listen` stream hears the tool list change.
#[tool(descr = "Puts the tool `test_dynamic` in the tool list again")]
async fn test_trigger_tool_change(ctx: Context) -> Result<String, Error> {
    let tools = ctx.tools();
    tools.remove(DYNAMIC).await?;
    let mut tool = Tool::new(DYNAMIC, || "A tool added at run time");
    tool.with_description("A tool `test_trigger_tool_change` adds");
    tools.add(tool).await?;
    Ok("The tool list changed".to_owned())
}

/// Scenario `server-stateless`: a `subscriptions/listen` stream hears the prompt list change.
#[tool(descr = "Puts the prompt `test_dynamic` in the prompt list again")]
async fn test_trigger_prompt_change(ctx: Context) -> Result<String, Error> {
    let prompts = ctx.prompts();
    prompts.remove(DYNAMIC).await?;
    let mut prompt = Prompt::new(DYNAMIC, || {
        PromptMessage::user().with("A prompt added at run time")
    });
    prompt.with_description("A prompt `test_trigger_prompt_change` adds");
    prompts.add(prompt).await?;
    Ok("The prompt list changed".to_owned())
}

//! The scenario's three tools, as rig tools.

use std::convert::Infallible;

use rig_agent::tool::{Tool, ToolContext};
use serde::Deserialize;
use serde_json::json;

/// Looks a key up.
pub struct Lookup;

/// Adds two numbers.
pub struct Add;

/// Says the text back.
pub struct Echo;

#[derive(Deserialize)]
pub struct Key {
    key: String,
}

#[derive(Deserialize)]
pub struct Terms {
    a: i64,
    b: i64,
}

#[derive(Deserialize)]
pub struct Text {
    text: String,
}

impl Tool for Lookup {
    const NAME: &'static str = "lookup";
    type Args = Key;
    type Output = String;
    type Error = Infallible;

    fn description(&self) -> String {
        "Looks a key up".to_owned()
    }

    fn parameters(&self) -> serde_json::Value {
        json!({"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]})
    }

    async fn call(&self, _: &mut ToolContext, args: Key) -> Result<String, Infallible> {
        Ok(format!("{}: Friday", args.key))
    }
}

impl Tool for Add {
    const NAME: &'static str = "add";
    type Args = Terms;
    type Output = String;
    type Error = Infallible;

    fn description(&self) -> String {
        "Adds two numbers".to_owned()
    }

    fn parameters(&self) -> serde_json::Value {
        json!({
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        })
    }

    async fn call(&self, _: &mut ToolContext, args: Terms) -> Result<String, Infallible> {
        Ok((args.a + args.b).to_string())
    }
}

impl Tool for Echo {
    const NAME: &'static str = "echo";
    type Args = Text;
    type Output = String;
    type Error = Infallible;

    fn description(&self) -> String {
        "Says the text back".to_owned()
    }

    fn parameters(&self) -> serde_json::Value {
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
    }

    async fn call(&self, _: &mut ToolContext, args: Text) -> Result<String, Infallible> {
        Ok(args.text)
    }
}

//! Deferred tools: those a run does not offer up front, and `search_tools`, the one tool the
//! model finds them with.

use serde::Deserialize;
use serde_json::json;
use svir::{Tool, ToolCall, ToolResult};

use super::search::ToolIndex;
use super::selection::ToolPattern;

/// The name of the tool a run offers in place of its deferred tools.
pub const SEARCH_TOOLS: &str = "search_tools";

/// How many tools a search answers when the model does not say.
pub const DEFAULT_SEARCH_LIMIT: usize = 5;

/// The most tools one search answers, whatever the model asks for.
const MAX_SEARCH_LIMIT: usize = 20;

/// Which tools a run defers: those matching one of its patterns. None unless told.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Deferral {
    patterns: Vec<ToolPattern>,
}

/// What the model passes to `search_tools`.
#[derive(Deserialize)]
struct Search {
    query: String,
    #[serde(default)]
    limit: Option<usize>,
}

impl Deferral {
    /// Defers the tools that match one of `patterns` too.
    pub(crate) fn add(&mut self, patterns: impl IntoIterator<Item = ToolPattern>) {
        self.patterns.extend(patterns);
    }

    /// Whether no tool is deferred.
    pub(crate) fn is_none(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Whether the tool `name` is deferred.
    pub(crate) fn defers(&self, name: &str) -> bool {
        self.patterns.iter().any(|pattern| pattern.matches(name))
    }

    /// Whether `call` is a search, answered by the run rather than by its toolbox.
    pub(crate) fn answers(&self, call: &ToolCall) -> bool {
        !self.is_none() && call.name == SEARCH_TOOLS
    }
}

/// The `search_tools` tool as the model is offered it.
pub(crate) fn search_tool() -> Tool {
    Tool::new(
        SEARCH_TOOLS,
        "Finds more tools you can use: give a few words saying what you want done. Answers the \
         best matches with their names, descriptions and parameters, as JSON; each tool found \
         can be called from your next turn on.",
    )
    .schema(json!({
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "What you want a tool to do, in a few words",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_SEARCH_LIMIT,
                "description": format!("How many tools to answer at most ({DEFAULT_SEARCH_LIMIT} unless given)"),
            },
        },
        "required": ["query"],
    }))
}

/// The answer to the search `call` in `index`, as JSON text, and the tools it found.
pub(crate) fn answer<'a>(index: &'a ToolIndex, call: &ToolCall) -> (ToolResult, Vec<&'a Tool>) {
    let search = match call.parse::<Search>() {
        Ok(search) => search,
        Err(error) => {
            let told =
                format!("`{SEARCH_TOOLS}` takes a `query` string and an optional `limit`: {error}");
            return (ToolResult::error(&call.id, told), Vec::new());
        }
    };
    let limit = (search.limit.unwrap_or(DEFAULT_SEARCH_LIMIT)).clamp(1, MAX_SEARCH_LIMIT);
    let found = index.search(&search.query, limit);
    let tools: Vec<_> = found
        .iter()
        .map(|tool| {
            json!({
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.input_schema,
            })
        })
        .collect();
    let note = match tools.is_empty() {
        true => "No tool matches: try other words.",
        false => "Each of these tools can be called from your next turn on.",
    };
    let answer = json!({"query": search.query, "tools": tools, "note": note});
    (ToolResult::new(&call.id, answer.to_string()), found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn index() -> ToolIndex {
        ToolIndex::new(vec![
            Tool::new("invoice_send", "Sends an invoice").schema(json!({
                "type": "object",
                "properties": {"customer": {"type": "string"}},
                "required": ["customer"],
            })),
            Tool::new("invoice_void", "Voids an invoice"),
            Tool::new("weather_now", "The weather"),
        ])
    }

    fn search(arguments: Value) -> (ToolResult, Vec<String>) {
        let index = index();
        let call = ToolCall::new("c1", SEARCH_TOOLS, arguments.to_string());
        let (result, found) = answer(&index, &call);
        (result, found.iter().map(|tool| tool.name.clone()).collect())
    }

    #[test]
    fn the_answer_gives_each_tool_found_with_its_parameters_as_json() {
        let (result, found) = search(json!({"query": "send an invoice", "limit": 1}));
        assert!(!result.is_error);
        assert_eq!(found, ["invoice_send"]);
        let answer: Value = serde_json::from_str(&result.content).expect("JSON text");
        assert_eq!(answer["query"], "send an invoice");
        assert_eq!(answer["tools"][0]["name"], "invoice_send");
        assert_eq!(answer["tools"][0]["description"], "Sends an invoice");
        assert_eq!(
            answer["tools"][0]["parameters"]["properties"]["customer"]["type"],
            "string"
        );
        assert_eq!(answer["tools"].as_array().map(Vec::len), Some(1));
    }

    #[test]
    fn the_limit_is_five_unless_given_and_never_past_twenty() {
        assert_eq!(search(json!({"query": "invoice"})).1.len(), 2);
        assert_eq!(search(json!({"query": "invoice", "limit": 0})).1.len(), 1);
        let many: Vec<_> = (0..30)
            .map(|at| Tool::new(format!("tool_{at:02}"), "Does a thing"))
            .collect();
        let index = ToolIndex::new(many);
        let call = ToolCall::new(
            "c1",
            SEARCH_TOOLS,
            json!({"query": "thing", "limit": 100}).to_string(),
        );
        assert_eq!(answer(&index, &call).1.len(), MAX_SEARCH_LIMIT);
        let call = ToolCall::new("c2", SEARCH_TOOLS, json!({"query": "thing"}).to_string());
        assert_eq!(answer(&index, &call).1.len(), DEFAULT_SEARCH_LIMIT);
    }

    #[test]
    fn nothing_found_says_so_and_bad_arguments_are_an_error_result() {
        let (result, found) = search(json!({"query": "calendar"}));
        assert!(found.is_empty() && !result.is_error);
        assert!(
            result.content.contains("No tool matches"),
            "{}",
            result.content
        );

        let (result, found) = search(json!({"words": "invoice"}));
        assert!(found.is_empty() && result.is_error);
        assert!(
            result.content.contains("takes a `query` string"),
            "{}",
            result.content
        );
    }

    #[test]
    fn a_deferral_answers_searches_only_when_it_defers_something() {
        let call = ToolCall::new("c1", SEARCH_TOOLS, r#"{"query": "x"}"#);
        let mut deferral = Deferral::default();
        assert!(deferral.is_none() && !deferral.answers(&call));
        deferral.add([ToolPattern::new("invoice_*").expect("a pattern")]);
        assert!(deferral.answers(&call));
        assert!(deferral.defers("invoice_send") && !deferral.defers("weather_now"));
    }
}

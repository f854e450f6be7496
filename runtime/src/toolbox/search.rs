//! The deferred tools' index: BM25 over each tool's name, description and parameter names,
//! ranked the same way every time.

use std::cmp::Ordering;
use std::collections::HashMap;

use bm25::{DefaultTokenizer, Embedder, EmbedderBuilder, Scorer, Tokenizer};
use svir::Tool;

/// The tools a run does not offer up front, ranked for a query by BM25 (the `bm25` crate, with
/// English stemming and stop words). Tool names are split into their words first
/// (`board_add_task`, `boardAddTask` and `board.add-task` are all "board add task"), so a query
/// in plain words finds them. Equal scores are ordered by name, so a query always answers the
/// same tools in the same order.
pub(crate) struct ToolIndex {
    tools: Vec<Tool>,
    tokenizer: ToolTokenizer,
    /// Embeds text the tokenizer has made tokens of already: each text is tokenized once.
    embedder: Embedder<u32, Tokenized>,
    scorer: Scorer<usize, u32>,
}

impl ToolIndex {
    /// An index of `tools`.
    pub(crate) fn new(tools: Vec<Tool>) -> Self {
        let tokenizer = ToolTokenizer::default();
        let mut known = HashMap::new();
        let documents: Vec<String> = (tools.iter())
            .map(|tool| tokenizer.tokenize(&document(tool), &mut known).join(" "))
            .collect();
        let corpus: Vec<&str> = documents.iter().map(String::as_str).collect();
        let embedder =
            EmbedderBuilder::with_tokenizer_and_fit_to_corpus(Tokenized, &corpus).build();
        let mut scorer = Scorer::new();
        for (at, document) in corpus.iter().enumerate() {
            scorer.upsert(&at, embedder.embed(document));
        }
        Self {
            tools,
            tokenizer,
            embedder,
            scorer,
        }
    }

    /// The tools that match `query` best, at most `limit`, best first; equal scores by name.
    /// None when no word of the query is in any tool.
    pub(crate) fn search(&self, query: &str, limit: usize) -> Vec<&Tool> {
        let query = (self.tokenizer.tokenize(query, &mut HashMap::new())).join(" ");
        let mut matches = self.scorer.matches(&self.embedder.embed(&query));
        matches.sort_by(|a, b| {
            (b.score.partial_cmp(&a.score).unwrap_or(Ordering::Equal))
                .then_with(|| self.tools[a.id].name.cmp(&self.tools[b.id].name))
        });
        matches
            .iter()
            .take(limit)
            .map(|found| &self.tools[found.id])
            .collect()
    }

    /// How many tools it holds.
    pub(crate) fn len(&self) -> usize {
        self.tools.len()
    }
}

/// What a tool is searched by: its name, its description, and the names of its parameters.
fn document(tool: &Tool) -> String {
    let parameters = tool.input_schema["properties"]
        .as_object()
        .into_iter()
        .flat_map(|properties| properties.keys().map(String::as_str));
    let mut text = format!("{} {}", tool.name, tool.description);
    for parameter in parameters {
        text.push(' ');
        text.push_str(parameter);
    }
    text
}

/// The `bm25` crate's English tokenizer (stop words, stems), given identifiers split into their
/// words, one word at a time.
#[derive(Default)]
struct ToolTokenizer(DefaultTokenizer);

impl ToolTokenizer {
    /// The tokens of `text`, each word's looked up in `known` first: tool texts say the same
    /// words again and again, and stemming is most of the work.
    fn tokenize(&self, text: &str, known: &mut HashMap<String, Vec<String>>) -> Vec<String> {
        let split = split_identifiers(text);
        let words = split.split(|c: char| !c.is_alphanumeric() && c != '\'');
        let mut tokens = Vec::new();
        for word in words.filter(|word| !word.is_empty()) {
            let word = word.to_lowercase();
            let stems = known
                .entry(word)
                .or_insert_with_key(|word| self.0.tokenize(word));
            tokens.extend(stems.iter().cloned());
        }
        tokens
    }
}

/// Text made of tokens already, a space apart.
struct Tokenized;

impl Tokenizer for Tokenized {
    fn tokenize(&self, input_text: &str) -> Vec<String> {
        input_text
            .split(' ')
            .filter(|token| !token.is_empty())
            .map(str::to_owned)
            .collect()
    }
}

/// `text` with `_`, `-`, `.` and `/` as spaces, and a space before each capital that follows a
/// small letter or a digit: `addTask` and `add_task` read as `add Task` and `add task`.
fn split_identifiers(text: &str) -> String {
    let mut split = String::with_capacity(text.len() + 8);
    let mut before = ' ';
    for c in text.chars() {
        match c {
            '_' | '-' | '.' | '/' => split.push(' '),
            c if c.is_uppercase() && (before.is_lowercase() || before.is_ascii_digit()) => {
                split.push(' ');
                split.push(c);
            }
            c => split.push(c),
        }
        before = c;
    }
    split
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, description: &str) -> Tool {
        Tool::new(name, description)
    }

    fn names<'a>(found: &[&'a Tool]) -> Vec<&'a str> {
        found.iter().map(|tool| tool.name.as_str()).collect()
    }

    #[test]
    fn identifiers_are_split_into_words() {
        assert_eq!(
            split_identifiers("board_add-task.now"),
            "board add task now"
        );
        assert_eq!(split_identifiers("addTask2Board"), "add Task2 Board");
        assert_eq!(split_identifiers("HTTPGet"), "HTTPGet");
    }

    #[test]
    fn the_best_match_comes_first() {
        let index = ToolIndex::new(vec![
            tool("weather_now", "The weather where you are"),
            tool("invoice_send", "Sends an invoice to a customer by mail"),
            tool("invoice_list", "Lists the invoices of a customer"),
        ]);
        let found = index.search("send the invoice", 3);
        assert_eq!(names(&found), ["invoice_send", "invoice_list"]);
    }

    #[test]
    fn words_of_names_and_stems_match() {
        let index = ToolIndex::new(vec![
            tool("crmCreateContact", "Adds a person"),
            tool("calendar_book", "Books a room"),
        ]);
        assert_eq!(
            names(&index.search("create contacts", 5)),
            ["crmCreateContact"]
        );
        assert_eq!(names(&index.search("booking", 5)), ["calendar_book"]);
    }

    #[test]
    fn parameter_names_are_searched_too() {
        let index = ToolIndex::new(vec![
            tool("convert", "Converts a value").schema(json!({
                "type": "object",
                "properties": {"currency": {"type": "string"}, "amount": {"type": "number"}},
            })),
            tool("round", "Rounds a value"),
        ]);
        assert_eq!(names(&index.search("currency", 5)), ["convert"]);
    }

    #[test]
    fn equal_scores_are_ordered_by_name_whatever_the_order_given() {
        let tools = ["tool_c", "tool_a", "tool_b"].map(|name| tool(name, "Does the same thing"));
        let index = ToolIndex::new(tools.to_vec());
        let mut reversed = tools.to_vec();
        reversed.reverse();
        let again = ToolIndex::new(reversed);
        for _ in 0..5 {
            assert_eq!(
                names(&index.search("same thing", 10)),
                ["tool_a", "tool_b", "tool_c"]
            );
            assert_eq!(names(&again.search("same thing", 2)), ["tool_a", "tool_b"]);
        }
    }

    #[test]
    fn a_query_of_no_known_word_finds_nothing() {
        let index = ToolIndex::new(vec![tool("weather_now", "The weather")]);
        assert!(index.search("invoice", 5).is_empty());
        assert!(index.search("", 5).is_empty());
        assert!(index.search("the", 5).is_empty(), "a stop word alone");
        assert_eq!(index.len(), 1);
    }
}

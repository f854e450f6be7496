//! The scripted model of a case: it answers from what each request carries (the brief, the
//! turns done since as its own words and summaries say, what it is asked for), never from a
//! count of its own, so a request asked twice is answered twice the same; and it keeps what it
//! answered, for the checks.

use std::sync::{Arc, Mutex};

use ladoga::context::SUMMARY_HEADING;
use ladoga::testing::{Reply, ScriptedModel, SeenRequest};
use serde_json::{Value, json};

use super::setup::{
    ANSWER, AT_BOUND, COSTLY, Call, INNER_TOKENS, Runaway, SECOND_BRIEF, Setup, WENT_ON,
    first_brief, typed_answer,
};

/// What a request asked of the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// A turn of the run.
    Turn,
    /// A summary of the oldest turns (`context`), not a turn.
    Summary,
    /// The answer as JSON of the output type (`output`).
    Json,
    /// The answer at a bound, tools refused (`on_limit = "answer"`).
    AtBound,
}

/// One answer the model gave.
#[derive(Debug, Clone)]
pub struct Heard {
    pub asked: Asked,
    pub text: String,
    /// Each call with the id the scripted server gives it: `call_{request}_{index}`.
    pub calls: Vec<(String, Call)>,
    /// The tokens it reported: `(input, output)`.
    pub usage: (u64, u64),
}

/// A case's model and what it answered, request by request.
#[derive(Clone)]
pub struct Script {
    pub model: ScriptedModel,
    heard: Arc<Mutex<Vec<Heard>>>,
}

impl Script {
    /// The model of `setup`'s plan.
    pub fn of(setup: &Setup) -> Self {
        let heard = Arc::new(Mutex::new(Vec::<Heard>::new()));
        let (turns, runaway, case) = (setup.turns(), setup.runaway, setup.case.clone());
        let kept = Arc::clone(&heard);
        let model = ScriptedModel::from_fn(move |seen| {
            let mut kept = kept.lock().unwrap();
            let heard = respond(seen, &turns, runaway, &case, kept.len() + 1);
            let reply = reply_of(&heard);
            kept.push(heard);
            reply
        });
        Self { model, heard }
    }

    /// What it answered, in the order of its requests.
    pub fn heard(&self) -> Vec<Heard> {
        self.heard.lock().unwrap().clone()
    }
}

/// The model of `matrix_inner`: a note, then its answer, each reporting [`INNER_TOKENS`].
pub fn inner(case: &str) -> ScriptedModel {
    let case = case.to_owned();
    ScriptedModel::from_fn(move |seen| {
        let reply = match seen.tool_results().len() {
            0 => Reply::call("note", json!({"case": case, "key": "inner"})),
            _ => Reply::text("Inner done."),
        };
        reply.with_usage(INNER_TOKENS.0, INNER_TOKENS.1)
    })
}

/// A model that fails every request as a model server that is down: `fallback`'s primary.
pub fn down() -> ScriptedModel {
    ScriptedModel::from_fn(|_| Reply::failure(503, "the primary is down"))
}

/// The answer to `seen`, the `number`-th request.
fn respond(
    seen: &SeenRequest,
    turns: &[Vec<Call>],
    runaway: Option<Runaway>,
    case: &str,
    number: usize,
) -> Heard {
    let usage = (read(seen), 5);
    let said = |asked, text: &str| Heard {
        asked,
        text: text.to_owned(),
        calls: Vec::new(),
        usage,
    };
    if is_summary(seen) {
        // What a model keeps of the turns it summarises: how far the work went.
        let done = marks(&seen.first_user_text().unwrap_or_default());
        return said(Asked::Summary, &format!("SUMMARY: {done} turns done."));
    }
    if asks_for_json(seen) {
        return said(Asked::Json, &typed_answer().to_string());
    }
    if refuses_tools(seen) {
        return said(Asked::AtBound, AT_BOUND);
    }
    let Some((brief, done)) = since_brief(seen, case) else {
        return said(Asked::Turn, "I see no brief.");
    };
    if brief == SECOND_BRIEF {
        return said(Asked::Turn, WENT_ON);
    }
    let (calls, usage) = match turns.get(done) {
        Some(calls) => (calls.clone(), usage),
        None => match runaway {
            None => return said(Asked::Turn, ANSWER),
            Some(Runaway::Fresh) => (vec![more(case, done)], usage),
            Some(Runaway::Costly) => (vec![more(case, done)], (COSTLY, 5)),
            Some(Runaway::Same) => {
                let again = json!({"case": case, "key": "again"});
                (vec![Call::new("note", again)], usage)
            }
            Some(Runaway::Dawdle) => (vec![Call::new("dawdle", json!({"case": case}))], usage),
        },
    };
    Heard {
        asked: Asked::Turn,
        text: format!("Turn {}.", done + 1),
        calls: (calls.into_iter().enumerate())
            .map(|(index, call)| (format!("call_{number}_{index}"), call))
            .collect(),
        usage,
    }
}

/// A call the runaway model has not made before.
fn more(case: &str, turn: usize) -> Call {
    Call::new("note", json!({"case": case, "key": format!("more {turn}")}))
}

/// `heard` as the scripted server sends it.
fn reply_of(heard: &Heard) -> Reply {
    let reply = if heard.calls.is_empty() {
        Reply::text(&heard.text)
    } else {
        let calls =
            (heard.calls.iter()).map(|(_, call)| (call.tool.clone(), call.arguments.clone()));
        Reply::calls(calls).with_text(&heard.text)
    };
    reply.with_usage(heard.usage.0, heard.usage.1)
}

/// The tokens the model reads in `seen`, four bytes a token, as a provider counts them: what
/// lets `context` count the conversation as it grows.
pub fn read(seen: &SeenRequest) -> u64 {
    seen.body().to_string().len() as u64 / 4
}

/// Whether `seen` asks for a summary of turns (`context`): no tool offered, the task first.
pub fn is_summary(seen: &SeenRequest) -> bool {
    seen.tool_names().is_empty()
        && (seen.first_user_text()).is_some_and(|text| text.starts_with("The task:"))
}

/// Whether `seen` asks for the answer as JSON of the output type: `response_format`, or, from a
/// caller's sample, which has no place for it, the words of the request.
pub fn asks_for_json(seen: &SeenRequest) -> bool {
    seen.body().get("response_format").is_some()
        || last_user_text(seen).is_some_and(|text| text.contains("as JSON matching the"))
}

/// Whether `seen` refuses the model any tool: `tool_choice: none`, or, from a caller's sample,
/// which leaves the tools out instead, a request after calls that offers none.
fn refuses_tools(seen: &SeenRequest) -> bool {
    seen.tool_choice() == Some(&json!("none"))
        || (seen.tool_names().is_empty() && !seen.tool_results().is_empty())
}

/// The brief `seen` goes on from (the last user message that is one), and how many turns were
/// done since: what the model's own words after it say, its turns' and its summaries'.
fn since_brief(seen: &SeenRequest, case: &str) -> Option<(String, usize)> {
    let first = first_brief(case);
    let messages = seen.messages();
    let at = messages.iter().rposition(|message| {
        let text = text_of(&message["content"]);
        message["role"] == "user" && (text == first || text == SECOND_BRIEF)
    })?;
    let done = (messages[at..].iter())
        .map(|message| (&message["role"], text_of(&message["content"])))
        .filter(|(role, text)| *role == "assistant" || text.starts_with(SUMMARY_HEADING))
        .map(|(_, text)| marks(&text))
        .max()
        .unwrap_or(0);
    Some((text_of(&messages[at]["content"]), done))
}

/// How many turns `text` says were done: `Turn k.` is the text of the k-th, `SUMMARY: n turns
/// done.` a summary of the first n.
fn marks(text: &str) -> usize {
    let mut most = 0;
    for (marker, after) in [("Turn ", '.'), ("SUMMARY: ", ' ')] {
        for piece in text.split(marker).skip(1) {
            let digits: String = piece.chars().take_while(char::is_ascii_digit).collect();
            if piece[digits.len()..].starts_with(after) {
                most = most.max(digits.parse().unwrap_or(0));
            }
        }
    }
    most
}

/// The text of the last user message of `seen`.
fn last_user_text(seen: &SeenRequest) -> Option<String> {
    (seen.messages().iter())
        .rfind(|message| message["role"] == "user")
        .map(|message| text_of(&message["content"]))
}

/// A message's content as text: a string, or its text parts joined.
pub fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => (parts.iter())
            .filter_map(|part| part["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

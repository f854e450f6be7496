//! What every case must show, whatever its rows: nothing asked twice, every call answered once
//! and run once, the call ending as its rows say, and the report telling what the model saw.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Debug;

use ladoga::OnLimit;
use ladoga::testing::SeenRequest;
use serde_json::{Value, json};

use super::env::{Called, Case};
use super::script::{Asked, text_of};
use super::setup::{ANSWER, AT_BOUND, End, INNER_TOKENS, ModelKind, typed_answer};

/// What a case got wrong, each in a sentence.
#[derive(Debug, Default)]
pub struct Faults(pub Vec<String>);

impl Faults {
    /// Notes `fault` unless `ok`.
    pub fn check(&mut self, ok: bool, fault: impl FnOnce() -> String) {
        if !ok {
            self.0.push(fault());
        }
    }

    /// Notes that `what` is `got` when it should be `want`.
    pub fn same<T: PartialEq + Debug>(&mut self, what: &str, got: T, want: T) {
        self.check(got == want, || format!("{what}: {got:?}, not {want:?}"));
    }
}

/// Every check a case must pass, whatever its rows.
pub fn invariants(case: &Case, faults: &mut Faults) {
    for (model, requests) in [
        ("the plan's model", &case.requests),
        ("fallback's primary", &case.primary),
        ("the unused backup", &case.unused),
        ("the nested model", &case.inner),
    ] {
        asked_once(model, requests, faults);
        answered_once(model, requests, faults);
    }
    ran_once(case, faults);
    let forms: HashSet<String> = case.forms.iter().map(Value::to_string).collect();
    faults.check(forms.len() == case.forms.len(), || {
        format!("a form was shown twice: {:#?}", case.forms)
    });
    faults.check(case.setup.stream || case.lines.is_empty(), || {
        format!("a run that does not stream streamed {:?}", case.lines)
    });
    ended(case, faults);
    reported(case, faults);
    offered_first(case, faults);
}

/// No request was sent twice: a run that goes on never asks again for an answer it has.
fn asked_once(model: &str, requests: &[SeenRequest], faults: &mut Faults) {
    let mut seen = HashMap::new();
    for (index, request) in requests.iter().enumerate() {
        if let Some(first) = seen.insert(request.body().to_string(), index) {
            faults.0.push(format!(
                "{model} was sent request {index} again (first as {first})"
            ));
        }
    }
}

/// In every request, each call has exactly one result, after it, and each result a call.
fn answered_once(model: &str, requests: &[SeenRequest], faults: &mut Faults) {
    for (index, request) in requests.iter().enumerate() {
        let mut open: HashMap<String, usize> = HashMap::new();
        for message in request.messages() {
            for call in message["tool_calls"].as_array().into_iter().flatten() {
                let id = call["id"].as_str().unwrap_or_default().to_owned();
                if open.insert(id.clone(), 0).is_some() {
                    faults
                        .0
                        .push(format!("{model}'s request {index} has the call {id} twice"));
                }
            }
            if message["role"] == "tool" {
                let id = message["tool_call_id"].as_str().unwrap_or_default();
                match open.get_mut(id) {
                    Some(answers) => *answers += 1,
                    None => faults.0.push(format!(
                        "{model}'s request {index} answers {id}, which no call before it made"
                    )),
                }
            }
        }
        for (id, answers) in open {
            faults.check(answers == 1, || {
                format!("{model}'s request {index} answers the call {id} {answers} times")
            });
        }
    }
}

/// Each call of the tools ran once when its result says it ran, and never when it was refused
/// or dropped; the last answer's calls, whose results no request carried, ran only at the bounds
/// that run them first (`turns`, `budget`).
fn ran_once(case: &Case, faults: &mut Faults) {
    let results = first_results(&case.requests);
    let unseen_ran = matches!(case.setup.end(), End::Bound("turns" | "budget"));
    let mut want: BTreeMap<(String, String), usize> = BTreeMap::new();
    for heard in &case.heard {
        for (id, call) in &heard.calls {
            let Some((tool, key, done)) = ran_as(&call.tool, &call.arguments) else {
                continue;
            };
            let ran = match results.get(id) {
                Some(result) => result.starts_with(&done),
                None => unseen_ran,
            };
            *want.entry((tool, key)).or_default() += usize::from(ran);
        }
    }
    // The nested orchestrator's note, once for each of its runs that was told it ran.
    let inner = first_results(&case.inner);
    let noted = inner
        .values()
        .filter(|result| *result == "noted inner")
        .count();
    if noted > 0 {
        want.insert(("note".to_owned(), "inner".to_owned()), noted);
    }
    want.retain(|_, runs| *runs > 0);
    let mut got: BTreeMap<(String, String), usize> = BTreeMap::new();
    for run in &case.runs {
        *got.entry(run.clone()).or_default() += 1;
    }
    faults.same("the tools' runs (tool, key) => times", got, want);
}

/// The tool and key a call of `tool` is recorded under, and how its result starts when it ran;
/// `None` for what no tool of this file runs (`search_tools`, `ask_caller`).
fn ran_as(tool: &str, arguments: &Value) -> Option<(String, String, String)> {
    let arg = |name: &str| match &arguments[name] {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    let (tool, key, done) = match tool {
        "note" => ("note", arg("key"), format!("noted {}", arg("key"))),
        "wipe" => ("wipe", arg("board"), format!("wiped {}", arg("board"))),
        "page" => ("page", arg("number"), format!("page {}: ", arg("number"))),
        "shelve" => ("shelve", arg("item"), format!("shelved {}", arg("item"))),
        "b_lookup" => ("lookup", arg("term"), format!("found {}", arg("term"))),
        "dawdle" => ("dawdle", String::new(), "dawdled".to_owned()),
        _ => return None,
    };
    Some((tool.to_owned(), key, done))
}

/// The result each call id had the first time a request carried it: later ones may be cleared
/// by compaction.
pub fn first_results(requests: &[SeenRequest]) -> HashMap<String, String> {
    let mut results = HashMap::new();
    for request in requests {
        for (id, result) in request.tool_results() {
            results.entry(id).or_insert(result);
        }
    }
    results
}

/// The first call ended as the case's rows say.
fn ended(case: &Case, faults: &mut Faults) {
    let (setup, first) = (&case.setup, &case.first);
    let report = first.report();
    faults.check(first.result.is_ok(), || {
        format!("the call got no result: {}", first.text())
    });
    let stop = |faults: &mut Faults, stop: &str| {
        faults.same("the report's stop", report["stop"].as_str(), Some(stop));
    };
    match setup.end() {
        End::Refused(words) => {
            faults.check(first.is_error(), || {
                format!("not refused: {}", first.text())
            });
            let said = first.text().to_lowercase();
            for word in words {
                faults.check(said.contains(word), || {
                    format!("the refusal does not say `{word}`: {said}")
                });
            }
            faults.check(case.runs.is_empty(), || {
                format!("a refused case ran {:?}", case.runs)
            });
        }
        End::Answered => {
            succeeded(first, faults);
            answer(case, first, ANSWER, faults);
            stop(faults, "answered");
            faults.same("the report's partial", &report["partial"], &json!(false));
        }
        End::Bound(name) => match setup.policy {
            OnLimit::Error => {
                faults.check(first.is_error(), || {
                    format!("no tool error: {}", first.text())
                });
                faults.same(
                    "the report of a tool error",
                    &report,
                    &json!({"stop": name}),
                );
                let says = match name {
                    "turns" => "turns",
                    "deadline" => "longer than",
                    "budget" => "budget",
                    _ => "stuck",
                };
                faults.check(first.text().contains(says), || {
                    format!("the error does not say `{says}`: {}", first.text())
                });
            }
            OnLimit::Answer => {
                succeeded(first, faults);
                answer(case, first, AT_BOUND, faults);
                stop(faults, name);
                faults.same("the report's partial", &report["partial"], &json!(false));
            }
            // A typed answer cannot be partial: a clear error, naming the bound.
            OnLimit::Partial if setup.output => {
                faults.check(first.is_error(), || {
                    format!("a partial typed answer: {}", first.text())
                });
                stop(faults, name);
            }
            OnLimit::Partial => {
                succeeded(first, faults);
                let line = format!("[partial: the run stopped at its {name} bound]");
                faults.check(first.text().starts_with(&line), || {
                    format!("not `{line}`: {}", first.text())
                });
                stop(faults, name);
                faults.same("the report's partial", &report["partial"], &json!(true));
            }
        },
    }
}

/// `called` is no tool error.
pub fn succeeded(called: &Called, faults: &mut Faults) {
    faults.check(!called.is_error(), || {
        format!("a tool error: {}", called.text())
    });
}

/// `called` answered `text`, or, typed, the typed answer as `structuredContent` and as JSON text.
pub fn answer(case: &Case, called: &Called, text: &str, faults: &mut Faults) {
    let structure = called
        .response()
        .and_then(|result| result.struct_content.clone());
    if case.setup.output {
        faults.same("the typed answer", structure, Some(typed_answer()));
        faults.same(
            "the typed answer's text",
            called.text(),
            typed_answer().to_string(),
        );
    } else {
        faults.same("the answer", called.text().as_str(), text);
        faults.same("the structured content", structure, None);
    }
}

/// The report of a run that answered tells the requests the model saw, the tokens they
/// reported, the model that answered and whether it streamed.
fn reported(case: &Case, faults: &mut Faults) {
    let report = case.first.report();
    if report.get("turns").is_none() {
        return; // a tool error's report: its stop, checked with the end
    }
    let turns = (case.first_requests())
        .filter(|(_, heard)| heard.asked != Asked::Summary)
        .count();
    faults.same("the report's turns", &report["turns"], &json!(turns));
    let counted = matches!(case.setup.model(), ModelKind::Own | ModelKind::Fallback);
    let (mut input, mut output) = (0, 0);
    if counted {
        for (_, heard) in case.first_requests() {
            input += heard.usage.0;
            output += heard.usage.1;
        }
    }
    // The nested orchestrator's tokens count into its caller's.
    let nested = case.inner.len() as u64;
    let (input, output) = (
        input + INNER_TOKENS.0 * nested,
        output + INNER_TOKENS.1 * nested,
    );
    if counted {
        let usage = json!({"input_tokens": input, "output_tokens": output});
        faults.same("the report's usage", &report["usage"], &usage);
    } else {
        // A sample carries no token counts: the run counts Ladoga's estimate of each request
        // and each sample, a few tokens at least, beside the nested run's own.
        let requests = case.first_requests().count() as u64;
        let (told_in, told_out) = (
            report["usage"]["input_tokens"].as_u64().unwrap_or_default(),
            report["usage"]["output_tokens"]
                .as_u64()
                .unwrap_or_default(),
        );
        faults.check(
            told_in >= input + requests && told_out >= output + requests,
            || {
                format!(
                    "the report's usage {} does not count an estimate of each sample",
                    report["usage"]
                )
            },
        );
    }
    let model = match case.setup.model() {
        ModelKind::Own => "scripted",
        ModelKind::Fallback => "backup",
        ModelKind::Caller | ModelKind::CallerFirst => "caller",
    };
    faults.same("the report's model", &report["model"], &json!(model));
    faults.same(
        "whether the report times the first token",
        report.get("first_token_ms").is_some(),
        case.setup.streams(),
    );
}

/// The first request offered the tools the rows select, but the deferred ones, and the run's
/// own: `search_tools` for `defer`, `ask_caller` for `ask`.
fn offered_first(case: &Case, faults: &mut Faults) {
    let Some((first, _)) = case.first_requests().next() else {
        return;
    };
    let setup = &case.setup;
    let mut want: Vec<String> = (setup.tools.iter())
        .filter(|tool| !setup.deferred.contains(*tool))
        .map(|tool| tool.replace("b_*", "b_lookup"))
        .collect();
    if !setup.deferred.is_empty() {
        want.push("search_tools".to_owned());
    }
    if setup.ask {
        want.push("ask_caller".to_owned());
    }
    want.sort();
    let mut offered = first.tool_names();
    offered.sort();
    faults.same("the tools of the first request", offered, want);
}

/// The text of each message of `request`, in order.
pub fn texts(request: &SeenRequest) -> Vec<String> {
    (request.messages().iter())
        .map(|message| text_of(&message["content"]))
        .collect()
}

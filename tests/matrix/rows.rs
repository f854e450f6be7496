//! The rows: each feature a run can have, as what it sets on the run (`apply`) and what a user
//! relies on when it is on (`check`), whatever the other row of the case.
//!
//! A row's turns go beside the other row's, turn by turn, so two rows' first calls come in one
//! answer; a bound's row makes the model keep going once the turns are done, so that bound is
//! what stops it.

use std::time::Duration;

use ladoga::OnLimit;
use ladoga::context::estimate_tokens;
use serde_json::{Value, json};

use super::checks::{Faults, answer, first_results, succeeded, texts};
use super::env::Case;
use super::script::Asked;
use super::setup::{
    BUDGET, CONTEXT, COSTLY, Call, End, INNER_TOKENS, PAGES, REPEAT, Runaway, SECOND_BRIEF, Setup,
    TIMEOUT, WENT_ON, first_brief,
};

/// How many times the case's tools ran `tool` with `key`.
fn runs_of(case: &Case, tool: &str, key: &str) -> usize {
    (case.runs.iter())
        .filter(|(ran, with)| ran == tool && with == key)
        .count()
}

/// Whether the case's run got past its first turn: a refused case runs nothing.
fn ran(case: &Case) -> bool {
    !matches!(case.setup.end(), End::Refused(_))
}

/// The calls of the model's answers in the first call, each with its id.
fn calls(case: &Case) -> Vec<(String, Call)> {
    (case.first_requests())
        .flat_map(|(_, heard)| heard.calls.clone())
        .collect()
}

/// Whether the first call's report is a run's whole report, not a tool error's.
fn whole(case: &Case) -> bool {
    case.first.report().get("turns").is_some()
}

/// `session = true`: a second call with the id the first one's result gave goes on from its
/// conversation; a call that fails starts none.
pub mod session {
    use super::*;

    pub fn apply(setup: &mut Setup) {
        setup.session = true;
    }

    pub fn check(case: &Case, faults: &mut Faults) {
        let report = case.first.report();
        if case.first.is_error() {
            faults.check(report.get("session").is_none(), || {
                format!("a call that failed names a session: {report}")
            });
            faults.check(case.second.is_none(), || {
                "a failed call was gone on with".into()
            });
            return;
        }
        let Some(id) = report["session"].as_str() else {
            return faults.0.push(format!("no session in the report: {report}"));
        };
        let Some(second) = &case.second else {
            return faults.0.push("no second call".into());
        };
        succeeded(second, faults);
        answer(case, second, WENT_ON, faults);
        let again = second.report();
        faults.same(
            "the second report's session",
            again["session"].as_str(),
            Some(id),
        );
        let asked = case.requests.len() - case.split;
        faults.same("the second report's turns", &again["turns"], &json!(asked));
        faults.same(
            "tools run by the second call",
            case.runs.len(),
            case.runs_first,
        );
        faults.same(
            "forms shown in the second call",
            case.forms.len(),
            case.forms_first,
        );
        // The model is sent the first call's conversation, then the second brief.
        let Some(went_on) = case.requests.get(case.split) else {
            return faults
                .0
                .push("the second call asked the model nothing".into());
        };
        let said = texts(went_on);
        faults.check(said.contains(&first_brief(&case.setup.case)), || {
            format!("the second call's model was not sent the first brief: {said:?}")
        });
        faults.check(said.last().is_some_and(|last| last == SECOND_BRIEF), || {
            format!("the second call's model was not sent its brief last: {said:?}")
        });
    }
}

/// `context = 8000`: pages read a turn each, more than the bound together, each far less: the
/// conversation is compacted, the oldest results cleared, and no request passes the bound.
pub mod context {
    use super::*;

    pub fn apply(setup: &mut Setup) {
        setup.context = Some(CONTEXT);
        setup.tools.push("page");
        let case = setup.case.clone();
        let turns = (1..=PAGES)
            .map(|number| vec![Call::new("page", json!({"case": case, "number": number}))])
            .collect();
        setup.add_turns(turns);
    }

    pub fn check(case: &Case, faults: &mut Faults) {
        if !ran(case) {
            return;
        }
        for number in 1..=PAGES {
            let key = number.to_string();
            faults.same(
                &format!("runs of page {number}"),
                runs_of(case, "page", &key),
                1,
            );
        }
        for (index, (request, heard)) in case.requests.iter().zip(&case.heard).enumerate() {
            let tokens = estimate_tokens(&request.body().to_string());
            faults.check(heard.asked == Asked::Summary || tokens <= CONTEXT, || {
                format!("request {index} is {tokens} tokens, past the context bound")
            });
        }
        let cleared = (case.first_requests()).any(|(request, _)| {
            (request.tool_results().iter()).any(|(_, result)| result.starts_with("[page's result"))
        });
        faults.check(cleared, || "no page's result was cleared".into());
        if whole(case) {
            let times = &case.first.report()["compacted"]["times"];
            faults.check(times.as_u64().is_some_and(|times| times >= 1), || {
                format!("the report says no compaction: {}", case.first.report())
            });
        }
    }
}

/// `defer = ["shelve"]`: the tool is not offered up front; the model searches, finds it, is
/// offered it from the next request on, and calls it.
pub mod defer {
    use super::*;

    pub fn apply(setup: &mut Setup) {
        setup.tools.push("shelve");
        setup.deferred.push("shelve");
        let case = setup.case.clone();
        setup.add_turns(vec![
            vec![Call::new(
                "search_tools",
                json!({"query": "shelve an item", "limit": 1}),
            )],
            vec![Call::new(
                "shelve",
                json!({"case": case, "item": "the book"}),
            )],
        ]);
    }

    pub fn check(case: &Case, faults: &mut Faults) {
        if !ran(case) {
            return;
        }
        faults.same("runs of shelve", runs_of(case, "shelve", "the book"), 1);
        let results = first_results(&case.requests);
        let searches: Vec<_> = (calls(case).into_iter())
            .filter(|(_, call)| call.tool == "search_tools")
            .collect();
        let [(id, _)] = searches.as_slice() else {
            return faults
                .0
                .push(format!("{} searches, not one", searches.len()));
        };
        let found: Value = (results.get(id))
            .and_then(|found| serde_json::from_str(found).ok())
            .unwrap_or_default();
        faults.same(
            "the tool found",
            &found["tools"][0]["name"],
            &json!("shelve"),
        );
        // Offered from the request that carries the search's answer on, in every one that
        // offers tools.
        let mut answered = false;
        for (index, (request, _)) in case.first_requests().enumerate() {
            answered |= request.tool_results().iter().any(|(call, _)| call == id);
            let offered = request.tool_names();
            if answered && !offered.is_empty() {
                faults.check(offered.contains(&"shelve".to_owned()), || {
                    format!("request {index}, after the search, does not offer shelve: {offered:?}")
                });
            }
        }
    }
}

/// `ask`: the model asks the caller's person a question with choices; the answer is the call's
/// result, asked once, listed in the report.
pub mod ask {
    use super::*;

    pub fn apply(setup: &mut Setup) {
        setup.ask = true;
        setup.add_turns(vec![vec![Call::new(
            "ask_caller",
            json!({"question": "Which day?", "choices": ["Thursday", "Friday"]}),
        )]]);
    }

    pub fn check(case: &Case, faults: &mut Faults) {
        if !ran(case) {
            return;
        }
        let asked: Vec<_> = (case.forms.iter())
            .filter(|form| form["message"] == "Which day?")
            .collect();
        faults.same("forms asking which day", asked.len(), 1);
        if let Some(form) = asked.first() {
            let choices = &form["requestedSchema"]["properties"]["answer"]["enum"];
            faults.same(
                "the form's choices",
                choices,
                &json!(["Thursday", "Friday"]),
            );
        }
        let results = first_results(&case.requests);
        for (id, call) in calls(case) {
            if call.tool == "ask_caller" {
                faults.same(
                    "the question's result",
                    results.get(&id).map(String::as_str),
                    Some("Friday"),
                );
            }
        }
        if whole(case) {
            let want = json!([{
                "question": "Which day?",
                "choices": ["Thursday", "Friday"],
                "reply": "answered",
                "answer": "Friday",
            }]);
            faults.same(
                "the report's questions",
                &case.first.report()["questions"],
                &want,
            );
        }
    }
}

/// `approve = ["wipe"]`: the call of `wipe` is put to the caller first, once, approved, runs
/// once, and is listed in the report.
pub mod approve {
    use super::*;

    pub fn apply(setup: &mut Setup) {
        setup.approve = true;
        setup.tools.push("wipe");
        let case = setup.case.clone();
        setup.add_turns(vec![vec![Call::new(
            "wipe",
            json!({"case": case, "board": "a"}),
        )]]);
    }

    pub fn check(case: &Case, faults: &mut Faults) {
        if !ran(case) {
            return;
        }
        let asked = (case.forms.iter())
            .filter(|form| {
                form["message"]
                    .as_str()
                    .is_some_and(|text| text.contains("`wipe`"))
            })
            .count();
        faults.same("approvals asked of wipe", asked, 1);
        faults.same("runs of wipe", runs_of(case, "wipe", "a"), 1);
        if whole(case) {
            let want = json!([{
                "tool": "wipe",
                "arguments": {"case": case.setup.case, "board": "a"},
                "decision": "approved",
            }]);
            faults.same(
                "the report's approvals",
                &case.first.report()["approvals"],
                &want,
            );
        }
    }
}

/// `output = Summary`: the final answer is asked for again as JSON of the type, once, and is the
/// result's `structuredContent` (checked with the call's end).
pub mod output {
    use super::*;

    pub fn apply(setup: &mut Setup) {
        setup.output = true;
    }

    pub fn check(case: &Case, faults: &mut Faults) {
        if case.first.is_error() {
            return;
        }
        let asked = (case.first_requests())
            .filter(|(_, heard)| heard.asked == Asked::Json)
            .count();
        faults.same("requests for the typed answer", asked, 1);
    }
}

/// `stream`: the model's text reaches the caller as log lines, each piece once, in order; a
/// model that answers whole (the caller's sample) streams nothing, and a call that runs as an MCP
/// task has no stream for its lines to travel on.
pub mod stream {
    use super::*;

    pub fn apply(setup: &mut Setup) {
        setup.stream = true;
    }

    pub fn check(case: &Case, faults: &mut Faults) {
        let joined: String = case.lines.concat();
        let want: String = match case.setup.streams() && !case.setup.task {
            true => (case.heard.iter())
                .filter(|heard| heard.asked != Asked::Summary)
                .map(|heard| heard.text.as_str())
                .collect(),
            false => String::new(),
        };
        faults.same("the text streamed", joined, want);
    }
}

/// `with = [RemoteTools]`: server B's `lookup`, offered as `b_lookup`, runs on B, once.
pub mod with {
    use super::*;

    pub fn apply(setup: &mut Setup) {
        setup.with = true;
        setup.tools.push("b_*");
        let case = setup.case.clone();
        setup.add_turns(vec![vec![Call::new(
            "b_lookup",
            json!({"case": case, "term": "a term"}),
        )]]);
    }

    pub fn check(case: &Case, faults: &mut Faults) {
        if ran(case) {
            faults.same("runs of B's lookup", runs_of(case, "lookup", "a term"), 1);
        }
    }
}

/// `model = CallerModel`: every request is the caller's sample, one each, and the report says
/// `caller`.
pub mod caller_model {
    use super::*;

    pub fn apply(setup: &mut Setup) {
        setup.caller = true;
    }

    pub fn check(case: &Case, faults: &mut Faults) {
        faults.same(
            "samples, against requests",
            case.samples,
            case.requests.len(),
        );
        faults.same("the backup's requests", case.unused.len(), 0);
    }
}

/// `model = Fallback`: the primary fails every request, the backup answers each; every request
/// starts at the primary. With the caller's model first, the caller answers and neither is asked.
pub mod fallback {
    use super::*;

    pub fn apply(setup: &mut Setup) {
        setup.fallback = true;
    }

    pub fn check(case: &Case, faults: &mut Faults) {
        let tried = match case.setup.caller {
            true => 0,
            false => case.requests.len(),
        };
        faults.same("the primary's requests", case.primary.len(), tried);
    }
}

/// An MCP task: the call is task-augmented, followed with `tasks/get`, its questions answered
/// with `tasks/update`.
pub mod task {
    use super::*;

    pub fn apply(setup: &mut Setup) {
        setup.task = true;
    }

    pub fn check(_: &Case, _: &mut Faults) {
        // That the call ran as a task, the client checked as it made it.
    }
}

/// An orchestrator calling another: the nested one runs on its own model, once; its tokens count
/// in the caller's report and budget (checked with them).
pub mod nested {
    use super::*;

    pub fn apply(setup: &mut Setup) {
        setup.nested = true;
        setup.tools.push("matrix_inner");
        let case = setup.case.clone();
        setup.add_turns(vec![vec![Call::new("matrix_inner", json!({"case": case}))]]);
    }

    pub fn check(case: &Case, faults: &mut Faults) {
        if !ran(case) {
            return;
        }
        faults.same("the nested model's requests", case.inner.len(), 2);
        let results = first_results(&case.requests);
        for (id, call) in calls(case) {
            if call.tool == "matrix_inner" {
                let result = results.get(&id).map(String::as_str);
                faults.same("the nested run's result", result, Some("Inner done."));
            }
        }
    }
}

/// `budget`: the model keeps going, each answer costly, and the run stops before the request
/// the budget no longer covers, counting the tokens of every request before it, the nested
/// orchestrator's included.
pub mod budget {
    use super::*;

    pub fn apply(setup: &mut Setup) {
        setup.budget = Some(BUDGET);
        setup.run_away(Runaway::Costly);
    }

    pub fn check(case: &Case, faults: &mut Faults) {
        // On the caller's model the run counts its own estimate, not what the model reported:
        // that it stopped at the budget is checked with the end.
        if case.setup.end() != End::Bound("budget") || case.setup.caller {
            return;
        }
        let used: Vec<_> = (case.first_requests())
            .map(|(_, heard)| heard.usage)
            .collect();
        let from = (used.iter())
            .position(|(input, _)| *input == COSTLY)
            .unwrap_or(used.len());
        let nested = case.inner.len() as u64 * (INNER_TOKENS.0 + INNER_TOKENS.1);
        let before = used[..from].iter().map(|(input, output)| input + output);
        let before = before.sum::<u64>() + nested;
        let costly: Vec<_> = (used[from..].iter())
            .filter(|(input, _)| *input == COSTLY)
            .collect();
        let each = COSTLY + costly.first().map_or(0, |(_, output)| *output);
        let want = BUDGET.saturating_sub(before).div_ceil(each);
        faults.same(
            "costly answers before the budget stopped the run",
            costly.len() as u64,
            want,
        );
    }
}

/// `timeout = 1s`: the model calls a tool that takes a minute; at the deadline the call is
/// dropped, never finished. The caller takes longer than the bound to answer each form and each
/// sample: the time a run waits for its caller between rounds does not count.
pub mod timeout {
    use super::*;

    pub fn apply(setup: &mut Setup) {
        setup.timeout = Some(TIMEOUT);
        setup.slow_caller = TIMEOUT + Duration::from_millis(300);
        setup.tools.push("dawdle");
        setup.run_away(Runaway::Dawdle);
    }

    pub fn check(case: &Case, faults: &mut Faults) {
        if case.setup.end() != End::Bound("deadline") {
            return;
        }
        faults.same("runs of dawdle", runs_of(case, "dawdle", ""), 0);
        let took = case.first.took;
        faults.check(took >= TIMEOUT && took < TIMEOUT * 10, || {
            format!("the run took {took:?} with a time bound of {TIMEOUT:?}")
        });
    }
}

/// `repeat = 2`: the model makes one call again and again: the second is refused, the third
/// stops the run as stuck, and the call ran once.
pub mod repeat {
    use super::*;

    pub fn apply(setup: &mut Setup) {
        setup.repeat = Some(REPEAT);
        setup.run_away(Runaway::Same);
    }

    pub fn check(case: &Case, faults: &mut Faults) {
        if case.setup.end() != End::Bound("stuck") {
            return;
        }
        let again = (calls(case).into_iter())
            .filter(|(_, call)| call.arguments["key"] == "again")
            .count();
        faults.same("identical calls before the run stopped", again, REPEAT + 1);
        faults.same(
            "runs of the identical call",
            runs_of(case, "note", "again"),
            1,
        );
    }
}

/// What every `turns` row checks: at the turn bound, the run made as many turns as the bound,
/// and one more request under `answer`.
fn turns_check(case: &Case, faults: &mut Faults) {
    if case.setup.end() != End::Bound("turns") {
        return;
    }
    let turns = (case.first_requests())
        .filter(|(_, heard)| heard.asked == Asked::Turn)
        .count();
    faults.same("turns before the bound", turns, case.setup.turn_bound());
    // With a typed answer, the request at the bound is the one for JSON of the output type.
    let at_bound =
        |asked: Asked| asked == Asked::AtBound || (case.setup.output && asked == Asked::Json);
    let last = (case.first_requests())
        .filter(|(_, heard)| at_bound(heard.asked))
        .count();
    let want = usize::from(case.setup.policy == OnLimit::Answer);
    faults.same("requests for an answer at the bound", last, want);
}

/// The model keeps calling tools past the turn bound, unless another row's bound stops it first;
/// `policy` is what happens at any bound.
fn turns_apply(setup: &mut Setup, policy: OnLimit) {
    setup.turns_bound = true;
    setup.policy = policy;
}

/// `turns` with `on_limit = "error"`: a tool error naming the bound.
pub mod turns_error {
    use super::*;

    pub fn apply(setup: &mut Setup) {
        turns_apply(setup, OnLimit::Error);
    }

    pub fn check(case: &Case, faults: &mut Faults) {
        turns_check(case, faults);
    }
}

/// `turns` with `on_limit = "answer"`: one more request, tools refused, is the answer.
pub mod turns_answer {
    use super::*;

    pub fn apply(setup: &mut Setup) {
        turns_apply(setup, OnLimit::Answer);
    }

    pub fn check(case: &Case, faults: &mut Faults) {
        turns_check(case, faults);
    }
}

/// `turns` with `on_limit = "partial"`: the work so far, marked as partial.
pub mod turns_partial {
    use super::*;

    pub fn apply(setup: &mut Setup) {
        turns_apply(setup, OnLimit::Partial);
    }

    pub fn check(case: &Case, faults: &mut Faults) {
        turns_check(case, faults);
    }
}

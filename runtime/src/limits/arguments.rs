//! How large one tool call's arguments may be: a call past the bound is not run, and its
//! arguments are left out of the conversation, so they are not sent again with each request.

use serde_json::Value;
use svir::{Completion, ToolCall, ToolResult};

/// The most bytes of one call's arguments, as the model wrote them, unless told otherwise:
/// 64 KiB, some 16,000 tokens, more than any tool argument a model writes in earnest.
pub const DEFAULT_MAX_ARGUMENTS: usize = 64 * 1024;

/// The one key of the arguments that stand in for the ones left out; its value is their size.
const OMITTED: &str = "ladoga_omitted_bytes";

/// The longest the stand-in is: `{"ladoga_omitted_bytes":` and twenty digits.
const STAND_IN_BYTES: usize = 64;

/// Leaves out of `done` the arguments of each call longer than `max` bytes: they become
/// `{"ladoga_omitted_bytes": N}`, the call keeping its id and name, so its result still pairs
/// with it.
pub(crate) fn leave_out(done: &mut Completion, max: usize) {
    for call in done
        .calls
        .iter_mut()
        .filter(|call| call.arguments.len() > max)
    {
        let bytes = call.arguments.len();
        tracing::warn!(target: "ladoga", tool = %crate::toolbox::Escaped(&call.name), bytes, max, "a call's arguments are over the bound: left out, not run");
        call.arguments = serde_json::json!({ OMITTED: bytes }).to_string();
    }
}

/// How many bytes of `call`'s arguments were left out, when they were: its arguments are the
/// stand-in, with a size over `max`.
pub(crate) fn omitted(call: &ToolCall, max: usize) -> Option<usize> {
    // Read only what can be the stand-in: every other call's arguments are not parsed here.
    let arguments = call.arguments.trim_start();
    if call.arguments.len() > STAND_IN_BYTES
        || !arguments.starts_with('{')
        || !arguments.contains(OMITTED)
    {
        return None;
    }
    let value: Value = serde_json::from_str(&call.arguments).ok()?;
    let object = value.as_object().filter(|object| object.len() == 1)?;
    let bytes = usize::try_from(object.get(OMITTED)?.as_u64()?).ok()?;
    (bytes > max).then_some(bytes)
}

/// What the model is told instead of running each of `calls` whose arguments were left out.
pub(crate) fn refusals(calls: &[ToolCall], max: usize) -> Vec<ToolResult> {
    calls
        .iter()
        .filter_map(|call| {
            let bytes = omitted(call, max)?;
            let told = format!(
                "not run: the arguments of this call to `{}` were {bytes} bytes, over the bound \
                 of {max} bytes a call's arguments may be here, and they are left out of the \
                 conversation. Call it with smaller arguments, or do the work in smaller parts.",
                call.name
            );
            Some(ToolResult::error(&call.id, told))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(calls: &[(&str, String)]) -> Completion {
        let mut done = Completion::new(svir::FinishReason::ToolCalls);
        done.calls = calls
            .iter()
            .enumerate()
            .map(|(at, (name, arguments))| ToolCall::new(format!("c{at}"), *name, arguments))
            .collect();
        done
    }

    #[test]
    fn only_arguments_over_the_bound_are_left_out_and_refused() {
        let big = format!(r#"{{"text": "{}"}}"#, "x".repeat(200));
        let mut done = answer(&[("save", big.clone()), ("save", r#"{"text": "hi"}"#.into())]);
        leave_out(&mut done, 100);
        assert_eq!(
            done.calls[0].arguments,
            format!(r#"{{"{OMITTED}":{}}}"#, big.len())
        );
        assert_eq!(done.calls[0].id, "c0", "the call keeps its id");
        assert_eq!(done.calls[1].arguments, r#"{"text": "hi"}"#);

        let refused = refusals(&done.calls, 100);
        assert_eq!(refused.len(), 1);
        assert_eq!(refused[0].call_id, "c0");
        assert!(refused[0].is_error);
        let told = &refused[0].content;
        assert!(
            told.contains(&format!("were {} bytes", big.len())),
            "{told}"
        );
        assert!(told.contains("bound of 100 bytes"), "{told}");
    }

    #[test]
    fn a_stand_in_within_the_bound_or_with_more_keys_is_an_ordinary_call() {
        let call = |arguments: &str| ToolCall::new("c", "save", arguments);
        assert_eq!(
            omitted(&call(r#"{"ladoga_omitted_bytes": 500}"#), 100),
            Some(500)
        );
        assert_eq!(omitted(&call(r#"{"ladoga_omitted_bytes": 50}"#), 100), None);
        assert_eq!(
            omitted(&call(r#"{"ladoga_omitted_bytes": 500, "a": 1}"#), 100),
            None
        );
        assert_eq!(omitted(&call(r#"{"text": "hi"}"#), 100), None);
        assert_eq!(omitted(&call("not json"), 100), None);
    }
}

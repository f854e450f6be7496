//! The guards' seams: the brief before the first request, a turn's calls before any runs, its
//! results before the model reads them, and the answer before the caller does.

use svir::{Completion, Message, Part, Role, TextFile, ToolCall, ToolResult, Toolbox};

use crate::error::RunError;
use crate::guard::{Checked, Guards, Held, Seen, ToolHints};
use crate::model::CompletionModel;
use crate::run::{Orchestration, Run};
use crate::tree::PATH_SEPARATOR;

/// What the guards made of a turn's calls.
#[derive(Default)]
pub(crate) struct GuardedCalls {
    /// A result standing for each call they blocked.
    pub(crate) refusals: Vec<ToolResult>,
    /// The ids of the calls they have the caller approve.
    pub(crate) asked: Vec<String>,
    /// What they held back.
    pub(crate) held: Vec<Held>,
}

impl<M, T> Orchestration<'_, M, T>
where
    M: CompletionModel + ?Sized,
    T: Toolbox + Sync + ?Sized,
{
    /// The brief's own text (not a session's history), shown to the guards: redacted in
    /// place, or the run stopped. The resources it carries (attached, or in its prompt) are
    /// shown as the results of untrusted tools named `resource URI`.
    pub(super) fn guard_brief(&self, run: &mut Run) -> Result<(), RunError> {
        let guards = &self.settings.guards;
        if guards.is_empty() {
            return Ok(());
        }
        let brief = run.request.messages.iter_mut().skip(run.history);
        for message in brief.filter(|message| message.role == Role::User) {
            for part in &mut message.parts {
                if let Part::File(file) = part {
                    guard_resource(guards, file, &mut run.untrusted, &mut run.held)?;
                    continue;
                }
                let Part::Text(text) = part else { continue };
                let seen = Seen::brief(text).tainted(&run.untrusted);
                let (checked, held) = guards.check(seen, 0);
                run.held.extend(held);
                match checked {
                    Checked::Through(Some(redacted)) => *text = redacted,
                    Checked::Through(None) => {}
                    Checked::Tripped { guard, why }
                    | Checked::Blocked { guard, why }
                    | Checked::Asked { guard, why } => {
                        return Err(RunError::Tripped { guard, why });
                    }
                }
            }
        }
        Ok(())
    }

    /// Where the untrusted text a new run starts with came from: the brief's attached resources,
    /// and each untrusted tool whose result is in `history`, a session's earlier calls'.
    pub(super) fn untrusted_before(&self, history: &[Message]) -> Vec<String> {
        let guards = &self.settings.guards;
        let mut untrusted = guards.briefed_from().to_vec();
        if guards.is_empty() {
            return untrusted;
        }
        let parts = || history.iter().flat_map(|message| &message.parts);
        for part in parts() {
            let Part::ToolResult(result) = part else {
                continue;
            };
            let call = parts().find_map(|part| match part {
                Part::ToolCall(call) if call.id == result.call_id => Some(&call.name),
                _ => None,
            });
            if let Some(tool) = call
                && guards.hints_of(tool).taints()
                && !untrusted.contains(tool)
            {
                untrusted.push(tool.clone());
            }
        }
        untrusted
    }

    /// `done`'s calls, shown to the guards before any runs and before the approvals are asked.
    /// What they held back is for the caller to add once the turn's questions are answered: a
    /// run that pauses for them screens the calls again when it goes on.
    pub(super) fn guard_calls(
        &self,
        done: &Completion,
        run: &Run,
    ) -> Result<GuardedCalls, RunError> {
        let guards = &self.settings.guards;
        let mut guarded = GuardedCalls::default();
        if guards.is_empty() {
            return Ok(guarded);
        }
        // The run's own tools (a search, a question to the caller) act on nothing outside it.
        let own = |call: &ToolCall| self.searches(call) || self.seams.gate.inquires(call);
        for call in done.calls.iter().filter(|call| !own(call)) {
            let seen = Seen::call(&call.name, &call.arguments)
                .hints(guards.hints_of(&call.name))
                .tainted(&run.untrusted);
            let (checked, held) = guards.check(seen, run.turns);
            guarded.held.extend(held);
            match checked {
                Checked::Through(_) => {}
                Checked::Asked { .. } => guarded.asked.push(call.id.clone()),
                Checked::Blocked { guard, why } => {
                    guarded.refusals.push(blocked(&call.id, &guard, &why));
                }
                Checked::Tripped { guard, why } => return Err(RunError::Tripped { guard, why }),
            }
        }
        Ok(guarded)
    }

    /// The results of `calls` that ran (not those of `unguarded`, which the run made itself),
    /// shown to the guards before the model reads them: rewritten, redacted or held back in
    /// place. A result of an untrusted tool the guards let through marks the run as having read
    /// untrusted text.
    pub(super) fn guard_results(
        &self,
        calls: &[ToolCall],
        results: &mut [ToolResult],
        unguarded: impl Fn(&ToolCall) -> bool,
        run: &mut Run,
    ) -> Result<(), RunError> {
        let guards = &self.settings.guards;
        if guards.is_empty() {
            return Ok(());
        }
        for (call, result) in calls.iter().zip(results) {
            if unguarded(call) {
                continue;
            }
            // A run this call started that read untrusted text answers with what it read.
            let below = read_below(run, call, calls);
            let hints = match below.is_empty() {
                true => guards.hints_of(&call.name),
                false => ToolHints {
                    untrusted: true,
                    ..guards.hints_of(&call.name)
                },
            };
            let seen = Seen::result(&call.name, &result.content)
                .hints(hints)
                .tainted(&run.untrusted);
            let (checked, held) = guards.check(seen, run.turns);
            run.held.extend(held);
            let read = match checked {
                Checked::Through(text) => {
                    if let Some(text) = text {
                        result.content = text;
                    }
                    true
                }
                Checked::Blocked { guard, why } | Checked::Asked { guard, why } => {
                    *result = blocked(&call.id, &guard, &why);
                    false
                }
                Checked::Tripped { guard, why } => return Err(RunError::Tripped { guard, why }),
            };
            if read && hints.taints() {
                let sources = match below.is_empty() {
                    true => vec![call.name.clone()],
                    false => below,
                };
                for source in sources {
                    if !run.untrusted.contains(&source) {
                        run.untrusted.push(source);
                    }
                }
            }
        }
        Ok(())
    }

    /// The answer `done`, shown to the guards before the caller reads it: redacted in place; or
    /// held back, when `Some` says why (`guard`, `why`), for the model to be told.
    pub(super) fn guard_answer(
        &self,
        done: &mut Completion,
        run: &mut Run,
    ) -> Result<Option<(String, String)>, RunError> {
        let guards = &self.settings.guards;
        if guards.is_empty() || std::mem::replace(&mut run.answer_checked, true) {
            return Ok(None);
        }
        let seen =
            (Seen::answer(&done.text).tainted(&run.untrusted)).conversation(&run.request.messages);
        let (checked, held) = guards.check(seen, run.turns);
        run.held.extend(held);
        match checked {
            Checked::Through(text) => {
                if let Some(text) = text {
                    done.text = text;
                }
                Ok(None)
            }
            Checked::Blocked { guard, why } | Checked::Asked { guard, why } => {
                Ok(Some((guard, why)))
            }
            Checked::Tripped { guard, why } => Err(RunError::Tripped { guard, why }),
        }
    }

    /// The answer `done`, held back by `guard` for `why`: the model is told, in the
    /// conversation, and asked again.
    pub(super) fn answer_held(&self, done: Completion, guard: &str, why: &str, run: &mut Run) {
        run.answer_checked = false;
        let request = std::mem::replace(&mut run.request, svir::Request::new(""));
        run.request = request.assistant(done).message(Message::user(format!(
            "Your answer was not given to the user: the guard `{guard}` held it back ({why}). \
             Write it again without that."
        )));
    }
}

/// The resource `file` of the brief, shown to `guards` as the result of an untrusted read-only
/// tool named `resource URI`: rewritten in place (fenced, say), or held back; its source counted
/// in `untrusted`, what they held back in `held`.
fn guard_resource(
    guards: &Guards,
    file: &mut TextFile,
    untrusted: &mut Vec<String>,
    held: &mut Vec<Held>,
) -> Result<(), RunError> {
    let svir::Source::Bytes(bytes) = &file.source else {
        return Ok(());
    };
    let source = format!("resource {}", file.name);
    let text = String::from_utf8_lossy(bytes);
    let seen = Seen::result(&source, &text)
        .hints(ToolHints::untrusted().read_only())
        .tainted(untrusted);
    let (checked, holds) = guards.check(seen, 0);
    held.extend(holds);
    let text = match checked {
        Checked::Through(None) => None,
        Checked::Through(Some(text)) => Some(text),
        Checked::Blocked { guard, why } | Checked::Asked { guard, why } => {
            Some(held_back(&guard, &why))
        }
        Checked::Tripped { guard, why } => return Err(RunError::Tripped { guard, why }),
    };
    if let Some(text) = text {
        *file = TextFile::text(file.name.clone(), text);
    }
    if !untrusted.contains(&source) {
        untrusted.push(source);
    }
    Ok(())
}

/// The result standing for a call, or a result, `guard` held back for `why`.
fn blocked(call_id: &str, guard: &str, why: &str) -> ToolResult {
    ToolResult::error(call_id, held_back(guard, why))
}

/// What the model reads in place of what `guard` held back for `why`.
fn held_back(guard: &str, why: &str) -> String {
    format!("The guard `{guard}` held this back: {why}.")
}

/// Where the untrusted text came from that the run `call` started read, as paths from this run
/// (`research › read_mail`): as it told this run (a run named otherwise than the tool that
/// started it is counted for every call of the turn), or as its report says (a durable run's
/// replayed turn, whose run below does not run again). Not the sources this run had read itself
/// when it made the call, which the run below began with.
fn read_below(run: &Run, call: &ToolCall, calls: &[ToolCall]) -> Vec<String> {
    let started = |tool: &str| tool == call.name || calls.iter().all(|call| call.name != tool);
    let told = (run.read_below.iter())
        .filter(|(tool, _)| started(tool))
        .flat_map(|(_, read)| read.iter().cloned());
    let reports = (run.runs.iter())
        .filter(|nested| nested.turn == run.turns && nested.tool == call.name)
        .flat_map(|nested| match &nested.report["untrusted"] {
            serde_json::Value::Array(sources) => sources.clone(),
            _ => Vec::new(),
        })
        .filter_map(|source| source.as_str().map(str::to_owned));
    let mut below: Vec<String> = Vec::new();
    for source in told.chain(reports) {
        let path = format!("{}{PATH_SEPARATOR}{source}", call.name);
        if !run.untrusted.contains(&source) && !below.contains(&path) {
            below.push(path);
        }
    }
    below
}

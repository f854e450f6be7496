//! Where a run is: what it has sent, used and seen so far; how it starts, and how it pauses
//! for its caller's answer and goes on in a later round, perhaps on another replica.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use svir::{Completion, Request, ToolResult, Toolbox};

use crate::approval::{self, Approval, Inquired};
use crate::brief::IntoBrief;
use crate::context::{Compacted, Counted, Window};
use crate::cost::Spent;
use crate::error::RunError;
use crate::guard::Held;
use crate::limits::repeats::Repeats;
use crate::model::{AnsweredBy, CompletionModel};
use crate::observe::Progress;
use crate::outcome::{NestedRun, Steering, UnknownCall};
use crate::run::Orchestration;
use crate::run::ask::Answer;
use crate::run::guarded::GuardedCalls;
use crate::session::Lease;
use crate::store::{self, Keeper, Ran};
use crate::toolbox::ToolIndex;
use crate::usage::SharedUsage;

/// Where a run is. A paused run is this, serialized: the fields marked `skip` are the live
/// ones, rebuilt when it goes on. The conversation is the run's one copy of its results.
#[derive(Serialize, Deserialize)]
pub(crate) struct Run {
    /// The run's id, which its approval questions are bound to.
    #[serde(skip)]
    pub(crate) id: String,
    /// The conversation so far, with the tools offered.
    pub(crate) request: Request,
    /// Where the run's own messages begin in `request`, after the brief's: a partial result
    /// reads the work done from there.
    pub(crate) opened: usize,
    pub(crate) turns: usize,
    /// Tokens used, nested runs included.
    #[serde(skip, default = "SharedUsage::new")]
    pub(crate) usage: Arc<SharedUsage>,
    pub(crate) repeats: Repeats,
    #[serde(skip)]
    pub(crate) progress: Progress,
    /// An answer whose calls wait for the caller's approval: it is never asked for again.
    pub(crate) pending: Option<Completion>,
    /// The results of `pending`'s calls that answered before the run paused among them, for a
    /// question asked below a call (see [`tree`](crate::tree)): the next round makes only the
    /// others again. `None` for a run paused before its calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) settled: Option<Vec<ToolResult>>,
    /// The approval questions answered.
    pub(crate) approvals: Vec<Approval>,
    /// The model's questions to the caller, and the replies.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) inquiries: Vec<Inquired>,
    /// The reports of the orchestrators its model called in process.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) runs: Vec<NestedRun>,
    /// The messages its caller sent it while it ran, as it read them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) steered: Vec<Steering>,
    /// The number of the last message of its inbox it read (or found there as it began, which
    /// were not its), once it looked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) inbox_read: Option<u64>,
    /// A durable run's messages, read back with its last turn's calls, heard before its next.
    #[serde(skip)]
    pub(crate) inbox_held: Vec<String>,
    /// The tool a stuck model kept calling.
    #[serde(skip)]
    pub(crate) stuck_on: Option<String>,
    /// The model that answered the last request.
    pub(crate) answered_by: Option<AnsweredBy>,
    /// When the run's time is up, if it is bounded in time.
    #[serde(skip)]
    pub(crate) deadline: Option<tokio::time::Instant>,
    /// The calls that ran, for a caller told that the run cannot go on (none in a run paused
    /// before they were kept).
    #[serde(default)]
    pub(crate) ran: Vec<Ran>,
    /// Whether its state was kept before the question it waits for was asked.
    #[serde(skip)]
    pub(crate) kept: bool,
    /// How many of `request`'s first messages are earlier calls' conversation, which a session
    /// goes on from: the call's own brief follows them.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) history: usize,
    /// The request after the turns the run paused in, for a caller's model that answers it in
    /// the next round: asked again, not the turns, when the run goes on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) finishing: Option<Finishing>,
    /// How long the run's first model request took to its first piece.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) first_token: Option<Duration>,
    /// The calls a crash cut, not made again (durable runs, which never pause in a store).
    #[serde(skip)]
    pub(crate) unknown: Vec<UnknownCall>,
    /// What the run knows of its conversation's size, and what its compactions did: kept as
    /// `compacted` beside a paused run ([`Paused`]).
    #[serde(skip)]
    pub(crate) window: Window,
    /// The deferred tools' index, made at the run's first search.
    #[serde(skip)]
    pub(crate) index: Option<Box<ToolIndex>>,
    /// What its guards held back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) held: Vec<Held>,
    /// Where the untrusted text in its conversation came from, first first (a run with guards).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) untrusted: Vec<String>,
    /// Whether its guards have seen the answer it ends with.
    #[serde(skip)]
    pub(crate) answer_checked: bool,
    /// Where the untrusted text the runs its last turn's calls started read came from, by the
    /// tool that started each (a run with guards).
    #[serde(skip)]
    pub(crate) read_below: crate::guard::ReadBelow,
}

/// A request after a run's turns, which a run may pause in (the caller's model).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Finishing {
    /// The answer at the bound named `stop` ([`OnLimit::Answer`](crate::OnLimit::Answer)).
    Limit { stop: String },
    /// The typed answer, asked for `requests` times so far (the last one paused); at the bound
    /// named `stop`, when a bound's answer policy asked for it.
    Typed {
        requests: usize,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stop: Option<String>,
    },
}

fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// A run as it waits in a store: the run itself, with what its live fields held. The JSON is
/// the one the code before this struct wrote, field for field, so a replica of either reads
/// the runs the other paused.
#[derive(Serialize, Deserialize)]
struct Paused<R> {
    #[serde(flatten)]
    run: R,
    /// Tokens used so far: input, output.
    usage: (u64, u64),
    /// The part of the run's time bound used so far; the time a person takes to answer is not.
    spent: Option<Duration>,
    /// The compactions of the rounds so far; none in a run paused before they were kept.
    #[serde(default, skip_serializing_if = "Compacted::is_none")]
    compacted: Compacted,
    /// The provider's last count of the conversation, which its size is read from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    counted: Option<Counted>,
    /// What the rounds so far cost; nothing in a run paused before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cost: Option<Spent>,
}

impl Run {
    /// `answer`, the model's to the run's request, counted as a turn: who gave it, how soon,
    /// and the provider's count of the conversation it ends.
    pub(crate) fn heard(&mut self, answer: Answer) -> Completion {
        let Answer {
            done,
            by,
            first_piece,
        } = answer;
        self.first_token = self.first_token.or(first_piece);
        if let Some(usage) = done.usage {
            self.window.count(Counted {
                tokens: usage.input + usage.output,
                messages: self.request.messages.len() + 1,
            });
        }
        self.answered_by = Some(by);
        self.turns += 1;
        done
    }

    /// The turn's answer `done` and its `results`, added to the conversation. No await: a
    /// deadline never finds the request taken.
    pub(crate) fn answered(&mut self, done: Completion, results: Vec<ToolResult>) {
        let request = std::mem::replace(&mut self.request, Request::new(""));
        self.request = request.assistant(done).tool_results(results);
    }
}

impl<M, T> Orchestration<'_, M, T>
where
    M: CompletionModel + ?Sized,
    T: Toolbox + Sync + ?Sized,
{
    /// The run to drive: the paused one the keeper gives back, else a new one from `brief`.
    pub(super) fn begin(
        &self,
        brief: impl IntoBrief,
        usage: Arc<SharedUsage>,
    ) -> Result<Run, RunError> {
        match self.seams.keeper.and_then(Keeper::take_resumed) {
            Some(kept) => {
                // Moved on every path: a brief kept alive would stay in the run's future.
                drop(brief);
                self.resume(&kept, usage)
            }
            None => self.start(brief, usage),
        }
    }

    /// A new run from `brief`.
    fn start(&self, brief: impl IntoBrief, usage: Arc<SharedUsage>) -> Result<Run, RunError> {
        let mut run = self.started(brief, usage)?;
        self.guard_brief(&mut run)?; // guards
        Ok(run)
    }

    /// [`Self::start`], before the guards see the brief.
    fn started(&self, brief: impl IntoBrief, usage: Arc<SharedUsage>) -> Result<Run, RunError> {
        let mut request = self.opening(brief)?;
        // Sessions: the earlier calls' conversation comes first.
        let history = self.seams.session.map(Lease::history).unwrap_or_default();
        let history_len = history.len();
        // Guards: a session's earlier calls may have read untrusted text too.
        let untrusted = self.untrusted_before(&history);
        request.messages.splice(0..0, history);
        Ok(Run {
            id: self.run_id(),
            opened: request.messages.len(),
            request,
            turns: 0,
            usage,
            repeats: Repeats::default(),
            progress: self.reporting(),
            pending: None,
            settled: None,
            approvals: Vec::new(),
            runs: Vec::new(),
            steered: Vec::new(),
            inbox_read: None,
            inbox_held: Vec::new(),
            inquiries: Vec::new(),
            stuck_on: None,
            answered_by: None,
            deadline: self.deadline_after(Duration::ZERO),
            ran: Vec::new(),
            kept: false,
            history: history_len,
            finishing: None,
            first_token: None,
            unknown: Vec::new(),
            window: Window::default(),
            index: None,
            held: Vec::new(),
            untrusted,
            answer_checked: false,
            read_below: Vec::new(),
        })
    }

    /// The run paused as `kept`, going on now: its time bound less the time it had used.
    fn resume(&self, kept: &[u8], usage: Arc<SharedUsage>) -> Result<Run, RunError> {
        let paused: Paused<Run> = serde_json::from_slice(kept).map_err(|error| {
            RunError::Store(format!("the paused run does not read back: {error}"))
        })?;
        let (input, output) = paused.usage;
        usage.add(Some(svir::Usage::new(input, output)));
        if let Some(cost) = paused.cost {
            usage.spent_too(cost);
            // Booked against a quota as the run paused.
            usage.book_all();
        }
        Ok(Run {
            id: self.run_id(),
            usage,
            window: Window::restored(paused.compacted, paused.counted),
            progress: self.reporting(),
            deadline: self.deadline_after(paused.spent.unwrap_or_default()),
            ..paused.run
        })
    }

    /// Keeps `run`, stopped at a question, for the next round.
    pub(super) async fn pause(&self, run: &Run) -> Result<(), RunError> {
        let Some(keeper) = self.seams.keeper else {
            return Ok(());
        };
        let usage = run.usage.get();
        let limit = self.settings.limits.timeout;
        let spent = limit.zip(run.deadline).map(|(limit, deadline)| {
            limit.saturating_sub(deadline.saturating_duration_since(tokio::time::Instant::now()))
        });
        let paused = Paused {
            run,
            usage: (usage.input, usage.output),
            spent,
            compacted: run.window.so_far(),
            counted: run.window.counted(),
            cost: Some(run.usage.spent()),
        };
        let bytes = serde_json::to_vec(&paused)
            .map_err(|error| RunError::Store(format!("the run could not be written: {error}")))?;
        keeper.keep(bytes, &run.ran).await
    }

    /// Keeps the run, paused at `done`, before its questions are put to a caller who answers in
    /// a later round: a state that cannot be kept ends the run ([`RunError::NotKept`]), and the
    /// caller is never asked a question whose answer could not be used.
    pub(super) async fn keep_before_asking(
        &self,
        done: &Completion,
        guarded: &GuardedCalls,
        run: &mut Run,
    ) -> Result<(), RunError> {
        if self.seams.keeper.is_none()
            || !self.seams.gate.asks_later(
                &self.gated(done, &run.request.tools, &guarded.refusals),
                &guarded.asked,
            )
        {
            return Ok(());
        }
        run.pending = Some(done.clone());
        let kept = self.pause(run).await;
        run.pending = None;
        kept?;
        run.kept = true;
        Ok(())
    }

    /// Lets go of the state kept before asking, when the run went on without pausing after all.
    pub(super) async fn settle(&self, run: &mut Run) {
        if std::mem::take(&mut run.kept)
            && let Some(keeper) = self.seams.keeper
        {
            keeper.discard().await;
        }
    }

    /// The id approval questions are bound to: the keeper's, else a new one for a run that
    /// asks, else none.
    fn run_id(&self) -> String {
        match self.seams.keeper {
            Some(keeper) => keeper.id().to_owned(),
            None if self.seams.gate.is_none() => String::new(),
            None => store::new_id(),
        }
    }

    /// When the run's time is up, `spent` of it already used, if it is bounded in time.
    fn deadline_after(&self, spent: Duration) -> Option<tokio::time::Instant> {
        (self.settings.limits.timeout)
            .map(|limit| tokio::time::Instant::now() + limit.saturating_sub(spent))
    }

    /// How the run reports its progress.
    fn reporting(&self) -> Progress {
        let settings = &self.settings;
        Progress::new(settings.progress.clone(), settings.limits.turns.get())
            .telling(self.seams.task.clone())
    }

    /// The first request: the brief, under the model's name, with the system prompt and tools.
    fn opening(&self, brief: impl IntoBrief) -> Result<Request, RunError> {
        let mut request = brief.into_brief().map_err(RunError::Brief)?;
        self.model.name().clone_into(&mut request.model);
        if request.system.is_none() {
            request.system.clone_from(&self.settings.system);
        }
        let Some(nesting) = self.seams.at_depth_bound else {
            // Normalized for the model's provider, and checked, before any request.
            let mut tools = self.tools.tools();
            if self.seams.gate.asks_caller() {
                tools = approval::offer_ask_caller(tools).map_err(RunError::Toolbox)?; // ask_caller
            }
            let offered = self.offered(tools)?; // tool search: the deferred tools held back
            request.tools.extend(offered);
            return Ok(request);
        };
        tracing::info!(target: "ladoga", nesting, "at the depth bound: no tool is offered");
        let calls = if nesting == 1 { "call" } else { "calls" };
        let note = format!(
            "No tools are available: this task reached you {nesting} tool {calls} deep, as deep \
             as tool calls may nest here. Answer with what you have."
        );
        request.system = Some(match request.system.take() {
            Some(system) => format!("{system}\n\n{note}"),
            None => note,
        });
        Ok(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A paused run as the code before issue 20 wrote it (`Paused`, copied field by field):
    /// a replica on this code resumes it, as a rolling deploy needs.
    const WRITTEN_BEFORE: &str = include_str!("paused_before_issue_20.json");

    #[test]
    fn a_run_paused_by_the_code_before_reads_back_and_writes_the_same_json() {
        let paused: Paused<Run> = serde_json::from_str(WRITTEN_BEFORE).expect("read back");
        assert_eq!(paused.usage, (120, 45));
        assert_eq!(paused.spent, Some(Duration::from_millis(1500)));
        let run = &paused.run;
        assert_eq!((run.opened, run.turns), (1, 2));
        assert_eq!(run.request.messages.len(), 2);
        assert_eq!(run.request.tools[0].name, "clear_board");
        let pending = run
            .pending
            .as_ref()
            .expect("the answer waiting for approval");
        assert_eq!(pending.calls[0].name, "clear_board");
        assert_eq!(run.approvals[0].tool, "add_task");
        assert!(matches!(&run.answered_by, Some(AnsweredBy::Named(name)) if name == "backup"));
        assert_eq!(store::ran_named(&run.ran), ["`list_tasks` in turn 1"]);

        let written = serde_json::to_value(&paused).expect("written");
        let before: serde_json::Value = serde_json::from_str(WRITTEN_BEFORE).expect("JSON");
        assert_eq!(written, before, "the JSON a replica keeps is unchanged");
    }

    #[test]
    fn a_run_kept_before_the_calls_were_noted_still_reads_back() {
        let mut kept: serde_json::Value = serde_json::from_str(WRITTEN_BEFORE).expect("JSON");
        // What the code before `ran` wrote.
        kept.as_object_mut().expect("an object").remove("ran");
        let read: Paused<Run> = serde_json::from_value(kept).expect("read back");
        assert_eq!(read.run.turns, 2);
        assert!(read.run.ran.is_empty());
    }

    #[test]
    fn a_run_paused_now_keeps_what_the_code_before_had_not_and_reads_back() {
        let mut paused: Paused<Run> = serde_json::from_str(WRITTEN_BEFORE).expect("read back");
        assert!(paused.compacted.is_none() && paused.run.first_token.is_none());
        paused.run.first_token = Some(Duration::from_millis(180));
        // Guards: where the run's untrusted text came from, and what they held back.
        paused.run.untrusted = vec!["read_mail".into()];
        paused.run.held = vec![Held {
            guard: "provenance".into(),
            at: crate::guard::At::Call,
            tool: Some("send_mail".into()),
            turn: 2,
            action: crate::guard::HeldAction::Asked,
            why: "untrusted text".into(),
        }];
        paused.run.finishing = Some(Finishing::Typed {
            requests: 2,
            stop: None,
        });
        paused.compacted = Compacted {
            times: 2,
            cleared: 5,
            summaries: 1,
            summarized: 4,
            cut: 1,
            removed: 9_000,
        };
        let written = serde_json::to_string(&paused).expect("written");
        let read: Paused<Run> = serde_json::from_str(&written).expect("read back");
        assert_eq!(read.compacted, paused.compacted);
        assert_eq!(read.run.first_token, Some(Duration::from_millis(180)));
        assert_eq!(read.run.untrusted, ["read_mail"]);
        assert_eq!(read.run.held, paused.run.held);
        assert_eq!(
            read.run.finishing,
            Some(Finishing::Typed {
                requests: 2,
                stop: None,
            })
        );
        // What the run rebuilds, not keeps: its window counts from the compactions kept.
        let run = Run {
            window: Window::restored(read.compacted, read.counted),
            ..read.run
        };
        assert_eq!(run.window.so_far().times, 2);
    }
}

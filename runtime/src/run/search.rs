//! The loop's part of tool search: the tools the opening request offers (every one but the
//! deferred, and `search_tools` for those), the searches answered in place of the toolbox, and
//! each tool found offered from the next request on.

use std::ops::Deref;

use svir::{Completion, Tool, ToolCall, ToolResult, Toolbox};

use crate::approval::ASK_CALLER;
use crate::error::RunError;
use crate::limits::arguments;
use crate::model::CompletionModel;
use crate::observe::spans;
use crate::run::Orchestration;
use crate::run::state::Run;
use crate::toolbox::{SEARCH_TOOLS, ToolIndex, search_answer, search_tool};

/// A turn's answer as the approvals see it. Boxed when it is a copy: it lives across the
/// gate's await, in every run's future.
pub(super) enum Gated<'c> {
    /// The answer itself: it makes no search.
    Whole(&'c Completion),
    /// A copy without its searches.
    Without(Box<Completion>),
}

impl Deref for Gated<'_> {
    type Target = Completion;

    fn deref(&self) -> &Completion {
        match self {
            Self::Whole(done) => done,
            Self::Without(done) => done,
        }
    }
}

impl<M, T> Orchestration<'_, M, T>
where
    M: CompletionModel + ?Sized,
    T: Toolbox + Sync + ?Sized,
{
    /// The tools the first request offers, normalized for the model's provider and checked,
    /// the deferred ones too: every tool but the deferred, and `search_tools` when some are.
    pub(super) fn offered(&self, tools: Vec<Tool>) -> Result<Vec<Tool>, RunError> {
        let profile = self.model.schema_profile();
        let normalized =
            |tools| (profile.tools(tools)).map_err(|error| RunError::Toolbox(error.to_string()));
        let defer = &self.settings.defer;
        if defer.is_none() {
            return normalized(tools);
        }
        // The loop's own tools are never deferred: they are not the toolbox's.
        let (deferred, mut offered): (Vec<_>, Vec<_>) = normalized(tools)?
            .into_iter()
            .partition(|tool| defer.defers(&tool.name) && tool.name != ASK_CALLER);
        if offered
            .iter()
            .chain(&deferred)
            .any(|tool| tool.name == SEARCH_TOOLS)
        {
            return Err(RunError::Toolbox(format!(
                "a tool is named `{SEARCH_TOOLS}`, the name of the tool that finds the deferred \
                 ones: rename it, or defer no tool"
            )));
        }
        if !deferred.is_empty() {
            offered.extend(normalized(vec![search_tool()])?);
        }
        tracing::debug!(target: "ladoga", offered = offered.len(), deferred = deferred.len(), "tools deferred");
        Ok(offered)
    }

    /// `done` as the approvals see it: without its searches, which read only the tools'
    /// descriptions and are never put to a person, and without the calls whose arguments were
    /// left out for their size, which never run; and without the calls of a tool that is not
    /// there (neither `offered` nor deferred), which no one is asked about: the toolbox tells
    /// the model there is no such tool; nor the calls the guards blocked (`blocked`, their
    /// refusals), whose refusal stands whatever a person would answer.
    pub(super) fn gated<'c>(
        &self,
        done: &'c Completion,
        offered: &[Tool],
        blocked: &[ToolResult],
    ) -> Gated<'c> {
        // No approval and no question: the gate reads nothing, so nothing is screened.
        if self.seams.gate.is_none() {
            return Gated::Whole(done);
        }
        let defer = &self.settings.defer;
        let max = self.settings.limits.max_arguments;
        let screened = |call: &ToolCall| {
            defer.answers(call)
                || blocked.iter().any(|refusal| refusal.call_id == call.id)
                || arguments::omitted(call, max).is_some()
                || !self.is_there(call, offered)
        };
        if !done.calls.iter().any(screened) {
            return Gated::Whole(done);
        }
        let mut gated = done.clone();
        gated.calls.retain(|call| !screened(call));
        Gated::Without(Box::new(gated))
    }

    /// Whether `call` names a tool the model may call: one `offered`, `ask_caller` when the
    /// caller is asked, or a deferred one of the toolbox, callable by name before it is found.
    fn is_there(&self, call: &ToolCall, offered: &[Tool]) -> bool {
        offered.iter().any(|tool| tool.name == call.name)
            || (call.name == ASK_CALLER && self.seams.gate.asks_caller())
            || (self.settings.defer.defers(&call.name)
                && self.tools.tools().iter().any(|tool| tool.name == call.name))
    }

    /// Whether `call` is a search this run answers itself.
    pub(super) fn searches(&self, call: &ToolCall) -> bool {
        self.settings.defer.answers(call)
    }

    /// The results of the turn's searches (its `calls` that are, and are not `refused`), in
    /// their order; each tool they found, and each deferred tool called by name before it was
    /// found, is offered from the next request on.
    pub(super) fn search(
        &self,
        calls: &[ToolCall],
        refused: &[ToolResult],
        run: &mut Run,
    ) -> Vec<ToolResult> {
        let defer = &self.settings.defer;
        if defer.is_none() {
            return Vec::new();
        }
        let is_refused = |call: &ToolCall| refused.iter().any(|refusal| refusal.call_id == call.id);
        let mut found: Vec<Tool> = Vec::new();
        let mut results = Vec::new();
        for call in calls
            .iter()
            .filter(|call| self.searches(call) && !is_refused(call))
        {
            let index = run.index.get_or_insert_with(|| {
                let deferred = self.tools.tools().into_iter();
                Box::new(ToolIndex::new(
                    deferred.filter(|tool| defer.defers(&tool.name)).collect(),
                ))
            });
            // A search awaits nothing: it runs in its span, in place.
            let span = spans::tool(call);
            let _entered = span.enter();
            let (result, tools) = search_answer(index, call);
            let names: Vec<_> = tools.iter().map(|tool| tool.name.as_str()).collect();
            tracing::info!(target: "ladoga", of = index.len(), ?names, "searched the deferred tools");
            run.progress
                .call_answered(run.turns, calls.len(), call, result.is_error);
            found.extend(tools.into_iter().cloned());
            results.push(result);
        }
        // Called by name before it was found: it ran, and is offered from now on too.
        let offered = &run.request.tools;
        let unoffered = |call: &&ToolCall| {
            defer.defers(&call.name) && !offered.iter().any(|tool| tool.name == call.name)
        };
        let called: Vec<_> = calls.iter().filter(unoffered).collect();
        if !called.is_empty() {
            let tools = self.tools.tools().into_iter();
            found.extend(tools.filter(|tool| called.iter().any(|call| call.name == tool.name)));
        }
        self.offer(found, run);
        results
    }

    /// Offers `tools` from the next request on, each normalized for the model's provider, but
    /// those offered already.
    fn offer(&self, tools: Vec<Tool>, run: &mut Run) {
        let offered = &mut run.request.tools;
        let mut new: Vec<Tool> = Vec::new();
        for tool in tools {
            if !offered
                .iter()
                .chain(&new)
                .any(|known| known.name == tool.name)
            {
                new.push(tool);
            }
        }
        if new.is_empty() {
            return;
        }
        match self.model.schema_profile().tools(new) {
            Ok(normalized) => offered.extend(normalized),
            // Checked at the start: only a toolbox that changed since can fail here.
            Err(error) => {
                tracing::warn!(target: "ladoga", error = %crate::toolbox::printable(&error.to_string()), "a tool found is not offered")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};
    use svir::{Tool, Tools};

    use crate::approval::{Approvals, Decision, Question};
    use crate::error::RunError;
    use crate::run::Orchestration;
    use crate::testing::{Reply, ScriptedModel};
    use crate::toolbox::{SEARCH_TOOLS, ToolPattern};

    /// `now` up front; `crm_add_contact` and `crm_delete_contact` to defer.
    fn tools() -> Tools {
        let answer = |text: &'static str| move |_: Value| async move { text };
        Tools::new()
            .add_tool(Tool::new("now", "The time"), answer("noon"))
            .add_tool(
                Tool::new("crm_add_contact", "Adds a contact to the CRM"),
                answer("added"),
            )
            .add_tool(
                Tool::new("crm_delete_contact", "Deletes a contact from the CRM"),
                answer("deleted"),
            )
    }

    fn crm() -> [ToolPattern; 1] {
        [ToolPattern::new("crm_*").expect("a pattern")]
    }

    #[tokio::test]
    async fn a_tool_found_is_offered_from_the_next_request_on() {
        let model = ScriptedModel::new([
            Reply::call(SEARCH_TOOLS, json!({"query": "add a contact", "limit": 1})),
            Reply::call("crm_add_contact", json!({})),
            Reply::text("Added."),
        ]);
        let tools = tools();
        let outcome = Orchestration::new(&model, &tools)
            .defer(crm())
            .run("Add Ada")
            .await
            .expect("an outcome");
        assert_eq!(outcome.text, "Added.");
        let requests = model.requests();
        assert_eq!(requests[0].tool_names(), ["now", SEARCH_TOOLS]);
        let found: Value = serde_json::from_str(&requests[1].tool_results()[0].1).expect("JSON");
        assert_eq!(found["tools"][0]["name"], "crm_add_contact");
        assert_eq!(
            requests[1].tool_names(),
            ["now", SEARCH_TOOLS, "crm_add_contact"]
        );
        assert_eq!(requests[2].tool_results()[1].1, "added");
        assert_eq!(requests[2].tool_names(), requests[1].tool_names());
    }

    #[tokio::test]
    async fn with_nothing_deferred_no_search_is_offered_and_the_name_is_the_toolbox_s() {
        let model = ScriptedModel::new([Reply::text("noon")]);
        let tools = tools();
        Orchestration::new(&model, &tools)
            .defer([ToolPattern::new("mail_*").expect("a pattern")])
            .run("go")
            .await
            .expect("an outcome");
        let names = model.requests()[0].tool_names();
        assert_eq!(names, ["now", "crm_add_contact", "crm_delete_contact"]);

        let model = ScriptedModel::new([Reply::call(SEARCH_TOOLS, json!({})), Reply::text("x")]);
        let outcome = Orchestration::new(&model, &tools).run("go").await;
        let results = model.requests()[1].tool_results();
        assert!(outcome.is_ok());
        assert!(
            results[0].1.contains("search_tools"),
            "an unknown tool, as without tool search: {results:?}"
        );
    }

    #[tokio::test]
    async fn a_deferred_tool_called_by_name_runs_and_is_offered_from_then_on() {
        let model = ScriptedModel::new([
            Reply::call("crm_delete_contact", json!({})),
            Reply::text("Deleted."),
        ]);
        let tools = tools();
        Orchestration::new(&model, &tools)
            .defer(crm())
            .run("Delete Ada")
            .await
            .expect("an outcome");
        let second = &model.requests()[1];
        assert_eq!(second.tool_results()[0].1, "deleted");
        assert_eq!(
            second.tool_names(),
            ["now", SEARCH_TOOLS, "crm_delete_contact"]
        );
    }

    #[tokio::test]
    async fn searches_are_never_put_to_the_approver() {
        let model = ScriptedModel::new([
            Reply::call(SEARCH_TOOLS, json!({"query": "contact"})),
            Reply::text("Found them."),
        ]);
        let tools = tools();
        let person = |question: &Question| -> Decision {
            panic!("asked about {}", question.tool);
        };
        let outcome = Orchestration::new(&model, &tools)
            .defer(crm())
            .approvals(
                Approvals::tools([ToolPattern::new("*").expect("a pattern")]),
                &person,
            )
            .run("Find the contact tools")
            .await
            .expect("an outcome");
        assert!(outcome.approvals.is_empty());
        let offered = model.requests()[1].tool_names();
        assert_eq!(
            offered,
            ["now", SEARCH_TOOLS, "crm_add_contact", "crm_delete_contact"],
            "both found, ranked and tied by name"
        );
    }

    #[tokio::test]
    async fn a_toolbox_tool_named_search_tools_fails_a_run_that_defers() {
        let model = ScriptedModel::new([Reply::text("never asked")]);
        let tools = tools().add_tool(
            Tool::new(SEARCH_TOOLS, "Searches the web"),
            |_: Value| async { "results" },
        );
        let error = Orchestration::new(&model, &tools)
            .defer(crm())
            .run("go")
            .await
            .expect_err("a name taken");
        assert!(
            matches!(&error, RunError::Toolbox(told) if told.contains("`search_tools`")),
            "{error}"
        );
        assert!(model.requests().is_empty());
    }
}

//! What a [`LiveTools`](crate::LiveTools) lets through of its server's listing: the last filter
//! and the last rename of its `RemoteTools`, which leave out the tools past the bounds and those
//! neva would refuse.
//!
//! neva's `RemoteTools::refresh` fails the whole listing at the first tool whose name, after the
//! renames, a model API cannot carry, or that takes a name already taken, and keeps the previous
//! snapshot (none, at the start). It takes the tools one at a time, in listing order: the
//! filters, then the renames, then those checks. So the last rename ([`Screen::rename`]) sees
//! the name neva will check, of the tool the last filter ([`Screen::keeps`]) kept just before:
//! a name neva would refuse is said, and given a placeholder neva takes, which
//! [`Screen::offers`] then leaves out of what the model is offered. One listing, whatever the
//! server lists. Should neva refuse a listing all the same, the tool kept last is the one it
//! refused: [`Screen::blame`] leaves it out, and the listing is tried again, without reading
//! neva's error text.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, RandomState};
use std::sync::{Mutex, MutexGuard, PoisonError};

use neva::error::Error;
use neva::types::Tool;

use super::bounds::{MAX_REMOTE_BYTES, MAX_REMOTE_TOOLS, measured};
use super::printable::printable;
use super::said::Said;
use crate::schema::name::carried;
use crate::toolbox::ToolHints;

/// Tools refused by neva remembered at most: past it, they are forgotten and found again.
const REFUSED: usize = 4096;

/// The state of the screen of one [`LiveTools`](crate::LiveTools).
#[derive(Debug)]
pub(super) struct Screen {
    state: Mutex<State>,
    /// The server's name of each tool offered, by the name it is offered under: the last
    /// listing's that succeeded.
    servers: Mutex<HashMap<String, String>>,
    /// What each tool's annotations say, by its server name: the last listing's that succeeded.
    hints: Mutex<HashMap<String, ToolHints>>,
    said: Said,
    /// How the placeholders of this screen begin: random, so no server can guess one.
    placeholder: String,
}

impl Default for Screen {
    fn default() -> Self {
        let random = RandomState::new().hash_one(0_u8);
        Self {
            state: Mutex::default(),
            servers: Mutex::default(),
            hints: Mutex::default(),
            said: Said::default(),
            placeholder: format!("left_out_{random:016x}_"),
        }
    }
}

/// The names of tools are kept as their hashes: a server chooses how long they are.
#[derive(Debug, Default)]
struct State {
    /// The server's names of the tools neva refused, left out of every listing since.
    refused: HashSet<u64>,
    /// The server's names of the tools kept in this listing so far.
    kept: HashSet<u64>,
    /// The tool kept last in this listing: the one renamed next, and the one refused if the
    /// listing fails.
    last: Option<String>,
    /// The names given in this listing, after the renames.
    named: HashSet<u64>,
    /// The server's name of each tool offered in this listing, by the name it is offered under.
    servers: HashMap<String, String>,
    /// What the annotations of each tool kept in this listing say, by its server name.
    hints: HashMap<String, ToolHints>,
    /// The placeholders given in this listing.
    placeholders: usize,
    /// The tools of this listing left out for being past [`MAX_REMOTE_TOOLS`].
    past_count: usize,
    /// The bytes the tools kept in this listing take, and the last one's.
    bytes: usize,
    last_bytes: usize,
    /// The tools of this listing left out for taking them past [`MAX_REMOTE_BYTES`].
    past_bytes: usize,
    hasher: RandomState,
}

impl Screen {
    /// Starts a listing: nothing kept yet.
    pub(super) fn start(&self) {
        let mut state = self.state();
        state.kept.clear();
        state.last = None;
        state.named.clear();
        state.servers.clear();
        state.hints.clear();
        state.placeholders = 0;
        state.past_count = 0;
        state.bytes = 0;
        state.past_bytes = 0;
    }

    /// The filter: whether `tool`, as its server listed it, is offered.
    pub(super) fn keeps(&self, tool: &Tool) -> bool {
        let mut state = self.state();
        let name = state.hasher.hash_one(&tool.name);
        if state.refused.contains(&name) {
            return false;
        }
        if state.kept.contains(&name) {
            drop(state);
            self.say_left_out(
                &tool.name,
                "the server lists it twice: the first is offered",
            );
            return false;
        }
        if state.kept.len() >= MAX_REMOTE_TOOLS {
            state.past_count += 1;
            return false;
        }
        let bytes = match measured(tool) {
            Ok(bytes) => bytes,
            Err(reason) => {
                drop(state);
                self.say_left_out(&tool.name, &reason);
                return false;
            }
        };
        if state.bytes + bytes > MAX_REMOTE_BYTES {
            state.past_bytes += 1;
            return false;
        }
        state.bytes += bytes;
        state.last_bytes = bytes;
        state.kept.insert(name);
        state.last = Some(tool.name.clone());
        state.hints.insert(tool.name.clone(), hinted(tool));
        true
    }

    /// The last rename: `name` itself, the name the tool kept last is offered under, if neva
    /// takes it; else a placeholder that neva takes, and that [`Self::offers`] leaves out.
    pub(super) fn rename(&self, name: &str) -> String {
        let mut state = self.state();
        let hash = state.hasher.hash_one(name);
        let reason = if !carried(name) {
            "a model API cannot carry the name it would be offered as"
        } else if state.named.contains(&hash) || name.starts_with(&self.placeholder) {
            "another tool of the server is offered under the name it would be offered as"
        } else {
            state.named.insert(hash);
            if let Some(server) = state.last.clone() {
                state.servers.insert(name.to_owned(), server);
            }
            return name.to_owned();
        };
        // Not kept after all: it neither counts nor takes its server name.
        let server = state.last.take().unwrap_or_default();
        let server_hash = state.hasher.hash_one(&server);
        state.kept.remove(&server_hash);
        state.bytes = state
            .bytes
            .saturating_sub(std::mem::take(&mut state.last_bytes));
        let placeholder = format!("{}{}", self.placeholder, state.placeholders);
        state.placeholders += 1;
        let placeholder_hash = state.hasher.hash_one(&placeholder);
        state.named.insert(placeholder_hash);
        drop(state);
        self.say_left_out(&server, &format!("{reason}: `{name}`"));
        placeholder
    }

    /// The server's name of the tool offered as `name`, as of the last listing.
    pub(super) fn server_name(&self, name: &str) -> Option<String> {
        let servers = self.servers.lock().unwrap_or_else(PoisonError::into_inner);
        servers.get(name).cloned()
    }

    /// What the run knows of the tool offered as `name`, as of the last listing: untrusted,
    /// and read-only or reaching outside as its annotations say.
    pub(super) fn hints_of(&self, name: &str) -> ToolHints {
        let known = self.server_name(name).and_then(|server| {
            let hints = self.hints.lock().unwrap_or_else(PoisonError::into_inner);
            hints.get(&server).copied()
        });
        known.unwrap_or_else(ToolHints::untrusted)
    }

    /// Whether the tool offered as `name` is offered to the model: it is no placeholder.
    pub(super) fn offers(&self, name: &str) -> bool {
        !name.starts_with(&self.placeholder)
    }

    /// After a listing failed with `error`: leaves out the tool kept last, which neva refused,
    /// and answers true, to list again; false if the listing failed before any tool was kept
    /// (the server did not answer, or neva could not read its answer).
    pub(super) fn blame(&self, error: &Error) -> bool {
        let mut state = self.state();
        let Some(refused) = state.last.take() else {
            return false;
        };
        if state.refused.len() >= REFUSED {
            state.refused.clear();
        }
        let hash = state.hasher.hash_one(&refused);
        state.refused.insert(hash);
        drop(state);
        self.say_left_out(&refused, &error.to_string());
        true
    }

    /// After a listing that succeeded: says once how many tools were past [`MAX_REMOTE_TOOLS`],
    /// and how many past [`MAX_REMOTE_BYTES`].
    pub(super) fn finish(&self) {
        let (past, past_bytes) = {
            let mut state = self.state();
            let servers = std::mem::take(&mut state.servers);
            *self.servers.lock().unwrap_or_else(PoisonError::into_inner) = servers;
            let hints = std::mem::take(&mut state.hints);
            *self.hints.lock().unwrap_or_else(PoisonError::into_inner) = hints;
            (state.past_count, state.past_bytes)
        };
        if past_bytes > 0 && self.said.first(("past the bytes", past_bytes)) {
            tracing::warn!(target: "ladoga", offered_bytes = MAX_REMOTE_BYTES, left_out = past_bytes, "a remote server's tools take more bytes than are offered to the model (MAX_REMOTE_BYTES): {past_bytes} are left out");
        }
        if past > 0 && self.said.first(("past the count", past)) {
            tracing::warn!(target: "ladoga", offered = MAX_REMOTE_TOOLS, left_out = past, "a remote server lists more tools than are offered to the model (MAX_REMOTE_TOOLS): the first {MAX_REMOTE_TOOLS} are offered, {past} are left out");
        }
    }

    /// Says, once for each tool and reason, that the tool the server calls `name` is left out.
    fn say_left_out(&self, name: &str, reason: &str) {
        if self.said.first((name, reason)) {
            tracing::warn!(target: "ladoga", tool = %printable(name), reason = %printable(reason), "a remote tool is not offered to the model");
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// What `tool`'s annotations say, for a tool of another server: untrusted whatever they say.
fn hinted(tool: &Tool) -> ToolHints {
    let annotations = tool.annotations.as_ref();
    let mut hints = ToolHints::untrusted();
    if annotations.and_then(|hints| hints.readonly) == Some(true) {
        hints = hints.read_only();
    }
    // MCP's default: a tool that does not say it stays inside reaches outside.
    if annotations.and_then(|hints| hints.open_world) != Some(false) {
        hints = hints.open_world();
    }
    hints
}

#[cfg(test)]
mod tests {
    use neva::error::ErrorCode;
    use serde_json::json;

    use super::*;

    fn tool(name: &str) -> Tool {
        serde_json::from_value(json!({"name": name, "inputSchema": {"type": "object"}}))
            .expect("a tool")
    }

    /// The names `screen` keeps of `names`, as one listing.
    fn listing(screen: &Screen, names: &[&str]) -> Vec<String> {
        screen.start();
        let kept = names.iter().filter(|name| screen.keeps(&tool(name)));
        kept.map(|name| (*name).to_owned()).collect()
    }

    fn refused() -> Error {
        Error::new(ErrorCode::InvalidParams, "Tool `b.c` cannot be offered")
    }

    #[test]
    fn absent_annotations_read_as_mcp_defaults_them() {
        let annotated = |annotations: serde_json::Value| {
            let tool =
                json!({"name": "t", "inputSchema": {"type": "object"}, "annotations": annotations});
            hinted(&serde_json::from_value(tool).expect("a tool"))
        };
        // Nothing said: untrusted, may change things, reaches outside.
        assert_eq!(hinted(&tool("t")), ToolHints::untrusted().open_world());
        // Only that it reads: it still reaches outside (AgentDojo's `get_webpage`).
        let reads = annotated(json!({"readOnlyHint": true}));
        assert_eq!(reads, ToolHints::untrusted().read_only().open_world());
        // Said to stay inside: it does not.
        let inside = annotated(json!({"readOnlyHint": true, "openWorldHint": false}));
        assert_eq!(inside, ToolHints::untrusted().read_only());
    }

    #[test]
    fn the_tool_kept_last_is_blamed_and_left_out_of_every_listing_after() {
        let screen = Screen::default();
        assert_eq!(listing(&screen, &["a", "b.c"]), ["a", "b.c"]);
        assert!(screen.blame(&refused()));
        assert_eq!(listing(&screen, &["a", "b.c", "d"]), ["a", "d"]);
        assert_eq!(listing(&screen, &["b.c"]), Vec::<String>::new());
    }

    #[test]
    fn a_listing_that_failed_before_any_tool_blames_none() {
        let screen = Screen::default();
        listing(&screen, &["a"]);
        screen.start();
        assert!(!screen.blame(&refused()), "nothing kept in this listing");
        assert_eq!(listing(&screen, &["a"]), ["a"]);
    }

    /// `listing`, each tool kept renamed as neva would, `prefix` first, then by the screen.
    fn renamed(screen: &Screen, names: &[&str], prefix: &str) -> Vec<String> {
        screen.start();
        let kept = names.iter().filter(|name| screen.keeps(&tool(name)));
        kept.map(|name| screen.rename(&format!("{prefix}{name}")))
            .collect()
    }

    #[test]
    fn a_name_neva_would_refuse_gets_a_placeholder_that_is_not_offered() {
        let screen = Screen::default();
        let names = renamed(
            &screen,
            &["a", "nul\0", "b", "b", "x".repeat(70).as_str()],
            "",
        );
        assert_eq!(names[0], "a");
        assert!(!screen.offers(&names[1]), "{names:?}");
        assert!(carried(&names[1]), "neva takes the placeholder: {names:?}");
        assert_eq!(names[2], "b");
        assert_eq!(names.len(), 4, "`b` listed twice is kept once: {names:?}");
        assert!(
            !screen.offers(&names[3]) && names[3] != names[1],
            "{names:?}"
        );
        let offered: Vec<_> = names.iter().filter(|name| screen.offers(name)).collect();
        assert_eq!(offered, ["a", "b"]);
    }

    #[test]
    fn two_names_one_rename_makes_one_are_offered_once_and_a_placeholder_cannot_be_taken() {
        let screen = Screen::default();
        let mut clash = renamed(&screen, &["notes"], "n_");
        clash.push(screen.rename("n_notes"));
        assert_eq!(clash[0], "n_notes");
        assert!(!screen.offers(&clash[1]), "{clash:?}");

        let guessed = format!("{}0", screen.placeholder);
        let names = renamed(&screen, &["a", &guessed], "");
        assert_eq!(names[0], "a");
        assert!(!screen.offers(&names[1]));
    }

    #[test]
    fn a_tool_given_a_placeholder_does_not_count_against_the_bound() {
        let screen = Screen::default();
        let mut names: Vec<String> = vec!["bad.name".to_owned()];
        names.extend((0..MAX_REMOTE_TOOLS).map(|at| format!("t{at}")));
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let kept = renamed(&screen, &names, "");
        let offered = kept.iter().filter(|name| screen.offers(name)).count();
        assert_eq!(offered, MAX_REMOTE_TOOLS);
    }

    #[test]
    fn the_tools_that_would_take_the_bytes_past_their_bound_are_left_out() {
        let screen = Screen::default();
        screen.start();
        let described = |name: &str, bytes: usize| {
            let mut tool = tool(name);
            tool.descr = Some("x".repeat(bytes));
            tool
        };
        let large = (0..20).filter(|at| screen.keeps(&described(&format!("l{at}"), 40_000)));
        assert_eq!(large.count(), MAX_REMOTE_BYTES / 40_000, "as many as fit");
        assert!(
            screen.keeps(&described("small", 100)),
            "a small one still fits"
        );
        assert_eq!(screen.state().past_bytes, 20 - MAX_REMOTE_BYTES / 40_000);
    }

    #[test]
    fn a_name_listed_twice_is_kept_once() {
        let screen = Screen::default();
        assert_eq!(listing(&screen, &["a", "b", "a"]), ["a", "b"]);
        assert_eq!(
            listing(&screen, &["a"]),
            ["a"],
            "a new listing starts afresh"
        );
    }

    #[test]
    fn the_tools_past_the_count_bound_are_left_out() {
        let screen = Screen::default();
        let names: Vec<String> = (0..MAX_REMOTE_TOOLS + 10)
            .map(|at| format!("t{at}"))
            .collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let kept = listing(&screen, &names);
        assert_eq!(kept.len(), MAX_REMOTE_TOOLS);
        assert_eq!(kept.last().map(String::as_str), Some("t127"));
        assert_eq!(screen.state().past_count, 10);
    }
}

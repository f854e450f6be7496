//! Attacks on an approval, through the real HTTP path of `board --auth`: bare MCP 2026-07-28
//! requests, as an attacker would write them, for the rounds of a `plan_week` call whose model
//! asks for `clear_board`. The question's sealed `requestState` is tampered with, replayed
//! with another request, answered for other arguments, replayed by another principal, and the
//! final round is replayed: each time `clear_board` does not run, and no model request is made
//! twice.
use std::net::SocketAddr;

use crate::common;
use crate::common::auth::{admin, board_with_auth};
use crate::common::rounds::{approve, cleared, clearing_model, question, refused};
use ladoga::testing::{ScriptedModel, ScriptedServer};
use serde_json::Value;

/// The board with `--auth`, the scripted model behind it.
struct Board {
    _model: ScriptedServer,
    _board: tokio::process::Child,
    addr: SocketAddr,
}

impl Board {
    async fn start(script: &ScriptedModel) -> Self {
        let model = script.serve().await.expect("the scripted model serves");
        let (board, addr) = board_with_auth(&model.url()).await;
        Self {
            _model: model,
            _board: board,
            addr,
        }
    }

    /// One round of `plan_week`, see [`common::rounds::round`].
    async fn round(
        &self,
        token: &str,
        focus: &str,
        state: Option<&str>,
        answers: Option<Value>,
    ) -> Value {
        common::rounds::round(self.addr, token, focus, state, answers).await
    }
}

#[tokio::test]
async fn a_forged_state_is_refused_and_nothing_runs() {
    let script = clearing_model();
    let board = Board::start(&script).await;
    let alice = admin("alice");
    let (key, state) = question(&board.round(&alice, "the release", None, None).await);

    // One character of the sealed state changed; and a state made up from nothing.
    let mut forged: Vec<char> = state.chars().collect();
    let middle = forged.len() / 2;
    forged[middle] = if forged[middle] == 'A' { 'B' } else { 'A' };
    let forged: String = forged.into_iter().collect();
    for state in [forged.as_str(), "eyJhbnN3ZXJzIjp7fX0"] {
        let answer = board
            .round(&alice, "the release", Some(state), Some(approve(&key)))
            .await;
        assert!(refused(&answer), "{answer}");
    }
    assert_eq!(cleared(&script), 0, "clear_board never ran");
    assert_eq!(script.requests().len(), 1, "no turn was asked for again");
}

#[tokio::test]
async fn an_approval_replayed_with_another_request_is_refused() {
    let script = clearing_model();
    let board = Board::start(&script).await;
    let alice = admin("alice");
    let (key, state) = question(&board.round(&alice, "the release", None, None).await);

    // The state and the approval of one call, sent with another.
    let answer = board
        .round(&alice, "something else", Some(&state), Some(approve(&key)))
        .await;
    assert!(refused(&answer), "{answer}");
    assert!(answer.to_string().contains("does not match"), "{answer}");
    // The approval alone, offered up front to a new call: that call's question is another.
    let fresh = board
        .round(&alice, "the release", None, Some(approve(&key)))
        .await;
    let (other_key, _) = question(&fresh);
    assert_ne!(key, other_key, "each run's question is its own");
    assert_eq!(cleared(&script), 0, "clear_board never ran");
}

#[tokio::test]
async fn an_approval_for_other_arguments_is_not_taken() {
    let script = clearing_model();
    let board = Board::start(&script).await;
    let alice = admin("alice");
    let (key, state) = question(&board.round(&alice, "the release", None, None).await);

    // An answer filed under another key (another call, other arguments) is not this one's: the
    // caller is asked again, and nothing runs.
    let other = key.replace(&key[key.len() - 8..], "00000000");
    let answer = board
        .round(&alice, "the release", Some(&state), Some(approve(&other)))
        .await;
    let (asked_again, _) = question(&answer);
    assert_eq!(asked_again, key);
    assert_eq!(cleared(&script), 0, "clear_board never ran");
    assert_eq!(script.requests().len(), 1, "no turn was asked for again");
}

#[tokio::test]
async fn an_approval_replayed_by_another_principal_is_refused() {
    let script = clearing_model();
    let board = Board::start(&script).await;
    let (key, state) = question(
        &board
            .round(&admin("alice"), "the release", None, None)
            .await,
    );

    // Bob, an admin too, sends Alice's state and approval.
    let answer = board
        .round(
            &admin("bob"),
            "the release",
            Some(&state),
            Some(approve(&key)),
        )
        .await;
    assert!(refused(&answer), "{answer}");
    assert!(answer.to_string().contains("principal"), "{answer}");
    assert_eq!(cleared(&script), 0, "clear_board never ran");
}

#[tokio::test]
async fn the_approved_round_runs_the_call_once_even_when_replayed() {
    let script = clearing_model();
    let board = Board::start(&script).await;
    let alice = admin("alice");
    let (key, state) = question(&board.round(&alice, "the release", None, None).await);

    let done = board
        .round(&alice, "the release", Some(&state), Some(approve(&key)))
        .await;
    assert_eq!(
        done["result"]["content"][0]["text"], "Done: Removed 0 tasks",
        "{done}"
    );
    // The same final round, sent again.
    let again = board
        .round(&alice, "the release", Some(&state), Some(approve(&key)))
        .await;
    assert!(
        refused(&again) || again == done,
        "a replay either fails or gets the same answer: {again}"
    );
    // The round's state again, without the answer: the run it names was taken.
    let unanswered = board.round(&alice, "the release", Some(&state), None).await;
    assert!(
        refused(&unanswered) || unanswered == done,
        "a replay either fails or gets the same answer: {unanswered}"
    );
    assert_eq!(cleared(&script), 1, "clear_board ran once");
    assert_eq!(script.requests().len(), 2, "each turn was asked for once");
}

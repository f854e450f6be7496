//! The example binaries run as an operator runs them: authentication, limits, replicas behind
//! nginx, shared and failing stores, draining, probes and metrics, durable runs on Restate.

/// `board --auth`: bearer JWTs, and the roles they carry, through the real binary.
mod auth;
/// `board`'s front answers a body over neva's limit with `413` and a JSON-RPC error.
mod body_limit;
/// `board` stopped with SIGTERM drains (`--drain`), and behind nginx loses no call.
#[cfg(unix)]
mod drain;
/// `board --restate-*`: its durable `plan_week` on a real restate-server, killed mid-run.
mod durable_board;
/// A run on `ladoga::durable::Journal` in a Restate workflow whose worker is killed mid-run.
mod durable_journal;
/// Two durable `board` replicas behind nginx, the one running the task killed.
#[cfg(not(feature = "legacy-spec"))]
mod durable_replicas;
/// The `hello` example: its orchestrator calls its tool for the scripted model.
mod hello;
/// A real Prometheus scraping `board --admin` counts the runs and calls the test made.
mod metrics;
/// Attacks on `board --oauth`: forged and misdirected tokens, scopes, a hostile `Host`.
#[cfg(not(feature = "legacy-spec"))]
mod oauth;
/// `board --admin`: `/healthz`, `/readyz` (a Redis stopped and started again), `/metrics`.
mod probes;
/// Replicas sharing a real Redis, and behind nginx: paused runs and final rounds found by another.
mod replicas;
/// Attacks on an approval's rounds through `board --auth`: tampered, replayed, misdirected.
#[cfg(not(feature = "legacy-spec"))]
mod security;
/// A Redis restarted, down or killed under two `board` replicas.
#[cfg(not(feature = "legacy-spec"))]
mod store_failures;
/// Each caller sees only its own tasks and sessions, through `board --auth`.
mod task_owners;

//! Every name the crate root has had, as code outside this repository names it: a name that
//! moves into a module stays at the root too. Also the modules each is documented in.

#![allow(unused_imports)]

use ladoga::{
    Approval, Approvals, Approver, AskFuture, Asked, CompletionModel, DEFAULT_CALL_TIMEOUT,
    DEFAULT_DEPTH, DEFAULT_MAX_RESULT, DEFAULT_OUTPUT_RETRIES, DEFAULT_RETRIES,
    DEFAULT_STREAM_INTERVAL, DEFAULT_TURNS, Decision, Drain, Fallback, IntoBrief, Limits,
    LiveTools, MemoryRuns, Model, NormalizedTools, OnLimit, Orchestration, Orchestrator, Outcome,
    PAUSED_RUN_TTL, PatternError, Question, REPORT_KEY, RedisStore, RunError, RunStore, Runs,
    STREAM_LOGGER, SchemaError, SchemaProfile, Stop, StoreError, StoreFuture, TaskProgress,
    TokenUsage, ToolPattern, ToolSelection, ToolUnion, metrics, orchestrator, round_unlocked,
    testing,
};

use ladoga::approval::{Approval as _, Approvals as _, Approver as _, Decision as _};
use ladoga::limits::{Limits as _, OnLimit as _};
use ladoga::model::{CompletionModel as _, Fallback as _, Model as _};
use ladoga::observe::{REPORT_KEY as _, TaskProgress as _, metrics as _};
use ladoga::schema::{NormalizedTools as _, SchemaProfile as _};
use ladoga::store::{MemoryRuns as _, RedisStore as _, RunStore as _, Runs as _};
use ladoga::testing::{Reply, ScriptedModel, ScriptedServer, SeenRequest};
use ladoga::toolbox::{LiveTools as _, ToolPattern as _, ToolSelection as _, ToolUnion as _};
// Names that moved between folders, kept where they were first documented.
use ladoga::CALLER_MODEL_STATE_BYTES;
use ladoga::context::{Compacted as _, estimate_tokens as _};
use ladoga::model::CALLER_MODEL_STATE_BYTES as _;
use ladoga::observe::metrics::{TOKEN_USAGE as _, serve as _};
use ladoga::session::{
    DEFAULT_SESSION_BYTES as _, DEFAULT_SESSIONS as _, DEFAULT_SESSIONS_PER_CALLER as _,
    SessionBounds as _,
};

fn main() {
    let _ = (metrics::serve, metrics::describe, metrics::TOKEN_USAGE);
    let _: fn() -> bool = round_unlocked;
    let _ = (
        DEFAULT_TURNS,
        DEFAULT_DEPTH,
        DEFAULT_MAX_RESULT,
        DEFAULT_CALL_TIMEOUT,
    );
    let _ = (
        DEFAULT_OUTPUT_RETRIES,
        DEFAULT_RETRIES,
        DEFAULT_STREAM_INTERVAL,
        PAUSED_RUN_TTL,
    );
    let _ = (REPORT_KEY, STREAM_LOGGER, CALLER_MODEL_STATE_BYTES);
}

//! One row per argument: its name, how it is written, and how its value is taken. Adding an
//! argument is a row here, the field it fills in `Args`, its builder call in `expand`, and its
//! row and section in the attribute's reference, `runtime/src/docs/orchestrator.md` (the tests
//! of `reference` fail until it has them).

use proc_macro2::Span;
use syn::{Expr, Type};

use super::Args;
use super::patterns::{approve, deferred, patterns};
use super::time::{stream, timeout};
use super::uri::{prompt, uris};
use super::values::{bound, count, dollars, list, policy, quota, repeat, session, string, strings};
use crate::errors::Errors;

/// One argument `#[orchestrator]` takes.
pub(super) struct Spec {
    /// Its name.
    pub(super) name: &'static str,
    /// How it is written, for the messages: "`turns = 8`".
    pub(super) example: &'static str,
    /// How its value is read and where it is kept.
    pub(super) take: Take,
}

/// How an argument's value is read and where it is kept. The variant also decides how the value
/// parses: a type, a bracketed list of types, or an expression.
pub(super) enum Take {
    /// A flag: `recurse`, or `recurse = false`; given where its name is written.
    Flag(fn(&mut Args, bool, Span)),
    /// An expression, checked and kept by the function.
    Value(fn(&mut Args, &Expr, &Spec, &mut Errors)),
    /// A type, which does not parse as an expression when it has generics: `model = Dc<T>`.
    Type(fn(&mut Args, Type)),
    /// A bracketed list of types: `with = [A, B]`.
    Types(fn(&mut Args, Vec<Type>)),
    /// An expression handed to neva's `#[tool]` as it was written, once the function accepts it.
    Neva(fn(&Expr, &Spec, &mut Errors) -> bool),
}

/// Every argument, in the order the unknown-argument message lists them.
pub(super) const ARGS: &[Spec] = &[
    Spec {
        name: "descr",
        example: "`descr = \"Plans the week\"`",
        take: Take::Value(|args, value, spec, errors| args.descr = string(value, spec, errors)),
    },
    Spec {
        name: "title",
        example: "`title = \"Week planner\"`",
        take: Take::Neva(|value, spec, errors| string(value, spec, errors).is_some()),
    },
    Spec {
        name: "system",
        example: "`system = \"You keep the user's task board.\"`",
        take: Take::Value(|args, value, spec, errors| args.system = string(value, spec, errors)),
    },
    Spec {
        name: "prompt",
        example: "`prompt = \"review_board\"`",
        take: Take::Value(|args, value, spec, errors| args.prompt = prompt(value, spec, errors)),
    },
    Spec {
        name: "attach",
        example: "`attach = [\"board://tasks/{focus}\"]`",
        take: Take::Value(|args, value, spec, errors| args.attach = uris(value, spec, errors)),
    },
    Spec {
        name: "turns",
        example: "`turns = 8`",
        take: Take::Value(|args, value, spec, errors| args.turns = bound(value, spec, errors)),
    },
    Spec {
        name: "depth",
        example: "`depth = 4`",
        take: Take::Value(|args, value, spec, errors| args.depth = bound(value, spec, errors)),
    },
    Spec {
        name: "recurse",
        example: "`recurse` or `recurse = false`",
        take: Take::Flag(|args, on, _| args.recurse = on),
    },
    Spec {
        name: "ask",
        example: "`ask` or `ask = false`",
        take: Take::Flag(|args, on, _| args.ask = on),
    },
    Spec {
        name: "durable",
        example: "`durable` or `durable = false`",
        take: Take::Flag(|args, on, name| args.durable = on.then_some(name)),
    },
    Spec {
        name: "tools",
        example: "`tools = [\"add_*\", \"list_tasks\"]`",
        take: Take::Value(|args, value, spec, errors| args.tools = patterns(value, spec, errors)),
    },
    Spec {
        name: "exclude",
        example: "`exclude = [\"clear_*\"]`",
        take: Take::Value(|args, value, spec, errors| args.exclude = patterns(value, spec, errors)),
    },
    Spec {
        name: "defer",
        example: "`defer = [\"crm_*\"]`",
        take: Take::Value(|args, value, spec, errors| args.defer = deferred(value, spec, errors)),
    },
    Spec {
        name: "on_limit",
        example: "`on_limit = \"error\"`, `\"answer\"` or `\"partial\"`",
        take: Take::Value(|args, value, spec, errors| args.on_limit = policy(value, spec, errors)),
    },
    Spec {
        name: "timeout",
        example: "`timeout = \"90s\"`",
        take: Take::Value(|args, value, spec, errors| args.timeout = timeout(value, spec, errors)),
    },
    Spec {
        name: "call_timeout",
        example: "`call_timeout = \"20s\"`",
        take: Take::Value(|args, value, spec, errors| {
            args.call_timeout = timeout(value, spec, errors)
        }),
    },
    Spec {
        name: "stream",
        example: "`stream = true`, or the least time between two lines: `stream = \"500ms\"`",
        take: Take::Value(|args, value, spec, errors| args.stream = stream(value, spec, errors)),
    },
    Spec {
        name: "budget",
        example: "`budget = 20000`",
        take: Take::Value(|args, value, spec, errors| args.budget = bound(value, spec, errors)),
    },
    Spec {
        name: "budget_usd",
        example: "`budget_usd = 0.50`",
        take: Take::Value(|args, value, spec, errors| {
            args.budget_usd = dollars(value, spec, errors)
        }),
    },
    Spec {
        name: "quota",
        example: "`quota = \"5 USD/day\"`",
        take: Take::Value(|args, value, spec, errors| args.quota = quota(value, spec, errors)),
    },
    Spec {
        name: "context",
        example: "`context = 32000`",
        take: Take::Value(|args, value, spec, errors| args.context = bound(value, spec, errors)),
    },
    Spec {
        name: "repeat",
        example: "`repeat = 3`",
        take: Take::Value(|args, value, spec, errors| args.repeat = repeat(value, spec, errors)),
    },
    Spec {
        name: "max_result",
        example: "`max_result = 20000`",
        take: Take::Value(|args, value, spec, errors| args.max_result = bound(value, spec, errors)),
    },
    Spec {
        name: "max_arguments",
        example: "`max_arguments = 65536`",
        take: Take::Value(|args, value, spec, errors| {
            args.max_arguments = bound(value, spec, errors)
        }),
    },
    Spec {
        name: "output",
        example: "`output = Review`",
        take: Take::Type(|args, ty| args.output = Some(ty)),
    },
    Spec {
        name: "retries",
        example: "`retries = 1`",
        take: Take::Value(|args, value, spec, errors| args.retries = count(value, spec, errors)),
    },
    Spec {
        name: "model",
        example: "`model = MyModel`",
        take: Take::Type(|args, ty| args.model = Some(ty)),
    },
    Spec {
        name: "compact_model",
        example: "`compact_model = SmallModel`",
        take: Take::Type(|args, ty| args.compact_model = Some(ty)),
    },
    Spec {
        name: "with",
        example: "`with = [RemoteTools]`",
        take: Take::Types(|args, types| args.with = types),
    },
    Spec {
        name: "guard",
        example: "`guard = [Fence, Provenance]`",
        take: Take::Types(|args, types| args.guard = types),
    },
    Spec {
        name: "approve",
        example: "`approve = [\"clear_*\"]`, or every tool that may destroy: `approve = destructive`",
        take: Take::Value(|args, value, spec, errors| args.approve = approve(value, spec, errors)),
    },
    Spec {
        name: "session",
        example: "`session = true`, or one conversation per caller: `session = caller`",
        take: Take::Value(|args, value, spec, errors| args.session = session(value, spec, errors)),
    },
    Spec {
        name: "session_ttl",
        example: "`session_ttl = \"1h\"`",
        take: Take::Value(|args, value, spec, errors| {
            args.session_ttl = timeout(value, spec, errors)
        }),
    },
    Spec {
        name: "roles",
        example: "`roles = [\"admin\"]`",
        take: Take::Neva(|value, spec, errors| strings(value, spec, errors).is_some()),
    },
    Spec {
        name: "permissions",
        example: "`permissions = [\"board:write\"]`",
        take: Take::Neva(|value, spec, errors| strings(value, spec, errors).is_some()),
    },
    Spec {
        name: "scopes",
        example: "`scopes = [\"board\"]`",
        take: Take::Neva(|value, spec, errors| strings(value, spec, errors).is_some()),
    },
    Spec {
        // Expressions neva's `#[tool]` checks itself.
        name: "middleware",
        example: "`middleware = [audit]`",
        take: Take::Neva(list),
    },
    Spec {
        name: "annotations",
        example: "`annotations = \"{...}\"`",
        take: Take::Neva(|value, spec, errors| string(value, spec, errors).is_some()),
    },
    Spec {
        name: "task_support",
        example: "`task_support = \"optional\"`",
        take: Take::Neva(|value, spec, errors| string(value, spec, errors).is_some()),
    },
];

/// The row of the argument called `name`, if `#[orchestrator]` takes one.
pub(super) fn find(name: &str) -> Option<&'static Spec> {
    ARGS.iter().find(|spec| spec.name == name)
}

/// Every argument's name, in order, for the unknown-argument message.
pub(super) fn names() -> String {
    let names: Vec<_> = ARGS.iter().map(|spec| spec.name).collect();
    names.join(", ")
}

//! The attribute's arguments, parsed once into typed values that keep their spans.

use std::collections::HashSet;
use std::num::NonZeroUsize;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, ExprArray, ExprLit, Ident, Lit, LitBool, LitInt, LitStr, Token, Type};

use crate::errors::Errors;
pub(crate) use uri::{Piece, UriTemplate};

mod time;
mod uri;

/// Every argument `#[orchestrator]` takes.
const KNOWN: [&str; 28] = [
    "descr",
    "title",
    "system",
    "prompt",
    "attach",
    "turns",
    "depth",
    "recurse",
    "tools",
    "exclude",
    "on_limit",
    "timeout",
    "call_timeout",
    "stream",
    "budget",
    "repeat",
    "max_result",
    "output",
    "retries",
    "model",
    "with",
    "approve",
    "roles",
    "permissions",
    "scopes",
    "middleware",
    "annotations",
    "task_support",
];

/// The `on_limit` policies, as the runtime's `OnLimit` names them.
const POLICIES: [&str; 3] = ["error", "answer", "partial"];

/// The shortest interval between two streamed lines, in milliseconds: ten a second.
const MIN_STREAM_INTERVAL: u64 = 100;

/// The interval `stream = true` streams at, in milliseconds: the runtime's
/// `DEFAULT_STREAM_INTERVAL`.
const DEFAULT_STREAM_INTERVAL: u64 = 250;

/// The longest tool name MCP allows.
const MAX_TOOL_NAME: usize = 128;

/// The arguments, checked.
#[derive(Default)]
pub(crate) struct Args {
    pub(crate) descr: Option<LitStr>,
    pub(crate) system: Option<LitStr>,
    /// The server prompt the brief opens with.
    pub(crate) prompt: Option<LitStr>,
    /// The server resources attached to the brief.
    pub(crate) attach: Vec<UriTemplate>,
    pub(crate) turns: Option<Bound>,
    pub(crate) depth: Option<Bound>,
    pub(crate) recurse: bool,
    pub(crate) tools: Vec<LitStr>,
    pub(crate) exclude: Vec<LitStr>,
    pub(crate) on_limit: Option<Ident>,
    pub(crate) timeout: Option<Timeout>,
    /// The bound on each call to a `with` toolbox.
    pub(crate) call_timeout: Option<Timeout>,
    /// The least time between two streamed lines; `None`: the answer does not stream.
    pub(crate) stream: Option<Timeout>,
    pub(crate) budget: Option<Bound>,
    pub(crate) repeat: Option<Bound>,
    pub(crate) max_result: Option<Bound>,
    pub(crate) output: Option<Type>,
    pub(crate) retries: Option<LitInt>,
    pub(crate) model: Option<Type>,
    /// Toolboxes from neva's DI container offered beside the server's tools.
    pub(crate) with: Vec<Type>,
    /// The calls the caller must approve.
    pub(crate) approve: Option<Approve>,
    /// Arguments handed to neva's `#[tool]` as they were written: `title`, `roles`, ...
    pub(crate) neva: Vec<TokenStream>,
}

/// A bound of at least one, with the literal it was written as.
pub(crate) struct Bound {
    pub(crate) value: NonZeroUsize,
    pub(crate) span: Span,
}

/// A time bound in milliseconds, with the literal it was written as.
pub(crate) struct Timeout {
    pub(crate) millis: u64,
    pub(crate) span: Span,
}

/// Which calls need the caller's approval: `approve = ["clear_*"]` or `approve = destructive`.
pub(crate) enum Approve {
    /// The calls of the tools these patterns match.
    Tools(Vec<LitStr>),
    /// The calls of every tool whose annotations do not say it destroys nothing.
    Destructive(Span),
}

/// One argument as written: a name, and a value unless it is a flag.
struct Raw {
    name: Ident,
    value: Option<Value>,
}

enum Value {
    Expr(Expr),
    Type(Type),
    /// `with = [A, B]`: a bracketed list of types.
    Types(syn::token::Bracket, Punctuated<Type, Token![,]>),
}

impl quote::ToTokens for Value {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        match self {
            Self::Expr(expr) => expr.to_tokens(tokens),
            Self::Type(ty) => ty.to_tokens(tokens),
            Self::Types(bracket, types) => {
                bracket.surround(tokens, |tokens| types.to_tokens(tokens))
            }
        }
    }
}

impl Parse for Raw {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name = Ident::parse_any(input)?;
        let value = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            // A type such as `Dc<T>` does not parse as an expression.
            Some(if name == "model" || name == "output" {
                Value::Type(input.parse()?)
            } else if name == "with" && input.peek(syn::token::Bracket) {
                let types;
                let bracket = syn::bracketed!(types in input);
                Value::Types(bracket, Punctuated::parse_terminated(&types)?)
            } else {
                Value::Expr(input.parse()?)
            })
        } else {
            None
        };
        Ok(Self { name, value })
    }
}

impl Args {
    /// Parses `attr`, recording every mistake in `errors` and keeping what is right.
    pub(crate) fn parse(attr: TokenStream, errors: &mut Errors) -> Self {
        let mut args = Self::default();
        let parser = Punctuated::<Raw, Token![,]>::parse_terminated;
        let raw = match syn::parse::Parser::parse2(parser, attr) {
            Ok(raw) => raw,
            Err(error) => {
                errors.push(error);
                return args;
            }
        };
        let mut seen = HashSet::new();
        for arg in raw {
            let name = arg.name.to_string();
            if !KNOWN.contains(&name.as_str()) {
                errors.at(
                    &arg.name,
                    format!(
                        "unknown argument `{name}` on `#[orchestrator]`, expected one of: {}",
                        KNOWN.join(", ")
                    ),
                );
            } else if !seen.insert(name.clone()) {
                errors.at(
                    &arg.name,
                    format!("duplicate argument `{name}`: give it once"),
                );
            } else {
                args.take(&name, arg, errors);
            }
        }
        if let (Some(retries), None) = (&args.retries, &args.output) {
            errors.at(
                retries,
                "`retries` applies to a typed answer: add `output = T` as well",
            );
        }
        args
    }

    /// Checks and keeps one known argument.
    fn take(&mut self, name: &str, arg: Raw, errors: &mut Errors) {
        let Raw { name: ident, value } = arg;
        if name == "recurse" {
            self.recurse = match value {
                None => true,
                Some(Value::Expr(Expr::Lit(ExprLit {
                    lit: Lit::Bool(LitBool { value, .. }),
                    ..
                }))) => value,
                Some(other) => {
                    errors.at(
                        other,
                        "expected `true` or `false`: `recurse` or `recurse = false`",
                    );
                    false
                }
            };
            return;
        }
        if name == "with" {
            match value {
                Some(Value::Types(_, types)) => self.with = types.into_iter().collect(),
                Some(other) => errors.at(
                    other,
                    format!("expected a list of types: {}", example(name)),
                ),
                None => errors.at(&ident, format!("`{name}` needs a value: {}", example(name))),
            }
            return;
        }
        let value = match value {
            Some(Value::Types(bracket, _)) => {
                // Only `with` parses a list of types.
                errors.push(syn::Error::new(
                    bracket.span.join(),
                    format!("expected a value: {}", example(name)),
                ));
                return;
            }
            Some(Value::Expr(expr)) => expr,
            Some(Value::Type(ty)) => {
                if name == "output" {
                    self.output = Some(ty);
                } else {
                    self.model = Some(ty);
                }
                return;
            }
            None => {
                errors.at(&ident, format!("`{name}` needs a value: {}", example(name)));
                return;
            }
        };
        match name {
            "descr" => self.descr = string(&value, name, errors),
            "system" => self.system = string(&value, name, errors),
            "prompt" => self.prompt = prompt(&value, errors),
            "attach" => self.attach = uris(&value, errors),
            "turns" => self.turns = bound(&value, name, errors),
            "depth" => self.depth = bound(&value, name, errors),
            "tools" => self.tools = patterns(&value, name, errors),
            "exclude" => self.exclude = patterns(&value, name, errors),
            "on_limit" => self.on_limit = policy(&value, errors),
            "timeout" => self.timeout = timeout(&value, name, errors),
            "call_timeout" => self.call_timeout = timeout(&value, name, errors),
            "stream" => self.stream = stream(&value, errors),
            "budget" => self.budget = bound(&value, name, errors),
            "repeat" => self.repeat = repeat(&value, errors),
            "max_result" => self.max_result = bound(&value, name, errors),
            "retries" => self.retries = count(&value, errors),
            "approve" => self.approve = approve(&value, errors),
            "title" | "annotations" | "task_support" => {
                if string(&value, name, errors).is_some() {
                    self.neva.push(quote! { #ident = #value });
                }
            }
            "roles" | "permissions" | "scopes" => {
                if strings(&value, name, errors).is_some() {
                    self.neva.push(quote! { #ident = #value });
                }
            }
            // "middleware": expressions neva's `#[tool]` checks itself.
            _ => match &value {
                Expr::Array(_) => self.neva.push(quote! { #ident = #value }),
                _ => errors.at(&value, format!("expected a list: {}", example(name))),
            },
        }
    }
}

/// How each argument is written, for the messages.
fn example(name: &str) -> &'static str {
    match name {
        "descr" => "`descr = \"Plans the week\"`",
        "title" => "`title = \"Week planner\"`",
        "system" => "`system = \"You keep the user's task board.\"`",
        "prompt" => "`prompt = \"review_board\"`",
        "attach" => "`attach = [\"board://tasks/{focus}\"]`",
        "turns" => "`turns = 8`",
        "depth" => "`depth = 4`",
        "tools" => "`tools = [\"add_*\", \"list_tasks\"]`",
        "exclude" => "`exclude = [\"clear_*\"]`",
        "on_limit" => "`on_limit = \"error\"`, `\"answer\"` or `\"partial\"`",
        "timeout" => "`timeout = \"90s\"`",
        "call_timeout" => "`call_timeout = \"20s\"`",
        "stream" => "`stream = true`, or the least time between two lines: `stream = \"500ms\"`",
        "budget" => "`budget = 20000`",
        "repeat" => "`repeat = 3`",
        "approve" => {
            "`approve = [\"clear_*\"]`, or every tool that may destroy: `approve = destructive`"
        }
        "max_result" => "`max_result = 20000`",
        "model" => "`model = MyModel`",
        "with" => "`with = [RemoteTools]`",
        "output" => "`output = Review`",
        "retries" => "`retries = 1`",
        "roles" => "`roles = [\"admin\"]`",
        "permissions" => "`permissions = [\"board:write\"]`",
        "scopes" => "`scopes = [\"board\"]`",
        "middleware" => "`middleware = [audit]`",
        "annotations" => "`annotations = \"{...}\"`",
        _ => "`task_support = \"optional\"`",
    }
}

fn string(value: &Expr, name: &str, errors: &mut Errors) -> Option<LitStr> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) => Some(text.clone()),
        _ => {
            errors.at(value, format!("expected a string: {}", example(name)));
            None
        }
    }
}

/// `prompt = "name"`: a prompt's name, not empty.
fn prompt(value: &Expr, errors: &mut Errors) -> Option<LitStr> {
    let name = string(value, "prompt", errors)?;
    if name.value().trim().is_empty() {
        errors.at(
            &name,
            format!(
                "`prompt` names a prompt of the server: {}",
                example("prompt")
            ),
        );
        return None;
    }
    Some(name)
}

/// `attach = ["uri", …]`: resource URIs, each with its placeholders.
fn uris(value: &Expr, errors: &mut Errors) -> Vec<UriTemplate> {
    strings(value, "attach", errors)
        .unwrap_or_default()
        .iter()
        .filter_map(|lit| match UriTemplate::parse(lit) {
            Ok(uri) => Some(uri),
            Err(why) => {
                errors.at(lit, format!("this is no resource URI to attach: {why}"));
                None
            }
        })
        .collect()
}

fn bound(value: &Expr, name: &str, errors: &mut Errors) -> Option<Bound> {
    let Expr::Lit(ExprLit {
        lit: Lit::Int(int), ..
    }) = value
    else {
        errors.at(value, format!("expected an integer: {}", example(name)));
        return None;
    };
    let parsed = int_value(int).and_then(NonZeroUsize::new);
    if parsed.is_none() {
        errors.at(
            int,
            format!("`{name}` must be at least 1: {}", example(name)),
        );
    }
    parsed.map(|value| Bound {
        value,
        span: int.span(),
    })
}

/// `repeat = N`: at least 2, since the first call of anything is never a repeat.
fn repeat(value: &Expr, errors: &mut Errors) -> Option<Bound> {
    let bound = bound(value, "repeat", errors)?;
    if bound.value.get() < 2 {
        errors.push(syn::Error::new(
            bound.span,
            "`repeat` must be at least 2: the first call of a tool is never a repeat",
        ));
        return None;
    }
    Some(bound)
}

/// `name = "90s"`: a duration longer than zero.
fn timeout(value: &Expr, name: &str, errors: &mut Errors) -> Option<Timeout> {
    let text = string(value, name, errors)?;
    match time::millis(&text.value()) {
        Ok(millis) => Some(Timeout {
            millis,
            span: text.span(),
        }),
        Err(why) => {
            errors.at(&text, format!("`{name}`: {why}"));
            None
        }
    }
}

/// `stream = true` (every 250 ms), `stream = false`, or `stream = "500ms"`: the least time
/// between two streamed lines, at least 100 ms.
fn stream(value: &Expr, errors: &mut Errors) -> Option<Timeout> {
    if let Expr::Lit(ExprLit {
        lit: Lit::Bool(flag),
        ..
    }) = value
    {
        return flag.value.then_some(Timeout {
            millis: DEFAULT_STREAM_INTERVAL,
            span: flag.span(),
        });
    }
    if !matches!(
        value,
        Expr::Lit(ExprLit {
            lit: Lit::Str(_),
            ..
        })
    ) {
        errors.at(
            value,
            format!(
                "expected `true`, `false` or a duration: {}",
                example("stream")
            ),
        );
        return None;
    }
    let interval = timeout(value, "stream", errors)?;
    if interval.millis < MIN_STREAM_INTERVAL {
        errors.push(syn::Error::new(
            interval.span,
            "`stream` sends at most ten lines a second: give at least \"100ms\"",
        ));
        return None;
    }
    Some(interval)
}

/// `approve = ["pattern", …]`, at least one, or `approve = destructive`.
fn approve(value: &Expr, errors: &mut Errors) -> Option<Approve> {
    match value {
        Expr::Path(path) if path.path.is_ident("destructive") => {
            Some(Approve::Destructive(path.path.segments[0].ident.span()))
        }
        Expr::Array(array) if array.elems.is_empty() => {
            errors.at(
                value,
                "`approve` lists no tool: name at least one pattern, or leave `approve` out",
            );
            None
        }
        Expr::Array(_) => {
            let patterns = strings(value, "approve", errors)?;
            let count = patterns.len();
            let valid = check_patterns(patterns, errors);
            (valid.len() == count).then_some(Approve::Tools(valid))
        }
        _ => {
            errors.at(
                value,
                format!(
                    "expected a list of tool patterns or `destructive`: {}",
                    example("approve")
                ),
            );
            None
        }
    }
}

/// `retries = N`: any whole number, zero included.
fn count(value: &Expr, errors: &mut Errors) -> Option<LitInt> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) if int_value(int).is_some() => Some(int.clone()),
        _ => {
            errors.at(
                value,
                format!("expected a whole number: {}", example("retries")),
            );
            None
        }
    }
}

fn int_value(int: &LitInt) -> Option<usize> {
    int.base10_parse().ok()
}

fn strings(value: &Expr, name: &str, errors: &mut Errors) -> Option<Vec<LitStr>> {
    let Expr::Array(ExprArray { elems, .. }) = value else {
        errors.at(
            value,
            format!("expected a list of strings: {}", example(name)),
        );
        return None;
    };
    let mut all = Some(Vec::new());
    for elem in elems {
        match (string(elem, name, errors), &mut all) {
            (Some(text), Some(all)) => all.push(text),
            _ => all = None,
        }
    }
    all
}

fn patterns(value: &Expr, name: &str, errors: &mut Errors) -> Vec<LitStr> {
    let patterns = strings(value, name, errors).unwrap_or_default();
    check_patterns(patterns, errors)
}

/// The patterns that can match a tool name; an error at each of the others.
fn check_patterns(patterns: Vec<LitStr>, errors: &mut Errors) -> Vec<LitStr> {
    let valid: Vec<_> = patterns
        .into_iter()
        .filter(|pattern| match why_never_matches(&pattern.value()) {
            Some(reason) => {
                errors.at(
                    pattern,
                    format!("this pattern can never match a tool name: {reason}"),
                );
                false
            }
            None => true,
        })
        .collect();
    valid
}

/// Why `pattern` can match no MCP tool name (`[A-Za-z0-9_.-]{1,128}`), if it cannot. The
/// runtime's `ToolPattern::new` applies the same rule.
fn why_never_matches(pattern: &str) -> Option<&'static str> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '*');
    if pattern.is_empty() {
        Some("it is empty")
    } else if !pattern.chars().all(allowed) {
        Some("tool names hold only letters, digits, `_`, `-` and `.`; `*` matches any run of them")
    } else if pattern.chars().filter(|&c| c != '*').count() > MAX_TOOL_NAME {
        Some("tool names are at most 128 characters long")
    } else {
        None
    }
}

fn policy(value: &Expr, errors: &mut Errors) -> Option<Ident> {
    let text = string(value, "on_limit", errors)?;
    if POLICIES.contains(&text.value().as_str()) {
        let variant = match text.value().as_str() {
            "error" => "Error",
            "answer" => "Answer",
            _ => "Partial",
        };
        Some(Ident::new(variant, text.span()))
    } else {
        errors.at(
            &text,
            format!(
                "unknown `on_limit` policy `{}`, expected one of: {}",
                text.value(),
                POLICIES.map(|p| format!("\"{p}\"")).join(", ")
            ),
        );
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(attr: TokenStream) -> (Args, Option<String>) {
        let mut errors = Errors::default();
        let args = Args::parse(attr, &mut errors);
        (args, errors.into_compile_errors().map(|e| e.to_string()))
    }

    #[test]
    fn typed_values_are_kept() {
        let (args, errors) = parse(quote! {
            system = "s", turns = 3, depth = 2, recurse, tools = ["a_*"], on_limit = "answer",
            model = my::Model<X>, roles = ["admin"], with = [RemoteTools, my::Tools<X>]
        });
        assert!(errors.is_none(), "{errors:?}");
        assert_eq!(args.system.unwrap().value(), "s");
        assert_eq!(args.turns.unwrap().value.get(), 3);
        assert_eq!(args.depth.unwrap().value.get(), 2);
        assert!(args.recurse);
        assert_eq!(args.tools.len(), 1);
        assert_eq!(args.on_limit.unwrap().to_string(), "Answer");
        assert!(args.model.is_some());
        assert_eq!(args.with.len(), 2);
        assert_eq!(args.neva.len(), 1);
    }

    #[test]
    fn approve_takes_patterns_or_destructive() {
        let (args, errors) = parse(quote! { approve = ["clear_*", "wipe"] });
        assert!(errors.is_none(), "{errors:?}");
        assert!(matches!(args.approve, Some(Approve::Tools(patterns)) if patterns.len() == 2));
        let (args, errors) = parse(quote! { approve = destructive });
        assert!(errors.is_none(), "{errors:?}");
        assert!(matches!(args.approve, Some(Approve::Destructive(_))));
        for wrong in [
            quote! { approve = [] },
            quote! { approve = ["clear board"] },
            quote! { approve = "clear_*" },
            quote! { approve = everything },
            quote! { approve },
        ] {
            let (args, errors) = parse(wrong.clone());
            assert!(errors.is_some(), "{wrong}");
            assert!(args.approve.is_none(), "{wrong}");
        }
    }

    #[test]
    fn stream_and_call_timeout_are_checked() {
        let (args, errors) = parse(quote! { stream = true, call_timeout = "20s" });
        assert!(errors.is_none(), "{errors:?}");
        assert_eq!(args.stream.unwrap().millis, DEFAULT_STREAM_INTERVAL);
        assert_eq!(args.call_timeout.unwrap().millis, 20_000);

        let (args, errors) = parse(quote! { stream = false });
        assert!(errors.is_none(), "{errors:?}");
        assert!(args.stream.is_none());
        assert_eq!(
            parse(quote! { stream = "1s" }).0.stream.unwrap().millis,
            1_000
        );

        let errors = parse(quote! { stream = "20ms" }).1.expect("errors");
        assert!(errors.contains("at most ten lines a second"), "{errors}");
        let errors = parse(quote! { stream = 2 }).1.expect("errors");
        assert!(
            errors.contains("expected `true`, `false` or a duration"),
            "{errors}"
        );
        let errors = parse(quote! { call_timeout = "soon" }).1.expect("errors");
        assert!(
            errors.contains("`call_timeout`: write a number"),
            "{errors}"
        );
    }

    #[test]
    fn with_takes_only_a_list_of_types() {
        let (_, errors) = parse(quote! { with = "docs" });
        assert!(errors.unwrap().contains("expected a list of types"));
        let (_, errors) = parse(quote! { with = [1] });
        assert!(errors.is_some());
    }

    #[test]
    fn every_mistake_is_reported_at_once() {
        let (_, errors) = parse(quote! { turns = 0, depth = "4", colour = 1, turns = 2 });
        let errors = errors.expect("errors");
        assert!(errors.contains("at least 1"), "{errors}");
        assert!(errors.contains("expected an integer"), "{errors}");
        assert!(errors.contains("unknown argument `colour`"), "{errors}");
        assert!(errors.contains("duplicate argument `turns`"), "{errors}");
    }

    #[test]
    fn prompt_and_attach_are_checked() {
        let (args, errors) = parse(quote! {
            prompt = "review_board", attach = ["board://tasks", "board://tasks/{status}"]
        });
        assert!(errors.is_none(), "{errors:?}");
        assert_eq!(args.prompt.unwrap().value(), "review_board");
        assert_eq!(args.attach.len(), 2);

        let (_, errors) = parse(quote! { prompt = "", attach = "board://tasks" });
        let errors = errors.expect("errors");
        assert!(errors.contains("names a prompt of the server"), "{errors}");
        assert!(errors.contains("expected a list of strings"), "{errors}");

        let (_, errors) = parse(quote! { attach = ["board://{a"] });
        assert!(errors.expect("errors").contains("never closed"));
    }

    #[test]
    fn patterns_follow_mcp_tool_names() {
        assert!(why_never_matches("add_*").is_none());
        assert!(why_never_matches("board.add").is_none());
        assert!(why_never_matches("").is_some());
        assert!(why_never_matches("add task").is_some());
        assert!(why_never_matches(&"x".repeat(129)).is_some());
    }
}

//! Tool patterns: which tools the model is offered (`tools`, `exclude`), which it finds with
//! `search_tools` (`defer`), and which calls the caller approves (`approve`).

use proc_macro2::Span;
use syn::{Expr, LitStr};

use super::table::Spec;
use super::values::strings;
use crate::errors::Errors;

/// The longest tool name MCP allows.
const MAX_TOOL_NAME: usize = 128;

/// Which calls need the caller's approval: `approve = ["clear_*"]` or `approve = destructive`.
pub(crate) enum Approve {
    /// The calls of the tools these patterns match.
    Tools(Vec<LitStr>),
    /// The calls of every tool whose annotations do not say it destroys nothing.
    Destructive(Span),
}

/// `name = ["pattern", …]`: the patterns that can match a tool name.
pub(super) fn patterns(value: &Expr, spec: &Spec, errors: &mut Errors) -> Vec<LitStr> {
    let patterns = strings(value, spec, errors).unwrap_or_default();
    check_patterns(patterns, errors)
}

/// `defer = ["pattern", …]`, at least one: the tools found with `search_tools`.
pub(super) fn deferred(value: &Expr, spec: &Spec, errors: &mut Errors) -> Vec<LitStr> {
    if let Expr::Array(array) = value
        && array.elems.is_empty()
    {
        errors.at(
            value,
            "`defer` lists no tool: name at least one pattern, or leave `defer` out",
        );
        return Vec::new();
    }
    patterns(value, spec, errors)
}

/// `approve = ["pattern", …]`, at least one, or `approve = destructive`.
pub(super) fn approve(value: &Expr, spec: &Spec, errors: &mut Errors) -> Option<Approve> {
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
            let patterns = strings(value, spec, errors)?;
            let count = patterns.len();
            let valid = check_patterns(patterns, errors);
            (valid.len() == count).then_some(Approve::Tools(valid))
        }
        _ => {
            errors.at(
                value,
                format!(
                    "expected a list of tool patterns or `destructive`: {}",
                    spec.example
                ),
            );
            None
        }
    }
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
pub(super) fn why_never_matches(pattern: &str) -> Option<&'static str> {
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

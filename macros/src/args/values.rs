//! Plain values: strings, lists of strings, bounds, counts, amounts of dollars, quotas and the
//! `on_limit` policy.

use std::num::NonZeroUsize;

use proc_macro2::Span;
use syn::{Expr, ExprArray, ExprLit, ExprUnary, Ident, Lit, LitInt, LitStr, UnOp};

use super::table::Spec;
use crate::errors::Errors;

/// The `on_limit` policies, as the runtime's `OnLimit` names them.
const POLICIES: [&str; 3] = ["error", "answer", "partial"];

/// A bound of at least one, with the literal it was written as.
pub(crate) struct Bound {
    pub(crate) value: NonZeroUsize,
    pub(crate) span: Span,
}

/// `name = "text"`: a string literal.
pub(super) fn string(value: &Expr, spec: &Spec, errors: &mut Errors) -> Option<LitStr> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) => Some(text.clone()),
        _ => {
            errors.at(value, format!("expected a string: {}", spec.example));
            None
        }
    }
}

/// `name = ["text", …]`: string literals, every one of them, or `None`.
pub(super) fn strings(value: &Expr, spec: &Spec, errors: &mut Errors) -> Option<Vec<LitStr>> {
    let Expr::Array(ExprArray { elems, .. }) = value else {
        errors.at(
            value,
            format!("expected a list of strings: {}", spec.example),
        );
        return None;
    };
    let mut all = Some(Vec::new());
    for elem in elems {
        match (string(elem, spec, errors), &mut all) {
            (Some(text), Some(all)) => all.push(text),
            _ => all = None,
        }
    }
    all
}

/// `name = [a, b]`: a list of any expressions, which neva checks.
pub(super) fn list(value: &Expr, spec: &Spec, errors: &mut Errors) -> bool {
    let is_list = matches!(value, Expr::Array(_));
    if !is_list {
        errors.at(value, format!("expected a list: {}", spec.example));
    }
    is_list
}

/// `name = N`: an integer of at least 1.
pub(super) fn bound(value: &Expr, spec: &Spec, errors: &mut Errors) -> Option<Bound> {
    let Expr::Lit(ExprLit {
        lit: Lit::Int(int), ..
    }) = value
    else {
        errors.at(value, format!("expected an integer: {}", spec.example));
        return None;
    };
    let parsed = int_value(int).and_then(NonZeroUsize::new);
    if parsed.is_none() {
        errors.at(
            int,
            format!("`{}` must be at least 1: {}", spec.name, spec.example),
        );
    }
    parsed.map(|value| Bound {
        value,
        span: int.span(),
    })
}

/// `repeat = N`: at least 2, since the first call of anything is never a repeat.
pub(super) fn repeat(value: &Expr, spec: &Spec, errors: &mut Errors) -> Option<Bound> {
    let bound = bound(value, spec, errors)?;
    if bound.value.get() < 2 {
        errors.push(syn::Error::new(
            bound.span,
            "`repeat` must be at least 2: the first call of a tool is never a repeat",
        ));
        return None;
    }
    Some(bound)
}

/// A positive, finite amount of dollars, with the literal it was written as.
pub(crate) struct Dollars {
    pub(crate) value: f64,
    pub(crate) span: Span,
}

/// `name = 0.50`: a float or integer literal, more than 0 and finite.
pub(super) fn dollars(value: &Expr, spec: &Spec, errors: &mut Errors) -> Option<Dollars> {
    let (digits, suffix, span) = match value {
        Expr::Lit(ExprLit {
            lit: Lit::Float(float),
            ..
        }) => (float.base10_digits(), float.suffix(), float.span()),
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => (int.base10_digits(), int.suffix(), int.span()),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) if matches!(
            **expr,
            Expr::Lit(ExprLit {
                lit: Lit::Float(_) | Lit::Int(_),
                ..
            })
        ) =>
        {
            errors.at(
                value,
                format!("`{}` must be more than 0: {}", spec.name, spec.example),
            );
            return None;
        }
        _ => {
            errors.at(
                value,
                format!("expected a number of dollars: {}", spec.example),
            );
            return None;
        }
    };
    if !matches!(suffix, "" | "f64") {
        errors.at(
            value,
            format!(
                "`{}` is a number of dollars, written without the suffix `{suffix}`: {}",
                spec.name, spec.example
            ),
        );
        return None;
    }
    // Rust's own reading of the literal: what the runtime is given is this very number.
    let Ok(amount) = digits.parse::<f64>() else {
        errors.at(
            value,
            format!("expected a number of dollars: {}", spec.example),
        );
        return None;
    };
    if !amount.is_finite() {
        errors.at(
            value,
            format!(
                "`{}` is too large to be a number of dollars: {}",
                spec.name, spec.example
            ),
        );
        return None;
    }
    if amount <= 0.0 {
        errors.at(
            value,
            format!("`{}` must be more than 0: {}", spec.name, spec.example),
        );
        return None;
    }
    Some(Dollars {
        value: amount,
        span,
    })
}

/// The window a quota counts in, as the runtime's `Per` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Per {
    Minute,
    Hour,
    Day,
}

impl Per {
    /// The runtime's variant: `Minute`, `Hour` or `Day`.
    pub(crate) fn variant(self) -> &'static str {
        match self {
            Self::Minute => "Minute",
            Self::Hour => "Hour",
            Self::Day => "Day",
        }
    }
}

/// A quota: a positive, finite amount of dollars a window, with the literal it was written as.
pub(crate) struct Quota {
    pub(crate) dollars: f64,
    pub(crate) per: Per,
    pub(crate) span: Span,
}

/// `quota = "5 USD/day"`: the grammar of the runtime's `Quota::parse`,
/// `<amount> USD/<minute|hour|day>`, whitespace around each part allowed.
pub(super) fn quota(value: &Expr, spec: &Spec, errors: &mut Errors) -> Option<Quota> {
    let lit = string(value, spec, errors)?;
    let text = lit.value();
    let mut wrong = |why: String| {
        errors.at(&lit, format!("{why}: {}", spec.example));
        None
    };
    let Some((amount, per)) = text.trim().split_once('/') else {
        return wrong(format!(
            "`{text}` is no quota, which is an amount of US dollars a minute, an hour or a day"
        ));
    };
    let Some(amount) = amount.trim().strip_suffix("USD") else {
        return wrong(format!("`{}` is not an amount in `USD`", amount.trim()));
    };
    let per = match per.trim() {
        "minute" => Per::Minute,
        "hour" => Per::Hour,
        "day" => Per::Day,
        other => {
            return wrong(format!(
                "unknown quota window `{other}`, expected `minute`, `hour` or `day`"
            ));
        }
    };
    // Read as the runtime reads it, so that what compiles is what `Quota::parse` takes.
    let amount = amount.trim();
    let dollars = match amount.parse::<f64>() {
        Ok(dollars) if !dollars.is_nan() => dollars,
        _ => return wrong(format!("`{amount}` is not a number of dollars")),
    };
    if dollars.is_infinite() && dollars > 0.0 {
        return wrong(format!("`{amount}` is too large to be a number of dollars"));
    }
    if dollars <= 0.0 {
        return wrong("a quota must be more than 0 dollars".into());
    }
    Some(Quota {
        dollars,
        per,
        span: lit.span(),
    })
}

/// `retries = N`: any whole number, zero included.
pub(super) fn count(value: &Expr, spec: &Spec, errors: &mut Errors) -> Option<LitInt> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) if int_value(int).is_some() => Some(int.clone()),
        _ => {
            errors.at(value, format!("expected a whole number: {}", spec.example));
            None
        }
    }
}

fn int_value(int: &LitInt) -> Option<usize> {
    int.base10_parse().ok()
}

/// `on_limit = "answer"`: the `OnLimit` variant it names.
pub(super) fn policy(value: &Expr, spec: &Spec, errors: &mut Errors) -> Option<Ident> {
    let text = string(value, spec, errors)?;
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

/// Which conversation a call goes on with, as `session = …` names it.
pub(crate) enum SessionArg {
    /// `session = true`: the one whose id the call passes.
    ById(Span),
    /// `session = caller`: the caller's own.
    PerCaller(Span),
}

/// `session = true`, `false` or `caller`; `None` for `false` or a wrong value.
pub(super) fn session(value: &Expr, spec: &Spec, errors: &mut Errors) -> Option<SessionArg> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Bool(flag),
            ..
        }) => flag.value.then_some(SessionArg::ById(flag.span)),
        Expr::Path(path) if path.path.is_ident("caller") => {
            Some(SessionArg::PerCaller(path.path.segments[0].ident.span()))
        }
        _ => {
            errors.at(
                value,
                format!("expected `true`, `false` or `caller`: {}", spec.example),
            );
            None
        }
    }
}

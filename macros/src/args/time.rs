//! Time bounds: `timeout`, `call_timeout` and `stream`, written as durations: `"90s"`,
//! `"500ms"`, `"2m"`, `"1h30m"`.

use proc_macro2::Span;
use syn::{Expr, ExprLit, Lit};

use super::table::Spec;
use super::values::string;
use crate::errors::Errors;

/// The shortest interval between two streamed lines, in milliseconds: ten a second.
const MIN_STREAM_INTERVAL: u64 = 100;

/// The interval `stream = true` streams at, in milliseconds: the runtime's
/// `DEFAULT_STREAM_INTERVAL`.
pub(super) const DEFAULT_STREAM_INTERVAL: u64 = 250;

/// A time bound in milliseconds, with the literal it was written as.
pub(crate) struct Timeout {
    pub(crate) millis: u64,
    pub(crate) span: Span,
}

/// `name = "90s"`: a duration longer than zero.
pub(super) fn timeout(value: &Expr, spec: &Spec, errors: &mut Errors) -> Option<Timeout> {
    let text = string(value, spec, errors)?;
    match millis(&text.value()) {
        Ok(millis) => Some(Timeout {
            millis,
            span: text.span(),
        }),
        Err(why) => {
            errors.at(&text, format!("`{}`: {why}", spec.name));
            None
        }
    }
}

/// `stream = true` (every 250 ms), `stream = false`, or `stream = "500ms"`: the least time
/// between two streamed lines, at least 100 ms.
pub(super) fn stream(value: &Expr, spec: &Spec, errors: &mut Errors) -> Option<Timeout> {
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
            format!("expected `true`, `false` or a duration: {}", spec.example),
        );
        return None;
    }
    let interval = timeout(value, spec, errors)?;
    if interval.millis < MIN_STREAM_INTERVAL {
        errors.push(syn::Error::new(
            interval.span,
            "`stream` sends at most ten lines a second: give at least \"100ms\"",
        ));
        return None;
    }
    Some(interval)
}

/// The milliseconds `text` stands for: one or more groups of digits followed by a unit (`ms`,
/// `s`, `m` or `h`), adding up to more than zero.
fn millis(text: &str) -> Result<u64, &'static str> {
    const FORM: &str =
        "write a number and a unit (`ms`, `s`, `m`, `h`), such as \"90s\" or \"1m30s\"";
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err(FORM);
    }
    let mut total: u64 = 0;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let value: u64 = rest[..digits].parse().map_err(|_| FORM)?;
        rest = &rest[digits..];
        let unit = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let scale = match &rest[..unit] {
            "ms" => 1,
            "s" => 1_000,
            "m" => 60_000,
            "h" => 3_600_000,
            _ => return Err(FORM),
        };
        rest = &rest[unit..];
        total = value
            .checked_mul(scale)
            .and_then(|part| total.checked_add(part))
            .ok_or("this duration is too long")?;
    }
    if total == 0 {
        return Err("a duration must be longer than zero");
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_groups_add_up() {
        assert_eq!(millis("90s"), Ok(90_000));
        assert_eq!(millis("500ms"), Ok(500));
        assert_eq!(millis("1h30m"), Ok(5_400_000));
        assert_eq!(millis("1m30s"), Ok(90_000));
    }

    #[test]
    fn other_forms_are_refused() {
        for text in ["", "90", "s", "1.5s", "90 s", "90sec", "-1s"] {
            assert!(millis(text).is_err(), "{text}");
        }
        assert_eq!(millis("0s"), Err("a duration must be longer than zero"));
    }
}

//! What the brief takes from the server: `prompt` names one of its prompts, `attach` lists
//! resource URIs. Each URI is text and `{parameter}` placeholders, parsed once with the literal
//! it was written as, so a placeholder that names no parameter is an error at that literal.

use syn::{Expr, Ident, LitStr};

use super::table::Spec;
use super::values::{string, strings};
use crate::errors::Errors;

/// `prompt = "name"`: a prompt's name, not empty.
pub(super) fn prompt(value: &Expr, spec: &Spec, errors: &mut Errors) -> Option<LitStr> {
    let name = string(value, spec, errors)?;
    if name.value().trim().is_empty() {
        errors.at(
            &name,
            format!("`prompt` names a prompt of the server: {}", spec.example),
        );
        return None;
    }
    Some(name)
}

/// `attach = ["uri", …]`: resource URIs, each with its placeholders.
pub(super) fn uris(value: &Expr, spec: &Spec, errors: &mut Errors) -> Vec<UriTemplate> {
    strings(value, spec, errors)
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

/// A resource URI to attach, as written.
pub(crate) struct UriTemplate {
    /// The literal, which diagnostics point at.
    pub(crate) lit: LitStr,
    /// Its text and placeholders, in order.
    pub(crate) pieces: Vec<Piece>,
}

/// A run of the URI's text, or a placeholder for a parameter's value.
pub(crate) enum Piece {
    Text(String),
    Param(String),
}

impl UriTemplate {
    /// Parses `lit`, or says why it is no URI an orchestrator can attach.
    pub(crate) fn parse(lit: &LitStr) -> Result<Self, String> {
        let text = lit.value();
        if text.trim().is_empty() {
            return Err("it is empty".to_owned());
        }
        let scheme = text.split_once(':').map(|(scheme, _)| scheme);
        let valid_scheme = scheme.is_some_and(|scheme| {
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        });
        if !valid_scheme {
            return Err("a URI starts with its scheme, such as `board://tasks`".to_owned());
        }
        let mut pieces = Vec::new();
        let mut rest = text.as_str();
        while let Some(open) = rest.find(['{', '}']) {
            if rest[open..].starts_with('}') {
                return Err("this `}` closes no `{`".to_owned());
            }
            let Some(close) = rest[open..].find('}').map(|close| open + close) else {
                return Err("this `{` is never closed: write `{parameter}`".to_owned());
            };
            let name = &rest[open + 1..close];
            if syn::parse_str::<Ident>(name).is_err() {
                return Err(format!(
                    "`{{{name}}}` is no placeholder: write a parameter's name, such as `{{focus}}`"
                ));
            }
            if open > 0 {
                pieces.push(Piece::Text(rest[..open].to_owned()));
            }
            pieces.push(Piece::Param(name.to_owned()));
            rest = &rest[close + 1..];
        }
        if !rest.is_empty() {
            pieces.push(Piece::Text(rest.to_owned()));
        }
        Ok(Self {
            lit: lit.clone(),
            pieces,
        })
    }

    /// The names its placeholders use, in order.
    pub(crate) fn params(&self) -> impl Iterator<Item = &str> {
        self.pieces.iter().filter_map(|piece| match piece {
            Piece::Param(name) => Some(name.as_str()),
            Piece::Text(_) => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::Span;

    fn parse(text: &str) -> Result<UriTemplate, String> {
        UriTemplate::parse(&LitStr::new(text, Span::call_site()))
    }

    #[test]
    fn placeholders_are_found() {
        let uri = parse("board://tasks/{status}/by/{owner}").unwrap();
        assert_eq!(uri.params().collect::<Vec<_>>(), ["status", "owner"]);
        assert_eq!(uri.pieces.len(), 4);
        assert_eq!(parse("board://tasks").unwrap().pieces.len(), 1);
    }

    fn why(text: &str) -> String {
        parse(text).err().expect("an error")
    }

    #[test]
    fn malformed_uris_say_why() {
        assert!(why("").contains("empty"));
        assert!(why("tasks/{a}").contains("scheme"));
        assert!(why("board://{a").contains("never closed"));
        assert!(why("board://a}").contains("closes no"));
        assert!(why("board://{a b}").contains("no placeholder"));
        assert!(why("board://{}").contains("no placeholder"));
    }
}

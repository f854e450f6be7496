//! The attribute's arguments, parsed once into typed values that keep their spans.
//!
//! Each argument is one row of `table::ARGS`: its name, how it is written (for the messages),
//! and how its value is taken. `Args::parse` splits the attribute into arguments, refuses
//! unknown and repeated names, and hands each value to its row. The checks of one value live by
//! kind: `values` (strings, bounds, counts, dollars, quotas, the `on_limit` policy), `time`
//! (durations), `patterns` (tool patterns) and `uri` (the server's prompt and resources). Checks
//! across arguments are `crate::valid`'s.

use std::collections::HashSet;

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Ident, Lit, LitBool, LitInt, LitStr, Token, Type};

use crate::errors::Errors;
use table::{Spec, Take};

pub(crate) use patterns::Approve;
pub(crate) use time::Timeout;
pub(crate) use uri::{Piece, UriTemplate};
pub(crate) use values::{Bound, Dollars, Quota, SessionArg};

mod patterns;
#[cfg(test)]
mod reference;
mod table;
#[cfg(test)]
mod tests;
mod time;
mod uri;
mod values;

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
    /// Offers the model `ask_caller`, to put a question to the caller's person.
    pub(crate) ask: bool,
    /// Each call a durable run (`restate` feature): where `durable` is written.
    pub(crate) durable: Option<proc_macro2::Span>,
    pub(crate) tools: Vec<LitStr>,
    pub(crate) exclude: Vec<LitStr>,
    /// The tools not offered up front, found with `search_tools`.
    pub(crate) defer: Vec<LitStr>,
    pub(crate) on_limit: Option<Ident>,
    pub(crate) timeout: Option<Timeout>,
    /// The bound on each call to a `with` toolbox.
    pub(crate) call_timeout: Option<Timeout>,
    /// The least time between two streamed lines; `None`: the answer does not stream.
    pub(crate) stream: Option<Timeout>,
    pub(crate) budget: Option<Bound>,
    /// The most dollars a run may spend, checked before each request.
    pub(crate) budget_usd: Option<Dollars>,
    /// What one caller may spend on the tool a minute, an hour or a day.
    pub(crate) quota: Option<Quota>,
    /// The most tokens a request may be: past it the conversation is compacted.
    pub(crate) context: Option<Bound>,
    pub(crate) repeat: Option<Bound>,
    pub(crate) max_result: Option<Bound>,
    /// The most bytes of one call's arguments.
    pub(crate) max_arguments: Option<Bound>,
    pub(crate) output: Option<Type>,
    pub(crate) retries: Option<LitInt>,
    pub(crate) model: Option<Type>,
    /// The model that writes the summaries of compaction, from neva's DI container.
    pub(crate) compact_model: Option<Type>,
    /// Toolboxes from neva's DI container offered beside the server's tools.
    pub(crate) with: Vec<Type>,
    /// Guards from neva's DI container, in order.
    pub(crate) guard: Vec<Type>,
    /// The calls the caller must approve.
    pub(crate) approve: Option<Approve>,
    /// Which conversation a call goes on with, if the tool keeps them.
    pub(crate) session: Option<SessionArg>,
    /// How long a session is kept after its last call.
    pub(crate) session_ttl: Option<Timeout>,
    /// Arguments handed to neva's `#[tool]` as they were written: `title`, `roles`, ...
    pub(crate) neva: Vec<TokenStream>,
}

/// One argument as written: a name, and a value unless it is a flag.
struct Raw {
    name: Ident,
    /// Its row; `None` for a name `#[orchestrator]` does not take.
    spec: Option<&'static Spec>,
    value: Option<Value>,
}

/// A value, parsed in the form its row takes.
enum Value {
    Expr(Expr),
    Type(Type),
    /// `with = [A, B]`: a bracketed list of types.
    Types(syn::token::Bracket, Punctuated<Type, Token![,]>),
}

impl ToTokens for Value {
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
        let spec = table::find(&name.to_string());
        let value = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            Some(match spec.map(|spec| &spec.take) {
                // A type such as `Dc<T>` does not parse as an expression.
                Some(Take::Type(_)) => Value::Type(input.parse()?),
                Some(Take::Types(_)) if input.peek(syn::token::Bracket) => {
                    let types;
                    let bracket = syn::bracketed!(types in input);
                    Value::Types(bracket, Punctuated::parse_terminated(&types)?)
                }
                // An unknown argument's value too, so that the arguments after it still parse.
                _ => Value::Expr(input.parse()?),
            })
        } else {
            None
        };
        Ok(Self { name, spec, value })
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
        for Raw { name, spec, value } in raw {
            let Some(spec) = spec else {
                errors.at(
                    &name,
                    format!(
                        "unknown argument `{name}` on `#[orchestrator]`, expected one of: {}",
                        table::names()
                    ),
                );
                continue;
            };
            if !seen.insert(spec.name) {
                errors.at(&name, format!("duplicate argument `{name}`: give it once"));
                continue;
            }
            args.take(spec, &name, value, errors);
        }
        args
    }

    /// Hands one argument's value to its row, or says what the value lacks.
    fn take(&mut self, spec: &Spec, name: &Ident, value: Option<Value>, errors: &mut Errors) {
        let example = spec.example;
        match (&spec.take, value) {
            (Take::Flag(set), None) => set(self, true, name.span()),
            (
                Take::Flag(set),
                Some(Value::Expr(Expr::Lit(ExprLit {
                    lit: Lit::Bool(LitBool { value, .. }),
                    ..
                }))),
            ) => set(self, value, name.span()),
            (Take::Flag(_), Some(other)) => {
                errors.at(other, format!("expected `true` or `false`: {example}"))
            }
            (_, None) => errors.at(name, format!("`{name}` needs a value: {example}")),
            (Take::Type(set), Some(Value::Type(ty))) => set(self, ty),
            (Take::Types(set), Some(Value::Types(_, types))) => {
                set(self, types.into_iter().collect())
            }
            (Take::Types(_), Some(other)) => {
                errors.at(other, format!("expected a list of types: {example}"))
            }
            (Take::Value(take), Some(Value::Expr(expr))) => take(self, &expr, spec, errors),
            (Take::Neva(check), Some(Value::Expr(expr))) => {
                if check(&expr, spec, errors) {
                    self.neva.push(quote! { #name = #expr });
                }
            }
            // `Raw::parse` reads each value in its row's form, so no other pair arises.
            (_, Some(other)) => errors.at(other, format!("expected a value: {example}")),
        }
    }
}

//! The annotated function, checked: an `async fn` with named parameters, no receiver, no
//! generics.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Attribute, Expr, ExprLit, FnArg, Ident, ItemFn, Lit, Meta, Pat, ReturnType, Type};

use crate::errors::Errors;

/// What the expansion needs of the function.
pub(crate) struct Signature {
    /// The parameters, passed through to the body in order.
    pub(crate) params: Vec<(Ident, Type)>,
    /// The doc comment, joined, for the tool's description.
    pub(crate) doc: Option<String>,
    /// The return type's tokens, which diagnostics about the brief point at.
    pub(crate) output: TokenStream,
}

impl Signature {
    /// Checks `function`, recording each mistake at its token.
    pub(crate) fn check(function: &ItemFn, errors: &mut Errors) -> Self {
        let sig = &function.sig;
        if sig.asyncness.is_none() {
            errors.at(
                sig.fn_token,
                "`#[orchestrator]` needs an `async fn`: the brief is built on the async runtime",
            );
        }
        if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
            errors.at(
                &sig.generics,
                "`#[orchestrator]` cannot be generic: an MCP tool has one input schema",
            );
        }
        let mut params = Vec::new();
        for input in &sig.inputs {
            match input {
                FnArg::Receiver(receiver) => errors.at(
                    receiver,
                    "`#[orchestrator]` cannot take `self`: an MCP tool is a free function",
                ),
                FnArg::Typed(typed) => match &*typed.pat {
                    Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
                        params.push((pat.ident.clone(), (*typed.ty).clone()));
                    }
                    other => errors.at(
                        other,
                        "name this parameter: its name is the MCP argument's name",
                    ),
                },
            }
        }
        let output = match &sig.output {
            ReturnType::Default => {
                errors.at(
                    &sig.ident,
                    "`#[orchestrator]` must return its brief: a `String`, a `&str` or an `svir::Request`",
                );
                TokenStream::new()
            }
            ReturnType::Type(_, ty) => ty.to_token_stream(),
        };
        Self {
            params,
            doc: doc_comment(&function.attrs),
            output,
        }
    }
}

/// The doc comment's lines, trimmed and joined; `None` when there is none.
fn doc_comment(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            Meta::NameValue(doc) => match &doc.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(text),
                    ..
                }) => Some(text.value().trim().to_owned()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let joined = lines.join("\n").trim().to_owned();
    (!joined.is_empty()).then_some(joined)
}

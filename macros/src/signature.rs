//! The annotated function, checked: an `async fn` with named parameters, no receiver, no
//! generics, and no more parameters than a neva handler has room for.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Attribute, Expr, ExprLit, FnArg, Ident, ItemFn, Lit, Meta, Pat, ReturnType, Type};

use crate::errors::Errors;

/// How many parameters a neva tool handler takes, `Context`, `Meta` and `Dc` included.
const HANDLER_PARAMS: usize = 5;

/// The handler parameters the orchestrator itself takes: the request's `Context` and `_meta`.
const OWN_PARAMS: usize = 2;

/// One parameter of the function, passed through to the body in order.
pub(crate) struct Param {
    /// Its name, which is the MCP argument's name.
    pub(crate) ident: Ident,
    /// Its type.
    pub(crate) ty: Type,
    /// A `Context`, which the handler hands over from its own instead of taking a second one.
    pub(crate) is_context: bool,
}

/// What the expansion needs of the function.
pub(crate) struct Signature {
    /// The parameters, passed through to the body in order.
    pub(crate) params: Vec<Param>,
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
                        params.push(Param {
                            ident: pat.ident.clone(),
                            ty: (*typed.ty).clone(),
                            is_context: is_context(&typed.ty),
                        });
                    }
                    other => errors.at(
                        other,
                        "name this parameter: its name is the MCP argument's name",
                    ),
                },
            }
        }
        check_room(&params, errors);
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

/// Records an error at the first parameter past what a neva handler has room for. A `Context`
/// takes no room: the handler passes its own.
fn check_room(params: &[Param], errors: &mut Errors) {
    let room = HANDLER_PARAMS - OWN_PARAMS;
    if let Some(extra) = params.iter().filter(|param| !param.is_context).nth(room) {
        errors.at(
            &extra.ident,
            format!(
                "`#[orchestrator]` takes at most {room} parameters besides `Context`: a neva tool \
                 handler takes {HANDLER_PARAMS}, and the orchestrator's uses {OWN_PARAMS} for the \
                 request's context and `_meta`; gather the arguments in one struct argument, \
                 such as `trip: Json<Trip>` with `#[derive(Deserialize, JsonSchema)] struct Trip`"
            ),
        );
    }
}

/// Whether `ty` names neva's `Context`, by its last path segment as neva's own macros do.
fn is_context(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.qself.is_none()
        && path.path.segments.last().is_some_and(|last| last.ident == "Context"))
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

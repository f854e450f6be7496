//! Every mistake found, kept to be reported at once.

use proc_macro2::TokenStream;
use quote::ToTokens;
use std::fmt::Display;

/// Collects errors so the user sees all of them in one build.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    /// Records an error pointing at `tokens`.
    pub(crate) fn at(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// Records an error already made.
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(first) => first.combine(error),
            None => self.0 = Some(error),
        }
    }

    /// The collected errors as `compile_error!` invocations, or `None` when there are none.
    pub(crate) fn into_compile_errors(self) -> Option<TokenStream> {
        self.0.map(|error| error.to_compile_error())
    }
}

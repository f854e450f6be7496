//! Every runtime path the generated code names, in one place.

use proc_macro2::TokenStream;
use quote::quote;

/// The hidden module of the `ladoga` crate that generated code reaches the runtime through.
pub(crate) fn private() -> TokenStream {
    quote! { ::ladoga::__private }
}

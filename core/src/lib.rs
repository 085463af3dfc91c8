//! The compiled core of `auditor`: Pitch logs read and written in Rust.
//!
//! Safe on untrusted input first: no panic, linear time and memory bounded by the longest
//! line, whatever the bytes. Layout follows the data flow: [`cards`], then [`notation`]
//! (lexer, parser, writer), then [`scan`] for whole files, then the Python bindings.

#![forbid(unsafe_code)]
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

pub mod cards;
pub mod notation;
pub mod scan;

#[cfg(feature = "python")]
mod python;

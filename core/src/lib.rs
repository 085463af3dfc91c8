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

/// Records are many and small: mimalloc allocates them several times faster than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub mod audit;
pub mod cards;
pub mod columns;
pub mod engine;
pub mod findings;
pub mod notation;
pub mod rules;
pub mod scan;
pub mod simulate;
pub mod tables;
pub mod text;

#[cfg(feature = "python")]
mod py_finding;
#[cfg(feature = "python")]
mod py_records;
#[cfg(feature = "python")]
mod py_result;
#[cfg(feature = "python")]
mod py_rules;
#[cfg(feature = "python")]
mod python;

//! cost's integration tests, one binary (`cargo test -p cost --test it`): one module per subject
//! (the figures, the catalogue's properties, its rendering, a user's catalogue).
#![allow(clippy::unwrap_used)] // reason: tests fail loudly

mod figures;
mod properties;
mod render;
mod user_catalogue;

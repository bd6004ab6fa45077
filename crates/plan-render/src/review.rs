//! A [`Review`](runtime_plan::review::Review) laid out: markdown for the pull-request comment,
//! text for the terminal. What the review finds is decided in `runtime_plan::review`.

mod markdown;
mod pulumi;
mod text;

pub use markdown::{REVIEW_MARKER, render_review_markdown};
pub use pulumi::loss_warning;
pub use text::render_review_text;

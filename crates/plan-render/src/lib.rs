//! Presents what `runtime-plan` decided: every text the CLI prints about a plan.
//!
//! Each function takes a value `runtime-plan` made (a [`Plan`](runtime_plan::Plan), a
//! [`PlanDiff`](runtime_plan::PlanDiff), a [`Review`](runtime_plan::Review), a
//! [`SpendReport`](runtime_plan::SpendReport), ...) and returns or writes its text; nothing here
//! decides what a plan holds, what changed, what breaks or whether a cap is met. The JSON form
//! of those values is theirs (`runtime_plan::to_json`); the `cost` command's JSON shape,
//! [`CostReport`], is here because it is a view made for that command.
//!
//! | command | rendering |
//! |---|---|
//! | `runway plan` | [`write_plan_text`] ([`render_plan_text`] as a `String`) |
//! | `runway cost` | [`render_cost_text`], or [`cost_report`] as JSON |
//! | `runway graph` | [`render_mermaid`], [`render_dot`] of [`Plan::graph`](runtime_plan::Plan::graph) |
//! | `runway diff` | [`render_diff_text`] |
//! | `runway diff --base-ref` | [`render_review_markdown`] (starts with [`REVIEW_MARKER`]), [`render_review_text`] |
//! | `runway spend` | [`render_spend_text`] |
//! | `runway preflight` | [`render_findings_text`] |
//!
//! Like the core it presents, it does no I/O (the same `clippy.toml`) and never iterates a hash
//! map into output: the same value gives the same text, byte for byte.
// A match over a kind names every kind (ARCHITECTURE.md, "Adding a kind").
#![warn(clippy::wildcard_enum_match_arm)]
#![warn(unreachable_pub)]

mod diff;
mod findings;
mod graph;
mod plan_text;
mod previews;
mod review;
mod spend;
mod table;

pub use diff::render_diff_text;
pub use findings::render_findings_text;
pub use graph::{render_dot, render_mermaid};
pub use plan_text::{
    CostEnvironment, CostReport, apply_changes_text, cost_report, render_cost_text, render_plan_text,
    write_next_runs, write_plan_text,
};
pub use previews::{preview_pool_line, write_preview_text};
pub use review::{REVIEW_MARKER, loss_warning, render_review_markdown, render_review_text};
pub use spend::render_spend_text;
pub use table::WIDTH;

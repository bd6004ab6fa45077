//! Lowers a validated runway into a per-environment plan: resources, platform, bindings,
//! secrets layout, cost.
//!
//! [`plan()`] takes a [`runway_schema::Product`] (loaded and validated, defaults applied), an
//! environment name and a [`::cost::Catalogue`], and returns a [`Plan`]: plain data that every
//! renderer reads and nothing in it runs.
//!
//! What this crate does **not** do: it performs no I/O (no files, network, environment, clock
//! or randomness; `clippy.toml` refuses them), it never sees a secret value (plans hold the
//! names and places of secrets only), and it never iterates a hash map into output: the same
//! input gives the same plan, byte for byte.
//!
//! # Library functions for the CLI
//!
//! | command | functions |
//! |---|---|
//! | `runway check` (and `runway lsp`'s diagnostics) | [`check_each()`] (the CLI, each plan dropped once read) or [`check()`] (the language server, every plan kept): the loader's diagnostics and every environment's plan |
//! | `runway plan` | [`plan()`], then [`write_plan_text`] or [`write_json`] of the [`Plan`] (both streamed) |
//! | `runway cost` | [`plan()`] per environment, then [`render_cost_text`] or [`to_json`] of [`cost_report`] |
//! | `runway graph` | [`Plan::graph`] with [`Graph::to_mermaid`] or [`Graph::to_dot`] (or [`to_json`]) |
//! | `runway diff` | [`diff()`] of the old and new plans, then [`render_diff_text`] or [`to_json`] |
//! | `runway spend` | [`spend_report`] of the [`Plan`], a [`Month`] and the bill's [`Actuals`], then [`render_spend_text`] or [`to_json`] |
//! | `runway spend` (the usage that would have matched a bill) | [`usage_hint()`] |
//! | `runway preflight` | [`expectations()`] of the [`Plan`], compared by the adapters into [`Finding`]s, then [`render_findings_text`] or [`to_json`] |
//! | `runway diff --base-ref` | [`review()`] of the base's and the working version's plans, then [`render_review_markdown`], [`render_review_text`] or [`to_json`] |
//!
//! A plan with an error diagnostic ([`Plan::has_errors`], [`CostSummary::refused`]) is refused:
//! over its cap (`cap-exceeded`), unpriced under a cap (`unpriced`); the CLI exits 3 and no
//! adapter runs. See `docs/planning.md` for the item model and naming rules.
// A match over a kind names every kind, so a new kind is a compile error wherever it needs a
// decision; a projection of one kind is a `let ... else` (ARCHITECTURE.md, "Adding a kind").
#![warn(clippy::wildcard_enum_match_arm)]

mod check;
pub mod diff;
pub mod graph;
mod hint;
pub mod lower;
pub mod naming;
pub mod plan;
pub mod preflight;
pub mod preview;
mod pricing;
pub mod render;
pub mod review;
pub mod spend;
#[cfg(feature = "proptest1")]
pub mod strategy;

pub use check::{Checked, check, check_each};
pub use diff::{CostDelta, FieldChange, ItemChange, ItemRef, PlanDiff, diff, render_diff_text};
pub use graph::{Graph, GraphEdge, GraphNode, Layer};
pub use hint::{UsageHint, usage_hint};
pub use lower::{PlanError, database_name, fingerprint, plan, run_fingerprint, variables};
pub use plan::*;
pub use preflight::{Expectations, Finding, Severity, expectations, render_findings_text};
pub use preview::{ItemPreview, PulumiChange, PulumiPreview, ResourceStep};
pub use render::render_spend_text;
pub use render::{
    CostEnvironment, CostReport, cost_report, render_cost_text, render_plan_text, to_json, write_json,
    write_plan_text,
};
pub use review::{
    Breaking, Cause, EnvironmentReview, IncreaseCheck, ItemChangeKind, ItemRow, REVIEW_MARKER, Rename,
    Review, Side, SideCost, breaking, render_review_markdown, render_review_text, review, review_environment,
};
pub use spend::{
    Actuals, Hint, Month, MonthError, RowKind, SpendReport, SpendRow, SpendTotal, UsageMatch, spend_report,
};

/// The README's code examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

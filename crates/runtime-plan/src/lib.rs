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
//! # The embedding façade
//!
//! The root holds what an embedder (the CLI, the language server, `examples/embed`) needs to go
//! from a loaded product to plans and to what they decide; the whole plan model is in [`plan`],
//! and the items it uses most are named here too. Loading is `runway_files::load` (the files
//! under a root path, read once) and the catalogue `runway_files::catalogue_for` chooses; the
//! texts the CLI prints are the `plan-render` crate's.
//!
//! | command | decides | then presents (`plan-render`, or [`to_json`]) |
//! |---|---|---|
//! | `runway check` (and `runway lsp`'s diagnostics) | [`check_each()`] (the CLI, each plan dropped once read) or [`check()`] (the language server, every plan kept): the loader's diagnostics and every environment's plan (a [`Planner`]) | diagnostics |
//! | `runway plan` | [`plan()`] | `write_plan_text`, or [`write_json`] of the [`Plan`] (both streamed) |
//! | `runway cost` | [`plan()`] per environment | `render_cost_text`, or `cost_report` as JSON |
//! | `runway graph` | [`Plan::graph`] | `render_mermaid`, `render_dot`, or [`to_json`] |
//! | `runway diff` | [`diff()`] of the old and new plans | `render_diff_text`, or [`to_json`] |
//! | `runway spend` | [`spend_report()`] of the [`Plan`], a [`Month`] and the bill's [`Actuals`]; [`usage_hint()`] (the usage that would have matched a bill) | `render_spend_text`, or [`to_json`] |
//! | `runway drift` | [`drift()`] of the [`Plan`], the catalogue and what the adapters [`Observed`] in the account | `render_drift_text`, or [`to_json`] |
//! | `runway preflight` | [`expectations()`] of the [`Plan`], compared by the adapters into [`Finding`]s | `render_findings_text`, or [`to_json`] |
//! | `runway diff --base-ref` | [`review()`] of the base's and the working version's plans (breaking bindings, the `limits.increase` guardrail) | `render_review_markdown`, `render_review_text`, or [`to_json`] |
//!
//! A plan with an error diagnostic ([`Plan::has_errors`], [`CostSummary::refused`]) is refused:
//! over its cap (`cap-exceeded`), unpriced under a cap (`unpriced`); the CLI exits 3 and no
//! adapter runs. See `docs/planning.md` for the item model and naming rules.
// A match over a kind names every kind, so a new kind is a compile error wherever it needs a
// decision; a projection of one kind is a `let ... else` (ARCHITECTURE.md, "Adding a kind").
#![warn(clippy::wildcard_enum_match_arm)]
// What no path outside reaches is `pub(crate)`: the root and the public modules say what the
// crate offers.

pub mod cache_restore;
mod check;
pub mod diff;
pub mod drift;
pub mod graph;
mod hint;
mod json;
pub mod lower;
pub mod naming;
pub mod plan;
pub mod preflight;
pub mod preview;
pub mod preview_pool;
pub mod previews;
mod pricing;
pub mod restore;
pub mod restore_check;
pub mod restore_cluster;
pub mod restore_kinds;
pub mod review;
pub mod schedule;
pub mod spend;
#[cfg(feature = "proptest1")]
pub mod strategy;
pub mod switch;
pub mod teardown;

// The façade: from a product to plans, and what they decide.
pub use check::{Checked, check, check_each};
pub use diff::{CostDelta, FieldChange, ItemChange, ItemRef, PlanDiff, diff};
pub use drift::{DriftFinding, DriftKind, DriftReport, Observed, drift};
pub use graph::{Graph, GraphEdge, GraphNode, Layer};
pub use hint::{UsageHint, usage_hint};
pub use json::{to_json, write_json};
pub use lower::{PlanError, Planner, database_name, fingerprint, plan, run_fingerprint, variables};
pub use preflight::{Expectations, Finding, Severity, expectations};
pub use preview::{ItemPreview, PulumiChange, PulumiPreview, ResourceStep};
pub use previews::{PreviewError, SharedProxyLogins, plan_named, preview_plan, shared_proxy_logins};
pub use review::{
    Breaking, Cause, EnvironmentReview, IncreaseCheck, ItemChangeKind, ItemRow, Rename, Review, Side,
    SideCost, breaking, review, review_environment,
};
pub use schedule::{NextRuns, next_times};
pub use spend::{
    Actuals, Hint, Month, MonthError, RowKind, SpendReport, SpendRow, SpendTotal, UsageMatch, spend_report,
};
pub use teardown::{Held, Holdings, Kept, Refusal, TeardownPlan, teardown};

// The plan's model most used by the adapters (all of it is in `plan`).
pub use plan::{
    ALERTS_TOPIC_ID, ATTEMPTS, ActiveHours, AlarmName, AlbListenerRuleSpec, AlbListenerSpec,
    AlbLogBucketSpec, AlbSpec, AlbTargetGroupSpec, AuroraClusterSpec, BOOTSTRAP_COMMAND, BOOTSTRAP_IMAGE,
    Binding, BucketLifecycle, BudgetBasis, BudgetSpec, CacheReplicationGroupSpec, CompactString, Comparison,
    ConnectionSource, ConnectionVariable, CostLine, CostSummary, CredentialKind, DatabaseProtection,
    DimensionValue, DnsRecordSpec, ENVIRONMENT_TAG, EcsServiceSpec, EndpointType, GeneratedSecret, Grant,
    HealthSpec, ITEM_TAG, InfisicalFolder, InfisicalPlace, ItemKind, ItemSpec, ListenerAction, LogDelivery,
    ManagedBy, OneOffTask, PAUSE_SECONDS, PRODUCT_TAG, ParameterSource, ParameterWriter, Peer, Plan,
    PlannedItem, PlannedOutput, PlannedResource, PlannedWorkload, PolicyResource, RESOURCE_TAG,
    RdsInstanceSpec, RdsProxySpec, RepositoryCredentials, Rotation, RotationTarget, S3BucketSpec,
    SQL_VARIABLE, ScalingPolicySpec, ScalingSource, ScheduleSpec, SecretsLayout, SecurityRule,
    ServiceRestart, SqsQueueSpec, SsmParameter, TaskDefinitionSpec, TaskPurpose, Verdict, alarm_metric,
};

/// The README's code examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

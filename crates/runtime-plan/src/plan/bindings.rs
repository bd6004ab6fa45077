//! Bindings: which consumer uses which resource, under which variable and SSM names.

use std::sync::Arc;

use compact_str::CompactString;
use runway_schema::Access;
use serde::Serialize;

/// What kind of consumer a binding is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ConsumerKind {
    /// A workload of the root runway.
    Workload,
    /// A member with `runtime: encore`.
    EncoreMember,
    /// A member with `runtime: other`.
    OtherMember,
}

/// How a consumer receives its variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Delivery {
    /// SSM parameters referenced by the task definition.
    Ssm,
    /// Infisical's sync into Encore secrets; the plan only records the binding.
    EncoreSync,
    /// Read from Infisical by the member itself; the plan only records the binding.
    Infisical,
}

/// One consumer's use of one resource.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Binding {
    /// The workload or member name.
    pub consumer: CompactString,
    /// The resource name.
    pub resource: CompactString,
    /// Variable names the consumer gets (spec section 6), in the spec's order.
    ///
    /// Shared with every other binding of the same resource (`Arc`): a resource bound by many
    /// consumers holds its names once.
    pub variables: Arc<[CompactString]>,
    /// Infisical display form, `<infisical-env>:<folder>`.
    pub infisical: CompactString,
    /// SSM parameter names (workloads only; empty for members), one per variable.
    ///
    /// Each name is one text (`Arc<str>`) shared with its parameter's record, the task
    /// definitions' secrets and the execution role's grant.
    pub ssm: Arc<[Arc<str>]>,
    /// Workload, Encore member or other member.
    pub consumer_kind: ConsumerKind,
    /// How the variables reach the consumer.
    pub delivery: Delivery,
    /// Implicit binding from a member's `requires`.
    pub implicit: bool,
    /// How the consumer uses the resource (`uses: [{ uploads: read }]`): the task role's
    /// actions and a database role's grants follow it. Left out of JSON when `write`, the
    /// default.
    #[serde(skip_serializing_if = "is_write")]
    pub access: Access,
    /// The consumer's own database login role (`app_<consumer>`), for a postgres resource:
    /// its variables name this role, never the database's admin (left out of JSON otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub login: Option<CompactString>,
}

fn is_write(access: &Access) -> bool {
    *access == Access::Write
}

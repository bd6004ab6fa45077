//! The items of a plan: one AWS item to declare each, its kind, who manages it and how it is
//! priced.

use std::sync::Arc;

use compact_str::CompactString;
use runway_schema::Money;
use serde::Serialize;

use super::item_spec::ItemSpec;
use super::kinds::ItemKind;

/// Who creates an item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ManagedBy {
    /// Declared by the emitted Pulumi program.
    Pulumi,
    /// Created and filled by `runway secrets prepare` before `pulumi up`; the program only
    /// looks it up by name.
    SecretsAdapter,
    /// Already there, outside runway: part of the VPC the program is given (its NAT gateways).
    /// Nothing declares or looks it up; the plan holds it for what it charges the environment.
    Existing,
    /// A pull request's preview shares it with the environment it comes from (its physical
    /// name is that environment's): the program looks it up, never declares it, and the
    /// preview is not charged for it (docs/previews.md).
    Shared,
}

impl ItemKind {
    /// An item's monthly figure as people read it: `$x`, `by use`, or `unpriced`.
    pub fn price_text(self, monthly: Option<Money>) -> String {
        match monthly {
            Some(m) => format!("${m}"),
            None if self.billed_by_use() => "by use".to_owned(),
            None => "unpriced".to_owned(),
        }
    }
}

/// How an item's monthly figure was found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "status")]
pub enum Pricing {
    /// Priced by the catalogue; its lines are in [`CostSummary::lines`](super::CostSummary::lines).
    Priced,
    /// No charge of its own: free, or counted in another item's price.
    Included {
        /// Why (`included in the ALB's hourly price`).
        note: CompactString,
    },
    /// The catalogue cannot price it; never counted as $0.
    Unpriced {
        /// Why: a boxed text (16 bytes), so the tag fits beside it and every item's pricing is
        /// 24 bytes, not 32.
        reason: Box<str>,
    },
    /// Billed by a use the plan cannot know (log volume, an account's other budgets): not in
    /// the estimate; its rates are in [`CostSummary::usage_based`](super::CostSummary::usage_based).
    UsageBased,
}

/// One AWS item to declare.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedItem {
    /// Stable logical id, `<owner>_<role>` (`main-db_proxy`, `env_ecs-cluster`); unique in a plan.
    pub id: CompactString,
    /// The AWS name (within the AWS limit of its kind), or for items AWS names itself the
    /// qualified address of the item (`<proxy>/default`); unique in a plan.
    pub physical_name: CompactString,
    /// The resource or workload it belongs to; `None` for environment platform items.
    pub owner: Option<CompactString>,
    /// The size it is planned from, when it has one: one of a plan's few size names, a text
    /// its items share (`Arc`, 16 bytes, not 24: 0.7 MB at N = 10,000).
    pub size: Option<Arc<str>>,
    /// Who creates it.
    pub managed_by: ManagedBy,
    /// Monthly estimate (workloads at `scale.min`); `Some(0)` for included items; `None` when
    /// unpriced or usage-based.
    pub monthly: Option<Money>,
    /// Monthly figure at `scale.max`; equal to `monthly` for anything that does not scale.
    pub ceiling: Option<Money>,
    /// How the figure was found.
    pub pricing: Pricing,
    /// Logical ids of the items it references, in order: a boxed slice, as it never grows
    /// once planned (8 bytes less than a `Vec` on each of a large plan's items).
    pub depends_on: Box<[CompactString]>,
    /// Every property a renderer needs.
    pub spec: ItemSpec,
}

impl PlannedItem {
    /// What the item is within its owner, as a person reads it (`RDS instance`,
    /// `Aurora instance 2`).
    pub fn what(&self) -> String {
        // The kind's words (every kind has them), told apart where one owner has several.
        if let ItemSpec::AuroraInstance { index, .. } = &self.spec {
            return format!("Aurora instance {index}");
        }
        if let ItemSpec::SecurityGroup { guards, .. } = &self.spec {
            return format!("security group ({guards})");
        }
        // `com.amazonaws.<region>.<service>`: the service is what tells endpoints apart.
        if let ItemSpec::VpcEndpoint { service_name, .. } = &self.spec {
            let service = service_name.splitn(4, '.').nth(3).unwrap_or(service_name);
            return format!("VPC endpoint ({service})");
        }
        if let ItemSpec::Vpc { .. } = &self.spec {
            return "VPC (not declared)".to_owned();
        }
        if let ItemSpec::MetricAlarm { alarm, node, .. } = &self.spec {
            return match node {
                Some(n) => format!("alarm {} (node {n})", alarm.as_str()),
                None => format!("alarm {}", alarm.as_str()),
            };
        }
        // A postgres resource's bootstrap task (`<resource>_bootstrap-...`): its own items.
        if self.id.split_once('_').is_some_and(|(_, role)| role.starts_with("bootstrap-"))
            && matches!(
                self.kind(),
                ItemKind::TaskDefinition | ItemKind::TaskExecutionRole | ItemKind::LogGroup
            )
        {
            return format!("bootstrap {}", self.kind().words());
        }
        // A one-off task's (a workload's `migrate`) beside the service's.
        if let ItemSpec::TaskDefinition(task) = &self.spec
            && task.command.is_some()
        {
            return "one-off task definition".to_owned();
        }
        self.kind().words().to_owned()
    }

    /// The owner a person reads: the resource or workload name, or `environment` for the
    /// environment's platform items.
    pub fn owner_name(&self) -> &str {
        self.owner.as_deref().unwrap_or("environment")
    }

    /// Its type: its spec's.
    pub fn kind(&self) -> ItemKind {
        self.spec.kind()
    }

    /// Must the deploy refuse to delete or replace it (Pulumi `protect`)? Production
    /// databases and buckets.
    pub fn protected(&self) -> bool {
        self.spec.protected()
    }

    /// Whether a change to it takes effect at the deploy (`Some(true)`) or at its next
    /// maintenance window (`Some(false)`); `None` for an item without a maintenance window.
    pub fn apply_immediately(&self) -> Option<bool> {
        self.spec.apply_immediately()
    }

    /// The item as the plan's text names it: its owner and what it is (`main-db RDS
    /// instance`, `environment ALB`, `pdf-render task definition`). JSON keeps the logical id.
    pub fn label(&self) -> String {
        format!("{} {}", self.owner_name(), self.what())
    }
}

/// A [`PlannedItem`] as JSON: its kind (derived from its spec) written where it always was.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ItemJson<'a> {
    id: &'a CompactString,
    kind: ItemKind,
    physical_name: &'a CompactString,
    owner: &'a Option<CompactString>,
    size: Option<&'a str>,
    managed_by: ManagedBy,
    monthly: Option<Money>,
    ceiling: Option<Money>,
    pricing: &'a Pricing,
    depends_on: &'a [CompactString],
    spec: &'a ItemSpec,
}

impl Serialize for PlannedItem {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ItemJson {
            id: &self.id,
            kind: self.kind(),
            physical_name: &self.physical_name,
            owner: &self.owner,
            size: self.size.as_deref(),
            managed_by: self.managed_by,
            monthly: self.monthly,
            ceiling: self.ceiling,
            pricing: &self.pricing,
            depends_on: &self.depends_on,
            spec: &self.spec,
        }
        .serialize(s)
    }
}

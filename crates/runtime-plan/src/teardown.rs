//! What `runway teardown` would do to an environment, decided before anything is deleted:
//! everything the environment holds (the plan's items and what carries its tags), what is
//! deleted and what is kept (databases' final snapshots, buckets, the
//! environment's KMS key pending deletion for its waiting period) with what the kept items cost
//! a month afterwards, and whether the teardown is refused.
//!
//! Pure: the adapters read what is held ([`Holdings`]); this module decides. The JSON shape,
//! stable (fields are added, never renamed): `{"product","environment","setting","refusal",
//! "deleted":[{"subject","what","owner"}],"kept":[{"subject","what","owner","why","monthly",
//! "note"}],"keptMonthly","unpriced","parameterPrefix","infisicalFolders"}`.

use compact_str::CompactString;
use runway_schema::{Money, Teardown};
use rust_decimal::Decimal;
use serde::Serialize;

use crate::drift::TaggedResource;
use crate::plan::{ItemSpec, ManagedBy, Plan, PlannedItem};

/// Days a KMS key scheduled for deletion waits (the shortest AWS allows: 7 to 30).
pub const KEY_PENDING_DAYS: u32 = 7;

/// What the environment holds, as the adapters read it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Holdings {
    /// What carries the environment's `product` and `environment` tags.
    pub tagged: Vec<TaggedResource>,
}

/// Why a teardown is refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "reason")]
pub enum Refusal {
    /// The environment's runway does not say `teardown: allowed`.
    NotAllowed,
    /// `--confirm` is missing.
    NotConfirmed,
    /// `--confirm` names another environment.
    WrongName {
        /// What `--confirm` said.
        given: CompactString,
    },
}

impl Refusal {
    /// The refusal as a person reads it, with the step that lifts it.
    pub fn text(&self, environment: &str) -> String {
        match self {
            Refusal::NotAllowed => format!(
                "the runway does not allow tearing `{environment}` down: write `teardown: allowed` under \
                 `environments.{environment}` (reviewed like any change), then repeat the name with \
                 `--confirm {environment}`"
            ),
            Refusal::NotConfirmed => {
                format!(
                    "nothing deleted: repeat the environment's name to tear it down (`--confirm {environment}`)"
                )
            }
            Refusal::WrongName { given } => {
                format!("`--confirm {given}` does not name the environment `{environment}`: nothing deleted")
            }
        }
    }
}

/// Something the teardown deletes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Held {
    /// The item's id, or the ARN of what carries the tags without being an item.
    pub subject: CompactString,
    /// What it is (`RDS instance`, `ecs service`).
    pub what: CompactString,
    /// Its resource or workload, `environment` for shared items.
    pub owner: Option<CompactString>,
}

/// Something that outlives the teardown, and what it costs a month afterwards.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Kept {
    /// Its name (the snapshot identifier, the bucket, the key's alias).
    pub subject: CompactString,
    /// What it is (`final snapshot`, `bucket`, `KMS key`).
    pub what: CompactString,
    /// Its resource, `environment` for the key.
    pub owner: Option<CompactString>,
    /// Why it is kept.
    pub why: CompactString,
    /// What it costs a month once the environment is gone; `None` when it cannot be priced.
    pub monthly: Option<Money>,
    /// How it was priced, or why it could not be.
    pub note: CompactString,
}

/// The teardown of one environment, decided.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TeardownPlan {
    /// The product.
    pub product: CompactString,
    /// The environment.
    pub environment: CompactString,
    /// The environment's `teardown` setting (as written, or its name's default).
    pub setting: Teardown,
    /// Why nothing will be deleted, when that is so.
    pub refusal: Option<Refusal>,
    /// What is deleted: the program's items (by `pulumi destroy`), then what carries the
    /// environment's tags without being an item.
    pub deleted: Vec<Held>,
    /// What is kept.
    pub kept: Vec<Kept>,
    /// What the kept items cost a month (the priced ones).
    pub kept_monthly: Money,
    /// Kept items that could not be priced.
    pub unpriced: usize,
    /// The SSM prefix whose parameters are deleted last.
    pub parameter_prefix: CompactString,
    /// The Infisical folders deleted last (in the environment's Infisical environment).
    pub infisical_folders: Vec<CompactString>,
}

/// Decides the teardown of `plan`'s environment: `setting` is its `teardown` as written,
/// `confirm` what `--confirm` said.
pub fn teardown(
    plan: &Plan,
    setting: Option<Teardown>,
    confirm: Option<&str>,
    holdings: &Holdings,
) -> TeardownPlan {
    let setting = Teardown::of(setting, &plan.environment);
    let refusal = match (setting, confirm) {
        (Teardown::Refused, _) => Some(Refusal::NotAllowed),
        (Teardown::Allowed, None) => Some(Refusal::NotConfirmed),
        (Teardown::Allowed, Some(name)) if plan.environment != name => {
            Some(Refusal::WrongName { given: name.into() })
        }
        (Teardown::Allowed, Some(_)) => None,
    };
    let mut deleted = Vec::new();
    let mut kept = Vec::new();
    for item in &plan.items {
        if item.managed_by == ManagedBy::Existing {
            continue;
        }
        kept.extend(kept_of(item));
        // Buckets and the key are kept (the key pending deletion).
        if !matches!(item.spec, ItemSpec::S3Bucket { .. } | ItemSpec::KmsKey { .. }) {
            deleted.push(Held {
                subject: item.id.clone(),
                what: item.what().into(),
                owner: Some(item.owner_name().into()),
            });
        }
    }
    let mut unplanned: Vec<&TaggedResource> = holdings
        .tagged
        .iter()
        .filter(|t| !crate::drift::names_an_item(plan, t) && !crate::drift::is_parameter(&t.arn))
        .collect();
    unplanned.sort_by(|a, b| a.arn.cmp(&b.arn));
    deleted.extend(unplanned.into_iter().map(|t| Held {
        subject: t.arn.clone(),
        what: "carries the environment's tags, no plan item".into(),
        owner: t.resource_tag.clone(),
    }));
    let mut folders: Vec<CompactString> = Vec::new();
    let places = plan
        .secrets
        .generated
        .iter()
        .map(|g| &g.infisical)
        .chain(plan.secrets.connection.iter().map(|c| &c.infisical));
    for place in places {
        if !folders.iter().any(|f| *f == *place.folder) {
            folders.push((&*place.folder).into());
        }
    }
    TeardownPlan {
        product: plan.product.clone(),
        environment: plan.environment.clone(),
        setting,
        refusal,
        deleted,
        kept_monthly: kept.iter().filter_map(|k| k.monthly).sum(),
        unpriced: kept.iter().filter(|k| k.monthly.is_none()).count(),
        kept,
        parameter_prefix: plan.secrets.ssm_prefix.clone(),
        infisical_folders: folders,
    }
}

/// What of `item` outlives the teardown: a database's final snapshot, a bucket, the
/// environment's key pending deletion.
fn kept_of(item: &PlannedItem) -> Option<Kept> {
    let owner = Some(CompactString::from(item.owner_name()));
    let snapshot = |protection: &crate::plan::DatabaseProtection| {
        protection.final_snapshot.as_ref().map(|name| Kept {
            subject: name.clone(),
            what: "final snapshot".into(),
            owner: owner.clone(),
            why: "the database's deletion takes it (production: restore from it)".into(),
            monthly: None,
            note: "billed per GB-month of backup storage beyond the free allowance; the catalogue has no \
                   snapshot price"
                .into(),
        })
    };
    if let ItemSpec::RdsInstance(spec) = &item.spec {
        return snapshot(&spec.protection);
    }
    if let ItemSpec::AuroraCluster(spec) = &item.spec {
        return snapshot(&spec.protection);
    }
    if let ItemSpec::S3Bucket { .. } = &item.spec {
        return Some(Kept {
            subject: item.physical_name.clone(),
            what: "bucket".into(),
            owner,
            why: "a teardown never deletes a bucket: empty it and delete it by hand once nobody needs \
                  its objects"
                .into(),
            monthly: item.monthly,
            note: "the plan's estimate of its storage (its size's; what it holds is not read)".into(),
        });
    }
    if let ItemSpec::KmsKey { alias, .. } = &item.spec {
        return Some(Kept {
            subject: alias.clone(),
            what: "KMS key".into(),
            owner,
            why: format!("scheduled for deletion, pending {KEY_PENDING_DAYS} days (its waiting period)")
                .into(),
            monthly: Some(Money(Decimal::ZERO)),
            note: "a key pending deletion is not charged (AWS KMS pricing)".into(),
        });
    }
    None
}

//! The budget backstop: a capped environment gets an AWS Budgets monthly cost budget whose
//! limit is its cap, warning at 80% of the forecast and at 100% of the actual spend. The cap
//! refuses plans before anything is created; the budget watches what a plan cannot see (usage,
//! things made by hand). An uncapped environment gets none (its `uncapped` warning says so).

use super::cat;
use super::context::{Cx, NewItem};
use crate::plan::{BudgetAlert, BudgetBasis, BudgetSpec, ItemKind, ItemSpec};
use crate::pricing::Priceable;

/// Alerts of every budget: the forecast passing 80% of the cap, the actual spend reaching it.
pub(crate) const BUDGET_ALERTS: [BudgetAlert; 2] = [
    BudgetAlert { basis: BudgetBasis::Forecasted, percent: 80 },
    BudgetAlert { basis: BudgetBasis::Actual, percent: 100 },
];

/// Declares the environment's budget when it has a cap.
pub(in crate::lower) fn lower(cx: &mut Cx) {
    let Some(limit) = cx.env.cap(cx.env_name) else { return };
    // With alarms, the budget's alerts also go to the alerts topic (planned just before).
    let topic = cx.items.iter().rev().find(|i| i.kind() == ItemKind::AlertTopic).map(|i| i.id.clone());
    let alert_topic = topic.is_some();
    let name = cx.named(ItemKind::Budget, cat(&[cx.product, "-", cx.env_name, "-monthly-cap"]));
    let spec = ItemSpec::Budget(Box::new(BudgetSpec {
        limit,
        product: cx.product.into(),
        environment: cx.env_name.into(),
        alerts: BUDGET_ALERTS.to_vec(),
        alert_topic,
    }));
    let item = NewItem::new("env_budget".into(), name, None, spec).priced(Priceable::Budget);
    cx.add(item.depends_on(topic.into_iter().collect()));
}

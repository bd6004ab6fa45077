//! The environment's budget backstop: an AWS Budgets monthly cost budget over the costs tagged
//! with the product and environment, notifying the `budgetAlertEmails` input.

use runtime_plan::plan::BudgetAlert;
use runtime_plan::{BudgetBasis, CompactString, ENVIRONMENT_TAG, PRODUCT_TAG, PlannedItem};
use runway_schema::Money;
use serde::Serialize;

use super::RenderError;
use super::context::{Context, Input, Tags};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Budget<'p> {
    name: &'p str,
    budget_type: &'static str,
    time_unit: &'static str,
    limit_amount: String,
    limit_unit: &'static str,
    filter_expression: FilterExpression<'p>,
    notifications: Vec<Notification>,
    tags: Tags<'p>,
}

/// Both tags must match: `product` and `environment`.
#[derive(Serialize)]
struct FilterExpression<'p> {
    ands: [TagFilter<'p>; 2],
}

#[derive(Serialize)]
struct TagFilter<'p> {
    tags: TagValues<'p>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TagValues<'p> {
    key: &'static str,
    values: [&'p str; 1],
    match_options: [&'static str; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Notification {
    comparison_operator: &'static str,
    notification_type: &'static str,
    threshold: u32,
    threshold_type: &'static str,
    subscriber_email_addresses: String,
    /// The alerts topic, in an environment with alarms.
    subscriber_sns_topic_arns: Option<[String; 1]>,
}

/// The budget: its limit is the environment's cap, in dollars and cents.
pub(super) fn budget<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    limit: &'p Money,
    product: &'p CompactString,
    environment: &'p CompactString,
    alerts: &'p [BudgetAlert],
    alert_topic: &'p bool,
) -> Result<(), RenderError> {
    let emails = cx.input(Input::BudgetAlertEmails);
    let topic = alert_topic.then(|| cx.reference(runtime_plan::ALERTS_TOPIC_ID, "arn")).transpose()?;
    let tag = |key, value| TagFilter { tags: TagValues { key, values: [value], match_options: ["EQUALS"] } };
    let props = Budget {
        name: &item.physical_name,
        budget_type: "COST",
        time_unit: "MONTHLY",
        limit_amount: limit.cents().to_string(),
        limit_unit: "USD",
        filter_expression: FilterExpression {
            ands: [tag(PRODUCT_TAG, product), tag(ENVIRONMENT_TAG, environment)],
        },
        notifications: alerts
            .iter()
            .map(|a| Notification {
                comparison_operator: "GREATER_THAN",
                notification_type: match a.basis {
                    BudgetBasis::Forecasted => "FORECASTED",
                    BudgetBasis::Actual => "ACTUAL",
                },
                threshold: a.percent,
                threshold_type: "PERCENTAGE",
                subscriber_email_addresses: emails.clone(),
                subscriber_sns_topic_arns: topic.clone().map(|t| [t]),
            })
            .collect(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:budgets/budget:Budget", props)
}

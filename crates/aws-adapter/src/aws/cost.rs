//! The bill read back (`runway spend`): one month's unblended cost of a product's environment
//! from Cost Explorer, grouped by the `resource` tag.
//!
//! Cost Explorer is a global service: whatever region the client is configured with, the SDK's
//! endpoint rules send the call to `ce.us-east-1.amazonaws.com` (signed for `us-east-1`) in the
//! `aws` partition. Each request costs $0.01; a month of one environment is one request (more
//! only when Cost Explorer pages its groups).

use std::str::FromStr;

use aws_sdk_costexplorer::types::{
    DateInterval, Expression, Granularity, GroupDefinition, GroupDefinitionType, MatchOption, TagValues,
};
use rust_decimal::Decimal;
use serde::Serialize;

use super::{AwsClients, Remedy, RemoteError, Scope};

/// The tag the cost is grouped by: the runway resource or workload an item belongs to
/// (`environment` for the environment's shared items).
pub const RESOURCE_TAG: &str = "resource";
/// The metric read: what was billed before discounts are spread (`UnblendedCost`).
pub const METRIC: &str = "UnblendedCost";
/// The operation called.
const OPERATION: &str = "GetCostAndUsage";

/// One month (or any span of whole days) of cost: `start` inclusive, `end` exclusive, both
/// `YYYY-MM-DD`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CostPeriod {
    /// The first day, e.g. `2026-11-01`.
    pub start: String,
    /// The day after the last, e.g. `2026-12-01`.
    pub end: String,
}

/// The cost under one value of the `resource` tag.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CostGroup {
    /// The tag's value; `None` for cost without the tag or with an empty value (Cost Explorer's
    /// key `resource$`).
    pub resource: Option<String>,
    /// The unblended cost, exact as Cost Explorer gave it.
    pub amount: Decimal,
}

/// What Cost Explorer answered for a period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CostByResource {
    /// One group per tag value, in the order first answered, amounts of every page and every
    /// period of the answer added.
    pub groups: Vec<CostGroup>,
    /// Cost Explorer marked some of it as estimated: the month's bill is not final yet.
    pub estimated: bool,
    /// The currency units of the amounts, as answered (`USD`), each once.
    pub units: Vec<String>,
}

/// Why the cost could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CostError {
    /// Cost Explorer answered that it has no data for the account
    /// (`DataUnavailableException`): it is not enabled, or has not prepared the data yet.
    #[error("Cost Explorer has no data for this account ({message})")]
    Unavailable {
        /// The service's message.
        message: String,
    },
    /// The call failed.
    #[error(transparent)]
    Remote(#[from] RemoteError),
}

impl AwsClients {
    /// The unblended cost of `scope` (tags `product` and `environment`) over `period`, grouped
    /// by the `resource` tag, every page read.
    pub async fn cost_by_resource(
        &self,
        scope: &Scope,
        period: &CostPeriod,
    ) -> Result<CostByResource, CostError> {
        let interval = DateInterval::builder()
            .start(period.start.clone())
            .end(period.end.clone())
            .build()
            .map_err(|e| built_badly(&e))?;
        let filter = Expression::builder()
            .and(tag_is("product", &scope.product))
            .and(tag_is("environment", &scope.environment))
            .build();
        let group = GroupDefinition::builder().r#type(GroupDefinitionType::Tag).key(RESOURCE_TAG).build();
        let mut read = CostByResource { groups: Vec::new(), estimated: false, units: Vec::new() };
        let mut token: Option<String> = None;
        loop {
            let answer = self
                .ce
                .get_cost_and_usage()
                .time_period(interval.clone())
                .granularity(Granularity::Monthly)
                .metrics(METRIC)
                .filter(filter.clone())
                .group_by(group.clone())
                .set_next_page_token(token.take())
                .send()
                .await
                .map_err(|e| {
                    let unavailable =
                        e.as_service_error().filter(|s| s.is_data_unavailable_exception()).map(|s| {
                            s.meta()
                                .message()
                                .map_or_else(|| "DataUnavailableException".to_owned(), super::one_line)
                        });
                    match unavailable {
                        Some(message) => CostError::Unavailable { message },
                        None => CostError::Remote(denied_names_the_permission(RemoteError::from_sdk(
                            OPERATION, e,
                        ))),
                    }
                })?;
            for period in answer.results_by_time() {
                read.estimated |= period.estimated();
                for g in period.groups() {
                    let Some(metric) = g.metrics().and_then(|m| m.get(METRIC)) else { continue };
                    let amount = parse_amount(metric.amount().unwrap_or("0"))?;
                    if let Some(unit) = metric.unit().filter(|u| !read.units.iter().any(|k| k == u)) {
                        read.units.push(unit.to_owned());
                    }
                    add(&mut read.groups, tag_value(g.keys().first().map_or("", String::as_str)), amount);
                }
            }
            match answer.next_page_token() {
                Some(next) if !next.is_empty() => token = Some(next.to_owned()),
                _ => return Ok(read),
            }
        }
    }
}

/// A filter on one tag's value.
fn tag_is(key: &str, value: &str) -> Expression {
    Expression::builder()
        .tags(TagValues::builder().key(key).values(value).match_options(MatchOption::Equals).build())
        .build()
}

/// The `resource` tag's value of a group key (`resource$main-db`); `None` when empty (the
/// key `resource$` groups the cost without the tag).
fn tag_value(key: &str) -> Option<String> {
    let value = key.strip_prefix(RESOURCE_TAG).and_then(|k| k.strip_prefix('$')).unwrap_or(key);
    (!value.is_empty()).then(|| value.to_owned())
}

/// Adds `amount` to the group of `resource`, or starts it.
fn add(groups: &mut Vec<CostGroup>, resource: Option<String>, amount: Decimal) {
    match groups.iter_mut().find(|g| g.resource == resource) {
        Some(g) => g.amount += amount,
        None => groups.push(CostGroup { resource, amount }),
    }
}

/// An amount as Cost Explorer writes it (`12.3456789`, sometimes `1.2E-7`).
fn parse_amount(text: &str) -> Result<Decimal, CostError> {
    Decimal::from_str(text).or_else(|_| Decimal::from_scientific(text)).map_err(|_| {
        CostError::Remote(RemoteError {
            operation: OPERATION,
            code: None,
            message: Some(format!("Cost Explorer answered an amount that is not a number: `{text}`")),
            remedy: None,
            cause: None,
        })
    })
}

/// A request the SDK would not build (a required field missing): a defect, reported as the
/// call's failure.
fn built_badly(e: &dyn std::error::Error) -> CostError {
    CostError::Remote(RemoteError {
        operation: OPERATION,
        code: None,
        message: Some(super::one_line(&e.to_string())),
        remedy: None,
        cause: None,
    })
}

/// An access denied on Cost Explorer names its permission (and its region) as the first step.
fn denied_names_the_permission(mut e: RemoteError) -> RemoteError {
    if e.remedy == Some(Remedy::AccessDenied) {
        e.remedy = Some(Remedy::CostExplorerDenied);
    }
    e
}

#[cfg(test)]
mod tests {
    use aws_sdk_costexplorer::config::endpoint::{DefaultResolver, Params, ResolveEndpoint};

    use super::{CostGroup, add, parse_amount, tag_value};

    #[test]
    fn group_keys_name_the_tag_value_and_untagged_cost_has_none() {
        assert_eq!(tag_value("resource$main-db"), Some("main-db".to_owned()));
        assert_eq!(tag_value("resource$"), None);
        assert_eq!(tag_value(""), None);
        let mut groups = Vec::new();
        add(&mut groups, Some("api".into()), "1.5".parse().unwrap());
        add(&mut groups, None, "2".parse().unwrap());
        add(&mut groups, Some("api".into()), "0.25".parse().unwrap());
        assert_eq!(
            groups,
            vec![
                CostGroup { resource: Some("api".into()), amount: "1.75".parse().unwrap() },
                CostGroup { resource: None, amount: "2".parse().unwrap() }
            ]
        );
    }

    #[test]
    fn amounts_are_read_exactly_in_either_notation() {
        assert_eq!(parse_amount("12.3456789").unwrap().to_string(), "12.3456789");
        assert_eq!(parse_amount("1.2E-7").unwrap().to_string(), "0.00000012");
        assert!(parse_amount("twelve").is_err());
    }

    /// Cost Explorer is reached in us-east-1 whatever the environment's region (the SDK's
    /// endpoint rules for the `aws` partition): a policy limiting `aws:RequestedRegion` must
    /// allow us-east-1 for `runway spend`.
    #[test]
    fn cost_explorer_is_reached_in_us_east_1_from_any_region() {
        for region in ["eu-central-1", "eu-west-1", "us-east-1", "ap-southeast-2"] {
            let params = Params::builder().region(region).build().unwrap();
            let resolver = DefaultResolver::new();
            let endpoint = ready(resolver.resolve_endpoint(&params));
            assert_eq!(endpoint.url(), "https://ce.us-east-1.amazonaws.com", "{region}");
            // Signed for us-east-1 too (the endpoint's auth scheme).
            let scheme = format!("{:?}", endpoint.properties().get("authSchemes"));
            assert!(scheme.contains("signingRegion") && scheme.contains("us-east-1"), "{scheme}");
        }
    }

    /// The resolver's future, ready at once (no I/O), awaited on a bare runtime.
    fn ready(
        f: aws_sdk_costexplorer::config::endpoint::EndpointFuture<'_>,
    ) -> aws_sdk_costexplorer::config::endpoint::Endpoint {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        rt.block_on(f).unwrap()
    }
}

//! `runway spend --env ENV [--month YYYY-MM]`: the month's bill read back from Cost Explorer
//! (unblended cost, tags `product` and `environment`, grouped by the `resource` tag) beside the
//! plan's estimate of each resource, workload and the environment's shared items; the totals
//! against the cap.
//!
//! The month defaults to the previous one, by the UTC calendar (Cost Explorer's days are UTC);
//! the clock is read here, never in the core. The current month is month to date.
//!
//! Exit codes: 0 within the cap (or no cap), 3 the actual total is over the cap, 1 Cost
//! Explorer has no data for the environment (its cost allocation tags are not active, or Cost
//! Explorer is not enabled), 2 usage (a month in the future), 4 the call failed.

use aws_adapter::aws::{CostByResource, CostError, CostPeriod};
use runtime_plan::{Actuals, Month, Plan};
use runway_schema::Money;

use crate::prelude::*;

/// The month's bill read back from Cost Explorer, per resource and workload beside the
/// plan's estimate, and the total against the cap. Exit 3 when the actual total is over the
/// cap, 1 when Cost Explorer has no data for the environment's tags.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    env: EnvArgs,
    /// The month, `YYYY-MM`; by default the previous month (UTC). The current month is read
    /// month to date.
    #[arg(long, value_parser = month)]
    month: Option<Month>,
    /// `json`: `{"environment","month","rows":[{"name","kind","estimate","actual",
    /// "difference","hint"}],"untagged","total":{"estimate","actual"},"cap","verdict",..}`.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        self.format.json()
    }
}

/// clap's parser of `--month`.
fn month(text: &str) -> Result<Month, String> {
    Month::parse(text).map_err(|e| e.to_string())
}

/// Runs `runway spend`.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    let (month, format) = (args.month, args.format);
    let session = Session::open(&args.env, out)?;
    let plan = &session.plan;
    let this_month = current_month();
    let month = month.unwrap_or_else(|| this_month.previous());
    if month > this_month {
        return Err(out.usage(format!("--month {month} is in the future (this month is {this_month}, UTC)")));
    }
    let period = CostPeriod { start: month.first_day(), end: month.next().first_day() };
    let scope = session.scope();
    let rt = session.runtime()?;
    let aws = rt.block_on(crate::session::aws(plan, out))?;
    let bill = rt.block_on(aws.cost_by_resource(&scope, &period)).map_err(|e| match e {
        CostError::Unavailable { message } => out.fail(EXIT_INVALID, no_data(plan, month, &message)),
        CostError::Remote(e) => out.fail(EXIT_REMOTE, chain(&e)),
    })?;
    if bill.groups.is_empty() {
        return Err(out.fail(EXIT_INVALID, no_data(plan, month, "no cost under these tags")));
    }
    if let Some(unit) = bill.units.iter().find(|u| u.as_str() != "USD") {
        return Err(out.fail(
            EXIT_INVALID,
            format!("Cost Explorer answered in {unit}; the estimate and the cap are in US dollars"),
        ));
    }
    let report = runtime_plan::spend_report(plan, month, &actuals(&bill, month == this_month));
    match format {
        Format::Text => out!("{}", plan_render::render_spend_text(&report)),
        Format::Json => out!("{}", runtime_plan::to_json(&report)),
    }
    if report.over_cap() {
        errln!(
            "over the cap: the {} bill of {} for {month} is ${}, over its cap ${}",
            plan.environment,
            plan.product,
            report.total.actual,
            report.cap.unwrap_or_default()
        );
        return Err(Exit(EXIT_CAP));
    }
    Ok(())
}

/// The bill as the plan's side reads it: amounts per tag value, untagged cost apart.
fn actuals(bill: &CostByResource, partial: bool) -> Actuals {
    let mut a = Actuals { estimated: bill.estimated, partial, ..Actuals::default() };
    for g in &bill.groups {
        match &g.resource {
            Some(name) => a.by_resource.push((name.as_str().into(), Money(g.amount))),
            None => a.untagged = a.untagged + Money(g.amount),
        }
    }
    a
}

/// "No data", leading with the first step: the cost allocation tags.
fn no_data(plan: &Plan, month: Month, why: &str) -> String {
    format!(
        "Cost Explorer has no cost of {product} / {env} for {month} ({why}): activate the cost \
         allocation tags `product`, `environment` and `resource` in the payer account (Billing \
         console, Cost allocation tags; a tag appears there up to 24 hours after a resource first \
         carries it); activation does not backfill: the bill is read by tag from the day they \
         are active. A new account must also enable Cost Explorer once (its data appears within \
         24 hours). docs/pipeline.md, \"The monthly spend job\"",
        product = plan.product,
        env = plan.environment,
    )
}

/// This month by the UTC calendar (the clock is read here, never in the core).
fn current_month() -> Month {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (year, month) = year_month(secs / 86_400);
    Month { year, month }
}

/// The UTC year and month of a day counted from 1970-01-01 (the civil calendar from days, as
/// in Howard Hinnant's `civil_from_days`).
fn year_month(days: u64) -> (u16, u8) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (u16::try_from(year).unwrap_or(u16::MAX), u8::try_from(month).unwrap_or(1))
}

#[cfg(test)]
mod tests {
    use super::year_month;

    #[test]
    fn days_map_to_their_utc_month() {
        assert_eq!(year_month(0), (1970, 1));
        assert_eq!(year_month(30), (1970, 1));
        assert_eq!(year_month(31), (1970, 2));
        // 2000-02-29 (a leap day of a century divisible by 400), then 2000-03-01.
        assert_eq!(year_month(11_016), (2000, 2));
        assert_eq!(year_month(11_017), (2000, 3));
        // 2026-12-31, then 2027-01-01.
        assert_eq!(year_month(20_818), (2026, 12));
        assert_eq!(year_month(20_819), (2027, 1));
    }
}

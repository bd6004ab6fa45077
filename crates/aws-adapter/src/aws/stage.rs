//! Where a release by ECS's native canary, linear or blue/green strategy stands: ECS's service
//! deployment (`DescribeServiceDeployments`, the ARN from `DescribeServices`'
//! `currentServiceDeployment`), told in a few words (`canary 10% baking 4m of 10m`, `shifted`,
//! `rolled back by alarm target-5xx`). A rolling service is never asked: its deployments in
//! `DescribeServices` say everything `rollout` judges.
//!
//! The words are [`ReleaseStage`]'s `Display`, a pure function of what ECS answered and the
//! time of the look, unit-tested below without AWS.

use std::fmt;

use aws_sdk_ecs::types::ServiceDeployment;
use rust_decimal::Decimal;
use serde::Serialize;

use super::{AwsClients, RemoteError};

/// A release by a strategy other than rolling, as ECS's service deployment tells it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseStage {
    /// ECS's strategy: `CANARY`, `LINEAR` or `BLUE_GREEN`.
    pub strategy: String,
    /// The service deployment's `status` (`IN_PROGRESS`, `SUCCESSFUL`, `ROLLBACK_IN_PROGRESS`,
    /// `ROLLBACK_SUCCESSFUL`, ...).
    pub status: Option<String>,
    /// Its `lifecycleStage` (`SCALE_UP`, `PRODUCTION_TRAFFIC_SHIFT`, `BAKE_TIME`, `CLEAN_UP`, ...).
    pub lifecycle_stage: Option<String>,
    /// The share of production traffic ECS asked for the new revision, in percent
    /// (`targetServiceRevision.requestedProductionTrafficWeight`, to a tenth; a decimal string).
    pub production_percent: Option<Decimal>,
    /// Minutes a canary's share (or each linear step) bakes before the next shift.
    pub step_bake_minutes: Option<u32>,
    /// Minutes both fleets run once all traffic has shifted (`bakeTimeInMinutes`).
    pub bake_minutes: Option<u32>,
    /// Whole minutes since ECS last changed the deployment (`updatedAt`): how long the current
    /// step has baked.
    pub minutes_in_stage: Option<u64>,
    /// The deployment alarms that went off, named without the workload's prefix (`target-5xx`).
    pub triggered_alarms: Vec<String>,
    /// The circuit breaker went off (`deploymentCircuitBreaker.status` `TRIGGERED`).
    pub circuit_breaker: bool,
    /// Why ECS rolled it back (`rollback.reason`).
    pub rollback_reason: Option<String>,
}

impl ReleaseStage {
    /// What ECS answered for the deployment, looked at `now` (seconds since the epoch);
    /// `prefix` is taken off the alarms' names (`acme-shop-production-metabase-`).
    pub(crate) fn of(deployment: &ServiceDeployment, prefix: &str, now: i64) -> Self {
        let config = deployment.deployment_configuration();
        let minutes = |m: Option<i32>| m.and_then(|m| u32::try_from(m).ok());
        let strategy = config.and_then(|c| c.strategy()).map_or("ROLLING", |s| s.as_str()).to_owned();
        let step_bake_minutes = config.and_then(|c| match strategy.as_str() {
            "CANARY" => minutes(c.canary_configuration().and_then(|k| k.canary_bake_time_in_minutes())),
            "LINEAR" => minutes(c.linear_configuration().and_then(|l| l.step_bake_time_in_minutes())),
            _ => None,
        });
        let alarms = deployment.alarms();
        let triggered_alarms = alarms
            .map(|a| a.triggered_alarm_names())
            .unwrap_or_default()
            .iter()
            .map(|n| n.strip_prefix(prefix).unwrap_or(n).to_owned())
            .collect();
        let breaker = deployment.deployment_circuit_breaker().and_then(|b| b.status());
        ReleaseStage {
            strategy,
            status: deployment.status().map(|s| s.as_str().to_owned()),
            lifecycle_stage: deployment.lifecycle_stage().map(|s| s.as_str().to_owned()),
            production_percent: deployment
                .target_service_revision()
                .and_then(|t| t.requested_production_traffic_weight())
                .and_then(Decimal::from_f64_retain)
                .map(|p| p.round_dp(1).normalize()),
            step_bake_minutes,
            bake_minutes: minutes(config.and_then(|c| c.bake_time_in_minutes())),
            minutes_in_stage: deployment
                .updated_at()
                .and_then(|t| u64::try_from(now - t.secs()).ok())
                .map(|s| s / 60),
            triggered_alarms,
            circuit_breaker: breaker.is_some_and(|s| s.as_str() == "TRIGGERED"),
            rollback_reason: deployment.rollback().and_then(|r| r.reason()).map(str::to_owned),
        }
    }

    /// ECS is rolling the release back or has (`ROLLBACK_*`).
    pub fn rolling_back(&self) -> bool {
        self.status.as_deref().is_some_and(|s| s.starts_with("ROLLBACK"))
    }

    /// Why it was rolled back, in words: `by alarm target-5xx`, `by the circuit breaker`, or
    /// ECS's reason.
    fn rollback_cause(&self) -> String {
        if !self.triggered_alarms.is_empty() {
            let s = if self.triggered_alarms.len() == 1 { "" } else { "s" };
            return format!("by alarm{s} {}", self.triggered_alarms.join(", "));
        }
        if self.circuit_breaker {
            return "by the circuit breaker".to_owned();
        }
        self.rollback_reason.as_ref().map_or_else(String::new, |r| format!("({r})"))
    }

    /// `baking 4m of 10m` (or `baking 4m` when the length is unknown).
    fn baking(&self, of: Option<u32>) -> String {
        let so_far = self.minutes_in_stage.map_or_else(|| "?".to_owned(), |m| format!("{m}m"));
        match of {
            Some(of) => format!("baking {so_far} of {of}m"),
            None => format!("baking {so_far}"),
        }
    }
}

/// A percentage as people write it: `10%`, `2.5%`.
fn percent(p: Decimal) -> String {
    format!("{}%", p.normalize())
}

/// The stage in a few words: `canary 10% baking 4m of 10m`, `shifted, baking 2m of 10m`,
/// `shifted`, `rolled back by alarm target-5xx`.
impl fmt::Display for ReleaseStage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cause = self.rollback_cause();
        let cause = if cause.is_empty() { String::new() } else { format!(" {cause}") };
        match self.status.as_deref() {
            Some("ROLLBACK_SUCCESSFUL") => return write!(f, "rolled back{cause}"),
            Some("ROLLBACK_FAILED") => return write!(f, "rollback failed{cause}"),
            Some(s) if s.starts_with("ROLLBACK") => return write!(f, "rolling back{cause}"),
            Some("SUCCESSFUL") => return f.write_str("shifted"),
            Some("STOPPED" | "STOP_REQUESTED") => return f.write_str("stopped"),
            _ => {}
        }
        let strategy = match self.strategy.as_str() {
            "CANARY" => "canary",
            "LINEAR" => "linear",
            "BLUE_GREEN" => "blue/green",
            other => other,
        };
        match self.lifecycle_stage.as_deref() {
            Some("PRODUCTION_TRAFFIC_SHIFT") => match self.production_percent {
                Some(p) if p < Decimal::ONE_HUNDRED && self.step_bake_minutes.is_some() => {
                    write!(f, "{strategy} {} {}", percent(p), self.baking(self.step_bake_minutes))
                }
                Some(p) => write!(f, "{strategy} shifting production traffic ({})", percent(p)),
                None => write!(f, "{strategy} shifting production traffic"),
            },
            Some("POST_PRODUCTION_TRAFFIC_SHIFT") => f.write_str("shifted"),
            Some("BAKE_TIME") => write!(f, "shifted, {}", self.baking(self.bake_minutes)),
            Some("CLEAN_UP") => f.write_str("shifted, stopping the old tasks"),
            Some("PRE_SCALE_UP" | "SCALE_UP" | "POST_SCALE_UP") => {
                write!(f, "{strategy} starting the new tasks")
            }
            Some("TEST_TRAFFIC_SHIFT" | "POST_TEST_TRAFFIC_SHIFT") => write!(f, "{strategy} test traffic"),
            Some("RECONCILE_SERVICE") => write!(f, "{strategy} reconciling the service"),
            Some(other) => write!(f, "{strategy} {other}"),
            None => write!(f, "{strategy} pending"),
        }
    }
}

/// `DescribeServiceDeployments` takes up to 20 ARNs a call.
const DEPLOYMENTS_PER_DESCRIBE: usize = 20;

impl AwsClients {
    /// The service deployments of `arns` as ECS describes them (those it no longer knows are
    /// left out), in any order.
    pub(crate) async fn service_deployments(
        &self,
        arns: &[String],
    ) -> Result<Vec<ServiceDeployment>, RemoteError> {
        let mut found = Vec::new();
        for chunk in arns.chunks(DEPLOYMENTS_PER_DESCRIBE) {
            let out = self
                .ecs
                .describe_service_deployments()
                .set_service_deployment_arns(Some(chunk.to_vec()))
                .send()
                .await
                .map_err(|e| RemoteError::from_sdk("DescribeServiceDeployments", e))?;
            found.extend(out.service_deployments().iter().cloned());
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use aws_sdk_ecs::primitives::DateTime;
    use aws_sdk_ecs::types::{
        CanaryConfiguration, DeploymentConfiguration, DeploymentStrategy, Rollback, ServiceDeployment,
        ServiceDeploymentAlarms, ServiceDeploymentLifecycleStage, ServiceDeploymentStatus,
        ServiceRevisionSummary,
    };
    use rust_decimal::Decimal;

    use super::ReleaseStage;

    const NOW: i64 = 1_800_000_000;

    fn canary(status: &str, stage: Option<&str>, weight: f64, updated_ago: i64) -> ServiceDeployment {
        let config = DeploymentConfiguration::builder()
            .strategy(DeploymentStrategy::Canary)
            .bake_time_in_minutes(10)
            .canary_configuration(
                CanaryConfiguration::builder().canary_percent(10.0).canary_bake_time_in_minutes(10).build(),
            )
            .build();
        let mut d = ServiceDeployment::builder()
            .status(ServiceDeploymentStatus::from(status))
            .deployment_configuration(config)
            .target_service_revision(
                ServiceRevisionSummary::builder().requested_production_traffic_weight(weight).build(),
            )
            .updated_at(DateTime::from_secs(NOW - updated_ago));
        if let Some(stage) = stage {
            d = d.lifecycle_stage(ServiceDeploymentLifecycleStage::from(stage));
        }
        d.build()
    }

    fn said(d: &ServiceDeployment) -> String {
        ReleaseStage::of(d, "acme-shop-production-metabase-", NOW).to_string()
    }

    #[test]
    fn a_canary_is_told_stage_by_stage() {
        let at = |stage: &str, weight: f64, ago: i64| said(&canary("IN_PROGRESS", Some(stage), weight, ago));
        assert_eq!(at("SCALE_UP", 0.0, 30), "canary starting the new tasks");
        assert_eq!(at("PRODUCTION_TRAFFIC_SHIFT", 10.0, 250), "canary 10% baking 4m of 10m");
        assert_eq!(at("PRODUCTION_TRAFFIC_SHIFT", 100.0, 10), "canary shifting production traffic (100%)");
        assert_eq!(at("POST_PRODUCTION_TRAFFIC_SHIFT", 100.0, 10), "shifted");
        assert_eq!(at("BAKE_TIME", 100.0, 130), "shifted, baking 2m of 10m");
        assert_eq!(at("CLEAN_UP", 100.0, 5), "shifted, stopping the old tasks");
        assert_eq!(said(&canary("SUCCESSFUL", None, 100.0, 5)), "shifted");
        assert_eq!(said(&canary("PENDING", None, 0.0, 5)), "canary pending");
    }

    #[test]
    fn a_rollback_names_the_alarm_without_the_prefix() {
        let mut d = canary("ROLLBACK_SUCCESSFUL", Some("PRODUCTION_TRAFFIC_SHIFT"), 10.0, 5);
        d.alarms = Some(
            ServiceDeploymentAlarms::builder()
                .alarm_names("acme-shop-production-metabase-target-5xx")
                .triggered_alarm_names("acme-shop-production-metabase-target-5xx")
                .build(),
        );
        d.rollback = Some(Rollback::builder().reason("alarm in ALARM state").build());
        let stage = ReleaseStage::of(&d, "acme-shop-production-metabase-", NOW);
        assert!(stage.rolling_back());
        assert_eq!(stage.triggered_alarms, ["target-5xx"]);
        assert_eq!(stage.to_string(), "rolled back by alarm target-5xx");
        d.status = Some(ServiceDeploymentStatus::RollbackInProgress);
        assert_eq!(said(&d), "rolling back by alarm target-5xx");
        // No alarm: ECS's reason.
        d.alarms = None;
        assert_eq!(said(&d), "rolling back (alarm in ALARM state)");
    }

    #[test]
    fn percentages_read_as_written() {
        let of = |w: f64| {
            let d = canary("IN_PROGRESS", Some("PRODUCTION_TRAFFIC_SHIFT"), w, 0);
            ReleaseStage::of(&d, "", NOW).production_percent.unwrap()
        };
        assert_eq!(super::percent(of(10.0)), "10%");
        assert_eq!(super::percent(of(2.5)), "2.5%");
        assert_eq!(super::percent(of(33.333)), "33.3%");
        assert_eq!(of(10.0), Decimal::TEN);
    }
}

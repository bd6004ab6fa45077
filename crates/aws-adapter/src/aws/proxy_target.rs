//! Whether an RDS Proxy can reach its database yet (`DescribeDBProxyTargets`): a one-off task
//! that connects through a proxy (a postgres bootstrap) is started only once a target of the
//! proxy is `AVAILABLE`. Right after the first `pulumi up` the proxy's target is `REGISTERING`
//! for minutes; a connection then is refused, and the bootstrap would fail for nothing.
//!
//! [`readiness`] is the pure verdict on what the call answered, unit-tested below; the wait
//! itself is the task runner's (`task.rs`), within its timeout.

use aws_sdk_rds::types::{DbProxyTarget, TargetRole, TargetType};

use super::{AwsClients, RemoteError};

/// One target as `DescribeDBProxyTargets` tells it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct TargetLook {
    /// The RDS instance or cluster (`RdsResourceId`).
    pub(crate) resource: String,
    /// `RDS_INSTANCE`, `TRACKED_CLUSTER` (an Aurora cluster, which has no health of its own)
    /// or `RDS_SERVERLESS_ENDPOINT`.
    pub(crate) kind: String,
    /// `READ_WRITE`, `READ_ONLY` or `UNKNOWN` (absent for an instance).
    pub(crate) role: Option<String>,
    /// `TargetHealth.State`: `REGISTERING`, `AVAILABLE`, `UNAVAILABLE`, `UNUSED`.
    pub(crate) state: Option<String>,
    /// `TargetHealth.Reason` and `Description` when it is not available
    /// (`AUTH_FAILURE: ...`).
    pub(crate) reason: Option<String>,
}

impl TargetLook {
    fn of(t: &DbProxyTarget) -> TargetLook {
        let health = t.target_health();
        let reason = health.and_then(|h| {
            let words: Vec<&str> =
                [h.reason().map(|r| r.as_str()), h.description()].into_iter().flatten().collect();
            (!words.is_empty()).then(|| super::one_line(&words.join(": ")))
        });
        TargetLook {
            resource: t.rds_resource_id().unwrap_or("?").to_owned(),
            kind: t.r#type().map_or("", TargetType::as_str).to_owned(),
            role: t.role().map(|r| r.as_str().to_owned()),
            state: health.and_then(|h| h.state()).map(|s| s.as_str().to_owned()),
            reason,
        }
    }
}

/// Whether the proxy takes connections to its writer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Readiness {
    /// A target that takes writes is `AVAILABLE`.
    Available,
    /// Not yet: what the targets are now (`main-db REGISTERING`, or none registered).
    Waiting(String),
}

/// The verdict on the proxy's targets: available when an instance target that is not a
/// read-only replica (an RDS instance, Aurora's writer) is `AVAILABLE`; an Aurora cluster's own
/// `TRACKED_CLUSTER` entry has no health and is not looked at.
pub(crate) fn readiness(targets: &[TargetLook]) -> Readiness {
    let instances: Vec<&TargetLook> =
        targets.iter().filter(|t| t.kind != TargetType::TrackedCluster.as_str()).collect();
    let writer = |t: &TargetLook| t.role.as_deref() != Some(TargetRole::ReadOnly.as_str());
    if instances.iter().any(|t| writer(t) && t.state.as_deref() == Some("AVAILABLE")) {
        return Readiness::Available;
    }
    if instances.is_empty() {
        return Readiness::Waiting("no target registered yet".to_owned());
    }
    let states: Vec<String> = instances
        .iter()
        .map(|t| {
            let state = t.state.as_deref().unwrap_or("no health yet");
            match &t.reason {
                Some(reason) => format!("{} {state} ({reason})", t.resource),
                None => format!("{} {state}", t.resource),
            }
        })
        .collect();
    Readiness::Waiting(states.join(", "))
}

impl AwsClients {
    /// The targets of proxy `proxy`'s default target group (the caller says what it was doing).
    pub(crate) async fn proxy_targets(&self, proxy: &str) -> Result<Vec<TargetLook>, RemoteError> {
        let mut looks = Vec::new();
        let mut marker: Option<String> = None;
        loop {
            let out = self
                .rds
                .describe_db_proxy_targets()
                .db_proxy_name(proxy)
                .set_marker(marker.take())
                .send()
                .await
                .map_err(|e| RemoteError::from_sdk("DescribeDBProxyTargets", e))?;
            looks.extend(out.targets().iter().map(TargetLook::of));
            match out.marker() {
                Some(next) if !next.is_empty() => marker = Some(next.to_owned()),
                _ => return Ok(looks),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(resource: &str, kind: &str, role: Option<&str>, state: Option<&str>) -> TargetLook {
        TargetLook {
            resource: resource.into(),
            kind: kind.into(),
            role: role.map(str::to_owned),
            state: state.map(str::to_owned),
            reason: None,
        }
    }

    #[test]
    fn an_available_writer_is_ready_and_anything_else_says_what_it_is() {
        assert_eq!(readiness(&[]), Readiness::Waiting("no target registered yet".into()));
        let registering = target("db", "RDS_INSTANCE", None, Some("REGISTERING"));
        assert_eq!(readiness(&[registering]), Readiness::Waiting("db REGISTERING".into()));
        let available = target("db", "RDS_INSTANCE", None, Some("AVAILABLE"));
        assert_eq!(readiness(&[available]), Readiness::Available);
        let mut refused = target("db", "RDS_INSTANCE", None, Some("UNAVAILABLE"));
        refused.reason = Some("AUTH_FAILURE: the secret's password is wrong".into());
        assert_eq!(
            readiness(&[refused]),
            Readiness::Waiting("db UNAVAILABLE (AUTH_FAILURE: the secret's password is wrong)".into())
        );
        // Aurora: the cluster's entry has no health; a reader alone does not take writes.
        let cluster = target("c", "TRACKED_CLUSTER", None, None);
        let reader = target("c-r", "RDS_INSTANCE", Some("READ_ONLY"), Some("AVAILABLE"));
        let writer = target("c-w", "RDS_INSTANCE", Some("READ_WRITE"), Some("REGISTERING"));
        let waiting = readiness(&[cluster.clone(), reader.clone(), writer]);
        assert_eq!(waiting, Readiness::Waiting("c-r AVAILABLE, c-w REGISTERING".into()));
        let writer = target("c-w", "RDS_INSTANCE", Some("READ_WRITE"), Some("AVAILABLE"));
        assert_eq!(readiness(&[cluster, reader, writer]), Readiness::Available);
    }
}

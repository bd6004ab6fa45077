//! What `runway ssm publish` needs to tell whether a service's running tasks read a parameter's
//! current value: when each parameter was last written, and when the service's current
//! deployment was created. Metadata only: no value is read.

use std::time::SystemTime;

use super::{AwsClients, RemoteError};

impl AwsClients {
    /// When each parameter of `names` that exists was last written (`LastModifiedDate` of
    /// DescribeParameters, never decrypting), as `(name, time)` in no particular order.
    pub async fn parameters_modified(
        &self,
        names: &[&str],
    ) -> Result<Vec<(String, SystemTime)>, RemoteError> {
        let mut out = Vec::with_capacity(names.len());
        for chunk in names.chunks(super::ssm::NAMES_PER_DESCRIBE) {
            for m in self.describe(chunk).await? {
                let (Some(name), Some(at)) = (m.name(), m.last_modified_date()) else { continue };
                // A date SystemTime cannot hold (before 1970) counts as long ago.
                let at = SystemTime::try_from(*at).unwrap_or(SystemTime::UNIX_EPOCH);
                out.push((name.to_owned(), at));
            }
        }
        Ok(out)
    }

    /// When the current deployment of ECS service `service` of `cluster` was created: the
    /// `PRIMARY` one, whose tasks all started after it (and read their `secrets` when they
    /// started). `None` when the cluster or the service does not exist or is not active, or it
    /// has no primary deployment: no task of it runs.
    pub async fn primary_deployment_created(
        &self,
        cluster: &str,
        service: &str,
    ) -> Result<Option<SystemTime>, RemoteError> {
        let sent = self.ecs.describe_services().cluster(cluster).services(service).send().await;
        let described = match sent {
            Ok(out) => out,
            Err(e) if e.as_service_error().is_some_and(|s| s.is_cluster_not_found_exception()) => {
                return Ok(None);
            }
            Err(e) => return Err(RemoteError::from_sdk("DescribeServices", e)),
        };
        let Some(found) = described
            .services()
            .iter()
            .find(|s| s.service_name() == Some(service) && s.status() == Some("ACTIVE"))
        else {
            return Ok(None);
        };
        let primary = found.deployments().iter().find(|d| d.status() == Some("PRIMARY"));
        let created = primary.and_then(|d| d.created_at());
        Ok(created.map(|at| SystemTime::try_from(*at).unwrap_or(SystemTime::UNIX_EPOCH)))
    }
}

//! `runway teardown`'s AWS calls besides `pulumi destroy`, each safe to repeat (what is gone
//! already is reported as such): a protected database's deletion protection turned off before
//! the destroy (its deletion then takes its final snapshot), the Secrets Manager copies `secrets
//! prepare` made deleted, the environment's KMS key scheduled for deletion (its alias removed,
//! so that a later `secrets prepare` makes a new key), and the SSM parameters under its prefix
//! deleted, last. What to delete comes from the plan; nothing here decides.

use aws_sdk_kms::types::KeyState;

use super::{AwsClients, RemoteError};

impl AwsClients {
    /// Turns off the deletion protection of the DB instance (or, `cluster`, the Aurora
    /// cluster) `identifier`; `false` when it does not exist.
    pub async fn disable_deletion_protection(
        &self,
        identifier: &str,
        cluster: bool,
    ) -> Result<bool, RemoteError> {
        if cluster {
            let sent = self
                .rds
                .modify_db_cluster()
                .db_cluster_identifier(identifier)
                .deletion_protection(false)
                .apply_immediately(true)
                .send()
                .await;
            return match sent {
                Ok(_) => Ok(true),
                Err(e) if e.as_service_error().is_some_and(|s| s.is_db_cluster_not_found_fault()) => {
                    Ok(false)
                }
                Err(e) => Err(RemoteError::from_sdk("ModifyDBCluster", e)),
            };
        }
        let sent = self
            .rds
            .modify_db_instance()
            .db_instance_identifier(identifier)
            .deletion_protection(false)
            .apply_immediately(true)
            .send()
            .await;
        match sent {
            Ok(_) => Ok(true),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_db_instance_not_found_fault()) => Ok(false),
            Err(e) => Err(RemoteError::from_sdk("ModifyDBInstance", e)),
        }
    }

    /// Deletes the Secrets Manager secret `name` at once (no recovery window: the values live
    /// in Infisical); `false` when it does not exist.
    pub async fn delete_secret_now(&self, name: &str) -> Result<bool, RemoteError> {
        let sent =
            self.secrets.delete_secret().secret_id(name).force_delete_without_recovery(true).send().await;
        match sent {
            Ok(_) => Ok(true),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_resource_not_found_exception()) => Ok(false),
            Err(e) => Err(RemoteError::from_sdk("DeleteSecret", e)),
        }
    }

    /// Schedules the key behind `alias` for deletion after `days` (7 to 30) and deletes the
    /// alias; the key's id, or `None` when the alias names no key (already done).
    pub async fn schedule_key_deletion(&self, alias: &str, days: u32) -> Result<Option<String>, RemoteError> {
        let described = self.kms.describe_key().key_id(alias).send().await;
        let key = match described {
            Ok(d) => d.key_metadata().map(|m| (m.key_id().to_owned(), m.key_state().cloned())),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_not_found_exception()) => None,
            Err(e) => return Err(RemoteError::from_sdk("DescribeKey", e)),
        };
        let Some((id, state)) = key else { return Ok(None) };
        if state != Some(KeyState::PendingDeletion) {
            let days = i32::try_from(days.clamp(7, 30)).unwrap_or(7);
            self.kms
                .schedule_key_deletion()
                .key_id(&id)
                .pending_window_in_days(days)
                .send()
                .await
                .map_err(|e| RemoteError::from_sdk("ScheduleKeyDeletion", e))?;
        }
        match self.kms.delete_alias().alias_name(alias).send().await {
            Ok(_) => Ok(Some(id)),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_not_found_exception()) => Ok(Some(id)),
            Err(e) => Err(RemoteError::from_sdk("DeleteAlias", e)),
        }
    }

    /// Deletes every SSM parameter under `prefix` (ten per call); the names deleted.
    pub async fn delete_parameters_under(&self, prefix: &str) -> Result<Vec<String>, RemoteError> {
        let names: Vec<String> = self.parameters_under(prefix).await?.into_iter().map(|p| p.name).collect();
        for chunk in names.chunks(10) {
            self.ssm
                .delete_parameters()
                .set_names(Some(chunk.to_vec()))
                .send()
                .await
                .map_err(|e| RemoteError::from_sdk("DeleteParameters", e))?;
        }
        Ok(names)
    }
}

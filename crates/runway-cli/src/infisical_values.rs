//! Values for an SSM publish (`secrets prepare`, `ssm publish`, `runway rotate`), read from
//! Infisical at the places the plan gives.

use std::collections::HashMap;

use aws_adapter::aws::{SourceError, ValueSource};
use runtime_plan::InfisicalPlace;
use secrets_adapter::{Client, SecretString};

/// Values read from Infisical with references expanded (as Infisical's own sync would deliver
/// them). The value is read with `viewSecretValue=true` here only and goes straight to the AWS
/// adapter.
pub(crate) struct InfisicalValues<'a> {
    pub(crate) client: &'a Client,
    pub(crate) project: &'a str,
    /// `(resource, variable)` -> its place in Infisical; a postgres login's own variable is
    /// asked as `<consumer>/<VAR>` ([`runtime_plan::SsmParameter::source_key`]).
    pub(crate) places: HashMap<(String, String), &'a InfisicalPlace>,
}

impl ValueSource for InfisicalValues<'_> {
    fn value(
        &self,
        resource: &str,
        variable: &str,
    ) -> impl Future<Output = Result<Option<SecretString>, SourceError>> + Send {
        let place = self.places.get(&(resource.to_owned(), variable.to_owned())).copied();
        async move {
            let Some(place) = place else { return Ok(None) };
            self.client
                .read_expanded_value(self.project, &place.environment, &place.folder, &place.name)
                .await
                .map_err(|e| -> SourceError { Box::new(e) })
        }
    }
}

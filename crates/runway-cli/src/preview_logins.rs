//! A preview's logins on the RDS proxies it shares with its `from` environment
//! (docs/previews.md, "The shared proxy's logins"): registered by the deploy job of `runway
//! preview up` (`runway deploy --env pr-<n>`) right after `secrets prepare` wrote their
//! secrets and before `migrate` runs the bootstrap, and taken out first by `down`. Which proxies
//! and secrets is the plan's (`runtime_plan::shared_proxy_logins`); the calls are the
//! adapter's, each a no-op when the proxy already lists what is wanted.

use aws_adapter::aws::{AwsClients, ProxyAuthChange};
use runtime_plan::Plan;

use crate::prelude::*;

/// Adds the preview's login secrets to each shared proxy's `auth` (every other entry kept);
/// says what each proxy got. Nothing for a declared environment's plan.
pub(crate) async fn register(aws: &AwsClients, plan: &Plan, out: Out) -> Result<Vec<ProxyAuthChange>, Exit> {
    let mut changes = Vec::new();
    for shared in runtime_plan::shared_proxy_logins(plan).into_iter().filter(|s| !s.secrets.is_empty()) {
        let secrets: Vec<String> = shared.secrets.iter().map(ToString::to_string).collect();
        let change = aws.register_proxy_logins(&shared.proxy, &secrets).await.map_err(|e| {
            out.remote(format!(
                "registering {}'s logins with the shared proxy {}: {}",
                plan.environment,
                shared.proxy,
                chain(&e)
            ))
        })?;
        let line = match change.outcome {
            "registered" => format!(
                "registered {} login secret(s) of {} with the shared proxy {} ({} listed)",
                change.secrets.len(),
                plan.environment,
                change.proxy,
                change.entries
            ),
            _ => format!("the shared proxy {} lists {}'s logins already", change.proxy, plan.environment),
        };
        out.progress(&line);
        changes.push(change);
    }
    Ok(changes)
}

/// Takes the preview's login secrets (every one named as its, a consumer's that left since
/// included) out of each shared proxy's `auth`, every other entry kept.
pub(crate) async fn deregister(
    aws: &AwsClients,
    plan: &Plan,
    out: Out,
) -> Result<Vec<ProxyAuthChange>, Exit> {
    let mut changes = Vec::new();
    for shared in runtime_plan::shared_proxy_logins(plan) {
        let change = aws.deregister_proxy_logins(&shared.proxy, &shared.prefix).await.map_err(|e| {
            out.remote(format!(
                "taking {}'s logins off the shared proxy {}: {}",
                plan.environment,
                shared.proxy,
                chain(&e)
            ))
        })?;
        changes.push(change);
    }
    Ok(changes)
}

//! Reaching AWS for a plan's environment: the clients, and, when the environment pins its
//! account (`account`), the caller's account checked first (`aws-adapter`'s
//! `connect_pinned`). Every command that calls AWS connects here.

use std::sync::OnceLock;

use aws_adapter::aws::{AccountError, AwsClients, ClientSettings};
use runtime_plan::Plan;

use crate::output::{EXIT_REMOTE, EXIT_USAGE, Exit, Out};

/// The account already found to be the caller's in this process: a command connects more than
/// once (one client set per step), STS is asked once.
static CHECKED: OnceLock<String> = OnceLock::new();

/// The AWS clients of `plan`'s region. With a pinned account, the first connection of the
/// process asks STS whose credentials these are: another account is refused with exit 2
/// naming both, an unanswered question with exit 4.
pub(crate) async fn connect(plan: &Plan, out: Out) -> Result<AwsClients, Exit> {
    let settings = ClientSettings::new(plan.region.clone());
    let account = plan.account.as_deref().filter(|a| CHECKED.get().is_none_or(|c| c != a));
    let aws = AwsClients::connect_pinned(&settings, account).await.map_err(|e| {
        let code = match &e {
            AccountError::Mismatch { .. } => EXIT_USAGE,
            AccountError::Unknown(_) => EXIT_REMOTE,
        };
        out.fail(code, format!("{}\n  help: {}", crate::output::chain(&e), e.help()))
    })?;
    if let Some(account) = account {
        // Another thread may have set it first: to the same account.
        let _ = CHECKED.set(account.to_owned());
    }
    Ok(aws)
}

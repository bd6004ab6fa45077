//! `runway iam`: the deploy role's policies and trust, derived from one environment's plan.

use clap::ValueEnum;
use deploy_policy::{ACCOUNT_PLACEHOLDER, GithubTarget, Options};

use crate::args::PlanArgs;
use crate::output::{Exit, Out};
use crate::planning::{catalogue_for, plan_env};

/// How the role is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum IamFormat {
    /// The trust policy and the policy documents as JSON.
    Json,
    /// A Pulumi YAML snippet declaring the role and its policies.
    Pulumi,
}

/// `--account`: twelve digits.
pub(crate) fn account(text: &str) -> Result<String, String> {
    if text.len() == 12 && text.bytes().all(|b| b.is_ascii_digit()) {
        Ok(text.to_owned())
    } else {
        Err(format!("`{text}` is not an AWS account id (twelve digits)"))
    }
}

/// `--github-repo`: `owner/name`.
pub(crate) fn repository(text: &str) -> Result<String, String> {
    let ok = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    match text.split_once('/') {
        Some((owner, name)) if ok(owner) && ok(name) => Ok(text.to_owned()),
        _ => Err(format!("`{text}` is not a GitHub repository (`owner/name`)")),
    }
}

/// Plans `env` and prints its deploy role. A plan over its cap still has a role: the policy
/// does not depend on the verdict.
pub(crate) fn run(
    env: &str,
    account: Option<String>,
    github: Option<(String, String)>,
    format: IamFormat,
    args: &PlanArgs,
    out: Out,
) -> Result<(), Exit> {
    let cat = catalogue_for(&args.file, args.catalogue.as_deref(), out)?;
    let plan = plan_env(&args.file, env, &cat, out)?;
    let options = Options {
        account: account.unwrap_or_else(|| ACCOUNT_PLACEHOLDER.to_owned()),
        github: github.map(|(repository, environment)| GithubTarget { repository, environment }),
    };
    let role = deploy_policy::derive(&plan, &options).map_err(|e| out.usage(e.to_string()))?;
    for ty in &role.uncovered_types {
        errln!("warning: runway iam grants nothing for the program's `{ty}` yet");
    }
    if role.trust_policy.is_none() {
        errln!("note: no trust policy without --github-repo OWNER/NAME");
    }
    match format {
        IamFormat::Json => outln!("{}", runtime_plan::to_json(&role)),
        IamFormat::Pulumi => out!("{}", deploy_policy::render_pulumi(&role)),
    }
    Ok(())
}

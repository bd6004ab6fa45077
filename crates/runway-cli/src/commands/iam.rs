//! `runway iam`: the deploy role's and the operator role's policies and trusts, derived from one
//! environment's plan.

use clap::ValueEnum;
use deploy_policy::{ACCOUNT_PLACEHOLDER, GithubTarget, Options};

use crate::prelude::*;

/// The deploy role of one environment: its IAM policy (what `pulumi up` and runway's own
/// commands call, scoped to the plan's names) and its GitHub OIDC trust policy; and its
/// operator role, for `runway restore` and `runway teardown`, trusted by the GitHub environment
/// `<environment>-operations` (docs/iam.md).
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    env: EnvArgs,
    /// The AWS account id (default: the `${aws-account-id}` placeholder).
    #[arg(long, value_name = "ID", value_parser = account)]
    account: Option<String>,
    /// The GitHub repository (`owner/name`) whose deploy job may assume the role.
    #[arg(long, value_name = "OWNER/NAME", value_parser = repository)]
    github_repo: Option<String>,
    /// The GitHub environment of that job (default: `--env`); the operator role trusts
    /// `<it>-operations`.
    #[arg(long, value_name = "NAME")]
    github_environment: Option<String>,
    /// `json`: `{"environment","account","roleName","trustPolicy","policies":[{"name",
    /// "characters","document"}],"uncoveredTypes","operatorRole":{the same fields}}`; `pulumi`:
    /// a Pulumi YAML snippet declaring both roles and their policies.
    #[arg(long, value_enum, default_value = "json")]
    format: IamFormat,
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        self.format == IamFormat::Json
    }
}

/// How the role is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum IamFormat {
    /// The trust policy and the policy documents as JSON.
    Json,
    /// A Pulumi YAML snippet declaring the role and its policies.
    Pulumi,
}

/// `--account`: twelve digits.
fn account(text: &str) -> Result<String, String> {
    if text.len() == 12 && text.bytes().all(|b| b.is_ascii_digit()) {
        Ok(text.to_owned())
    } else {
        Err(format!("`{text}` is not an AWS account id (twelve digits)"))
    }
}

/// `--github-repo`: `owner/name`.
fn repository(text: &str) -> Result<String, String> {
    let ok = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    match text.split_once('/') {
        Some((owner, name)) if ok(owner) && ok(name) => Ok(text.to_owned()),
        _ => Err(format!("`{text}` is not a GitHub repository (`owner/name`)")),
    }
}

/// The deploy role with the operator role beside it, as `runway iam` prints them.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Roles<'a> {
    #[serde(flatten)]
    deploy: &'a deploy_policy::DeployRole,
    operator_role: &'a deploy_policy::DeployRole,
}

/// Plans `env` and prints its deploy role and operator role. A plan over its cap still has
/// roles: the policies do not depend on the verdict.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    let session = Session::open(&args.env, out)?;
    let plan = session.plan;
    // The environment previews come from: its role also runs `runway preview up` on the
    // previews' own names (planned for one of them, its names made every preview's pattern).
    let preview = match &session.product.root.previews {
        Some(p) if p.from == args.env.env => {
            let catalogue =
                crate::planning::catalogue_for(&args.env.root.file, args.env.root.catalogue.as_deref(), out)?;
            let plan =
                runtime_plan::preview_plan(&session.product, 1, &catalogue).map_err(|e| out.usage(e))?;
            Some(plan)
        }
        _ => None,
    };
    let (account, format) = (args.account, args.format);
    let github = args.github_repo.zip(args.github_environment.or(Some(args.env.env)));
    let options = Options {
        account: account.unwrap_or_else(|| ACCOUNT_PLACEHOLDER.to_owned()),
        github: github.map(|(repository, environment)| GithubTarget { repository, environment }),
    };
    let role = deploy_policy::derive_with_previews(&plan, preview.as_ref(), &options)
        .map_err(|e| out.usage(e.to_string()))?;
    let operator = deploy_policy::derive_operator(&plan, &options).map_err(|e| out.usage(e.to_string()))?;
    for ty in &role.uncovered_types {
        errln!("warning: runway iam grants nothing for the program's `{ty}` yet");
    }
    if role.trust_policy.is_none() {
        errln!("note: no trust policy without --github-repo OWNER/NAME");
    }
    match format {
        IamFormat::Json => {
            outln!("{}", runtime_plan::to_json(&Roles { deploy: &role, operator_role: &operator }))
        }
        IamFormat::Pulumi => out!("{}", deploy_policy::render_pulumi_roles(&[&role, &operator])),
    }
    Ok(())
}

//! The deploy role's IAM policy, derived from a plan: every action `pulumi up` needs for the
//! resource types the plan's program declares, and every AWS call runway's own commands make
//! (`secrets prepare`, `migrate`, `rollout`, `rotate`, `ssm publish`/`verify`, `secrets
//! publish`, `spend`), each scoped to the plan's names, ARNs and tags where AWS allows; plus
//! the trust policy that lets one GitHub repository's environment assume the role (OIDC). Beside
//! it, the operator role (`runway-operate-<product>-<env>`): the deploy role's grants without its
//! denials, plus what only `runway restore` and `runway teardown` do (restore, delete a
//! database, the key's alias, the parameters), trusted by the `<env>-operations` GitHub
//! environment alone.
//!
//! Pure: plain data in, plain data out (docs/iam.md says what is granted and why).

mod document;
mod matcher;
mod operator;
mod preview_names;
mod program;
mod pulumi;
mod runway;
mod scope;
mod shared;
mod trust;

pub use document::{Condition, PolicyDocument, Statement};
pub use matcher::{Request, allows};
pub use operator::{OPERATIONS_SUFFIX, OPERATOR_ACTIONS};
pub use program::KNOWN_TYPES;
pub use pulumi::{render_pulumi, render_pulumi_roles};
pub use runway::RUNWAY_ACTIONS;
pub use trust::{GithubTarget, github_trust};

use runtime_plan::Plan;

/// IAM's limit on a managed policy's document, in characters without whitespace (IAM User
/// Guide, "IAM and AWS STS quotas").
pub const MANAGED_POLICY_LIMIT: usize = 6_144;

/// The account id when none is given: Pulumi YAML's interpolation of the program's own
/// `aws-account-id` variable, so the `pulumi` format resolves it; JSON users replace it.
pub const ACCOUNT_PLACEHOLDER: &str = "${aws-account-id}";

/// What the derivation needs besides the plan.
#[derive(Debug, Clone)]
pub struct Options {
    /// The AWS account id, or [`ACCOUNT_PLACEHOLDER`].
    pub account: String,
    /// The GitHub repository and environment that may assume the role, when known.
    pub github: Option<GithubTarget>,
}

/// A role of one environment (the deploy role, or the operator role): its name, its trust
/// policy and its permissions, split into managed policies each under [`MANAGED_POLICY_LIMIT`].
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeployRole {
    /// The environment.
    pub environment: String,
    /// The account, or the placeholder.
    pub account: String,
    /// `runway-deploy-<product>-<env>` (or `runway-operate-<product>-<env>`): outside the
    /// `<product>-<env>*` names the roles manage, so neither can rewrite its own trust or
    /// policies.
    pub role_name: String,
    /// The GitHub OIDC trust policy (none without `--github-repo`).
    pub trust_policy: Option<PolicyDocument>,
    /// The permissions, one document per managed policy.
    pub policies: Vec<NamedPolicy>,
    /// The Pulumi resource types of the program no statement covers (empty unless the program
    /// grew a type this crate does not know yet).
    pub uncovered_types: Vec<String>,
}

/// One managed policy of the role.
#[derive(Debug, Clone, serde::Serialize)]
pub struct NamedPolicy {
    /// `<role name>-<n>`.
    pub name: String,
    /// Its length in characters without whitespace, as IAM counts it.
    pub characters: usize,
    /// The document.
    pub document: PolicyDocument,
}

/// Why no policy could be derived.
#[derive(Debug, thiserror::Error)]
pub enum DeriveError {
    /// The plan's program could not be rendered, so its resource types are unknown.
    #[error("the plan's program cannot be rendered: {0}")]
    Program(String),
}

/// The deploy role of `plan`'s environment: what `pulumi up` and runway's deploy-side commands
/// call, and the denials of what only the operator role may do.
///
/// # Errors
/// [`DeriveError::Program`] when the plan's Pulumi program cannot be rendered.
pub fn derive(plan: &Plan, options: &Options) -> Result<DeployRole, DeriveError> {
    derive_with_previews(plan, None, options)
}

/// [`derive`], for the environment previews come from (`previews.from`): `preview` is one
/// preview's plan (`runtime_plan::preview_plan`), and the role also grants what `runway
/// preview up` calls on every preview's own names (`<product>-pr-*`, `<product>/pr-*/*`, the
/// parameters under `<prefix>/previews/pr-*/`), and nothing of another environment.
///
/// # Errors
/// [`DeriveError::Program`] when a plan's Pulumi program cannot be rendered.
pub fn derive_with_previews(
    plan: &Plan,
    preview: Option<&Plan>,
    options: &Options,
) -> Result<DeployRole, DeriveError> {
    let scope = scope::Scope::new(plan, &options.account);
    let name = format!("runway-deploy-{}-{}", plan.product, plan.environment);
    let trust = options.github.as_ref().map(|g| github_trust(g, &options.account));
    let mut extra = operator::deploy_denials(&scope);
    if let Some(preview) = preview {
        let program = pulumi_program::render(preview).map_err(|e| DeriveError::Program(e.to_string()))?;
        let types = program::declared_types(&program);
        let mut own = program::statements(&scope, &types);
        own.extend(runway::statements(&scope));
        extra.extend(preview_names::statements(preview, &types, &options.account, &own));
    }
    role(plan, options, name, trust, extra)
}

/// The operator role of `plan`'s environment (`runway-operate-<product>-<env>`): every grant of
/// the deploy role (it runs `pulumi destroy` and the same reads) without its denials, and what
/// `runway restore` and `runway teardown` delete or restore; trusted by the GitHub environment
/// `<environment>-operations` of the same repository ([`OPERATIONS_SUFFIX`]).
///
/// # Errors
/// [`DeriveError::Program`] when the plan's Pulumi program cannot be rendered.
pub fn derive_operator(plan: &Plan, options: &Options) -> Result<DeployRole, DeriveError> {
    let scope = scope::Scope::new(plan, &options.account);
    let name = format!("runway-operate-{}-{}", plan.product, plan.environment);
    let trust = options.github.as_ref().map(|g| {
        let environment = format!("{}{OPERATIONS_SUFFIX}", g.environment);
        github_trust(&GithubTarget { repository: g.repository.clone(), environment }, &options.account)
    });
    role(plan, options, name, trust, operator::statements(&scope))
}

/// A role of `plan`'s environment: the program's and runway's statements, then `extra`.
fn role(
    plan: &Plan,
    options: &Options,
    role_name: String,
    trust_policy: Option<PolicyDocument>,
    extra: Vec<Statement>,
) -> Result<DeployRole, DeriveError> {
    let program = pulumi_program::render(plan).map_err(|e| DeriveError::Program(e.to_string()))?;
    let types = program::declared_types(&program);
    let scope = scope::Scope::new(plan, &options.account);
    let mut statements = program::statements(&scope, &types);
    statements.extend(runway::statements(&scope));
    statements.extend(extra);
    let statements = document::merge(statements);
    let policies = document::split(statements, MANAGED_POLICY_LIMIT)
        .into_iter()
        .enumerate()
        .map(|(i, document)| NamedPolicy {
            name: format!("{role_name}-{}", i + 1),
            characters: document.minified_len(),
            document,
        })
        .collect();
    Ok(DeployRole {
        environment: plan.environment.to_string(),
        account: options.account.clone(),
        role_name,
        trust_policy,
        policies,
        uncovered_types: types.into_iter().filter(|t| !program::covers(t)).collect(),
    })
}

impl DeployRole {
    /// Every statement of every policy, for [`allows`].
    pub fn documents(&self) -> Vec<&PolicyDocument> {
        self.policies.iter().map(|p| &p.document).collect()
    }
}

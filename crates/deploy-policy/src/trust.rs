//! The trust policy: GitHub Actions' OIDC tokens of one repository's environment may assume
//! the role (GitHub docs, "Configuring OpenID Connect in Amazon Web Services").

use std::collections::BTreeMap;

use crate::document::{PolicyDocument, Statement};

/// The GitHub repository (`owner/name`) and its environment whose jobs may assume the role.
#[derive(Debug, Clone)]
pub struct GithubTarget {
    /// `owner/name`.
    pub repository: String,
    /// The GitHub environment the deploy job runs in.
    pub environment: String,
}

/// GitHub's OIDC issuer, without `https://`, as IAM names its provider and keys.
const ISSUER: &str = "token.actions.githubusercontent.com";

/// `sts:AssumeRoleWithWebIdentity` for tokens whose audience is STS and whose subject is the
/// repository's environment: no branch, pull request or other repository can assume it.
pub fn github_trust(target: &GithubTarget, account: &str) -> PolicyDocument {
    let subject = format!("repo:{}:environment:{}", target.repository, target.environment);
    let mut statement = Statement::allow(
        "GithubDeployJobOfOneRepositoryEnvironment",
        &["sts:AssumeRoleWithWebIdentity"],
        Vec::new(),
    )
    .when("StringEquals", &format!("{ISSUER}:aud"), &["sts.amazonaws.com"])
    .when("StringEquals", &format!("{ISSUER}:sub"), &[&subject]);
    statement.principal = Some(BTreeMap::from([(
        "Federated".to_owned(),
        format!("arn:aws:iam::{account}:oidc-provider/{ISSUER}"),
    )]));
    PolicyDocument::new(vec![statement])
}

//! The role as a Pulumi YAML snippet: the role with its trust policy, one managed policy per
//! document (inline policies share one 10,240-character limit per role), the account id looked up as the program does.

use crate::{DeployRole, PolicyDocument};

/// The snippet: `variables` (`aws-account-id`) and `resources` (the role, its policies), to
/// paste into a stack that an administrator runs once per environment.
pub fn render_pulumi(role: &DeployRole) -> String {
    render_pulumi_roles(&[role])
}

/// [`render_pulumi`] of several roles (the deploy role and the operator role) in one snippet.
pub fn render_pulumi_roles(roles: &[&DeployRole]) -> String {
    let mut out = String::new();
    for role in roles {
        out.push_str(&format!("# The role {} of {} (runway iam)", role.role_name, role.environment));
        out.push_str(": docs/iam.md says what it grants and why.\n");
    }
    out.push_str(
        "variables:\n  aws-account-id:\n    fn::invoke:\n      function: aws:index:getCallerIdentity\n",
    );
    out.push_str("      return: accountId\nresources:\n");
    for role in roles {
        role_resources(role, &mut out);
    }
    out
}

/// The role and its policies, as `resources` entries.
fn role_resources(role: &DeployRole, out: &mut String) {
    let id = role.role_name.clone();
    out.push_str(&format!("  {id}:\n    type: aws:iam/role:Role\n    properties:\n      name: {id}\n"));
    match &role.trust_policy {
        Some(trust) => out.push_str(&format!("      assumeRolePolicy: {}\n", quoted(trust))),
        None => out.push_str(
            "      # Give --github-repo for the GitHub OIDC trust policy.\n      assumeRolePolicy: \"\"\n",
        ),
    }
    for policy in &role.policies {
        out.push_str(&format!(
            "  {0}:\n    type: aws:iam/policy:Policy\n    properties:\n      name: {0}\n      policy: {1}\n  {0}-attachment:\n    type: aws:iam/rolePolicyAttachment:RolePolicyAttachment\n    properties:\n      role: ${{{id}.name}}\n      policyArn: ${{{0}.arn}}\n",
            policy.name,
            quoted(&policy.document)
        ));
    }
}

/// A document as a YAML double-quoted scalar: its JSON, quoted as a JSON string (a JSON string
/// is a valid YAML double-quoted scalar).
fn quoted(document: &PolicyDocument) -> String {
    let text = serde_json::to_string(document).unwrap_or_default();
    serde_json::to_string(&text).unwrap_or_default()
}

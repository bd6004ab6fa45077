//! The pulumi-aws version the program is pinned to: every resource and every `fn::invoke`
//! carries `options.version`, so `pulumi up` loads exactly the provider the program was checked
//! against (the engine takes a version as an exact one, not a range), never a newer major with
//! other inputs. Pulumi YAML's other way, a `pulumi:providers:aws` resource with
//! `defaultProvider: true`, is an explicit provider: it would not read the stack's `aws:`
//! settings (`aws:profile`, `aws:assumeRoles`), and a deploy could reach another account.

use super::yaml::{Y, m, s};

/// The pulumi-aws version every emitted program pins: the one `tools/requirements.txt`
/// installs for the SDK check (a test holds the two equal). Upgrading it is a change of both,
/// after the SDK check passes with the new one.
pub const PULUMI_AWS_VERSION: &str = "7.51.1";

/// Pins every resource of `resources` and every `fn::invoke` anywhere in `root`.
pub(super) fn pin(root: &mut Y) {
    if let Y::Map(entries) = root {
        for (key, value) in entries.iter_mut() {
            if key == "resources"
                && let Y::Map(resources) = value
            {
                for (_, resource) in resources.iter_mut() {
                    pin_resource(resource);
                }
            }
        }
    }
    pin_invokes(root);
}

/// `options.version` on one resource, beside the options it has.
fn pin_resource(resource: &mut Y) {
    let Y::Map(entries) = resource else { return };
    match entries.iter_mut().find(|(k, _)| k == "options") {
        Some((_, options)) => options.push("version", s(PULUMI_AWS_VERSION)),
        None => entries.push(("options".to_owned(), m([("version", s(PULUMI_AWS_VERSION))]))),
    }
}

/// `options.version` on every `fn::invoke` under `value`.
fn pin_invokes(value: &mut Y) {
    match value {
        Y::Map(entries) => {
            for (key, inner) in entries.iter_mut() {
                if key == "fn::invoke" {
                    inner.push("options", m([("version", s(PULUMI_AWS_VERSION))]));
                }
                pin_invokes(inner);
            }
        }
        Y::List(items) => items.iter_mut().for_each(pin_invokes),
        Y::Str(_) | Y::Int(_) | Y::Number(_) | Y::Bool(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::document;

    #[test]
    fn every_resource_and_invoke_names_the_version() {
        let invoke = m([("fn::invoke", m([("function", s("aws:index:getCallerIdentity"))]))]);
        let mut root = m([
            ("variables", m([("account", invoke.clone())])),
            (
                "resources",
                m([
                    ("a", m([("type", s("aws:sns/topic:Topic"))])),
                    (
                        "b",
                        m([("type", s("aws:sqs/queue:Queue")), ("options", m([("protect", Y::Bool(true))]))]),
                    ),
                    ("c", m([("type", s("aws:sqs/queue:Queue")), ("properties", m([("name", invoke)]))])),
                ]),
            ),
        ]);
        pin(&mut root);
        let text = document(&root);
        // Three resources and two invokes.
        assert_eq!(text.matches(&format!("version: \"{PULUMI_AWS_VERSION}\"")).count(), 5, "{text}");
        assert!(text.contains("protect: true\n      version: "), "{text}");
    }
}

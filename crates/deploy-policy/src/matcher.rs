//! A small IAM evaluator: does some `Allow` statement allow this action on these resources in
//! this context, and no `Deny` statement deny it (an explicit deny wins, as in IAM)? Actions match case-insensitively, resources case-sensitively,
//! both with `*` and `?` wildcards; a condition on a key the request lacks does not hold (as
//! IAM's operators without `IfExists` behave).

use std::collections::BTreeMap;

use crate::document::{PolicyDocument, Statement};

/// One call: its action, the ARNs it acts on (`*` for a call that names none), and its
/// context keys (`aws:ResourceTag/product`, `iam:PassedToService`).
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// `service:Operation`.
    pub action: String,
    /// Every resource the call is authorised against; each must be allowed.
    pub resources: Vec<String>,
    /// Context key -> values.
    pub context: BTreeMap<String, Vec<String>>,
}

/// Whether the documents allow `request`: every resource of it by some `Allow` statement that
/// names the action and whose conditions hold, and by no such `Deny` statement.
pub fn allows(documents: &[&PolicyDocument], request: &Request) -> bool {
    let statements: Vec<&Statement> = documents.iter().flat_map(|d| &d.statement).collect();
    let applies = |s: &Statement, resource: &str| {
        s.action.iter().any(|a| wildcard(&a.to_ascii_lowercase(), &request.action.to_ascii_lowercase()))
            && s.resource.iter().any(|r| wildcard(r, resource))
            && conditions_hold(s, &request.context)
    };
    !request.resources.is_empty()
        && request.resources.iter().all(|resource| {
            statements.iter().any(|s| s.effect == "Allow" && applies(s, resource))
                && !statements.iter().any(|s| s.effect == "Deny" && applies(s, resource))
        })
}

fn conditions_hold(s: &Statement, context: &BTreeMap<String, Vec<String>>) -> bool {
    s.condition.iter().all(|(operator, keys)| {
        keys.iter().all(|(key, wanted)| {
            let Some(given) = context.get(key) else { return false };
            let equal = |g: &String| wanted.iter().any(|w| w == g);
            let like = |g: &String| wanted.iter().any(|w| wildcard(w, g));
            match operator.as_str() {
                "StringEquals" | "ForAnyValue:StringEquals" => given.iter().any(equal),
                "ForAllValues:StringEquals" => given.iter().all(equal),
                "StringLike" | "ForAnyValue:StringLike" => given.iter().any(like),
                "ForAllValues:StringLike" => given.iter().all(like),
                // An operator this evaluator does not know never holds: it refuses, never allows.
                _ => false,
            }
        })
    })
}

/// IAM's wildcard match: `*` any run of characters, `?` one.
pub(crate) fn wildcard(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::wildcard;

    #[test]
    fn wildcards_match_as_iam_does() {
        assert!(wildcard("arn:aws:ssm:r:a:parameter/acme/dev/*", "arn:aws:ssm:r:a:parameter/acme/dev/x/Y"));
        assert!(!wildcard("arn:aws:ssm:r:a:parameter/acme/dev/*", "arn:aws:ssm:r:a:parameter/acme/prod/x"));
        assert!(wildcard("s3:get*configuration", "s3:getlifecycleconfiguration"));
        assert!(wildcard("a?c", "abc") && !wildcard("a?c", "ac"));
        assert!(wildcard("*", "") && !wildcard("", "x"));
    }
}

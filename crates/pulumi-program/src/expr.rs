//! Pulumi YAML expressions: `${...}` interpolations and the built-in functions the program
//! uses (`fn::toJSON`, `fn::secret`, `fn::invoke`), as values that serialize to their YAML form.

use std::borrow::Cow;

use serde::Serialize;

/// A literal string from the plan (a word of a command or an entry point) as Pulumi YAML reads
/// it: `${` would start an interpolation, so it is written `$${`, which Pulumi turns back into
/// `${` (a shell's `${HOME}` reaches the container as typed).
pub(super) fn literal(text: &str) -> Cow<'_, str> {
    if text.contains("${") { Cow::Owned(text.replace("${", "$${")) } else { Cow::Borrowed(text) }
}

/// `${name}`: a config input, a variable, or a whole resource (in `dependsOn`).
pub(super) fn var(name: &str) -> String {
    format!("${{{name}}}")
}

/// `${id.attribute}`: an output of a resource. Use `Context::reference` (in `context`, which
/// builds on this module) for another item, so the reference is checked and recorded.
pub(super) fn attr(id: &str, attribute: &str) -> String {
    format!("${{{id}.{attribute}}}")
}

/// `fn::toJSON`: the value written as a JSON string (policy documents, container definitions,
/// redrive policies).
#[derive(Serialize)]
pub(super) struct ToJson<T> {
    #[serde(rename = "fn::toJSON")]
    value: T,
}

/// The value as a JSON string.
pub(super) fn to_json<T>(value: T) -> ToJson<T> {
    ToJson { value }
}

/// `fn::secret`: the value is kept encrypted in the state and masked in outputs.
#[derive(Serialize)]
pub(super) struct Secret<T> {
    #[serde(rename = "fn::secret")]
    value: T,
}

/// The value marked secret.
pub(super) fn secret<T>(value: T) -> Secret<T> {
    Secret { value }
}

/// `fn::invoke`: a call of a provider function, such as a lookup by name.
#[derive(Serialize)]
pub(super) struct Invoke<A> {
    #[serde(rename = "fn::invoke")]
    call: Call<A>,
}

#[derive(Serialize)]
struct Call<A> {
    function: &'static str,
    arguments: A,
    /// One field of the result instead of the whole result.
    #[serde(rename = "return")]
    returns: Option<&'static str>,
}

/// A call of `function` with `arguments`, its whole result.
pub(super) fn invoke<A>(function: &'static str, arguments: A) -> Invoke<A> {
    Invoke { call: Call { function, arguments, returns: None } }
}

/// A call of `function` with `arguments`, the `field` of its result.
pub(super) fn invoke_field<A>(function: &'static str, arguments: A, field: &'static str) -> Invoke<A> {
    Invoke { call: Call { function, arguments, returns: Some(field) } }
}

/// The output of a looked-up `item` that holds what a declared one's `attribute` does: a
/// shared ECS cluster's name is `clusterName` (`aws:ecs:getCluster`'s result has no `name`);
/// every other attribute is the same.
pub(super) fn looked_up_attribute<'a>(item: &runtime_plan::PlannedItem, attribute: &'a str) -> &'a str {
    match (item.managed_by, item.kind(), attribute) {
        (runtime_plan::ManagedBy::Shared, runtime_plan::ItemKind::EcsCluster, "name") => "clusterName",
        _ => attribute,
    }
}

#[cfg(test)]
mod literal_tests {
    use super::literal;

    #[test]
    fn a_dollar_brace_is_escaped_and_nothing_else_changes() {
        assert_eq!(literal("echo ${HOME} $PATH $(date)"), "echo $${HOME} $PATH $(date)");
        assert_eq!(literal("a ${x}${y}"), "a $${x}$${y}");
        assert!(matches!(literal("migrate up"), std::borrow::Cow::Borrowed("migrate up")));
    }
}

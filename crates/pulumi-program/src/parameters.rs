//! The SSM parameters the program writes (`ParameterWriter::Program`): each connection variable
//! a task reads, as a SecureString under the plan's key, from the resources' outputs. The task
//! definitions that read one depend on it (`Context::waits_for`), so from an empty account no
//! task starts before the values it reads exist. Its value is the one `secrets publish` writes
//! to Infisical: a stack output is the same `${item.attribute}`, a literal the same text, and a
//! template is composed the way Infisical expands it, with each credential read (decrypted)
//! from the parameter `secrets prepare` wrote. A template's value is a write-only input
//! (`valueWo`), which the provider never reads back (the state keeps it in its inputs, as a
//! Pulumi secret: docs/pulumi.md, "What reaches the state"): its `valueWoVersion` is the
//! credential parameter's version (a new credential, a new write) and its `description` the
//! template with every other part resolved and the credential masked (a new endpoint, an update
//! that writes the value again).

use std::collections::BTreeMap;

use runtime_plan::{ConnectionSource, ParameterWriter, PlannedOutput, SsmParameter};
use serde::Serialize;

use super::RenderError;
use super::context::{Context, Tags};
use super::expr::secret;

/// The resource type of an SSM parameter.
const PARAMETER: &str = "aws:ssm/parameter:Parameter";

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Parameter<'p, V> {
    name: &'p str,
    #[serde(rename = "type")]
    kind: &'p str,
    key_id: &'p str,
    /// What the value is made of, the credentials masked (templates only).
    description: Option<String>,
    value: Option<V>,
    /// Write-only (templates, which embed a credential): not read back, but kept in the
    /// state's inputs as a Pulumi secret (docs/pulumi.md, "What reaches the state").
    value_wo: Option<V>,
    value_wo_version: Option<String>,
    /// A parameter an earlier `runway ssm publish` wrote is taken over, not a failed create.
    overwrite: bool,
    region: &'p str,
    tags: Tags<'p>,
}

/// A parameter's value: plain for an output or a literal, secret for a template (it embeds a
/// credential).
#[derive(Serialize)]
#[serde(untagged)]
enum Value {
    Plain(String),
    Secret(super::expr::Secret<String>),
}

/// What a parameter's value is made of, each looked up once per program: a connection
/// variable's source and a credential's parameter by `(owner, consumer, variable)` (the
/// consumer of a postgres login's own variables, none otherwise), an output by name.
struct Sources<'p> {
    connection: BTreeMap<Key<'p>, &'p ConnectionSource>,
    parameters: BTreeMap<Key<'p>, &'p SsmParameter>,
    outputs: BTreeMap<&'p str, &'p PlannedOutput>,
}

/// `(owner, consumer, variable)`.
type Key<'p> = (&'p str, Option<&'p str>, &'p str);

/// Declares every parameter the program writes, in the plan's order (by name).
pub(super) fn declare_all(cx: &mut Context<'_>) -> Result<(), RenderError> {
    let plan = cx.plan;
    let sources = Sources {
        connection: plan
            .secrets
            .connection
            .iter()
            .map(|c| ((c.resource.as_str(), c.consumer.as_deref(), c.infisical.name.as_str()), &c.source))
            .collect(),
        parameters: plan
            .secrets
            .ssm_parameters
            .iter()
            .map(|p| ((p.owner.as_str(), p.consumer.as_deref(), p.variable.as_str()), p))
            .collect(),
        outputs: plan.outputs.iter().map(|o| (o.name.as_str(), o)).collect(),
    };
    for p in plan.secrets.ssm_parameters.iter().filter(|p| p.written_by == ParameterWriter::Program) {
        let id = p.program_id();
        let missing = |what: String| RenderError::Missing { item: id.clone(), what };
        let source = sources
            .connection
            .get(&(p.owner.as_str(), p.consumer.as_deref(), p.variable.as_str()))
            .ok_or_else(|| missing(format!("the connection variable `{}` of `{}`", p.variable, p.owner)))?;
        let (mut value, mut value_wo, mut value_wo_version, mut description) = (None, None, None, None);
        match source {
            ConnectionSource::Template { template } => {
                let composed = compose(cx, p, template, &sources)?;
                match composed.versions.first() {
                    Some(version) => {
                        value_wo = Some(Value::Secret(secret(composed.value)));
                        value_wo_version = Some(version.clone());
                        let mut masked = composed.masked;
                        for v in &composed.versions[1..] {
                            masked.push_str(&format!(" (version {v})"));
                        }
                        description = Some(masked);
                    }
                    None => value = Some(Value::Secret(secret(composed.value))),
                }
            }
            ConnectionSource::Output { .. } | ConnectionSource::Literal { .. } => {
                value = Some(Value::Plain(part(cx, p, source, &sources)?));
            }
        }
        let props = Parameter {
            name: &p.name,
            kind: p.r#type.as_str(),
            key_id: &plan.secrets.kms_key,
            description,
            value,
            value_wo,
            value_wo_version,
            overwrite: true,
            region: &plan.region,
            tags: cx.tags_of(&p.owner, &id),
        };
        cx.declare_other(id.clone(), PARAMETER, props, Vec::new())?;
    }
    Ok(())
}

/// The Pulumi form of an output or a literal: `${item.attribute}`, or the text itself.
fn part(
    cx: &mut Context<'_>,
    p: &SsmParameter,
    source: &ConnectionSource,
    sources: &Sources<'_>,
) -> Result<String, RenderError> {
    let unwritable = |why: &str| RenderError::Unsupported {
        item: p.program_id(),
        kind: PARAMETER.to_owned(),
        why: why.to_owned(),
    };
    match source {
        ConnectionSource::Output { output } => {
            let o = sources.outputs.get(output.as_str()).ok_or_else(|| RenderError::Missing {
                item: p.program_id(),
                what: format!("the output `{output}`"),
            })?;
            cx.reference(&o.item, &o.attribute)
        }
        // Ports, database and user names, regions: never a `$`, which Pulumi would read as an
        // interpolation.
        ConnectionSource::Literal { value } if value.contains('$') => {
            Err(unwritable("its value holds a `$`"))
        }
        ConnectionSource::Literal { value } => Ok(value.to_string()),
        ConnectionSource::Template { .. } => Err(unwritable("a template refers to another template")),
    }
}

/// A template composed: its value, the same with each credential masked, and the version of
/// each credential's parameter, in the template's order.
struct Composed {
    value: String,
    masked: String,
    versions: Vec<String>,
}

/// A template (`postgresql://${MAIN_DB_USER}:${MAIN_DB_PASSWORD}@...`) with each `${VAR}` of
/// the owner's folder replaced by its Pulumi form: a credential by its decrypted parameter, any
/// other variable by its output or literal.
fn compose(
    cx: &mut Context<'_>,
    p: &SsmParameter,
    template: &str,
    sources: &Sources<'_>,
) -> Result<Composed, RenderError> {
    let mut out = String::with_capacity(template.len() + 32);
    let mut masked = String::with_capacity(template.len() + 32);
    let mut versions = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find("${") {
        let text = &rest[..start];
        let end = rest[start..].find('}').map(|e| start + e).ok_or_else(|| RenderError::Unsupported {
            item: p.program_id(),
            kind: PARAMETER.to_owned(),
            why: "its template has an unclosed `${`".to_owned(),
        })?;
        if text.contains('$') {
            return Err(RenderError::Unsupported {
                item: p.program_id(),
                kind: PARAMETER.to_owned(),
                why: "its template holds a `$` outside a reference".to_owned(),
            });
        }
        out.push_str(text);
        masked.push_str(text);
        let name = &rest[start + 2..end];
        let key = (p.owner.as_str(), p.consumer.as_deref(), name);
        if let Some(source) = sources.connection.get(&key) {
            let value = part(cx, p, source, sources)?;
            out.push_str(&value);
            masked.push_str(&value);
        } else if let Some(credential) =
            sources.parameters.get(&key).filter(|c| c.written_by == ParameterWriter::SecretsPrepare)
        {
            out.push_str(&cx.decrypted_parameter(&credential.name)?);
            masked.push_str("****");
            versions.push(cx.parameter_version(&credential.name)?);
        } else {
            return Err(RenderError::Missing {
                item: p.program_id(),
                what: format!(
                    "`{name}` of `{}` (a connection variable or a credential's parameter)",
                    p.owner
                ),
            });
        }
        rest = &rest[end + 1..];
    }
    if rest.contains('$') {
        return Err(RenderError::Unsupported {
            item: p.program_id(),
            kind: PARAMETER.to_owned(),
            why: "its template holds a `$` outside a reference".to_owned(),
        });
    }
    out.push_str(rest);
    masked.push_str(rest);
    Ok(Composed { value: out, masked, versions })
}

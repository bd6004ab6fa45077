//! Renders a runway plan as a Pulumi YAML program, and checks a stack settings file against
//! the plan. Pure: text and values in, text out; no file, network, clock or AWS SDK. The
//! program's files come back as data (file name -> text): whoever embeds the crate writes them.
//!
//! [`render`] turns a [`runtime_plan::Plan`] into a [`Program`]: a `Pulumi.yaml` with
//! `runtime: yaml` whose resources are exactly the plan's items managed by Pulumi, in plan
//! order, each under its logical id. The same plan gives the same bytes.
//!
//! What the program takes as inputs (Pulumi config, never literals, none secret): the VPC, its
//! private and public subnets, the TLS certificate. Items the secrets adapter creates
//! (`ManagedBy::SecretsAdapter`) are looked up with `fn::invoke`; the credentials
//! `secrets prepare` wrote to SSM (a database's admin password, a cache's AUTH token, the
//! credential a connection template embeds) are read the same way, and given only to the
//! provider's write-only inputs (`passwordWo`, `authTokenWo`, `valueWo`), so no credential is
//! in the config. They still reach the state, as Pulumi secrets in the resources' inputs
//! (pulumi-terraform-bridge#3201): state access is credential access. No secret value is ever
//! part of the program. Every resource and function call pins the pulumi-aws version
//! ([`PULUMI_AWS_VERSION`]). See `docs/pulumi.md`.
//!
//! Layout: `items.rs` dispatches each item to the renderer of its kind, one module per item
//! family (`platform`, `alb`, `postgres`, `cache`, `queue`, `topic`, `bucket`, `workload`,
//! `logs`, `budget`, `identity`, `network`, `endpoints`); `parameters` declares the SSM
//! parameters the plan says the program writes; `version` pins every resource and function
//! call to the pulumi-aws version the program is checked against.
//! A renderer builds its resource's properties as a typed struct (serde, camelCase) and
//! declares it in the shared context (`context.rs`: inputs, checked references, tags,
//! options); `ser.rs` turns the struct into the [`yaml`] tree the writer prints. Interpolations
//! and `fn::*` calls are in `expr.rs`, IAM policy documents and roles in `iam.rs`.
// A match over a kind names every kind, so a new kind is a compile error wherever it needs a
// decision; a projection of one kind is a `let ... else` (ARCHITECTURE.md, "Adding a kind").
#![warn(clippy::wildcard_enum_match_arm)]
// What is `pub` is the crate's API; the rest says `pub(super)` (issue 45 item 3).
#![warn(unreachable_pub)]

mod alarms;
mod alb;
mod alb_logs;
mod bucket;
mod budget;
mod cache;
mod context;
mod endpoints;
mod expr;
mod iam;
mod identity;
mod inputs;
mod items;
mod key;
mod logs;
mod network;
mod parameters;
mod platform;
mod postgres;
mod preview;
mod queue;
mod schedule;
mod ser;
mod shared;
mod stack;
mod tasks;
mod topic;
mod version;
mod workload;
pub mod yaml;

pub use inputs::{StackInputs, stack_inputs};
pub use preview::{Preview, PreviewError, PreviewStep, items_of, read_preview};
pub use stack::{alert_email_count, check_stack_settings};
pub use version::PULUMI_AWS_VERSION;

use runtime_plan::{ManagedBy, ParameterWriter, Plan};
use yaml::{Y, m, s};

/// The file name of the program.
pub const PROGRAM_FILE: &str = "Pulumi.yaml";

/// Tags every resource whose type takes tags carries, from the plan's tag rule
/// ([`runtime_plan::Plan::tags`]): the product, the environment, the runway resource or
/// workload (`environment` for the environment's shared items), and the item's logical id.
pub const TAG_KEYS: [&str; 4] = [
    runtime_plan::PRODUCT_TAG,
    runtime_plan::ENVIRONMENT_TAG,
    runtime_plan::RESOURCE_TAG,
    runtime_plan::ITEM_TAG,
];

/// A rendered program: file names (relative to the program directory) and contents. Writing
/// them is the caller's: each name is a plain file name, written into the program directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// `(file name, contents)`, in a stable order; `Pulumi.yaml` first.
    pub files: Vec<(String, String)>,
}

impl Program {
    /// The contents of a file of the program.
    pub fn file(&self, name: &str) -> Option<&str> {
        self.files.iter().find(|(n, _)| n == name).map(|(_, c)| c.as_str())
    }
}

/// Why a plan cannot be rendered. Each names the item; none carries a value of a secret.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum RenderError {
    /// An item references a logical id the plan does not have.
    #[error("item `{item}` references `{missing}`, which is not an item of the plan")]
    UnknownItem {
        /// The referencing item (or output).
        item: String,
        /// The missing logical id.
        missing: String,
    },
    /// An item the renderer does not know how to declare (a newer item kind, or a kind that
    /// cannot be looked up when another component creates it).
    #[error("item `{item}` ({kind}) cannot be rendered as a Pulumi resource: {why}")]
    Unsupported {
        /// The item.
        item: String,
        /// Its kind.
        kind: String,
        /// Why.
        why: String,
    },
    /// The plan lacks something the item needs.
    #[error("item `{item}` needs {what}, which the plan does not have")]
    Missing {
        /// The item.
        item: String,
        /// What is missing.
        what: String,
    },
}

/// What a program is rendered with besides its plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// How many addresses of the `alertEmails` input the alerts topic subscribes by email
    /// (`alertEmails[0]` ...): Pulumi YAML cannot loop over a list input, so the count is
    /// fixed when the program is written (`runway emit` counts the stack settings' list).
    pub alert_emails: usize,
}

impl Default for Options {
    /// One address.
    fn default() -> Self {
        Options { alert_emails: 1 }
    }
}

/// Renders the Pulumi YAML program of a plan, with the default [`Options`].
pub fn render(plan: &Plan) -> Result<Program, RenderError> {
    render_with(plan, Options::default())
}

/// One resource of a plan's program: its name (the last part of its URN), its type and the
/// item it comes from (`None` for an SSM parameter the program writes, which is no item).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramResource {
    /// The resource's name in the program: the item's id, `<id>--<suffix>` for a companion.
    pub name: String,
    /// Its type token (`aws:rds/instance:Instance`).
    pub token: &'static str,
    /// The logical id of the item it comes from.
    pub item: Option<String>,
}

/// Every resource a plan's program declares (default [`Options`]), in program order, with the
/// item each comes from: how a `pulumi preview` of the program is read back per item.
pub fn program_resources(plan: &Plan) -> Result<Vec<ProgramResource>, RenderError> {
    Ok(render_parts(plan, Options::default())?.1)
}

/// Renders the Pulumi YAML program of a plan.
pub fn render_with(plan: &Plan, options: Options) -> Result<Program, RenderError> {
    Ok(render_parts(plan, options)?.0)
}

/// The program and the resources it declares.
fn render_parts(plan: &Plan, options: Options) -> Result<(Program, Vec<ProgramResource>), RenderError> {
    let mut ctx = context::Context::new(plan);
    ctx.alert_subscriptions = options.alert_emails;
    for item in &plan.items {
        match item.managed_by {
            ManagedBy::Pulumi => items::declare(&mut ctx, item)?,
            ManagedBy::SecretsAdapter => items::look_up(&mut ctx, item)?,
            // Part of the VPC the program is given: the plan holds it for its charges only.
            ManagedBy::Existing => {}
            // A preview's share of the environment it comes from: looked up by its name there.
            ManagedBy::Shared => shared::look_up(&mut ctx, item)?,
        }
    }
    parameters::declare_all(&mut ctx)?;
    let mut outputs = Vec::new();
    for output in &plan.outputs {
        let value = ctx.output_reference(&output.name, &output.item, &output.attribute)?;
        outputs.push((output.name.to_string(), value));
    }
    for task in &plan.tasks {
        outputs.push((task.output.to_string(), tasks::output(&mut ctx, task)?));
    }

    let mut root = m([
        ("name", s(plan.product.clone())),
        ("runtime", s("yaml")),
        (
            "description",
            s(format!(
                "runway: {} {} ({}), generated by `runway emit pulumi`; do not edit",
                plan.product, plan.environment, plan.region
            )),
        ),
    ]);
    let mut config = ctx.config();
    if let Some(account) = &plan.account {
        // The default provider's own setting, as project-level config: `pulumi up` refuses
        // credentials of another account before it reads or writes anything (docs/pulumi.md).
        config.push(("aws:allowedAccountIds".to_owned(), m([("value", Y::List(vec![s(account.clone())]))])));
    }
    if !config.is_empty() {
        root.push("config", Y::Map(config));
    }
    let variables = ctx.take_variables();
    if !variables.is_empty() {
        root.push("variables", Y::Map(variables));
    }
    root.push("resources", Y::Map(ctx.take_resources()));
    if !outputs.is_empty() {
        root.push("outputs", Y::Map(outputs));
    }
    version::pin(&mut root);
    let header = format!(
        "# Generated by `runway emit pulumi --env {}` from the plan of {}: do not edit.\n\
         # Inputs (pulumi config): see docs/pulumi.md. No secret value is in this file.\n",
        plan.environment, plan.product
    );
    let program = Program { files: vec![(PROGRAM_FILE.to_owned(), header + &yaml::document(&root))] };
    Ok((program, std::mem::take(&mut ctx.declared)))
}

/// The number of resources a plan's program declares: one per item managed by Pulumi, plus
/// the companions the plan does not list as items of their own: each S3 bucket's public access
/// block, default encryption and TLS-only policy (and its versioning when enabled), each role's
/// policy when it grants anything, and
/// each security group's rules (but the members' rule, written on its group); the key policy
/// of the environment's KMS key (which `secrets prepare` creates); the SSM parameters the
/// program writes; the alerts topic's policy and subscriptions (default [`Options`]), and the
/// ECS event rule's target.
pub fn expected_resources(plan: &Plan) -> usize {
    let subscriptions = Options::default().alert_emails;
    let items: usize = (plan.items.iter().filter(|i| i.managed_by == ManagedBy::Pulumi))
        .map(|i| items::resources(i, subscriptions))
        .sum();
    // The environment's key is created by `secrets prepare`; the program declares its policy.
    let key_policies = plan
        .items
        .iter()
        .filter(|i| matches!(i.spec, runtime_plan::ItemSpec::KmsKey { .. }))
        .map(|i| items::resources(i, subscriptions))
        .sum::<usize>();
    let parameters =
        plan.secrets.ssm_parameters.iter().filter(|p| p.written_by == ParameterWriter::Program).count();
    items + key_policies + parameters
}

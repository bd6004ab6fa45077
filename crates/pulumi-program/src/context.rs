//! The rendering state of one program, shared by the renderers of every item family: the plan,
//! the config inputs and variables used so far, the resources declared so far, and the checked
//! references between items.

use std::collections::{BTreeMap, BTreeSet};

use runtime_plan::{ItemSpec, ManagedBy, ParameterWriter, Plan, PlannedItem, SsmParameter};
use serde::Serialize;

use super::RenderError;
use super::expr::{invoke_field, secret, var};
use super::ser::to_yaml;
use super::yaml::{Y, m, s};

/// The resource type of a role's inline policy. Here, not in `iam.rs`, because the context
/// counts each role's policy (`iam.rs` uses the context; the context does not use `iam.rs`).
pub(super) const ROLE_POLICY: &str = "aws:iam/rolePolicy:RolePolicy";

/// Config inputs of the program, in the order they are declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Input {
    VpcId,
    PrivateSubnetIds,
    PublicSubnetIds,
    CertificateArn,
    HostedZoneId,
    BudgetAlertEmails,
    MemberSecurityGroupIds,
    PrivateRouteTableIds,
    VpcCidrBlocks,
    AlertEmails,
}

impl Input {
    fn name(self) -> &'static str {
        match self {
            Input::VpcId => "vpcId",
            Input::PrivateSubnetIds => "privateSubnetIds",
            Input::PublicSubnetIds => "publicSubnetIds",
            Input::CertificateArn => "certificateArn",
            Input::HostedZoneId => "hostedZoneId",
            Input::BudgetAlertEmails => "budgetAlertEmails",
            Input::MemberSecurityGroupIds => "memberSecurityGroupIds",
            Input::PrivateRouteTableIds => "privateRouteTableIds",
            Input::VpcCidrBlocks => "vpcCidrBlocks",
            Input::AlertEmails => "alertEmails",
        }
    }

    fn declaration(self) -> Y {
        match self {
            Input::VpcId | Input::CertificateArn | Input::HostedZoneId => m([("type", s("string"))]),
            Input::PrivateSubnetIds
            | Input::PublicSubnetIds
            | Input::BudgetAlertEmails
            | Input::MemberSecurityGroupIds
            | Input::PrivateRouteTableIds
            | Input::VpcCidrBlocks
            | Input::AlertEmails => m([("type", s("array")), ("items", m([("type", s("string"))]))]),
        }
    }
}

/// The `tags` property of every tagged resource: the plan's tags of its item
/// ([`Plan::tags_of`]: product, environment, resource, runway-item), and for a resource
/// without a name property its physical name as `Name`, which the console shows.
pub(super) struct Tags<'p> {
    tags: Vec<(&'p str, &'p str)>,
}

impl Serialize for Tags<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.tags.len()))?;
        for (key, value) in &self.tags {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// The arguments of `aws:ssm:getParameter` reading a SecureString's value.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DecryptedParameter<'a> {
    name: &'a str,
    with_decryption: bool,
    region: &'a str,
}

/// One resource of the program.
#[derive(Serialize)]
struct Resource<P> {
    #[serde(rename = "type")]
    token: &'static str,
    properties: P,
    options: Option<Options>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Options {
    /// Dependencies the properties do not reference.
    depends_on: Option<Vec<String>>,
    /// `desiredCount` of a service an autoscaling target drives; `actions` of a listener rule
    /// whose weights ECS moves during a release.
    ignore_changes: Option<Vec<&'static str>>,
    /// The deploy refuses to delete or replace it (production databases and buckets).
    protect: Option<bool>,
}

/// Rendering state of one program.
pub(super) struct Context<'p> {
    pub(super) plan: &'p Plan,
    inputs: BTreeSet<Input>,
    /// `variables` of the program, in item order.
    variables: Vec<(String, Y)>,
    /// `resources` of the program, in item order.
    resources: Vec<(String, Y)>,
    /// The item being rendered and the ids its properties reference.
    current: String,
    referenced: BTreeSet<String>,
    /// Items by id (the first of an id): references are looked up once per property.
    by_id: BTreeMap<&'p str, &'p PlannedItem>,
    /// Ids of the services an autoscaling target drives.
    scaled: BTreeSet<&'p str>,
    /// The policies of roles declared so far, by the id of their role: what depends on a role
    /// waits for its permissions too (a task definition for its roles' policies).
    policies: BTreeMap<String, String>,
    /// Look-up variables declared so far (the account, KMS aliases): each declared once.
    looked_up: BTreeSet<String>,
    /// The SSM parameters the program writes, by name: what reads one waits for it.
    program_parameters: BTreeMap<&'p str, &'p SsmParameter>,
    /// The program's parameters the item being rendered reads (see [`Self::waits_for`]).
    waits: Vec<String>,
    /// Decrypted credential variables declared so far: parameter name -> variable.
    decrypted: BTreeMap<String, String>,
    /// Addresses of `alertEmails` the alerts topic subscribes ([`super::Options`]).
    pub(super) alert_subscriptions: usize,
    /// Every resource declared so far, with the item it comes from ([`super::program_resources`]).
    pub(super) declared: Vec<super::ProgramResource>,
}

/// The variable of the deploying identity's account id.
const ACCOUNT: &str = "aws-account-id";
/// The variable of the deploying identity's ARN (an assumed role's session, a user).
const CALLER: &str = "aws-caller-arn";
/// The variable of the deploy role: the IAM role (or user) behind the deploying identity.
const DEPLOY_ROLE: &str = "deploy-role";

impl<'p> Context<'p> {
    pub(super) fn new(plan: &'p Plan) -> Self {
        Self {
            plan,
            inputs: BTreeSet::new(),
            variables: Vec::new(),
            resources: Vec::new(),
            current: String::new(),
            referenced: BTreeSet::new(),
            by_id: plan.items.iter().rev().map(|i| (i.id.as_str(), i)).collect(),
            scaled: plan
                .items
                .iter()
                .filter_map(|i| {
                    let ItemSpec::ScalingTarget(target) = &i.spec else { return None };
                    Some(target.service.as_str())
                })
                .collect(),
            policies: BTreeMap::new(),
            looked_up: BTreeSet::new(),
            program_parameters: plan
                .secrets
                .ssm_parameters
                .iter()
                .filter(|p| p.written_by == ParameterWriter::Program)
                .map(|p| (&*p.name, p))
                .collect(),
            waits: Vec::new(),
            decrypted: BTreeMap::new(),
            alert_subscriptions: 1,
            declared: Vec::new(),
        }
    }

    /// Starts rendering an item: errors name it, and its references are recorded afresh.
    pub(super) fn begin(&mut self, item: &PlannedItem) {
        self.current = item.id.to_string();
        self.referenced.clear();
        self.waits.clear();
    }

    /// Records that the item being rendered reads the SSM parameter `name`: when the program
    /// writes it, the item's resource depends on it, so no task starts before its value exists.
    pub(super) fn waits_for(&mut self, name: &str) {
        if let Some(p) = self.program_parameters.get(name) {
            let id = var(&p.program_id());
            if !self.waits.contains(&id) {
                self.waits.push(id);
            }
        }
    }

    /// `${credential-<VARIABLE>}`: the decrypted value of the SSM SecureString `name` (a
    /// credential `secrets prepare` wrote), a secret variable declared once per parameter.
    /// Only ever given to a write-only input (`passwordWo`, `authTokenWo`, `valueWo`): it is in
    /// no config, and the state holds it only in those inputs, as a Pulumi secret
    /// (pulumi-terraform-bridge#3201), encrypted by the stack's secrets provider.
    pub(super) fn decrypted_parameter(&mut self, name: &str) -> Result<String, RenderError> {
        let variable = self.credential_variable(name)?;
        Ok(var(&variable))
    }

    /// `${credential-<VARIABLE>-version}`: the version of the SSM parameter `name`, the
    /// `...WoVersion` beside its write-only input: each write of the credential (`secrets
    /// prepare --rotate`, `ssm publish`) makes a new version, so the next `pulumi up` sends the
    /// new value. Not secret.
    pub(super) fn parameter_version(&mut self, name: &str) -> Result<String, RenderError> {
        let variable = format!("{}-version", self.credential_variable(name)?);
        if self.looked_up.insert(variable.clone()) {
            let arguments = DecryptedParameter { name, with_decryption: false, region: &self.plan.region };
            let value =
                to_yaml(&invoke_field("aws:ssm:getParameter", arguments, "version")).map_err(|e| {
                    RenderError::Unsupported {
                        item: self.current.clone(),
                        kind: "aws:ssm:getParameter".to_owned(),
                        why: format!("its arguments cannot be written: {e}"),
                    }
                })?;
            self.variables.push((variable.clone(), value));
        }
        Ok(var(&variable))
    }

    /// The variable holding the decrypted value of the SSM SecureString `name`, declared on
    /// first use.
    fn credential_variable(&mut self, name: &str) -> Result<String, RenderError> {
        if let Some(v) = self.decrypted.get(name) {
            return Ok(v.clone());
        }
        // The variable's name (`SESSIONS_PASSWORD`) is the parameter's last segment; told
        // apart by a number in the unlikely case two parameters share it.
        let last = name.rsplit('/').next().unwrap_or(name);
        let mut variable = format!("credential-{last}");
        let taken: BTreeSet<&String> = self.decrypted.values().collect();
        let mut n = 1;
        while taken.contains(&variable) {
            n += 1;
            variable = format!("credential-{last}-{n}");
        }
        let arguments = DecryptedParameter { name, with_decryption: true, region: &self.plan.region };
        let read = secret(invoke_field("aws:ssm:getParameter", arguments, "value"));
        let value = to_yaml(&read).map_err(|e| RenderError::Unsupported {
            item: self.current.clone(),
            kind: "aws:ssm:getParameter".to_owned(),
            why: format!("its arguments cannot be written: {e}"),
        })?;
        self.variables.push((variable.clone(), value));
        self.decrypted.insert(name.to_owned(), variable.clone());
        Ok(variable)
    }

    /// The `config` section: the inputs used. None is secret: credentials are read from SSM
    /// into write-only inputs.
    pub(super) fn config(&self) -> Vec<(String, Y)> {
        self.inputs.iter().map(|i| (i.name().to_owned(), i.declaration())).collect()
    }

    /// The `variables` section, taken out of the context.
    pub(super) fn take_variables(&mut self) -> Vec<(String, Y)> {
        std::mem::take(&mut self.variables)
    }

    /// The `resources` section, taken out of the context.
    pub(super) fn take_resources(&mut self) -> Vec<(String, Y)> {
        std::mem::take(&mut self.resources)
    }

    /// `${input}`, the input recorded as used.
    pub(super) fn input(&mut self, input: Input) -> String {
        self.inputs.insert(input);
        var(input.name())
    }

    /// The region every regional resource names.
    pub(super) fn region(&self) -> &'p str {
        &self.plan.region
    }

    /// `${aws-account-id}`: the account of the identity that runs the program
    /// (`aws:getCallerIdentity`), declared as a variable on first use.
    pub(super) fn account(&mut self) -> String {
        if self.looked_up.insert(ACCOUNT.to_owned()) {
            let call = m([
                ("function", s("aws:index:getCallerIdentity")),
                ("arguments", Y::Map(Vec::new())),
                ("return", s("accountId")),
            ]);
            self.variables.push((ACCOUNT.to_owned(), m([("fn::invoke", call)])));
        }
        var(ACCOUNT)
    }

    /// `${deploy-role}`: the IAM role behind the identity that runs the program (its session's
    /// issuer, `aws:iam:getSessionContext` of `aws:getCallerIdentity`'s ARN; a user's own ARN),
    /// declared as a variable on first use.
    pub(super) fn deploy_role(&mut self) -> String {
        if self.looked_up.insert(DEPLOY_ROLE.to_owned()) {
            let caller = m([
                ("function", s("aws:index:getCallerIdentity")),
                ("arguments", Y::Map(Vec::new())),
                ("return", s("arn")),
            ]);
            self.variables.push((CALLER.to_owned(), m([("fn::invoke", caller)])));
            let session = m([
                ("function", s("aws:iam:getSessionContext")),
                ("arguments", m([("arn", s(var(CALLER)))])),
                ("return", s("issuerArn")),
            ]);
            self.variables.push((DEPLOY_ROLE.to_owned(), m([("fn::invoke", session)])));
        }
        var(DEPLOY_ROLE)
    }

    /// `${kms-<alias>}`: the ARN of the key a KMS alias names (`aws:kms:getAlias`), declared
    /// as a variable on first use.
    pub(super) fn kms_alias_target(&mut self, alias: &str) -> String {
        let name = format!("kms-{}", alias.replace('/', "-"));
        if self.looked_up.insert(name.clone()) {
            let call = m([
                ("function", s("aws:kms:getAlias")),
                ("arguments", m([("name", s(alias)), ("region", s(self.plan.region.as_str()))])),
                ("return", s("targetKeyArn")),
            ]);
            self.variables.push((name.clone(), m([("fn::invoke", call)])));
        }
        var(&name)
    }

    /// The tags of an item's resource.
    pub(super) fn tags(&self, item: &'p PlannedItem) -> Tags<'p> {
        Tags { tags: self.plan.tags_of(item) }
    }

    /// The tags of a resource that is no item of the plan (an SSM parameter the program writes).
    pub(super) fn tags_of<'a>(&self, owner: &'a str, id: &'a str) -> Tags<'a>
    where
        'p: 'a,
    {
        Tags { tags: self.plan.tags_with(owner, id) }
    }

    /// The tags of an item's resource that has no name property: its physical name is the
    /// `Name` tag the console shows.
    pub(super) fn name_tags(&self, item: &'p PlannedItem) -> Tags<'p> {
        let mut tags = self.plan.tags_of(item);
        tags.push(("Name", &item.physical_name));
        Tags { tags }
    }

    /// The item of a logical id.
    pub(super) fn item(&self, id: &str) -> Result<&'p PlannedItem, RenderError> {
        self.by_id
            .get(id)
            .copied()
            .ok_or_else(|| RenderError::UnknownItem { item: self.current.clone(), missing: id.to_owned() })
    }

    /// `${id.attribute}`, the item checked to exist and recorded as referenced.
    pub(super) fn reference(&mut self, id: &str, attribute: &str) -> Result<String, RenderError> {
        let item = self.item(id)?;
        self.referenced.insert(id.to_owned());
        Ok(super::expr::attr(id, super::expr::looked_up_attribute(item, attribute)))
    }

    /// The value of a stack output: an attribute of an item the program declares.
    pub(super) fn output_reference(
        &mut self,
        output: &str,
        id: &str,
        attribute: &str,
    ) -> Result<Y, RenderError> {
        self.current = format!("output {output}");
        Ok(s(self.reference(id, attribute)?))
    }

    /// Adds a variable of the program.
    pub(super) fn variable(
        &mut self,
        item: &PlannedItem,
        name: String,
        value: &impl Serialize,
    ) -> Result<(), RenderError> {
        let value = to_yaml(value).map_err(|e| unwritable(item, &e))?;
        self.variables.push((name, value));
        Ok(())
    }

    /// Declares the item's resource, with the `options` its properties call for: `dependsOn`
    /// for the dependencies they do not reference and the policy of every role among them,
    /// `ignoreChanges: [desiredCount]` for a service an autoscaling target drives, `protect`
    /// for an item the plan protects.
    pub(super) fn declare(
        &mut self,
        item: &PlannedItem,
        token: &'static str,
        properties: impl Serialize,
    ) -> Result<(), RenderError> {
        let mut depends = Vec::new();
        for dep in &item.depends_on {
            let target = self.item(dep)?;
            if target.managed_by == ManagedBy::Pulumi && !self.referenced.contains(dep.as_str()) {
                depends.push(var(dep));
            }
            if let Some(policy) = self.policies.get(dep.as_str()) {
                depends.push(var(policy));
            }
        }
        depends.append(&mut self.waits);
        let depends_on = (!depends.is_empty()).then_some(depends);
        let shifted =
            matches!(&item.spec, ItemSpec::AlbListenerRule(rule) if rule.alternate_target_group.is_some());
        let ignore_changes = if self.scaled.contains(item.id.as_str()) {
            Some(vec!["desiredCount"])
        } else {
            // ECS owns the weights of a rule it shifts a release's traffic with.
            shifted.then(|| vec!["actions"])
        };
        let protect = item.protected().then_some(true);
        // No `options: {}` for a resource that needs none.
        let options = (depends_on.is_some() || ignore_changes.is_some() || protect.is_some())
            .then_some(Options { depends_on, ignore_changes, protect });
        let resource = Resource { token, properties, options };
        let value = to_yaml(&resource).map_err(|e| unwritable(item, &e))?;
        self.record(item.id.to_string(), token, Some(item));
        self.resources.push((item.id.to_string(), value));
        Ok(())
    }

    /// Declares a resource that comes with the item without being an item of the plan (see
    /// [`super::expected_resources`]): `<id>--<suffix>`, no options.
    pub(super) fn declare_companion(
        &mut self,
        item: &PlannedItem,
        suffix: &str,
        token: &'static str,
        properties: impl Serialize,
    ) -> Result<(), RenderError> {
        self.declare_companion_after(item, suffix, token, properties, &[])
    }

    /// [`Self::declare_companion`], after the item's companions of these suffixes (S3 applies
    /// one bucket configuration at a time: a concurrent change fails with `OperationAborted`).
    pub(super) fn declare_companion_after(
        &mut self,
        item: &PlannedItem,
        suffix: &str,
        token: &'static str,
        properties: impl Serialize,
        after: &[&str],
    ) -> Result<(), RenderError> {
        let depends_on: Vec<String> = after.iter().map(|s| var(&format!("{}--{s}", item.id))).collect();
        let options = (!depends_on.is_empty()).then_some(Options {
            depends_on: Some(depends_on),
            ignore_changes: None,
            protect: None,
        });
        let resource = Resource { token, properties, options };
        let value = to_yaml(&resource).map_err(|e| unwritable(item, &e))?;
        let name = format!("{}--{suffix}", item.id);
        if token == ROLE_POLICY {
            self.policies.insert(item.id.to_string(), name.clone());
        }
        self.record(name.clone(), token, Some(item));
        self.resources.push((name, value));
        Ok(())
    }

    /// What depends on `item` waits for its companion `suffix` too (as for a role's policy):
    /// the ALB for its log bucket's policy, which ELB checks when logging is turned on.
    pub(super) fn guarded_by(&mut self, item: &PlannedItem, suffix: &str) {
        self.policies.insert(item.id.to_string(), format!("{}--{suffix}", item.id));
    }

    /// Declares a resource that is no item of the plan, under `id`, with `dependsOn` when given.
    pub(super) fn declare_other(
        &mut self,
        id: String,
        token: &'static str,
        properties: impl Serialize,
        depends_on: Vec<String>,
    ) -> Result<(), RenderError> {
        let options = (!depends_on.is_empty()).then_some(Options {
            depends_on: Some(depends_on),
            ignore_changes: None,
            protect: None,
        });
        let resource = Resource { token, properties, options };
        let value = to_yaml(&resource).map_err(|e| RenderError::Unsupported {
            item: id.clone(),
            kind: token.to_owned(),
            why: format!("its properties cannot be written: {e}"),
        })?;
        self.record(id.clone(), token, None);
        self.resources.push((id, value));
        Ok(())
    }

    /// Records a declared resource and the item it comes from.
    fn record(&mut self, name: String, token: &'static str, item: Option<&PlannedItem>) {
        let item = item.map(|i| i.id.to_string());
        self.declared.push(super::ProgramResource { name, token, item });
    }

    /// The item lacks `what`.
    pub(super) fn missing(&self, what: &str) -> RenderError {
        RenderError::Missing { item: self.current.clone(), what: what.to_owned() }
    }
}

/// An item this renderer cannot declare.
pub(super) fn unsupported(item: &PlannedItem, why: &str) -> RenderError {
    RenderError::Unsupported {
        item: item.id.to_string(),
        kind: item.kind().as_str().to_owned(),
        why: why.to_owned(),
    }
}

fn unwritable(item: &PlannedItem, error: &super::ser::Error) -> RenderError {
    unsupported(item, &format!("its properties cannot be written: {error}"))
}

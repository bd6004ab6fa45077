//! The secrets layout as lowering makes it: where each variable is placed in Infisical, the
//! credentials to generate, the connection variables (stack outputs, literals, templates) and
//! the SSM parameters items reference (resource variables and workload secrets).

use std::borrow::Borrow;
use std::cell::RefCell;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use compact_str::CompactString;
use runway_schema::Runway;

use super::cat;
use super::resources::Res;
use crate::plan::{
    ConnectionSource, ConnectionVariable, CredentialKind, DatabaseBootstrap, GeneratedSecret,
    InfisicalFolder, InfisicalPlace, ParameterSource, ParameterType, ParameterWriter, RegistryCopy,
    SecretsLayout, SsmParameter,
};

/// The owner of the alerts topic's endpoints' parameters and their Infisical folder's name.
pub(crate) const ALERTS_OWNER: &str = "_alerts";

/// The secrets layout of one environment, filled while it is lowered.
pub(in crate::lower) struct Layout {
    infisical_project: Option<CompactString>,
    /// The Infisical environment slug of this environment, shared by every place.
    infisical_env: Arc<str>,
    /// SSM parameter prefix of this environment (`/acme-shop/dev`).
    pub(in crate::lower) ssm_prefix: CompactString,
    /// The prefix and the `/` after it, joined once: every parameter's name starts with it.
    ssm_head: CompactString,
    /// SSM KMS key: `secrets.ssm.kmsKey`, or the environment's own key's alias.
    pub(in crate::lower) kms_key: CompactString,
    /// The key is the environment's own (`secrets.ssm.kmsKey` names none).
    pub(in crate::lower) own_key: bool,
    generated: Vec<GeneratedSecret>,
    /// The position among its resource's variables of each resource's generated credential,
    /// by resource position: what `secrets prepare` writes, told apart by key, not by name
    /// (a `u32`, as a [`Key`] holds it: 8 bytes a resource, not 16).
    generated_at: Vec<Option<u32>>,
    registry_copies: Vec<RegistryCopy>,
    /// The Infisical folder template (`secrets.infisical.path`, `{resource}` in it).
    folder_template: CompactString,
    connection: Vec<ConnectionVariable>,
    ssm: SsmParams,
    /// The bootstraps of the postgres resources' roles.
    pub(in crate::lower) bootstraps: Vec<DatabaseBootstrap>,
    /// The last login folder made, by resource position and consumer: a login's places are
    /// asked for one after another, and share one folder text.
    last_login_folder: RefCell<Option<(usize, CompactString, Arc<InfisicalFolder>)>>,
}

impl Layout {
    /// The empty layout of environment `env_name`, with room for `variables` connection
    /// variables.
    pub(in crate::lower) fn new(root: &Runway, env_name: &str, variables: usize) -> Self {
        let infisical = root.secrets.infisical.as_ref();
        let ssm_prefix: CompactString = root.secrets.ssm.prefix_for(&root.product, env_name).into();
        let kms_key: CompactString = root.secrets.ssm.kms_key.as_deref().map_or_else(
            || runway_schema::Ssm::environment_key_alias(&root.product, env_name).into(),
            Into::into,
        );
        Layout {
            infisical_project: infisical.map(|i| i.project.as_str().into()),
            infisical_env: super::resources::infisical_env(root, env_name),
            ssm_head: cat(&[&ssm_prefix, "/"]),
            ssm_prefix,
            kms_key,
            own_key: root.secrets.ssm.kms_key.is_none(),
            generated: Vec::new(),
            generated_at: Vec::new(),
            registry_copies: Vec::new(),
            folder_template: infisical
                .map_or(runway_schema::DEFAULT_INFISICAL_PATH, |i| i.path.as_str())
                .into(),
            connection: Vec::with_capacity(variables),
            ssm: SsmParams::default(),
            bootstraps: Vec::new(),
            last_login_folder: RefCell::new(None),
        }
    }

    /// Room for `parameters` SSM parameters in all (an estimate made before lowering).
    pub(in crate::lower) fn reserve_parameters(&mut self, parameters: usize) {
        self.ssm.list.reserve_exact(parameters);
        self.ssm.at.reserve(parameters);
    }

    /// Room for `generated` credentials and `bootstraps` database bootstraps (counted before
    /// lowering: grown by doubling, these lists of large records were copied again and again).
    pub(in crate::lower) fn reserve_generated(
        &mut self,
        resources: usize,
        generated: usize,
        bootstraps: usize,
    ) {
        self.generated.reserve_exact(generated);
        self.generated_at.reserve_exact(resources);
        self.bootstraps.reserve_exact(bootstraps);
    }

    /// Does the environment have an SSM parameter (which its key encrypts)?
    pub(in crate::lower) fn has_parameters(&self) -> bool {
        !self.ssm.list.is_empty()
    }

    /// The key Secrets Manager secrets `secrets prepare` writes are encrypted with: the SSM
    /// key, unless it is an AWS managed key (`alias/aws/...`, which Secrets Manager cannot use:
    /// its own managed key then).
    fn secrets_manager_key(&self) -> Option<CompactString> {
        let aws_managed = self.kms_key.starts_with("alias/aws/") || self.kms_key.contains(":alias/aws/");
        (!aws_managed).then(|| self.kms_key.clone())
    }

    /// How many connection variables it has.
    pub(in crate::lower) fn variable_count(&self) -> usize {
        self.connection.len()
    }

    /// Where variable `name` of resource `r` is written in Infisical.
    pub(in crate::lower) fn place(&self, r: &Res, name: CompactString) -> InfisicalPlace {
        InfisicalPlace { at: Arc::clone(&r.folder), name }
    }

    /// The display form of the resource's Infisical folder, `<infisical-env>:<folder>`.
    pub(in crate::lower) fn folder_display(&self, r: &Res) -> CompactString {
        // What `InfisicalPlace::display` gives, joined (not formatted) without a place made.
        cat(&[&self.infisical_env, ":", &r.folder.folder])
    }

    /// The SSM parameter name of `owner`'s variable: `<prefix>/<owner>/<var>`, one text its
    /// readers share.
    pub(in crate::lower) fn ssm_name(&self, owner: &str, var: &str) -> Arc<str> {
        shared(&[&self.ssm_head, owner, "/", var])
    }

    /// A credential of the resource to generate, its `PASSWORD` variable; `proxy_copy` names
    /// the Secrets Manager secret it is also copied to (postgres) and the user written with it.
    pub(in crate::lower) fn generated(
        &mut self,
        r: &Res,
        kind: CredentialKind,
        proxy_copy: Option<(CompactString, CompactString)>,
    ) {
        let (secrets_manager, secrets_manager_username) = proxy_copy.unzip();
        self.mark_generated(r);
        self.generated.push(GeneratedSecret {
            resource: r.name.clone(),
            kind,
            consumer: None,
            variable: r.var("PASSWORD"),
            infisical: self.place(r, r.var("PASSWORD")),
            secrets_manager,
            secrets_manager_username,
        });
    }

    /// Records that resource `r`'s `PASSWORD` is generated: its parameters (its own and its
    /// logins') are written by `secrets prepare`.
    fn mark_generated(&mut self, r: &Res) {
        if self.generated_at.len() <= r.index {
            self.generated_at.resize(r.index + 1, None);
        }
        self.generated_at[r.index] = r.var_index("PASSWORD").map(at);
    }

    /// The folder of consumer `consumer`'s own variables of resource `r` (a postgres login):
    /// `<folder>/<consumer>`, the same text as the last time it was asked for.
    pub(in crate::lower) fn login_folder(&self, r: &Res, consumer: &str) -> Arc<InfisicalFolder> {
        Self::login_folder_in(&self.last_login_folder, r, consumer)
    }

    /// [`Layout::login_folder`], remembered in `last` (a field borrowed apart from the rest).
    fn login_folder_in(
        last: &RefCell<Option<(usize, CompactString, Arc<InfisicalFolder>)>>,
        r: &Res,
        consumer: &str,
    ) -> Arc<InfisicalFolder> {
        let mut last = last.borrow_mut();
        if let Some((index, name, folder)) = last.as_ref()
            && *index == r.index
            && name == consumer
        {
            return Arc::clone(folder);
        }
        let folder = InfisicalFolder::shared(
            Arc::clone(&r.folder.environment),
            cat(&[&r.folder.folder, "/", consumer]),
        );
        *last = Some((r.index, consumer.into(), Arc::clone(&folder)));
        folder
    }

    /// The display form of consumer `consumer`'s own folder of resource `r`.
    pub(in crate::lower) fn login_folder_display(&self, r: &Res, consumer: &str) -> CompactString {
        // `InfisicalPlace::display` of its place, joined (not formatted).
        cat(&[&self.infisical_env, ":", &r.folder.folder, "/", consumer])
    }

    /// The SSM parameter name of consumer `consumer`'s own variable of resource `resource`:
    /// `<prefix>/<resource>/<consumer>/<var>` (no owner's name holds a `/`, so it is no other
    /// parameter's).
    pub(in crate::lower) fn login_ssm_name(&self, resource: &str, consumer: &str, var: &str) -> Arc<str> {
        shared(&[&self.ssm_head, resource, "/", consumer, "/", var])
    }

    /// The password of consumer `consumer`'s login role `role` of resource `r`, in its own
    /// folder `folder` ([`Layout::login_folder`]), copied to the Secrets Manager secret
    /// `proxy_secret` the proxy authenticates the role with.
    pub(in crate::lower) fn generated_login(
        &mut self,
        r: &Res,
        (consumer, folder): (&str, &Arc<InfisicalFolder>),
        role: &str,
        proxy_secret: CompactString,
    ) {
        // The logins' parameters are `secrets prepare`'s, a preview's too (it generates no
        // admin password that would say so).
        self.mark_generated(r);
        let password = r.var("PASSWORD");
        self.generated.push(GeneratedSecret {
            resource: r.name.clone(),
            kind: CredentialKind::PostgresLoginPassword,
            consumer: Some(consumer.into()),
            variable: password.clone(),
            infisical: InfisicalPlace { at: Arc::clone(folder), name: password },
            secrets_manager: Some(proxy_secret),
            secrets_manager_username: Some(role.into()),
        });
    }

    /// A connection variable of consumer `consumer`'s login of resource `r`, in its own folder
    /// `folder` ([`Layout::login_folder`], joined once per login by the caller).
    pub(in crate::lower) fn login_connection(
        &mut self,
        r: &Res,
        (consumer, folder): (&str, &Arc<InfisicalFolder>),
        var: CompactString,
        source: ConnectionSource,
    ) {
        let infisical = InfisicalPlace { at: Arc::clone(folder), name: var };
        self.connection.push(ConnectionVariable {
            resource: r.name.clone(),
            consumer: Some(consumer.into()),
            infisical,
            source,
        });
    }

    /// Records that item `by` references the SSM parameter `name` of the variable at position
    /// `var` of the login of the consumer at position `index` among the consumers (named
    /// `consumer`) on resource `r`, copied from the login's folder.
    pub(in crate::lower) fn login_parameter(
        &mut self,
        r: &Res,
        (index, consumer): (usize, &str),
        var: usize,
        (name, by): (&Arc<str>, &str),
    ) {
        let variable = &r.vars[var];
        let last = &self.last_login_folder;
        self.ssm.reference(Key::Login(at(r.index), at(index), at(var)), by, || SsmParameter {
            name: Arc::clone(name),
            variable: variable.clone(),
            source: ParameterSource::Resource,
            written_by: ParameterWriter::Program,
            owner: r.name.clone(),
            consumer: Some(consumer.into()),
            infisical: Some(InfisicalPlace {
                at: Self::login_folder_in(last, r, consumer),
                name: variable.clone(),
            }),
            referenced_by: Box::default(),
            r#type: ParameterType::SecureString,
        });
    }

    /// The registry credentials of workload `workload` to copy to the Secrets Manager secret
    /// `secrets_manager` (the item `item`): `<name>_USERNAME` and `<name>_PASSWORD` of the
    /// workload's Infisical folder.
    pub(in crate::lower) fn registry_copy(
        &mut self,
        workload: &str,
        (item, secrets_manager): (CompactString, CompactString),
        name: &str,
    ) {
        let folder = self.workload_folder(workload);
        let place = |suffix: &str| InfisicalPlace { at: Arc::clone(&folder), name: cat(&[name, suffix]) };
        let (username, password) = (place("_USERNAME"), place("_PASSWORD"));
        self.registry_copies.push(RegistryCopy {
            workload: workload.into(),
            item,
            secrets_manager,
            username,
            password,
        });
    }

    /// A connection variable filled from the stack output of the same name.
    pub(in crate::lower) fn output(&mut self, r: &Res, var: CompactString) {
        self.connection(r, var.clone(), ConnectionSource::Output { output: var });
    }

    /// A connection variable of a value the plan knows.
    pub(in crate::lower) fn literal(&mut self, r: &Res, var: CompactString, value: CompactString) {
        self.connection(r, var, ConnectionSource::Literal { value });
    }

    /// A connection variable built by Infisical from the resource's other variables.
    pub(in crate::lower) fn template(&mut self, r: &Res, var: CompactString, template: CompactString) {
        self.connection(r, var, ConnectionSource::Template { template });
    }

    fn connection(&mut self, r: &Res, var: CompactString, source: ConnectionSource) {
        let infisical = self.place(r, var);
        self.connection.push(ConnectionVariable {
            resource: r.name.clone(),
            consumer: None,
            infisical,
            source,
        });
    }

    /// Puts the resource's connection variables, those from `first` on, in the spec's
    /// variable order, the resource's own first, then each login's in the order made (stable:
    /// resources stay in resource order).
    pub(in crate::lower) fn order_variables(&mut self, r: &Res, first: usize) {
        let mut logins: Vec<CompactString> = Vec::new();
        let mut keys = Vec::with_capacity(self.connection.len() - first);
        for c in &self.connection[first..] {
            let group = match &c.consumer {
                None => 0,
                Some(consumer) => match logins.iter().position(|l| l == consumer) {
                    Some(i) => i + 1,
                    None => {
                        logins.push(consumer.clone());
                        logins.len()
                    }
                },
            };
            keys.push((group, r.vars.iter().position(|v| *v == c.infisical.name).unwrap_or(usize::MAX)));
        }
        let mut keyed: Vec<_> = keys.into_iter().zip(self.connection.drain(first..)).collect();
        keyed.sort_by_key(|(k, _)| *k);
        self.connection.extend(keyed.into_iter().map(|(_, c)| c));
    }

    /// Records that item `by` references the SSM parameter `name` of the resource's variable at
    /// position `var`, copied from its Infisical place.
    pub(in crate::lower) fn resource_parameter(&mut self, r: &Res, var: usize, name: &Arc<str>, by: &str) {
        let variable = &r.vars[var];
        self.ssm.reference(Key::Resource(at(r.index), at(var)), by, || SsmParameter {
            name: Arc::clone(name),
            variable: variable.clone(),
            source: ParameterSource::Resource,
            // Until the layout is finished and knows which variables are generated.
            written_by: ParameterWriter::Program,
            owner: r.name.clone(),
            consumer: None,
            infisical: Some(InfisicalPlace { at: Arc::clone(&r.folder), name: variable.clone() }),
            referenced_by: Box::default(),
            r#type: ParameterType::SecureString,
        });
    }

    /// Records that item `by` references the SSM parameter `param` of secret `secret` (at position
    /// `index` of its list) of the workload at position `workload`: people set it in the
    /// workload's Infisical folder, `secrets prepare` copies it (as it copies registry
    /// credentials from the same folder).
    pub(in crate::lower) fn workload_parameter(
        &mut self,
        (workload, name): (usize, &str),
        (index, secret, param): (usize, &str, &Arc<str>),
        by: &str,
    ) {
        let (environment, template) = (&self.infisical_env, &self.folder_template);
        // The place is made with the parameter, the first time it is referenced.
        let place = || InfisicalPlace { at: folder_of(environment, template, name), name: secret.into() };
        self.ssm.reference(Key::Workload(at(workload), at(index)), by, || SsmParameter {
            name: Arc::clone(param),
            variable: secret.into(),
            source: ParameterSource::WorkloadSecret,
            written_by: ParameterWriter::SecretsPrepare,
            owner: name.into(),
            consumer: None,
            infisical: Some(place()),
            referenced_by: Box::default(),
            r#type: ParameterType::SecureString,
        });
    }

    /// The Infisical folder of workload `workload` (see [`folder_of`]).
    fn workload_folder(&self, workload: &str) -> Arc<InfisicalFolder> {
        folder_of(&self.infisical_env, &self.folder_template, workload)
    }

    /// The SSM parameter of the alerts topic's HTTPS endpoint `name` (at position `index` of
    /// `alerts.https`), read by item `by`: `<prefix>/_alerts/<NAME>`, copied by `secrets
    /// prepare` from the Infisical folder of [`ALERTS_OWNER`] (`_` keeps both apart from every
    /// resource's and workload's, whose names have none).
    pub(in crate::lower) fn alert_parameter(&mut self, index: usize, name: &str, by: &str) -> Arc<str> {
        let param = self.ssm_name(ALERTS_OWNER, name);
        let place = InfisicalPlace { at: self.workload_folder(ALERTS_OWNER), name: name.into() };
        self.ssm.reference(Key::Alert(at(index)), by, || SsmParameter {
            name: param.clone(),
            variable: name.into(),
            source: ParameterSource::AlertEndpoint,
            written_by: ParameterWriter::SecretsPrepare,
            owner: ALERTS_OWNER.into(),
            consumer: None,
            infisical: Some(place),
            referenced_by: Box::default(),
            r#type: ParameterType::SecureString,
        });
        param
    }

    /// The finished layout: a resource variable's parameter is written by `secrets prepare`
    /// when the variable is a generated credential, by the program otherwise (a connection
    /// variable: the program knows every part of its value once the resources exist).
    pub(in crate::lower) fn into_layout(mut self) -> SecretsLayout {
        // In hash order: each entry sets its own parameter's writer, whatever the order.
        for &Slot { key, at } in &self.ssm.at {
            if let Key::Resource(resource, var) | Key::Login(resource, _, var) = key
                && self.generated_at.get(resource as usize).copied().flatten() == Some(var)
            {
                self.ssm.list[at as usize].written_by = ParameterWriter::SecretsPrepare;
            }
        }
        drop(std::mem::take(&mut self.ssm.at));
        let secrets_manager_key = self.secrets_manager_key();
        SecretsLayout {
            infisical_project: self.infisical_project,
            ssm_prefix: self.ssm_prefix,
            secrets_manager_key,
            kms_key: self.kms_key,
            generated: self.generated,
            registry_copies: self.registry_copies,
            connection: self.connection,
            ssm_parameters: self.ssm.into_sorted(),
            bootstraps: self.bootstraps,
        }
    }
}

/// The Infisical folder of workload `workload` in environment `environment`: the folder
/// template (`secrets.infisical.path`) with the workload in place of `{resource}`, where people
/// set its registry credentials and its own secrets.
fn folder_of(environment: &Arc<str>, template: &str, workload: &str) -> Arc<InfisicalFolder> {
    InfisicalFolder::shared(Arc::clone(environment), super::resources::fill(template, workload))
}

/// `parts` joined ([`cat`]) as one shared text.
fn shared(parts: &[&str]) -> Arc<str> {
    Arc::from(cat(parts).as_str())
}

/// An SSM parameter by its owner's and its variable's positions: a resource's variable, or a
/// workload's own secret. Positions are `u32` (see [`at`]): 16 bytes a key, not 32, in an
/// index of tens of thousands held until the layout is finished.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Resource(u32, u32),
    Workload(u32, u32),
    /// An HTTPS endpoint of the alerts topic, by its position in `alerts.https`.
    Alert(u32),
    /// A consumer's own login of a postgres resource: (resource, consumer, variable), the
    /// consumer by its position among the consumers (workloads first, so a workload's is its
    /// position among the workloads).
    Login(u32, u32, u32),
}

impl Hash for Key {
    /// Its variant and positions as one 128-bit number, hashed at once (seventh pass: the
    /// derived hash's four writes, not inlined behind the set's slots, were 1.5 M instructions
    /// of `plan_all` at N = 1,000). Two keys of one number are the same key.
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        let (tag, a, b, c) = match *self {
            Key::Resource(a, b) => (0u128, a, b, 0),
            Key::Workload(a, b) => (1, a, b, 0),
            Key::Alert(a) => (2, a, 0, 0),
            Key::Login(a, b, c) => (3, a, b, c),
        };
        state.write_u128(tag << 96 | u128::from(a) << 64 | u128::from(b) << 32 | u128::from(c));
    }
}

/// An SSM parameter's position in the list, hashed and compared by its [`Key`] alone: the set
/// of them finds a position by key.
#[derive(Clone, Copy)]
struct Slot {
    key: Key,
    at: u32,
}

impl PartialEq for Slot {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for Slot {}

impl Hash for Slot {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key.hash(state);
    }
}

impl Borrow<Key> for Slot {
    #[inline]
    fn borrow(&self) -> &Key {
        &self.key
    }
}

/// A position in a list of the product (resources, consumers, variables) as a [`Key`] holds
/// it. No product has 2^32 of anything (its records alone would not fit in memory).
fn at(position: usize) -> u32 {
    u32::try_from(position).unwrap_or(u32::MAX)
}

/// The SSM parameters of a plan, each made once, in the order first referenced; the plan lists
/// them by name. A parameter is found by its [`Key`] rather than by its name
/// `<prefix>/<owner>/<variable>`: owner names are unique and never hold a `/`, so the key names
/// it exactly as its name does, and no name is compared.
#[derive(Default)]
struct SsmParams {
    list: Vec<SsmParameter>,
    /// foldhash with a fixed seed, not SipHash: lookups only (4% of planning was SipHash), and no
    /// per-process randomness in the core: the same input takes the same path every run. A
    /// set of [`Slot`]s (`u32` positions found by key), not an `IndexMap` of `usize`s: 20 bytes
    /// an entry, not 32 and its index's 8 (seventh pass: 2.4 MB at planning's peak, N = 10,000,
    /// now 1.4 MB); its one walk ([`Layout::into_layout`]) does not depend on its order.
    at: HashSet<Slot, foldhash::fast::FixedState>,
}

impl SsmParams {
    /// Records that item `by` references the parameter `key`, making it on first use.
    fn reference(&mut self, key: Key, by: &str, make: impl FnOnce() -> SsmParameter) {
        match self.at.get(&key) {
            Some(slot) => {
                // A boxed list, one longer: room for exactly its readers (a `Vec` grown by
                // pushes held room for four, 0.5 MB never used at N = 10,000).
                let readers = &mut self.list[slot.at as usize].referenced_by;
                let mut list = std::mem::take(readers).into_vec();
                list.reserve_exact(1);
                list.push(by.into());
                *readers = list.into_boxed_slice();
            }
            None => {
                let mut p = make();
                p.referenced_by = Box::new([by.into()]);
                self.at.insert(Slot { key, at: at(self.list.len()) });
                self.list.push(p);
            }
        }
    }

    /// The parameters by name, sorted in place: a sorted copy would be held beside the list, the
    /// largest transient of a large plan (6 MB of peak RSS at N = 10,000). Names are unique.
    fn into_sorted(self) -> Vec<SsmParameter> {
        let mut list = self.list;
        // Reserved for an upper bound (exact for a declared environment, above it for a preview,
        // whose shared instances' admin passwords are not its own): no room is held by the plan.
        list.shrink_to_fit();
        // The positions are sorted by name, then each record is moved to its place once:
        // sorting the records themselves moved each of them about log n times.
        let order: Vec<usize> = {
            // Every name starts with the environment's prefix: compared after what all share,
            // by the next 16 bytes as one number first (fifth pass: most comparisons end there,
            // without a byte comparison of two texts). Sixth pass: a 32-byte key (two numbers),
            // a stable sort and a comparison of the texts after their first 16 bytes each cost
            // more than this (moves and branches).
            let skip = shared_head(list.iter().map(|p| &*p.name));
            let mut keyed: Vec<(u128, &str, usize)> = list
                .iter()
                .zip(0..)
                .map(|(p, at)| (head_key(p.name[skip..].as_bytes()), &p.name[skip..], at))
                .collect();
            keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
            keyed.into_iter().map(|(_, _, at)| at).collect()
        };
        permute(&mut list, order);
        list
    }
}

/// How many bytes every one of `names` starts with alike (a byte count on a character
/// boundary: a cut inside a character is moved back to its start).
fn shared_head<'a>(mut names: impl Iterator<Item = &'a str>) -> usize {
    let Some(first) = names.next() else { return 0 };
    let mut len = first.len();
    for n in names {
        // Nearly always already shared: one comparison a name.
        if !n.as_bytes().starts_with(&first.as_bytes()[..len]) {
            len = first.as_bytes()[..len].iter().zip(n.as_bytes()).take_while(|(a, b)| a == b).count();
        }
    }
    while !first.is_char_boundary(len) {
        len -= 1;
    }
    len
}

/// The first 16 bytes of `text` as a number that orders as they do (big-endian, a shorter text
/// padded with zero bytes): two texts of different numbers compare as their numbers; equal
/// numbers leave the texts to compare.
fn head_key(text: &[u8]) -> u128 {
    let mut head = [0u8; 16];
    let n = text.len().min(16);
    head[..n].copy_from_slice(&text[..n]);
    u128::from_be_bytes(head)
}

/// Puts `list` in `order` (`order[i]`: the position in `list` of the element that goes to
/// `i`; a permutation), in place: each cycle of the permutation is followed once, one swap per
/// element moved.
fn permute<T>(list: &mut [T], mut order: Vec<usize>) {
    for start in 0..order.len() {
        let mut at = start;
        loop {
            let from = order[at];
            // Done: the element at `at` is in its place.
            order[at] = at;
            if from == start || from == at {
                break;
            }
            list.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(name: &str) -> SsmParameter {
        SsmParameter {
            name: name.into(),
            variable: "V".into(),
            source: ParameterSource::Resource,
            written_by: ParameterWriter::Program,
            owner: "o".into(),
            consumer: None,
            infisical: None,
            referenced_by: Box::default(),
            r#type: ParameterType::SecureString,
        }
    }

    #[test]
    fn ssm_parameters_come_out_by_name_each_once_with_every_reference() {
        // Names first referenced out of order, some again, in cycles of several lengths.
        let names = ["/p/e/f", "/p/e/b", "/p/e/a", "/p/e/e", "/p/e/c", "/p/e/d", "/p/e/b-1", "/p/e/a/X"];
        let mut ssm = SsmParams::default();
        for (i, n) in names.iter().enumerate() {
            ssm.reference(Key::Resource(at(i), 0), &format!("item{i}"), || param(n));
        }
        ssm.reference(Key::Resource(2, 0), "again", || panic!("made twice"));
        let list = ssm.into_sorted();
        let got: Vec<&str> = list.iter().map(|p| &*p.name).collect();
        let mut want = names.to_vec();
        want.sort_unstable();
        assert_eq!(got, want);
        let a = list.iter().find(|p| *p.name == *"/p/e/a").unwrap();
        assert_eq!(*a.referenced_by, ["item2", "again"]);
    }

    #[test]
    fn permute_puts_each_element_where_the_order_says() {
        // Permutations of one long cycle, many short ones, fixed points, and none at all.
        for (n, step, shift) in [(50, 7, 3), (48, 12, 0), (48, 1, 0), (10, 3, 9), (1, 1, 0), (0, 1, 0)] {
            let order: Vec<usize> = if n == 48 && step == 12 {
                (0..n).map(|i| i ^ 1).collect()
            } else {
                (0..n).map(|i| (i * step + shift) % n).collect()
            };
            let mut list: Vec<usize> = (100..100 + n).collect();
            permute(&mut list, order.clone());
            let want: Vec<usize> = order.iter().map(|&from| 100 + from).collect();
            assert_eq!(list, want, "n = {n}, step = {step}");
        }
    }

    #[test]
    fn ssm_order_is_by_whole_name() {
        // Ties on the 16 bytes after the shared prefix, a name that is a prefix of another,
        // a byte below `/`, names that share no prefix at all, and multi-byte text.
        for names in [
            &["/p/e/queue-1234567890123/B", "/p/e/queue-1234567890123/A", "/p/e/queue-1234567890123"][..],
            &[
                "/p/e/aaaaaaaaaaaaaaaaZ",
                "/p/e/aaaaaaaaaaaaaaaa",
                "/p/e/aaaaaaaaaaaaaaaa-",
                "/p/e/aaaaaaaaaaaaaaa",
            ],
            &["/x/db/URL", "/a/db/URL", "/x/db", "/x/d\u{e9}/URL", "/x/d\u{e8}/URL"],
            // Texts that differ only in zero bytes, where the 16-byte number pads with them.
            &["/p/e/a\0", "/p/e/a", "/p/e/a\0\0", "/p/e/a\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"],
            // Ties on the first 32 bytes too, and a name ending at byte 16 or 32 of the rest.
            &[
                "/p/e/db-12345678/svc-12345678/DB_12345678_URL",
                "/p/e/db-12345678/svc-12345678/DB_12345678_HOST",
                "/p/e/db-12345678/svc-12345678/DB_12345678",
                "/p/e/db-12345678/svc-12345678/DB",
                "/p/e/db-12345678/svc-1234567",
                "/p/e/db-12345678/svc-12345678/D\u{e9}",
                "/p/e/db-12345678/svc-12345678/DB_12345678_DATABASE",
            ],
            &["/p/e/a", "/p/e/a"],
            &["/p/e/only"],
        ] {
            let mut ssm = SsmParams::default();
            for (i, n) in names.iter().enumerate() {
                ssm.reference(Key::Resource(at(i), 0), "item", || param(n));
            }
            let list = ssm.into_sorted();
            let got: Vec<&str> = list.iter().map(|p| &*p.name).collect();
            let mut want = names.to_vec();
            want.sort_unstable();
            assert_eq!(got, want);
        }
    }
}

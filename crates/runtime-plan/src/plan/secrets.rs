//! The secrets layout of a plan: Infisical places, generated credentials, connection
//! variables and SSM parameters. Names and places only, never a value.

use std::sync::Arc;

use compact_str::CompactString;
use serde::Serialize;

/// A folder of one Infisical environment: the environment slug and the folder's path, one
/// record shared (`Arc`) by every [`InfisicalPlace`] in the folder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InfisicalFolder {
    /// Infisical environment slug: one text for the whole plan.
    pub environment: Arc<str>,
    /// Folder (`/runtime/main-db`).
    pub folder: CompactString,
}

impl InfisicalFolder {
    /// A shared folder of environment `environment`.
    pub fn shared(environment: Arc<str>, folder: impl Into<CompactString>) -> Arc<InfisicalFolder> {
        Arc::new(InfisicalFolder { environment, folder: folder.into() })
    }
}

/// A place in Infisical: a name in a folder.
///
/// A plan has about a hundred thousand places, in some tens of thousands of folders of one
/// environment: a place holds its folder by reference (`Arc`, 8 bytes) and its name, 32 bytes
/// in all (56 when it held the environment's and the folder's texts itself, 2.3 MB more at
/// N = 10,000). It reads as its folder (`place.environment`, `place.folder`: [`Deref`]) and
/// serializes as `{"environment", "folder", "name"}`.
///
/// [`Deref`]: std::ops::Deref
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InfisicalPlace {
    /// The environment and folder it is in.
    pub at: Arc<InfisicalFolder>,
    /// Secret name (`MAIN_DB_PASSWORD`).
    pub name: CompactString,
}

impl InfisicalPlace {
    /// The display form `<env>:<folder>`.
    pub fn display(&self) -> String {
        format!("{}:{}", self.environment, self.folder)
    }
}

impl std::ops::Deref for InfisicalPlace {
    type Target = InfisicalFolder;

    fn deref(&self) -> &InfisicalFolder {
        &self.at
    }
}

/// The JSON of a place, as it always was.
#[derive(Serialize)]
struct PlaceJson<'a> {
    environment: &'a str,
    folder: &'a str,
    name: &'a str,
}

impl Serialize for InfisicalPlace {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        PlaceJson { environment: &self.at.environment, folder: &self.at.folder, name: &self.name }
            .serialize(s)
    }
}

/// What a generated credential is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CredentialKind {
    /// The postgres admin password (also copied to Secrets Manager for RDS Proxy); only the
    /// bootstrap of the database's roles logs in with it.
    PostgresAdminPassword,
    /// The password of a consumer's own postgres login role (also copied to Secrets Manager for
    /// RDS Proxy, under the role's name).
    PostgresLoginPassword,
    /// The Valkey AUTH token.
    CacheAuthToken,
}

/// A credential the secrets adapter generates and writes blind. Names and places, no value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GeneratedSecret {
    /// The resource it belongs to.
    pub resource: CompactString,
    /// What it is.
    pub kind: CredentialKind,
    /// The consumer whose login role it is the password of ([`CredentialKind::PostgresLoginPassword`]
    /// only; left out of JSON otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumer: Option<CompactString>,
    /// The variable name (`MAIN_DB_PASSWORD`).
    pub variable: CompactString,
    /// Where it is written in Infisical.
    pub infisical: InfisicalPlace,
    /// Secrets Manager secret name of the proxy copy (`<product>/<env>/<resource>/proxy-admin`),
    /// postgres only.
    pub secrets_manager: Option<CompactString>,
    /// The admin user name written with the password into the Secrets Manager copy
    /// (`{"username", "password"}`, as RDS Proxy reads it); postgres only.
    pub secrets_manager_username: Option<CompactString>,
}

/// A workload's registry credentials `secrets prepare` copies: two secrets people set in
/// Infisical, written together to a Secrets Manager secret as `{"username", "password"}` (what
/// ECS reads for `repositoryCredentials`). Names and places, no value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RegistryCopy {
    /// The workload.
    pub workload: CompactString,
    /// Logical id of its registry secret item.
    pub item: CompactString,
    /// The Secrets Manager secret name (`<product>/<env>/<workload>/registry-credentials`).
    pub secrets_manager: CompactString,
    /// Where people set the user name (`<NAME>_USERNAME` in the workload's folder).
    pub username: InfisicalPlace,
    /// Where people set the password or token (`<NAME>_PASSWORD`).
    pub password: InfisicalPlace,
}

/// Where a non-generated connection variable's value comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "from")]
pub enum ConnectionSource {
    /// A stack output of the emitted program (see [`PlannedOutput`](super::PlannedOutput)).
    Output {
        /// Output name (equal to the variable name).
        output: CompactString,
    },
    /// A value the plan knows (a port, a database name, a region).
    Literal {
        /// The value (never a secret).
        value: CompactString,
    },
    /// A string built from other variables of the same Infisical folder with Infisical
    /// references (`postgresql://${MAIN_DB_USER}:${MAIN_DB_PASSWORD}@...`).
    Template {
        /// The template, written as is; Infisical expands the references.
        template: CompactString,
    },
}

/// A connection variable `secrets publish` writes to Infisical (not a generated credential).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionVariable {
    /// The resource.
    pub resource: CompactString,
    /// The consumer whose login it belongs to (a postgres consumer's own variables, in its own
    /// folder; left out of JSON otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumer: Option<CompactString>,
    /// Where it is written.
    pub infisical: InfisicalPlace,
    /// Where the value comes from.
    pub source: ConnectionSource,
}

/// Who sets an SSM parameter's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ParameterSource {
    /// A resource variable, copied from Infisical (sync or `runway ssm publish`).
    Resource,
    /// A workload's own secret: people set it in Infisical, in the workload's folder, and
    /// `runway secrets prepare` (then `runway ssm publish`) copies it.
    WorkloadSecret,
    /// An HTTPS endpoint of the alerts topic (`alerts.https`), set by people in Infisical.
    AlertEndpoint,
}

/// Who writes an SSM parameter, and so when it exists: every parameter a task reads must exist
/// before the task's service starts (docs/pipeline.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ParameterWriter {
    /// `runway secrets prepare`, before `pulumi up`, copying from Infisical: a generated
    /// credential, a workload's own secret people set there ([`ParameterSource::WorkloadSecret`]),
    /// or an alerts endpoint ([`ParameterSource::AlertEndpoint`]); unset, a person's value stops
    /// `prepare` with exit 1 naming its place. `runway ssm publish` copies it again after a
    /// change in Infisical.
    SecretsPrepare,
    /// The emitted program, from the resources' outputs, before the services that read it: a
    /// connection variable (a stack output, a value the plan knows, or a template composed with
    /// the credentials `secrets prepare` wrote). `runway ssm publish` leaves it alone; its value
    /// equals what `secrets publish` writes to Infisical.
    Program,
}

impl ParameterWriter {
    /// As shown (`secrets prepare`, `the program`).
    pub fn words(self) -> &'static str {
        match self {
            ParameterWriter::SecretsPrepare => "secrets prepare",
            ParameterWriter::Program => "the program",
        }
    }
}

/// An SSM SecureString parameter something in the plan references.
///
/// Every parameter of a plan is encrypted with the plan's key, [`SecretsLayout::kms_key`]: the
/// record holds no copy of it (16 bytes each, 0.7 MB at N = 10,000), and the plan's JSON writes
/// it in each parameter (`kmsKey`, last), as it always has. So a parameter serializes only
/// within its [`SecretsLayout`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SsmParameter {
    /// Full parameter name (`/acme-shop/dev/main-db/MAIN_DB_URL`): always longer than a
    /// [`CompactString`] holds inline, so one text (`Arc<str>`) shared with the bindings, task
    /// definitions and grants that name it.
    pub name: Arc<str>,
    /// The variable name (`MAIN_DB_URL`) or the workload secret's name.
    pub variable: CompactString,
    /// Resource variable or workload secret.
    pub source: ParameterSource,
    /// Who writes it, and so when it exists.
    pub written_by: ParameterWriter,
    /// The resource (for resource variables) or the workload (for its own secrets).
    pub owner: CompactString,
    /// The consumer whose login of the resource it belongs to (a postgres consumer's own
    /// variables, `<prefix>/<resource>/<consumer>/<VAR>`; left out of JSON otherwise).
    pub consumer: Option<CompactString>,
    /// Infisical place the value is copied from: a resource variable's, or a workload secret's
    /// in the workload's folder (`<infisical-env>:/runtime/<workload>/<NAME>`), where people set it.
    pub infisical: Option<InfisicalPlace>,
    /// Logical ids of the items that reference it (task definitions, a cache's AUTH token): a
    /// boxed list, as it never grows once planned (8 bytes less than a `Vec`, and no room
    /// unused).
    pub referenced_by: Box<[CompactString]>,
    /// Always `SecureString` ([`SECURE_STRING`]): a type of one value, which the record holds
    /// in no byte.
    pub r#type: ParameterType,
}

/// The JSON of an [`SsmParameter`] with the plan's key, as it always was.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ParameterJson<'a> {
    name: &'a str,
    variable: &'a str,
    source: ParameterSource,
    written_by: ParameterWriter,
    owner: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    consumer: Option<&'a str>,
    infisical: &'a Option<InfisicalPlace>,
    referenced_by: &'a [CompactString],
    r#type: ParameterType,
    kms_key: &'a str,
}

/// A layout's parameters, each written with the layout's key.
struct ParametersJson<'a> {
    list: &'a [SsmParameter],
    kms_key: &'a str,
}

impl Serialize for ParametersJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.list.iter().map(|p| ParameterJson {
            name: &p.name,
            variable: &p.variable,
            source: p.source,
            written_by: p.written_by,
            owner: &p.owner,
            consumer: p.consumer.as_deref(),
            infisical: &p.infisical,
            referenced_by: &p.referenced_by,
            r#type: p.r#type,
            kms_key: self.kms_key,
        }))
    }
}

/// The type of every SSM parameter of a plan.
pub const SECURE_STRING: &str = "SecureString";

/// The type of an SSM parameter of a plan: only ever a SecureString (written as
/// [`SECURE_STRING`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum ParameterType {
    /// `SecureString`: encrypted with the plan's KMS key.
    #[default]
    SecureString,
}

impl ParameterType {
    /// As AWS names it (`SecureString`).
    pub fn as_str(self) -> &'static str {
        match self {
            ParameterType::SecureString => SECURE_STRING,
        }
    }
}

impl SsmParameter {
    /// The logical id the program declares it under when the program writes it
    /// (`main-db_ssm-MAIN_DB_URL`): no item's id, whose roles are lowercase words.
    pub fn program_id(&self) -> String {
        match &self.consumer {
            Some(consumer) => format!("{}_ssm-{consumer}-{}", self.owner, self.variable),
            None => format!("{}_ssm-{}", self.owner, self.variable),
        }
    }

    /// What its value is asked of a source by (`MAIN_DB_URL`, or `metabase/MAIN_DB_URL` for a
    /// consumer's own): unique among the parameters of one owner.
    pub fn source_key(&self) -> String {
        match &self.consumer {
            Some(consumer) => format!("{consumer}/{}", self.variable),
            None => self.variable.to_string(),
        }
    }
}

/// The secrets layout of a plan: names and places, never values.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SecretsLayout {
    /// The Infisical project id, when `secrets.infisical` is configured.
    pub infisical_project: Option<CompactString>,
    /// SSM parameter prefix of this environment (`/acme-shop/dev`).
    pub ssm_prefix: CompactString,
    /// The KMS key of the SSM parameters: `secrets.ssm.kmsKey`, or the alias of the
    /// environment's own key (`alias/runway/<product>/<env>`, the plan's `kms-key` item).
    pub kms_key: CompactString,
    /// The KMS key the Secrets Manager secrets `secrets prepare` writes (the proxy's, the
    /// registries') are encrypted with: the same key, or `None` when it is an AWS managed key
    /// (`alias/aws/ssm`), which Secrets Manager cannot use (its own managed key then).
    pub secrets_manager_key: Option<CompactString>,
    /// Credentials `secrets prepare` generates, in resource order.
    pub generated: Vec<GeneratedSecret>,
    /// Registry credentials `secrets prepare` copies from Infisical to Secrets Manager, in
    /// workload order (left out of JSON when there are none).
    pub registry_copies: Vec<RegistryCopy>,
    /// Connection variables `secrets publish` writes, in resource then spec order.
    pub connection: Vec<ConnectionVariable>,
    /// SSM parameters referenced by the plan, sorted by name; each is encrypted with
    /// [`SecretsLayout::kms_key`] (written in each parameter's JSON).
    pub ssm_parameters: Vec<SsmParameter>,
    /// The bootstrap of each postgres resource's login roles, in resource order (left out of
    /// JSON when there are none): the one place the admin's password is used.
    pub bootstraps: Vec<super::DatabaseBootstrap>,
}

/// The JSON of a [`SecretsLayout`]: its fields in order, each parameter with the key.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LayoutJson<'a> {
    infisical_project: &'a Option<CompactString>,
    ssm_prefix: &'a str,
    kms_key: &'a str,
    secrets_manager_key: &'a Option<CompactString>,
    generated: &'a [GeneratedSecret],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    registry_copies: &'a [RegistryCopy],
    connection: &'a [ConnectionVariable],
    ssm_parameters: ParametersJson<'a>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    bootstraps: &'a [super::DatabaseBootstrap],
}

impl Serialize for SecretsLayout {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        LayoutJson {
            infisical_project: &self.infisical_project,
            ssm_prefix: &self.ssm_prefix,
            kms_key: &self.kms_key,
            secrets_manager_key: &self.secrets_manager_key,
            generated: &self.generated,
            registry_copies: &self.registry_copies,
            connection: &self.connection,
            ssm_parameters: ParametersJson { list: &self.ssm_parameters, kms_key: &self.kms_key },
            bootstraps: &self.bootstraps,
        }
        .serialize(s)
    }
}

//! The command line: clap's types for every command, and which commands print JSON.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

use crate::output::Out;
use crate::{deploy, iam, init, migrate, prices, review, rollout, spend};

#[derive(Parser)]
#[command(name = "runway", version, about = "Plan a product's cloud runtime from its runway.yaml")]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    Text,
    Json,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Start a product: a root `runway.yaml` (every value explained), its editor schema and
    /// each environment's stack settings (`infra/<env>/Pulumi.<env>.yaml`); flags for
    /// everything, questions only at a terminal (docs/init.md).
    Init(init::InitArgs),
    /// Validate the root runway and its members, and plan every environment; print every
    /// diagnostic, those `plan` would refuse an environment for among them.
    Check {
        /// The root runway file.
        #[arg(default_value = "runway.yaml")]
        file: PathBuf,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// A catalogue file that replaces or extends the built-in one.
        #[arg(long)]
        catalogue: Option<PathBuf>,
    },
    /// The plan for one environment: resources, workloads, bindings, secrets layout, cost.
    Plan {
        /// The environment.
        #[arg(long)]
        env: String,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[command(flatten)]
        args: PlanArgs,
    },
    /// Every environment side by side: estimate, ceiling, cap, verdict.
    Cost {
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[command(flatten)]
        args: PlanArgs,
    },
    /// The month's bill read back from Cost Explorer, per resource and workload beside the
    /// plan's estimate, and the total against the cap. Exit 3 when the actual total is over the
    /// cap, 1 when Cost Explorer has no data for the environment's tags.
    Spend {
        /// The environment.
        #[arg(long)]
        env: String,
        /// The month, `YYYY-MM`; by default the previous month (UTC). The current month is read
        /// month to date.
        #[arg(long, value_parser = spend::month)]
        month: Option<runtime_plan::Month>,
        /// `json`: `{"environment","month","rows":[{"name","kind","estimate","actual",
        /// "difference","hint"}],"untagged","total":{"estimate","actual"},"cap","verdict",..}`.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[command(flatten)]
        args: PlanArgs,
    },
    /// The resource graph of one environment (consumers -> resources -> platform).
    Graph {
        /// The environment.
        #[arg(long)]
        env: String,
        #[arg(long, value_enum, default_value = "mermaid")]
        format: GraphFormat,
        #[command(flatten)]
        args: PlanArgs,
    },
    /// What changes between two runway versions: added, removed, resized items, cost delta,
    /// and (as a review) what breaks for consumers.
    Diff {
        /// The environment; without it, every environment either side declares.
        #[arg(long)]
        env: Option<String>,
        /// The older root runway file to compare against.
        #[arg(long, conflicts_with = "base_ref", required_unless_present = "base_ref")]
        base: Option<PathBuf>,
        /// A git revision: the base is FILE and its members as of that revision.
        #[arg(long, value_name = "REV")]
        base_ref: Option<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: review::DiffFormat,
        #[command(flatten)]
        args: PlanArgs,
    },
    /// Write a program for one environment (`runway emit pulumi --env ENV --out DIR`).
    Emit {
        #[command(subcommand)]
        target: EmitTarget,
    },
    /// The whole deploy job in one process, in the documented order (preflight, secrets
    /// prepare, emit, pulumi up without the services, migrate, pulumi up, rollout, secrets
    /// publish, ssm publish, ssm verify), under a lease on the environment; run again after a
    /// failure, it goes on (docs/pipeline.md). Exit: the failed step's code, 6 when another
    /// deploy holds the lease.
    Deploy(crate::deploy_job::DeployArgs),
    /// Deploy job: generate credentials, publish connection details (Infisical, Secrets Manager).
    Secrets {
        #[command(subcommand)]
        command: deploy::SecretsCommand,
    },
    /// Deploy job: write or check the SSM parameters workloads reference.
    Ssm {
        #[command(subcommand)]
        command: deploy::SsmCommand,
    },
    /// Deploy job, after `pulumi up`: wait until every ECS service runs the task definition the
    /// stack declared with every desired task running. Exit 1 when ECS rolled a release back,
    /// a deployment failed or a service is missing (with the stopped tasks' reasons), 5 when
    /// the timeout came first.
    Rollout {
        /// The environment.
        #[arg(long)]
        env: String,
        /// The most time to wait, from 1s to 6h (`30s`, `15m`, `1h`).
        #[arg(long, default_value = "15m", value_parser = rollout::timeout)]
        timeout: Duration,
        /// The pause between two looks at the services, from 1s to 5m.
        #[arg(long, default_value = "10s", value_parser = rollout::interval)]
        interval: Duration,
        /// `json`: `{"environment","region","timeoutSeconds","verdict","waitedSeconds",
        /// "services":[..]}` on stdout, progress lines on stderr.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[command(flatten)]
        args: PlanArgs,
    },
    /// Deploy job, between the first `pulumi up` (without the services) and the full one: run
    /// each workload's `migrate` as a one-off Fargate task with the new image, and wait for it.
    /// A success is recorded and not run again for the same image and command. Exit 1 when a
    /// task exits non-zero or never starts (with its exit code and where its logs are), 5 when
    /// the timeout came first.
    Migrate {
        /// The environment.
        #[arg(long)]
        env: String,
        /// Only this workload's `migrate` (by default every workload's, in file order).
        #[arg(long)]
        workload: Option<String>,
        /// The stack outputs (`pulumi stack output --json --show-secrets`), as `secrets publish`
        /// takes them: each task's revision, cluster, subnets and security groups.
        #[arg(long)]
        outputs: PathBuf,
        /// The most time to wait for a task to stop, from 1s to 6h.
        #[arg(long, default_value = "30m", value_parser = migrate::timeout)]
        timeout: Duration,
        /// The pause between two looks at a task, from 1s to 5m.
        #[arg(long, default_value = "5s", value_parser = rollout::interval)]
        interval: Duration,
        /// `json`: `{"environment","region","verdict","tasks":[{"name","state",..}]}` on stdout,
        /// progress lines on stderr.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[command(flatten)]
        args: PlanArgs,
    },
    /// Replace a generated credential (a postgres admin password, a cache AUTH token) without
    /// an outage: the database or cache first (and waited for), then the proxy's secret,
    /// Infisical and SSM, then the services that read it restart; a cache's token is completed
    /// with `SET` last. Stopped anywhere, the same command finishes it (docs/pipeline.md,
    /// "Rotation").
    Rotate {
        /// The environment.
        #[arg(long)]
        env: String,
        /// The resource whose credential to replace (`main-db`, `sessions`): a postgres
        /// resource's admin password, or with `--login` a consumer's own.
        resource: String,
        /// The consumer whose own login on the postgres resource to rotate (`metabase`); its
        /// password is set by the resource's bootstrap task, so `--outputs` is needed too.
        #[arg(long, value_name = "CONSUMER")]
        login: Option<String>,
        /// The stack outputs (`pulumi stack output --json --show-secrets`), as `runway migrate`
        /// takes them: where the bootstrap task runs (with `--login`).
        #[arg(long, value_name = "FILE")]
        outputs: Option<PathBuf>,
        /// Restart no service (a cache's rotation then stops before `SET`, both tokens valid).
        #[arg(long)]
        no_restart: bool,
        /// The members using the resource (listed by a run) have been redeployed with the new
        /// value: a cache's rotation may complete with `SET`.
        #[arg(long)]
        members_restarted: bool,
        /// The most time for each wait (the database or cache, the restarts), from 1s to 6h.
        #[arg(long, default_value = "30m", value_parser = rollout::timeout)]
        timeout: Duration,
        /// The pause between two looks, from 1s to 5m.
        #[arg(long, default_value = "10s", value_parser = rollout::interval)]
        interval: Duration,
        /// `json`: `{"environment","resource","resumed","complete","target","steps":[..],
        /// "restarted":[..],"notRestarted":[..],"members":[..]}` on stdout, progress lines on stderr.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[command(flatten)]
        args: PlanArgs,
    },
    /// Deploy job, first (and the PR job, with `--no-aws`): read the registries and the account
    /// and print every finding that would stop or spoil the deploy, each with what to do;
    /// nothing is written. Exit 1 when any finding is an error (docs/preflight.md).
    Preflight {
        /// The environment.
        #[arg(long)]
        env: String,
        /// The stack settings the program is deployed with (`infra/ENV/Pulumi.<stack>.yaml`):
        /// its subnets and certificate are checked.
        #[arg(long, value_name = "FILE")]
        stack: Option<PathBuf>,
        /// Only the checks that need no AWS credentials (the public images).
        #[arg(long)]
        no_aws: bool,
        /// `json`: `{"environment","region","verdict","errors","warnings","findings":[{"check",
        /// "subject","severity","message","help"}]}`.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[command(flatten)]
        args: PlanArgs,
    },
    /// The deploy role of one environment: its IAM policy (what `pulumi up` and runway's own
    /// commands call, scoped to the plan's names) and its GitHub OIDC trust policy
    /// (docs/iam.md).
    Iam {
        /// The environment.
        #[arg(long)]
        env: String,
        /// The AWS account id (default: the `${aws-account-id}` placeholder).
        #[arg(long, value_name = "ID", value_parser = iam::account)]
        account: Option<String>,
        /// The GitHub repository (`owner/name`) whose deploy job may assume the role.
        #[arg(long, value_name = "OWNER/NAME", value_parser = iam::repository)]
        github_repo: Option<String>,
        /// The GitHub environment of that job (default: `--env`).
        #[arg(long, value_name = "NAME")]
        github_environment: Option<String>,
        /// `json`: `{"environment","account","roleName","trustPolicy","policies":[{"name",
        /// "characters","document"}],"uncoveredTypes"}`; `pulumi`: a Pulumi YAML snippet
        /// declaring the role and its policies.
        #[arg(long, value_enum, default_value = "json")]
        format: iam::IamFormat,
        #[command(flatten)]
        args: PlanArgs,
    },
    /// Print the JSON Schema of the root and member formats.
    Schema {
        /// Which format.
        #[arg(long, value_enum, default_value = "root")]
        which: SchemaWhich,
        /// The schema is JSON already; `--format json` is accepted like on every command.
        #[arg(long, value_enum, default_value = "json")]
        format: SchemaFormat,
    },
    /// The language server for editors, over stdin and stdout: check's diagnostics as you type,
    /// cost on hover, completion, go to definition, references and fixes (docs/editor.md).
    Lsp {
        /// A catalogue file that replaces or extends the built-in one.
        #[arg(long)]
        catalogue: Option<PathBuf>,
    },
    /// The sizes and prices in use, with their sources and how old they are;
    /// `runway catalogue import` reads prices from the AWS Price List.
    #[command(args_conflicts_with_subcommands = true)]
    Catalogue {
        #[command(subcommand)]
        command: Option<prices::CatalogueCommand>,
        /// A root runway file: its `catalogue:` setting is used, and the prices its plans use
        /// are checked for age.
        root: Option<PathBuf>,
        /// Only this region's prices.
        #[arg(long)]
        region: Option<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// A catalogue file that replaces or extends the built-in one.
        #[arg(long)]
        catalogue: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum GraphFormat {
    Mermaid,
    Dot,
    /// The graph as data: `{"nodes":[{"id","label","layer"}],"edges":[{"from","to","label"}]}`.
    Json,
}

/// What every planning command takes.
#[derive(clap::Args)]
pub(crate) struct PlanArgs {
    /// The root runway file.
    #[arg(default_value = "runway.yaml")]
    pub(crate) file: PathBuf,
    /// A catalogue file that replaces or extends the built-in one.
    #[arg(long)]
    pub(crate) catalogue: Option<PathBuf>,
}

#[derive(Subcommand)]
pub(crate) enum EmitTarget {
    /// A Pulumi YAML program (`Pulumi.yaml`) declaring every planned item.
    Pulumi {
        /// The environment.
        #[arg(long)]
        env: String,
        /// The program's folder (created when missing).
        #[arg(long)]
        out: PathBuf,
        /// `json`: what was written, with the plan's verdict (`{"environment","verdict",
        /// "refused","wrote":[..],"diagnostics":[..]}`).
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[command(flatten)]
        args: PlanArgs,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum SchemaFormat {
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum SchemaWhich {
    Root,
    Member,
}

impl Command {
    /// Where the command reports failures: also as JSON on stdout when it prints JSON
    /// (`--format json`).
    pub(crate) fn out(&self) -> Out {
        use deploy::{SecretsCommand as S, SsmCommand as M};
        let json = match self {
            Self::Check { format, .. }
            | Self::Plan { format, .. }
            | Self::Cost { format, .. }
            | Self::Catalogue { command: None, format, .. }
            | Self::Catalogue { command: Some(prices::CatalogueCommand::Import { format, .. }), .. }
            | Self::Secrets { command: S::Prepare { format, .. } | S::Publish { format, .. } }
            | Self::Ssm { command: M::Publish { format, .. } | M::Verify { format, .. } }
            | Self::Rollout { format, .. }
            | Self::Migrate { format, .. } => *format == Format::Json,
            Self::Rotate { format, .. } => *format == Format::Json,
            Self::Diff { format, .. } => *format == review::DiffFormat::Json,
            Self::Graph { format, .. } => *format == GraphFormat::Json,
            Self::Emit { target: EmitTarget::Pulumi { format, .. } } => *format == Format::Json,
            Self::Spend { format, .. } => *format == Format::Json,
            Self::Preflight { format, .. } => *format == Format::Json,
            Self::Iam { format, .. } => *format == iam::IamFormat::Json,
            Self::Deploy(a) => a.format == Format::Json,
            Self::Schema { .. } | Self::Lsp { .. } | Self::Init(_) => false,
        };
        Out::new(json)
    }
}

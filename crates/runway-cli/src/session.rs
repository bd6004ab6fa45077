//! What a command acting on one environment opens first, one way for every command: the root
//! loaded and validated (warnings on stderr), the environment planned with the catalogue in
//! use, and on demand the refusal of a plan over its cap, the Infisical client, the tokio
//! runtime and the AWS clients.

use std::sync::OnceLock;

use aws_adapter::aws::{AccountError, AwsClients, ClientSettings, Scope};
use runtime_plan::Plan;
use runway_schema::Product;
use secrets_adapter::Client;

use crate::args::{EnvArgs, Format};
use crate::output::{EXIT_REMOTE, EXIT_USAGE, Exit, Out, chain, warn};
use crate::planning::{action_report, catalogue_for, load_valid, refuse_if_capped};

/// One environment's plan, with the product it came from.
pub(crate) struct Session {
    /// Where the command reports.
    pub(crate) out: Out,
    /// The root and its members, valid.
    pub(crate) product: Product,
    /// The environment's plan.
    pub(crate) plan: Plan,
}

impl Session {
    /// Loads and validates the root (exit 1 with its diagnostics when invalid, its warnings on
    /// stderr otherwise) and plans `--env` with the catalogue in use (`--catalogue`, else the
    /// root's `catalogue:`, else the built-in one).
    pub(crate) fn open(args: &EnvArgs, out: Out) -> Result<Self, Exit> {
        let file = &args.root.file;
        let cat = catalogue_for(file, args.root.catalogue.as_deref(), out)?;
        let (product, warnings) = load_valid(file, &cat, out)?;
        warn(&warnings);
        let plan = runtime_plan::plan_named(&product, &args.env, &cat).map_err(|e| out.usage(e))?;
        Ok(Self { out, product, plan })
    }

    /// Exit 3 with the cap's diagnostics on stderr when the plan is refused.
    pub(crate) fn refuse_if_capped(&self) -> Result<(), Exit> {
        refuse_if_capped(&self.plan)
    }

    /// [`Self::refuse_if_capped`] for a command that acts on the plan: as JSON, a refused plan
    /// also prints its verdict and diagnostics on stdout, so the output says why the exit code
    /// is 3.
    pub(crate) fn refuse_before_acting(&self, format: Format) -> Result<(), Exit> {
        if format.json() && self.plan.has_errors() {
            action_report(&self.plan, None);
        }
        self.refuse_if_capped()
    }

    /// The Infisical side of the plan: the client (from the environment, the runway's URL as
    /// the default) and the project id. Exit 2 when the runway has no `secrets.infisical` or
    /// the credentials are missing.
    pub(crate) fn infisical(&self) -> Result<(Client, String), Exit> {
        let (product, plan, out) = (&self.product, &self.plan, self.out);
        let (Some(config), Some(project)) =
            (&product.root.secrets.infisical, &plan.secrets.infisical_project)
        else {
            return Err(out.usage(format!(
                "{} has no `secrets.infisical` block; the secrets commands write to Infisical \
                 (add `secrets: {{ infisical: {{ project: <project id> }} }}`)",
                product.root.file
            )));
        };
        let client =
            Client::from_env_or(&config.url).map_err(|e| out.usage(format!("Infisical: {}", chain(&e))))?;
        Ok((client, project.to_string()))
    }

    /// A current-thread runtime for the command's remote calls ([`runtime`]).
    pub(crate) fn runtime(&self) -> Result<tokio::runtime::Runtime, Exit> {
        runtime(self.out)
    }

    /// The tags every resource of the environment carries.
    pub(crate) fn scope(&self) -> Scope {
        scope(&self.plan)
    }
}

/// The one way a command starts tokio: a current-thread runtime for its remote calls (exit 2
/// when it cannot start).
pub(crate) fn runtime(out: Out) -> Result<tokio::runtime::Runtime, Exit> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| out.usage(format!("cannot start the async runtime: {e}")))
}

/// The account already found to be the caller's in this process: a command connects more than
/// once (one client set per step), STS is asked once.
static CHECKED: OnceLock<String> = OnceLock::new();

/// The one place the AWS clients of a plan are made: its region, the credentials and
/// endpoints of the environment. With a pinned account (`environments.<env>.account`), the
/// first connection of the process asks STS whose credentials these are: another account is
/// refused with exit 2 naming both, an unanswered question with exit 4.
pub(crate) async fn aws(plan: &Plan, out: Out) -> Result<AwsClients, Exit> {
    let mut settings = ClientSettings::new(plan.region.clone());
    // The AWS SDKs' own setting for attempts per call, when the job sets it (docs/aws.md).
    if let Some(n) = std::env::var("AWS_MAX_ATTEMPTS").ok().and_then(|v| v.parse::<u32>().ok()) {
        settings.max_attempts = n.clamp(1, 20);
    }
    let account = plan.account.as_deref().filter(|a| CHECKED.get().is_none_or(|c| c != a));
    let aws = AwsClients::connect_pinned(&settings, account).await.map_err(|e| {
        let code = match &e {
            AccountError::Mismatch { .. } => EXIT_USAGE,
            AccountError::Unknown(_) => EXIT_REMOTE,
        };
        out.fail(code, format!("{}\n  help: {}", crate::output::chain(&e), e.help()))
    })?;
    if let Some(account) = account {
        // Another thread may have set it first: to the same account.
        let _ = CHECKED.set(account.to_owned());
    }
    Ok(aws)
}

/// The tags every resource of `plan`'s environment carries.
pub(crate) fn scope(plan: &Plan) -> Scope {
    Scope { product: plan.product.to_string(), environment: plan.environment.to_string() }
}

//! `runway rollout --env ENV`: the deploy job's step after `pulumi up`. Waits until each ECS
//! service of the plan runs the task definition the stack declared with every desired task
//! running; a release ECS rolled back, a failed deployment or a service missing in AWS ends it
//! with exit 1 and the stopped tasks' reasons, the timeout with exit 5 (docs/pipeline.md).
//!
//! Only read calls are made. The plan names the services, their clusters and task definition
//! families; the AWS adapter looks and judges.

use aws_adapter::aws::{RolloutReport, RolloutState, RolloutTiming, ServiceRollout, ServiceTarget, Verdict};
use runtime_plan::{ItemSpec, Plan};
use serde::Serialize;

use crate::args::shown;
use crate::prelude::*;

/// Deploy job, after `pulumi up`: wait until every ECS service runs the task definition the
/// stack declared with every desired task running. Exit 1 when ECS rolled a release back,
/// a deployment failed or a service is missing (with the stopped tasks' reasons), 5 when
/// the timeout came first.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    env: EnvArgs,
    #[command(flatten)]
    timing: Timing<RolloutWaits>,
    /// `json`: `{"environment","region","timeoutSeconds","verdict","waitedSeconds",
    /// "services":[..]}` on stdout, progress lines on stderr.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        self.format.json()
    }
}

/// `runway rollout`'s waits: for the services.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RolloutWaits;

impl Waits for RolloutWaits {
    const TIMEOUT: &'static str = "15m";
    const TIMEOUT_HELP: &'static str = "The most time to wait, from 1s to 6h (`30s`, `15m`, `1h`)";
    const INTERVAL: &'static str = "10s";
    const INTERVAL_HELP: &'static str = "The pause between two looks at the services, from 1s to 5m";
}

/// The plan's ECS services with their clusters' names and task definition families.
pub(super) fn targets(plan: &Plan) -> Result<Vec<ServiceTarget>, String> {
    let items = plan.items_by_id();
    let name = |id: &str| {
        items
            .get(id)
            .map(|i| i.physical_name.to_string())
            .ok_or_else(|| format!("the plan names no item `{id}`"))
    };
    let mut targets = Vec::new();
    for item in &plan.items {
        let ItemSpec::EcsService(spec) = &item.spec else { continue };
        targets.push(ServiceTarget {
            workload: spec.workload.to_string(),
            cluster: name(&spec.cluster)?,
            service: item.physical_name.to_string(),
            family: name(&spec.task_definition)?,
        });
    }
    Ok(targets)
}

/// The report as `--format json` prints it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RolloutJson<'a> {
    environment: &'a str,
    region: &'a str,
    timeout_seconds: u64,
    #[serde(flatten)]
    report: &'a RolloutReport,
}

/// Runs `runway rollout`.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    let session = Session::open(&args.env, out)?;
    let (plan, env, format) = (&session.plan, args.env.env.as_str(), args.format);
    let Timing { timeout, interval, .. } = args.timing;
    let targets = targets(plan).map_err(|e| out.usage(e))?;
    let shown_timeout = shown(timeout);
    if format == Format::Text {
        let workloads: Vec<&str> = targets.iter().map(|t| t.workload.as_str()).collect();
        outln!(
            "waiting up to {shown_timeout} for {} ECS service(s) of {env} in {}: {}",
            targets.len(),
            plan.region,
            workloads.join(", ")
        );
    }
    // Progress goes where the text goes; with JSON on stdout, to stderr.
    let mut progress = |entry: &ServiceRollout| out.progress(&entry.to_string());
    let rt = session.runtime()?;
    let aws = rt.block_on(crate::session::aws(plan, out))?;
    let report = rt
        .block_on(aws.rollout(&targets, RolloutTiming { timeout, interval }, &mut progress))
        .map_err(|e| out.remote(chain(&e)))?;
    match format {
        Format::Text => outln!("{report}"),
        Format::Json => print_json(&RolloutJson {
            environment: env,
            region: &plan.region,
            timeout_seconds: timeout.as_secs(),
            report: &report,
        }),
    }
    let named = |states: &[RolloutState]| {
        let names: Vec<String> = report
            .services
            .iter()
            .filter(|s| states.contains(&s.state))
            .map(|s| format!("{} {}", s.workload, s.state.word()))
            .collect();
        names.join(", ")
    };
    match report.verdict {
        Verdict::Complete => Ok(()),
        Verdict::TimedOut => {
            errln!(
                "error: the release of {env} did not settle within {shown_timeout} ({}); ECS may still \
                 finish it: run `runway rollout` again, with a longer --timeout if it needs one",
                named(&[RolloutState::TimedOut])
            );
            Err(Exit(EXIT_TIMEOUT))
        }
        Verdict::Failed => {
            errln!(
                "error: the release of {env} did not complete: {}",
                named(&[RolloutState::RolledBack, RolloutState::Failed, RolloutState::Missing])
            );
            Err(Exit(EXIT_INVALID))
        }
    }
}

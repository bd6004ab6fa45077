//! `runway rollout --env ENV`: the deploy job's step after `pulumi up`. Waits until each ECS
//! service of the plan runs the task definition the stack declared with every desired task
//! running; a release ECS rolled back, a failed deployment or a service missing in AWS ends it
//! with exit 1 and the stopped tasks' reasons, the timeout with exit 5 (docs/pipeline.md).
//!
//! Only read calls are made. The plan names the services, their clusters and task definition
//! families; the AWS adapter looks and judges.

use std::time::Duration;

use aws_adapter::aws::{RolloutReport, RolloutState, RolloutTiming, ServiceRollout, ServiceTarget, Verdict};
use runtime_plan::{ItemSpec, Plan};
use serde::Serialize;

use crate::args::{Format, PlanArgs};
use crate::deploy::{load, print_json, remote, runtime};
use crate::output::{EXIT_INVALID, EXIT_TIMEOUT, Exit, Out, chain};

/// The longest `--timeout`: past it a CI job's own limit is the better judge.
const MAX_TIMEOUT: Duration = Duration::from_secs(6 * 3600);
/// The bounds of `--interval`: ECS changes in seconds; a look costs one `DescribeServices` per
/// ten services.
const INTERVAL_BOUNDS: (Duration, Duration) = (Duration::from_secs(1), Duration::from_secs(300));

/// Parses `--timeout` (`30s`, `15m`, `1h`): from 1 s to 6 h.
pub(crate) fn timeout(text: &str) -> Result<Duration, String> {
    bounded(text, Duration::from_secs(1), MAX_TIMEOUT)
}

/// Parses `--interval` (`10s`): from 1 s to 5 min.
pub(crate) fn interval(text: &str) -> Result<Duration, String> {
    bounded(text, INTERVAL_BOUNDS.0, INTERVAL_BOUNDS.1)
}

fn bounded(text: &str, min: Duration, max: Duration) -> Result<Duration, String> {
    let parsed = runway_schema::Duration::parse(text).map_err(|e| e.to_string())?;
    let duration = Duration::from_millis(parsed.as_millis());
    if duration < min || duration > max {
        let show = |d: Duration| runway_schema::Duration::from_millis(millis(d)).to_string();
        return Err(format!("`{text}` is not between {} and {}", show(min), show(max)));
    }
    Ok(duration)
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The plan's ECS services with their clusters' names and task definition families.
fn targets(plan: &Plan) -> Result<Vec<ServiceTarget>, String> {
    let name = |id: &str| {
        plan.item(id)
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
pub(crate) fn run(
    env: &str,
    timeout: Duration,
    interval: Duration,
    format: Format,
    args: &PlanArgs,
    out: Out,
) -> Result<(), Exit> {
    let (_, plan) = load(env, args, out)?;
    let targets = targets(&plan).map_err(|e| out.usage(e))?;
    let shown_timeout = runway_schema::Duration::from_millis(millis(timeout));
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
    let mut progress = |entry: &ServiceRollout| match format {
        Format::Text => outln!("{entry}"),
        Format::Json => errln!("{entry}"),
    };
    let rt = runtime(out)?;
    let aws = rt.block_on(crate::pinned::connect(&plan, out))?;
    let report = rt
        .block_on(async { aws.rollout(&targets, RolloutTiming { timeout, interval }, &mut progress).await })
        .map_err(|e| remote(out, chain(&e)))?;
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

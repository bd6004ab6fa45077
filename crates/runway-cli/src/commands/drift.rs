//! `runway drift --env ENV`: what the account holds that the plan does not say, priced:
//! resources carrying the environment's tags that no plan item names, SSM parameters under its
//! prefix that the plan does not list, and plan items whose live class, node type or count
//! differs; each with its monthly difference, and the environment's estimate with the drift
//! against its cap. Reads only.
//!
//! Exit codes: 0 no drift, 1 drift (a scheduled CI job's signal), 2 usage, 4 a read failed.
//! Over the cap with the drift is said, not an exit code of its own: the drift already exits 1.

use aws_adapter::aws::{AwsClients, RemoteError};
use runtime_plan::drift::{
    LiveCache, LiveDatabase, LiveService, Observed, ObservedParameter, TaggedResource,
};
use runtime_plan::{ITEM_TAG, ItemSpec, Plan, RESOURCE_TAG};

use crate::planning::catalogue_for;
use crate::prelude::*;

/// What the account holds that the plan does not say, priced: unplanned tagged resources,
/// stray SSM parameters, resized items, and the estimate with the drift against the cap.
/// Exit 1 on drift.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    env: EnvArgs,
    /// `json`: `{"product","environment","findings":[{"kind","subject","owner","what",
    /// "planned","live","monthly","note"}],"estimate","drifted","cap","overCap","unpriced"}`.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        self.format.json()
    }
}

/// Runs `runway drift`.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    let session = Session::open(&args.env, out)?;
    let catalogue = catalogue_for(&args.env.root.file, args.env.root.catalogue.as_deref(), out)?;
    let plan = &session.plan;
    let rt = session.runtime()?;
    let aws = rt.block_on(crate::session::aws(plan, out))?;
    let observed =
        rt.block_on(observe(&aws, plan, &session.scope())).map_err(|e| out.fail(EXIT_REMOTE, chain(&e)))?;
    let report = runtime_plan::drift(plan, &catalogue, &observed);
    match args.format {
        Format::Text => out!("{}", plan_render::render_drift_text(&report)),
        Format::Json => out!("{}", runtime_plan::to_json(&report)),
    }
    if report.drifted() {
        return Err(Exit(EXIT_INVALID));
    }
    Ok(())
}

/// The account's side: every read `runway drift` makes, as the plan's side takes it.
async fn observe(
    aws: &AwsClients,
    plan: &Plan,
    scope: &aws_adapter::aws::Scope,
) -> Result<Observed, RemoteError> {
    let tagged = aws.tagged_resources(scope).await?;
    let prefix = format!("{}/", plan.secrets.ssm_prefix);
    let parameters = aws.parameters_under(&plan.secrets.ssm_prefix).await?;
    let databases = aws.db_instances().await?;
    let caches = aws.replication_groups().await?;
    let mut services = Vec::new();
    for (cluster, names) in services_by_cluster(plan) {
        services.extend(aws.service_counts(&cluster, &names).await?);
    }
    Ok(Observed {
        tagged: tagged
            .into_iter()
            .map(|t| TaggedResource {
                resource_tag: t.tag(RESOURCE_TAG).map(Into::into),
                item_tag: t.tag(ITEM_TAG).map(Into::into),
                arn: t.arn.into(),
            })
            .collect(),
        parameters: parameters
            .into_iter()
            .filter(|p| p.name.starts_with(&prefix))
            .map(|p| ObservedParameter { name: p.name.into(), advanced: p.advanced })
            .collect(),
        databases: databases
            .into_iter()
            .map(|d| LiveDatabase {
                identifier: d.identifier.into(),
                instance_class: d.instance_class.into(),
                engine: d.engine.into(),
                multi_az: d.multi_az,
            })
            .collect(),
        caches: caches
            .into_iter()
            .map(|c| LiveCache { id: c.id.into(), node_type: c.node_type.into(), nodes: c.nodes })
            .collect(),
        services: services
            .into_iter()
            .map(|s| LiveService { name: s.name.into(), desired_count: s.desired_count })
            .collect(),
    })
}

/// The plan's ECS services by their cluster's physical name, in plan order.
fn services_by_cluster(plan: &Plan) -> Vec<(String, Vec<String>)> {
    let mut by: Vec<(String, Vec<String>)> = Vec::new();
    let items = plan.items_by_id();
    for item in &plan.items {
        let ItemSpec::EcsService(spec) = &item.spec else { continue };
        let Some(cluster) = items.get(spec.cluster.as_str()) else { continue };
        let name = item.physical_name.to_string();
        match by.iter_mut().find(|(c, _)| *c == cluster.physical_name) {
            Some((_, names)) => names.push(name),
            None => by.push((cluster.physical_name.to_string(), vec![name])),
        }
    }
    by
}

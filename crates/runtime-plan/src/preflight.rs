//! What `runway preflight` checks before a deploy, derived from a plan: the images and the
//! platform each must offer, the public hosts the certificate must cover, whether the private
//! subnets need a route out, the VPC endpoints an `existing` VPC must have, the environment's
//! key, the cost allocation tags, and the service quotas the plan's ceiling needs.
//!
//! The decisions are here (pure, no I/O); the adapters read the account and the registries and
//! compare, each answer a [`Finding`]. Findings are plain data; `plan_render::render_findings_text` lays
//! them out for a person and [`crate::to_json`] for a script.

use compact_str::CompactString;
use runway_schema::{Endpoints, Kind};
use rust_decimal::Decimal;
use serde::Serialize;

use crate::plan::{ItemSpec, Plan, RepositoryCredentials};

/// The cost allocation tags `runway spend` reads the bill by.
pub const COST_TAGS: [&str; 3] = ["product", "environment", "resource"];

/// The ECS service-linked role a cluster's services need (created once per account).
pub const ECS_SERVICE_LINKED_ROLE: &str = "AWSServiceRoleForECS";

/// How much a finding stops the deploy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Severity {
    /// The deploy would fail (or run broken): `runway preflight` exits 1.
    Error,
    /// Worth fixing, or not checked: the deploy may go on.
    Warning,
}

impl Severity {
    /// As shown (`error`, `warning`).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One thing preflight found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// The check (`image`, `subnets`, `certificate`, `quota`, ...).
    pub check: CompactString,
    /// What it is about (a workload, an image, a subnet id, a quota).
    pub subject: CompactString,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, in one sentence.
    pub message: String,
    /// What to do.
    pub help: String,
}

impl Finding {
    /// An error of `check` about `subject`.
    pub fn error(check: &str, subject: &str, message: impl Into<String>, help: impl Into<String>) -> Self {
        Self::new(Severity::Error, check, subject, message.into(), help.into())
    }

    /// A warning of `check` about `subject`.
    pub fn warning(check: &str, subject: &str, message: impl Into<String>, help: impl Into<String>) -> Self {
        Self::new(Severity::Warning, check, subject, message.into(), help.into())
    }

    fn new(severity: Severity, check: &str, subject: &str, message: String, help: String) -> Self {
        Self { check: check.into(), subject: subject.into(), severity, message, help }
    }
}

/// What preflight expects of the account and the registries for one plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Expectations {
    /// Every distinct image the plan's task definitions pull, with the platform it must offer.
    pub images: Vec<ImageExpectation>,
    /// The hosts the ALB serves over HTTPS (the certificate must cover each), in plan order.
    pub public_hosts: Vec<CompactString>,
    /// The environment's domain, when it serves public hosts (its hosted zone).
    pub domain: Option<CompactString>,
    /// Why the private subnets need a route out to the internet (a NAT), when they do.
    pub route_out: Option<String>,
    /// The VPC endpoint services (`com.amazonaws.<region>.<service>`) the VPC must already have
    /// (`network.endpoints: existing`), in a fixed order.
    pub existing_endpoints: Vec<CompactString>,
    /// The environment's KMS key alias, when the plan has one.
    pub key_alias: Option<CompactString>,
    /// The plan runs ECS services (the service-linked role must exist).
    pub ecs_services: bool,
    /// The service quotas the plan's ceiling needs.
    pub quotas: Vec<QuotaNeed>,
}

/// An image a task pulls.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageExpectation {
    /// Who pulls it: the workloads and tasks, e.g. `metabase`, `main-db-bootstrap`.
    pub used_by: Vec<CompactString>,
    /// The image reference as pinned (`metabase/metabase:v0.50.3@sha256:...`).
    pub image: CompactString,
    /// The platform it must offer: `linux/arm64` or `linux/amd64`.
    pub platform: Platform,
    /// Where the pull credentials are kept: a Secrets Manager secret name or ARN.
    pub credentials: Option<CompactString>,
}

/// An OCI platform Fargate runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Platform {
    /// `linux/arm64` (Graviton).
    Arm64,
    /// `linux/amd64` (x86-64).
    Amd64,
}

impl Platform {
    /// The OCI architecture (`arm64`, `amd64`).
    pub fn architecture(self) -> &'static str {
        match self {
            Platform::Arm64 => "arm64",
            Platform::Amd64 => "amd64",
        }
    }

    /// From a task definition's `cpuArchitecture` (`ARM64`, `X86_64`).
    fn of_cpu_architecture(text: &str) -> Platform {
        if text.eq_ignore_ascii_case("ARM64") { Platform::Arm64 } else { Platform::Amd64 }
    }
}

impl std::fmt::Display for Platform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "linux/{}", self.architecture())
    }
}

/// A service quota and how much of it the plan needs at its ceiling.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuotaNeed {
    /// Which quota.
    pub quota: Quota,
    /// What the plan needs at its ceiling (vCPUs, addresses, instances, nodes).
    pub needed: Decimal,
}

/// The quotas preflight compares with the plan's ceiling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Quota {
    /// Fargate On-Demand vCPU resource count (`fargate`, `L-3032A538`).
    FargateVcpu,
    /// EC2-VPC Elastic IPs (`ec2`, `L-0263D0A3`): one per NAT gateway.
    ElasticIps,
    /// DB instances (`rds`, `L-7B6409FD`).
    RdsInstances,
    /// Nodes per Region (`elasticache`, `L-DFE45DF3`).
    CacheNodes,
}

impl Quota {
    /// `(service code, quota code)` in Service Quotas.
    pub fn codes(self) -> (&'static str, &'static str) {
        match self {
            Quota::FargateVcpu => ("fargate", "L-3032A538"),
            Quota::ElasticIps => ("ec2", "L-0263D0A3"),
            Quota::RdsInstances => ("rds", "L-7B6409FD"),
            Quota::CacheNodes => ("elasticache", "L-DFE45DF3"),
        }
    }

    /// As named in findings.
    pub fn name(self) -> &'static str {
        match self {
            Quota::FargateVcpu => "Fargate On-Demand vCPU",
            Quota::ElasticIps => "EC2-VPC Elastic IPs",
            Quota::RdsInstances => "RDS DB instances",
            Quota::CacheNodes => "ElastiCache nodes per Region",
        }
    }
}

/// What preflight expects of the account and registries for `plan`.
pub fn expectations(plan: &Plan) -> Expectations {
    let images = images(plan);
    let public_hosts: Vec<CompactString> = plan.workloads.iter().filter_map(|w| w.host.clone()).collect();
    let domain = plan.items.iter().find_map(|i| {
        let ItemSpec::Alb(alb) = &i.spec else { return None };
        Some(alb.domain.clone())
    });
    Expectations {
        route_out: route_out(plan, &images),
        existing_endpoints: existing_endpoints(plan),
        key_alias: plan.items.iter().find_map(|i| {
            let ItemSpec::KmsKey { alias, .. } = &i.spec else { return None };
            Some(alias.clone())
        }),
        ecs_services: plan.items.iter().any(|i| matches!(i.spec, ItemSpec::EcsService(_))),
        quotas: quotas(plan),
        images,
        public_hosts,
        domain,
    }
}

/// Every distinct image (with its platform) of the task definitions, in plan order.
fn images(plan: &Plan) -> Vec<ImageExpectation> {
    let mut out: Vec<ImageExpectation> = Vec::new();
    for item in &plan.items {
        let ItemSpec::TaskDefinition(task) = &item.spec else { continue };
        let platform = Platform::of_cpu_architecture(&task.cpu_architecture);
        let credentials = task.repository_credentials.as_ref().map(|c| match c {
            RepositoryCredentials::Arn { arn } => arn.clone(),
            RepositoryCredentials::Item { item } => {
                // The secret `secrets prepare` writes, by its name.
                let secret = plan.item(item).map(|i| &i.spec);
                if let Some(ItemSpec::RegistrySecret { name, .. }) = secret {
                    name.clone()
                } else {
                    item.clone()
                }
            }
        });
        if let Some(seen) = out.iter_mut().find(|e| e.image == task.image && e.platform == platform) {
            if !seen.used_by.contains(&task.workload) {
                seen.used_by.push(task.workload.clone());
            }
            continue;
        }
        out.push(ImageExpectation {
            used_by: vec![task.workload.clone()],
            image: (&*task.image).into(),
            platform,
            credentials,
        });
    }
    out
}

/// Why the private subnets need a NAT: images from outside ECR always do; the AWS APIs the
/// tasks call do unless VPC endpoints serve them.
fn route_out(plan: &Plan, images: &[ImageExpectation]) -> Option<String> {
    let outside: Vec<&str> = images
        .iter()
        .filter(|i| !is_private_ecr(&i.image))
        .map(|i| i.used_by.first().map_or("", CompactString::as_str))
        .collect();
    if !outside.is_empty() {
        return Some(format!("{} pull images from outside ECR", outside.join(", ")));
    }
    let tasks = !images.is_empty();
    match plan.vpc_endpoints {
        Endpoints::None if tasks => {
            Some("the tasks reach ECR, SSM and CloudWatch Logs without VPC endpoints".into())
        }
        Endpoints::None | Endpoints::Declared | Endpoints::Existing => None,
    }
}

/// `<account>.dkr.ecr.<region>.amazonaws.com/...`: served by the `ecr.dkr` endpoint.
pub fn is_private_ecr(image: &str) -> bool {
    let host = image.split('/').next().unwrap_or_default();
    image.contains('/') && host.contains(".dkr.ecr.") && host.ends_with(".amazonaws.com")
}

/// The endpoint services an `existing` VPC must have, as `network.endpoints: true` would
/// declare them (lower/kinds/endpoints.rs): tasks need ssm, ecr.api, ecr.dkr, logs and the s3
/// gateway; a postgres its secretsmanager; queues and topics sqs and sns; ECS Exec ssmmessages.
fn existing_endpoints(plan: &Plan) -> Vec<CompactString> {
    match plan.vpc_endpoints {
        Endpoints::Existing => {}
        Endpoints::None | Endpoints::Declared => return Vec::new(),
    }
    let mut services: Vec<&str> = Vec::new();
    if !plan.workloads.is_empty() {
        services.extend(["ssm", "ecr.api", "ecr.dkr", "logs", "s3"]);
    }
    for kind in Kind::ALL {
        // A workload calls the API; members run elsewhere.
        let used = plan.resources.iter().any(|r| {
            r.kind == *kind && r.consumers.iter().any(|c| plan.workloads.iter().any(|w| w.name == *c))
        });
        let api = match kind {
            Kind::Postgres => "secretsmanager",
            Kind::Queue => "sqs",
            Kind::Topic => "sns",
            Kind::Cache | Kind::Bucket => continue,
        };
        if used || (*kind == Kind::Postgres && plan.resources.iter().any(|r| r.kind == Kind::Postgres)) {
            services.push(api);
        }
    }
    let exec =
        plan.items.iter().any(|i| matches!(&i.spec, ItemSpec::EcsService(s) if s.enable_execute_command));
    if exec {
        services.push("ssmmessages");
    }
    services.into_iter().map(|s| CompactString::from(format!("com.amazonaws.{}.{s}", plan.region))).collect()
}

/// The quotas at the plan's ceiling: every service at its `max` tasks plus the largest one-off
/// task (they run one at a time), the NAT gateways' addresses, the database instances, the
/// cache nodes. A quota the plan needs none of is left out.
fn quotas(plan: &Plan) -> Vec<QuotaNeed> {
    let cpu_units: u32 = plan.workloads.iter().map(|w| w.max.saturating_mul(w.task.cpu)).sum();
    let one_off = plan
        .tasks
        .iter()
        .filter_map(|o| {
            let ItemSpec::TaskDefinition(t) = &plan.item(&o.task_definition)?.spec else { return None };
            Some(t.task.cpu)
        })
        .max()
        .unwrap_or(0);
    let vcpu = Decimal::from(cpu_units.saturating_add(one_off)) / Decimal::from(1024u32);
    let mut eips = 0u32;
    let mut rds = 0u32;
    let mut nodes = 0u32;
    for item in &plan.items {
        if let ItemSpec::Vpc { nat_gateways, .. } = &item.spec {
            eips += nat_gateways;
        } else if let ItemSpec::RdsInstance(_) | ItemSpec::AuroraInstance { .. } = &item.spec {
            rds += 1;
        } else if let ItemSpec::CacheReplicationGroup(c) = &item.spec {
            nodes += c.size.nodes;
        }
    }
    let needs = [
        (Quota::FargateVcpu, vcpu.normalize()),
        (Quota::ElasticIps, Decimal::from(eips)),
        (Quota::RdsInstances, Decimal::from(rds)),
        (Quota::CacheNodes, Decimal::from(nodes)),
    ];
    needs
        .into_iter()
        .filter(|(_, n)| !n.is_zero())
        .map(|(quota, needed)| QuotaNeed { quota, needed })
        .collect()
}

/// Does a certificate name (`*.example.com`, `example.com`) cover `host`, as ACM matches: a
/// wildcard stands for exactly one leftmost label; names are compared case-insensitively.
pub fn certificate_covers(name: &str, host: &str) -> bool {
    let (name, host) =
        (name.trim_end_matches('.').to_ascii_lowercase(), host.trim_end_matches('.').to_ascii_lowercase());
    match name.strip_prefix("*.") {
        Some(parent) => host.split_once('.').is_some_and(|(label, rest)| !label.is_empty() && rest == parent),
        None => name == host,
    }
}

#[cfg(test)]
mod tests {
    use super::certificate_covers;

    #[test]
    fn a_wildcard_covers_exactly_one_label() {
        assert!(certificate_covers("*.dev.acme.example", "metabase.dev.acme.example"));
        assert!(certificate_covers("*.DEV.acme.example", "Metabase.dev.acme.example."));
        assert!(!certificate_covers("*.acme.example", "metabase.dev.acme.example"));
        assert!(!certificate_covers("*.dev.acme.example", "dev.acme.example"));
        assert!(certificate_covers("dev.acme.example", "dev.acme.example"));
        assert!(!certificate_covers("acme.example", "dev.acme.example"));
    }
}

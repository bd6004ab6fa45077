//! What runway's own commands call (crates/aws-adapter/src/aws/*.rs), scoped like the program's.

use runtime_plan::ItemKind as K;

use crate::document::Statement;
use crate::scope::Scope;

/// Every AWS operation runway's commands call, as IAM actions (a test reads the adapter's
/// source and fails when a call is missing here, and checks the policy allows each).
pub const RUNWAY_ACTIONS: &[&str] = &[
    // secrets prepare / publish, ssm publish / verify, migrate's records.
    "ssm:DescribeParameters",
    "ssm:GetParameter",
    "ssm:GetParameters",
    "ssm:PutParameter",
    "ssm:AddTagsToResource",
    "ssm:ListTagsForResource",
    // deploy: its lease (docs/pipeline.md, "The lease").
    "ssm:GetParameterHistory",
    "ssm:DeleteParameter",
    // secrets prepare: the proxy and registry secrets.
    "secretsmanager:CreateSecret",
    "secretsmanager:DescribeSecret",
    "secretsmanager:GetSecretValue",
    "secretsmanager:PutSecretValue",
    "secretsmanager:UpdateSecret",
    "secretsmanager:TagResource",
    // teardown: secrets prepare's copies deleted (the program's grants reach them already; the
    // values live in Infisical).
    "secretsmanager:DeleteSecret",
    // secrets prepare: the environment's key; found by its tags before creating and after a lost
    // answer, and another key of the environment (a concurrent run's) scheduled for deletion.
    // (sts:GetCallerIdentity, the pinned account's check, needs no permission: STS API
    // reference, GetCallerIdentity.)
    "kms:CreateKey",
    "kms:CreateAlias",
    "kms:DescribeKey",
    "kms:ListKeys",
    "kms:ListResourceTags",
    "kms:ScheduleKeyDeletion",
    // migrate, rollout, rotate's and ssm publish's restarts.
    "ecs:DescribeServices",
    "ecs:DescribeTaskDefinition",
    "ecs:ListTasks",
    "ecs:DescribeTasks",
    "ecs:RunTask",
    "ecs:UpdateService",
    // rollout's stages of a canary, linear or blue/green release; rollback's history and its
    // registration of the previous revision again (docs/pipeline.md, "runway rollback").
    "ecs:DescribeServiceDeployments",
    "ecs:ListServiceDeployments",
    "ecs:DescribeServiceRevisions",
    "ecs:RegisterTaskDefinition",
    // rotate and migrate's proxy wait.
    "rds:ModifyDBInstance",
    "rds:ModifyDBCluster",
    "rds:DescribeDBInstances",
    "rds:DescribeDBClusters",
    "rds:DescribeDBProxyTargets",
    "elasticache:ModifyReplicationGroup",
    "elasticache:DescribeReplicationGroups",
    // restore of a cache: the live group's first node, for its subnet group and security groups.
    "elasticache:DescribeCacheClusters",
    // spend.
    "ce:GetCostAndUsage",
    // preflight's reads (docs/preflight.md).
    "ec2:DescribeSubnets",
    "ec2:DescribeRouteTables",
    "ec2:DescribeVpcEndpoints",
    "ec2:DescribeSecurityGroups",
    "acm:DescribeCertificate",
    "iam:GetRole",
    "servicequotas:GetServiceQuota",
    "servicequotas:GetAWSDefaultServiceQuota",
    "route53:GetHostedZone",
    "ecr:GetAuthorizationToken",
    "kms:GetKeyPolicy",
    "ce:ListCostAllocationTags",
    // drift's reads: what carries the environment's tags (the describes above compare sizes).
    "tag:GetResources",
    // restore --switch: the proxy's target moved from the old instance to the copy (the
    // program's grants reach them already).
    "rds:RegisterDBProxyTargets",
    "rds:DeregisterDBProxyTargets",
    // restore --switch: the copy tagged once the readers were restarted (renames and deletion
    // protection are ModifyDBInstance, above).
    "rds:AddTagsToResource",
    // restore's check (`restore.check`): its temporary security group, tagged for the plan (the
    // program's grants on the plan's tagged groups reach it; ModifyDBInstance or ModifyDBCluster,
    // above, puts it on the copy and takes it off; RunTask, above, runs the bootstrap's task
    // definition). An Aurora copy names only its subnet group: its VPC is read from it (the
    // program's grants on the plan's subnet groups reach it: the copy is in the live one's).
    "rds:DescribeDBSubnetGroups",
    "ec2:CreateSecurityGroup",
    "ec2:AuthorizeSecurityGroupIngress",
    "ec2:AuthorizeSecurityGroupEgress",
    "ec2:RevokeSecurityGroupEgress",
    "ec2:DeleteSecurityGroup",
    // preview up|down|list|sweep (docs/previews.md): what `down` removes outside the stack
    // (the previews are found by their tags, tag:GetResources above).
    "ssm:GetParametersByPath",
    "ecs:DeleteService",
    "ecs:DeregisterTaskDefinition",
    "ecs:DeleteTaskDefinitions",
    // preview down: a preview's own buckets emptied before its destroy, and a leftover bucket
    // (no stack holds it) deleted once empty. IAM's names: ListObjectVersions is
    // s3:ListBucketVersions, DeleteObjects of versions s3:DeleteObjectVersion (and
    // s3:DeleteObject) (Service Authorization Reference, "Actions defined by Amazon S3").
    "s3:ListBucketVersions",
    "s3:DeleteObject",
    "s3:DeleteObjectVersion",
    "s3:DeleteBucket",
    // preview down and sweep: a leftover queue (no stack holds it) deleted.
    "sqs:GetQueueUrl",
    "sqs:DeleteQueue",
    // preview up and down: a preview's login secrets added to, then taken off, the `auth` of
    // the proxy it shares with `from` (the program's grants on `from`'s proxy reach it already).
    "rds:DescribeDBProxies",
    "rds:ModifyDBProxy",
];

/// The statements for runway's own calls.
pub(crate) fn statements(s: &Scope<'_>) -> Vec<Statement> {
    let stem = &s.stem;
    let mut out = vec![
        Statement::allow(
            "ParametersUnderThePlansPrefix",
            &[
                "ssm:GetParameter",
                "ssm:GetParameters",
                "ssm:PutParameter",
                "ssm:AddTagsToResource",
                "ssm:ListTagsForResource",
            ],
            vec![s.parameters()],
        ),
        // `runway deploy`'s lease: who won an expired one (its history), deleted at the end.
        Statement::allow(
            "TheDeployLease",
            &["ssm:GetParameterHistory", "ssm:DeleteParameter"],
            vec![s.arn("ssm", &format!("parameter{}/runway/deploy/lease", s.ssm_prefix()))],
        ),
        Statement::allow(
            "DescribeAndListCallsTakeOnlyStar",
            // kms:ListKeys: the environment's key found by its tags (only ids are listed).
            // tag:GetResources: `runway drift` lists what carries the environment's tags.
            &["ssm:DescribeParameters", "kms:ListKeys", "tag:GetResources"],
            vec!["*".to_owned()],
        ),
        Statement::allow(
            "SecretsUnderThePlansName",
            &[
                "secretsmanager:CreateSecret",
                "secretsmanager:DescribeSecret",
                "secretsmanager:GetSecretValue",
                "secretsmanager:PutSecretValue",
                "secretsmanager:UpdateSecret",
                "secretsmanager:TagResource",
                "secretsmanager:DeleteSecret",
            ],
            vec![s.secrets()],
        ),
        Statement::allow(
            "EcsClusterServicesAndTasksOfThePlan",
            &["ecs:DescribeServices", "ecs:UpdateService", "ecs:DescribeTasks", "ecs:RunTask"],
            vec![
                s.arn("ecs", &format!("service/{stem}*/*")),
                s.arn("ecs", &format!("task/{stem}*/*")),
                s.arn("ecs", &format!("task-definition/{stem}*:*")),
            ],
        ),
        // A service's deployments and revisions (`rollout`'s stages, `rollback`'s history):
        // ListServiceDeployments is authorized on the service, the others on the deployment or
        // revision, each under the plan's services.
        Statement::allow(
            "EcsServiceDeploymentsOfThePlan",
            &["ecs:ListServiceDeployments", "ecs:DescribeServiceDeployments", "ecs:DescribeServiceRevisions"],
            vec![
                s.arn("ecs", &format!("service/{stem}*/*")),
                s.arn("ecs", &format!("service-deployment/{stem}*/*/*")),
                s.arn("ecs", &format!("service-revision/{stem}*/*/*")),
            ],
        ),
        // DescribeTaskDefinition and RegisterTaskDefinition name no resource; ListTasks is
        // checked against the container instance, which Fargate has none of. `rollback`
        // registers the previous revision again (its roles passed by `pass_role` below).
        Statement::allow(
            "EcsTaskDefinitionCallsTakeOnlyStar",
            &["ecs:DescribeTaskDefinition", "ecs:ListTasks", "ecs:RegisterTaskDefinition"],
            vec!["*".to_owned()],
        ),
        crate::shared::pass_role(s),
        // Cost Explorer has no resource ARNs (docs/pipeline.md, "The monthly spend job").
        Statement::allow(
            "CostExplorerTakesOnlyStar",
            &["ce:GetCostAndUsage", "ce:ListCostAllocationTags"],
            vec!["*".to_owned()],
        ),
    ];
    out.extend(preflight(s));
    if s.plan.items.iter().any(|i| matches!(i.kind(), K::RdsInstance | K::AuroraCluster)) {
        let mut dbs = s.each(K::RdsInstance, |n| s.arn("rds", &format!("db:{n}")));
        dbs.extend(s.each(K::AuroraCluster, |n| s.arn("rds", &format!("cluster:{n}"))));
        dbs.push(s.arn("rds", "db-proxy:*"));
        dbs.push(s.arn("rds", "target-group:*"));
        out.push(Statement::allow(
            "RdsOfThePlanAndProxiesWhoseIdsRdsGenerates",
            &[
                "rds:ModifyDBInstance",
                "rds:ModifyDBCluster",
                "rds:DescribeDBInstances",
                "rds:DescribeDBClusters",
                "rds:DescribeDBProxyTargets",
                "rds:RegisterDBProxyTargets",
                "rds:DeregisterDBProxyTargets",
                "rds:AddTagsToResource",
                // A preview's logins on the proxy it shares with this environment.
                "rds:DescribeDBProxies",
                "rds:ModifyDBProxy",
            ],
            dbs,
        ));
    }
    if s.plan.items.iter().any(|i| i.kind() == K::CacheReplicationGroup) {
        let mut caches =
            s.each(K::CacheReplicationGroup, |n| s.arn("elasticache", &format!("replicationgroup:{n}")));
        caches.extend(s.each(K::CacheReplicationGroup, |n| s.arn("elasticache", &format!("cluster:{n}*"))));
        out.push(Statement::allow(
            "CachesOfThePlan",
            &[
                "elasticache:ModifyReplicationGroup",
                "elasticache:DescribeReplicationGroups",
                "elasticache:DescribeCacheClusters",
            ],
            caches,
        ));
    }
    out.extend(previews(s));
    out.extend(crate::shared::own_key(
        s,
        &[
            "kms:DescribeKey",
            "kms:GetKeyPolicy",
            "kms:CreateAlias",
            // Found by its tags; another key of the environment scheduled for deletion.
            "kms:ListResourceTags",
            "kms:ScheduleKeyDeletion",
            "kms:Encrypt",
            "kms:Decrypt",
            "kms:GenerateDataKey",
        ],
    ));
    out
}

/// `runway preflight`'s reads: EC2, Service Quotas, ECR's token, the certificates, hosted zones
/// and ECS's service-linked role, and registry credentials named by ARN.
fn preflight(s: &Scope<'_>) -> Vec<Statement> {
    let mut out = vec![
        // `runway preflight`: EC2's Describe calls, Service Quotas and ECR's token take no
        // resource ARN.
        Statement::allow(
            "PreflightReadsThatTakeOnlyStar",
            &[
                "ec2:DescribeSubnets",
                "ec2:DescribeRouteTables",
                "ec2:DescribeVpcEndpoints",
                "ec2:DescribeSecurityGroups",
                "servicequotas:GetServiceQuota",
                "servicequotas:GetAWSDefaultServiceQuota",
                "ecr:GetAuthorizationToken",
            ],
            vec!["*".to_owned()],
        ),
        Statement::allow(
            "PreflightReadsTheCertificatesAndHostedZones",
            &["acm:DescribeCertificate", "route53:GetHostedZone"],
            vec![s.arn("acm", "certificate/*"), "arn:aws:route53:::hostedzone/*".to_owned()],
        ),
        Statement::allow(
            "PreflightReadsTheEcsServiceLinkedRole",
            &["iam:GetRole"],
            vec![format!(
                "arn:aws:iam::{}:role/aws-service-role/ecs.amazonaws.com/AWSServiceRoleForECS",
                s.account
            )],
        ),
    ];
    // Registry credentials named by ARN live outside the plan's secrets: preflight reads them.
    let registry: Vec<String> = runtime_plan::preflight::expectations(s.plan)
        .images
        .into_iter()
        .filter_map(|i| i.credentials.filter(|c| c.starts_with("arn:")).map(|c| c.to_string()))
        .collect();
    if !registry.is_empty() {
        out.push(Statement::allow(
            "PreflightReadsRegistryCredentialsNamedByArn",
            &["secretsmanager:GetSecretValue"],
            registry,
        ));
    }
    out
}

/// `runway preview`: the previews of the product found by their tags (GetResources takes no
/// resource ARN); `down` removes, under the previews' own names only, the parameters under
/// `<prefix>/previews/`, the previews' secrets, services, buckets' objects and leftover
/// buckets, and task definitions (ECS's task
/// definition calls are given `*`: runway deletes only those tagged as one of the product's
/// previews).
fn previews(s: &Scope<'_>) -> Vec<Statement> {
    let stem = &s.stem;
    vec![
        Statement::allow("PreviewsFoundByTheirTags", &["tag:GetResources"], vec!["*".to_owned()]),
        Statement::allow(
            "PreviewsParametersUnderTheirPrefix",
            &["ssm:GetParametersByPath", "ssm:DeleteParameter"],
            vec![s.arn("ssm", &format!("parameter{}/previews/*", s.ssm_prefix()))],
        ),
        Statement::allow(
            "PreviewsOwnSecretsAndServices",
            &["secretsmanager:DeleteSecret", "ecs:DeleteService"],
            vec![
                s.arn("secretsmanager", &format!("secret:{}/pr-*", s.plan.product)),
                s.arn("ecs", &format!("service/{stem}/{}-pr-*", s.plan.product)),
            ],
        ),
        // Only the previews' own buckets (`<product>-pr-<n>-<resource>-...`), never `from`'s.
        Statement::allow(
            "PreviewsOwnBucketsEmptiedAndLeftoversDeleted",
            &["s3:ListBucketVersions", "s3:DeleteObject", "s3:DeleteObjectVersion", "s3:DeleteBucket"],
            vec![
                format!("arn:aws:s3:::{}-pr-*", s.plan.product),
                format!("arn:aws:s3:::{}-pr-*/*", s.plan.product),
            ],
        ),
        Statement::allow(
            "PreviewsLeftoverQueues",
            &["sqs:GetQueueUrl", "sqs:DeleteQueue"],
            vec![s.arn("sqs", &format!("{}-pr-*", s.plan.product))],
        ),
        Statement::allow(
            "PreviewsTaskDefinitionsTakeOnlyStar",
            &["ecs:DeregisterTaskDefinition", "ecs:DeleteTaskDefinitions"],
            vec!["*".to_owned()],
        ),
    ]
}

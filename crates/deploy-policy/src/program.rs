//! What `pulumi up` calls for each resource type (and look-up) the program declares: create,
//! read, update, delete and tag, on the plan's names where the service takes resource-level
//! permissions.

use std::collections::BTreeSet;

use runtime_plan::ItemKind as K;

use crate::document::Statement;
use crate::scope::Scope;

/// Every `type:` and `function:` the program declares, in order of name.
pub(crate) fn declared_types(program: &pulumi_program::Program) -> Vec<String> {
    let mut types = BTreeSet::new();
    for (_, text) in &program.files {
        for line in text.lines() {
            let line = line.trim_start();
            let value = line.strip_prefix("type: ").or_else(|| line.strip_prefix("function: "));
            if let Some(v) = value.filter(|v| v.starts_with("aws:")) {
                types.insert(v.trim().to_owned());
            }
        }
    }
    types.into_iter().collect()
}

/// Whether [`statements`] grants anything for `ty`.
pub(crate) fn covers(ty: &str) -> bool {
    KNOWN_TYPES.contains(&ty)
}

/// Every type and look-up this crate grants for (a test checks it lists every one the
/// program's source names).
pub const KNOWN_TYPES: &[&str] = &[
    "aws:appautoscaling/policy:Policy",
    "aws:appautoscaling/scheduledAction:ScheduledAction",
    "aws:appautoscaling/target:Target",
    "aws:budgets/budget:Budget",
    "aws:cloudwatch/eventRule:EventRule",
    "aws:cloudwatch/eventTarget:EventTarget",
    "aws:cloudwatch/logGroup:LogGroup",
    "aws:cloudwatch/metricAlarm:MetricAlarm",
    "aws:ec2/securityGroup:SecurityGroup",
    "aws:ec2/vpcEndpoint:VpcEndpoint",
    "aws:ec2:getSecurityGroup",
    "aws:ecs/cluster:Cluster",
    "aws:ecs/service:Service",
    "aws:ecs/taskDefinition:TaskDefinition",
    "aws:ecs:getCluster",
    "aws:elasticache/replicationGroup:ReplicationGroup",
    "aws:elasticache/subnetGroup:SubnetGroup",
    "aws:elasticache:getReplicationGroup",
    "aws:iam/role:Role",
    "aws:iam/rolePolicy:RolePolicy",
    "aws:iam:getRole",
    "aws:iam:getSessionContext",
    "aws:index:getCallerIdentity",
    "aws:kms/keyPolicy:KeyPolicy",
    "aws:kms:getAlias",
    "aws:kms:getKey",
    "aws:lb/listener:Listener",
    "aws:lb/listenerRule:ListenerRule",
    "aws:lb/loadBalancer:LoadBalancer",
    "aws:lb/targetGroup:TargetGroup",
    "aws:lb:getListener",
    "aws:lb:getLoadBalancer",
    "aws:rds/cluster:Cluster",
    "aws:rds/clusterInstance:ClusterInstance",
    "aws:rds/instance:Instance",
    "aws:rds/proxy:Proxy",
    "aws:rds/proxyDefaultTargetGroup:ProxyDefaultTargetGroup",
    "aws:rds/proxyTarget:ProxyTarget",
    "aws:rds/subnetGroup:SubnetGroup",
    "aws:rds:getInstance",
    "aws:rds:getProxy",
    "aws:route53/record:Record",
    "aws:s3/bucket:Bucket",
    "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration",
    "aws:s3/bucketPolicy:BucketPolicy",
    "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock",
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
    "aws:s3/bucketVersioning:BucketVersioning",
    "aws:scheduler/schedule:Schedule",
    "aws:secretsmanager/secret:Secret",
    "aws:secretsmanager:getSecret",
    "aws:servicediscovery/privateDnsNamespace:PrivateDnsNamespace",
    "aws:servicediscovery/service:Service",
    "aws:servicediscovery:getDnsNamespace",
    "aws:sns/topic:Topic",
    "aws:sns/topicPolicy:TopicPolicy",
    "aws:sns/topicSubscription:TopicSubscription",
    "aws:sns:getTopic",
    "aws:sqs/queue:Queue",
    "aws:ssm/parameter:Parameter",
    "aws:ssm:getParameter",
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule",
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
];

/// The statements for `types`, before merging (statements of one Sid are joined later).
pub(crate) fn statements(s: &Scope<'_>, types: &[String]) -> Vec<Statement> {
    let mut out = Vec::new();
    for ty in types {
        out.extend(for_type(s, ty));
    }
    out
}

/// Read-only calls that take no resource ARN: IAM accepts them only on `*`.
const READ_SID: &str = "DescribeAndListCallsTakeOnlyStar";

fn read(actions: &[&str]) -> Statement {
    Statement::allow(READ_SID, actions, vec!["*".to_owned()])
}

fn for_type(s: &Scope<'_>, ty: &str) -> Vec<Statement> {
    let (service, kind) = ty.split_once('/').map_or((ty, ""), |(a, b)| (a, b));
    match service {
        "aws:ecs" => ecs(s, kind),
        "aws:iam" => iam(s),
        "aws:rds" => rds(s),
        "aws:elasticache" => elasticache(s),
        "aws:sqs" => vec![Statement::allow(
            "QueuesOfThePlan",
            &[
                "sqs:CreateQueue",
                "sqs:DeleteQueue",
                "sqs:GetQueueAttributes",
                "sqs:SetQueueAttributes",
                "sqs:GetQueueUrl",
                "sqs:TagQueue",
                "sqs:UntagQueue",
                "sqs:ListQueueTags",
            ],
            s.each_of(&[K::SqsQueue, K::SqsDeadLetterQueue], |n| s.arn("sqs", n)),
        )],
        "aws:sns" => vec![Statement::allow(
            "TopicsOfThePlan",
            &[
                "sns:CreateTopic",
                "sns:DeleteTopic",
                "sns:GetTopicAttributes",
                "sns:SetTopicAttributes",
                "sns:TagResource",
                "sns:UntagResource",
                "sns:ListTagsForResource",
                "sns:Subscribe",
                "sns:Unsubscribe",
                "sns:GetSubscriptionAttributes",
                "sns:SetSubscriptionAttributes",
            ],
            s.each_of(&[K::SnsTopic, K::AlertTopic], |n| s.arn("sns", n)),
        )],
        "aws:s3" => s3(s),
        "aws:cloudwatch" => cloudwatch(s, kind),
        "aws:lb" => elb(s),
        "aws:ec2" | "aws:vpc" => ec2(s),
        "aws:servicediscovery" => cloud_map(),
        "aws:route53" => route53(s),
        "aws:appautoscaling" => autoscaling(s),
        "aws:scheduler" => scheduler(s),
        "aws:budgets" => vec![Statement::allow(
            "BudgetOfThePlan",
            &[
                "budgets:ViewBudget",
                "budgets:ModifyBudget",
                "budgets:ListTagsForResource",
                "budgets:TagResource",
                "budgets:UntagResource",
            ],
            s.each(K::Budget, |n| format!("arn:aws:budgets::{}:budget/{n}", s.account)),
        )],
        "aws:ssm:getParameter" | "aws:ssm" => vec![
            Statement::allow(
                "ParametersUnderThePlansPrefix",
                &[
                    "ssm:GetParameter",
                    "ssm:GetParameters",
                    "ssm:PutParameter",
                    "ssm:DeleteParameter",
                    "ssm:AddTagsToResource",
                    "ssm:RemoveTagsFromResource",
                    "ssm:ListTagsForResource",
                ],
                vec![s.parameters()],
            ),
            read(&["ssm:DescribeParameters"]),
        ],
        "aws:secretsmanager" | "aws:secretsmanager:getSecret" => vec![Statement::allow(
            "SecretsUnderThePlansName",
            &[
                "secretsmanager:DescribeSecret",
                "secretsmanager:GetResourcePolicy",
                "secretsmanager:CreateSecret",
                "secretsmanager:DeleteSecret",
                "secretsmanager:TagResource",
                "secretsmanager:UntagResource",
            ],
            vec![s.secrets()],
        )],
        "aws:kms" => crate::shared::own_key(s, &["kms:PutKeyPolicy", "kms:GetKeyPolicy", "kms:DescribeKey"]),
        "aws:kms:getKey" => crate::shared::own_key(s, &["kms:DescribeKey"]),
        "aws:kms:getAlias" => vec![read(&["kms:ListAliases"])],
        // A pull request's preview looks up what it shares with its `from` environment
        // (`pulumi-program/src/shared.rs`): reads only, by name, of items that environment's
        // deploy made; the describe calls take no resource ARN.
        "aws:ecs:getCluster" => vec![read(&["ecs:DescribeClusters"])],
        "aws:lb:getLoadBalancer" | "aws:lb:getListener" => vec![read(&[
            "elasticloadbalancing:DescribeLoadBalancers",
            "elasticloadbalancing:DescribeListeners",
            "elasticloadbalancing:DescribeTags",
        ])],
        "aws:servicediscovery:getDnsNamespace" => {
            vec![read(&["servicediscovery:ListNamespaces", "servicediscovery:GetNamespace"])]
        }
        "aws:ec2:getSecurityGroup" => vec![read(&["ec2:DescribeSecurityGroups"])],
        "aws:rds:getProxy" => vec![read(&["rds:DescribeDBProxies"])],
        "aws:rds:getInstance" => vec![read(&["rds:DescribeDBInstances"])],
        "aws:elasticache:getReplicationGroup" => vec![read(&["elasticache:DescribeReplicationGroups"])],
        "aws:sns:getTopic" => vec![read(&["sns:ListTopics"])],
        "aws:iam:getRole" => vec![Statement::allow(
            "ReadTheSharedProxyRole",
            &["iam:GetRole"],
            vec![format!("arn:aws:iam::{}:role/*", s.account)],
        )],
        "aws:iam:getSessionContext" => vec![Statement::allow(
            "ReadItsOwnRoleForTheKeyPolicy",
            &["iam:GetRole"],
            vec![format!("arn:aws:iam::{}:role/runway-deploy-{}", s.account, s.stem)],
        )],
        // sts:GetCallerIdentity needs no permission (IAM User Guide, "GetCallerIdentity").
        "aws:index:getCallerIdentity" => Vec::new(),
        _ => Vec::new(),
    }
}

fn ecs(s: &Scope<'_>, kind: &str) -> Vec<Statement> {
    let stem = &s.stem;
    let mut out = vec![Statement::allow(
        "EcsClusterServicesAndTasksOfThePlan",
        &[
            "ecs:CreateCluster",
            "ecs:DeleteCluster",
            "ecs:DescribeClusters",
            "ecs:UpdateCluster",
            "ecs:PutClusterCapacityProviders",
            "ecs:CreateService",
            "ecs:UpdateService",
            "ecs:DeleteService",
            "ecs:DescribeServices",
            "ecs:TagResource",
            "ecs:UntagResource",
            "ecs:ListTagsForResource",
        ],
        vec![
            s.arn("ecs", &format!("cluster/{stem}*")),
            s.arn("ecs", &format!("service/{stem}*/*")),
            s.arn("ecs", &format!("task-definition/{stem}*:*")),
        ],
    )];
    if kind.starts_with("taskDefinition") {
        // RegisterTaskDefinition, DeregisterTaskDefinition and DescribeTaskDefinition name no
        // resource IAM can check (Service Authorization Reference, Amazon ECS).
        out.push(Statement::allow(
            "EcsTaskDefinitionCallsTakeOnlyStar",
            &["ecs:RegisterTaskDefinition", "ecs:DeregisterTaskDefinition", "ecs:DescribeTaskDefinition"],
            vec!["*".to_owned()],
        ));
        out.push(crate::shared::pass_role(s));
    }
    if kind.starts_with("service") {
        out.push(service_linked(s));
    }
    out
}

/// The service-linked roles ECS, RDS, ElastiCache, load balancing and autoscaling need, made
/// by the first use in a new account.
fn service_linked(s: &Scope<'_>) -> Statement {
    Statement::allow(
        "CreateServiceLinkedRolesOnFirstUse",
        &["iam:CreateServiceLinkedRole"],
        vec![format!("arn:aws:iam::{}:role/aws-service-role/*", s.account)],
    )
    .when(
        "StringEquals",
        "iam:AWSServiceName",
        &[
            "ecs.amazonaws.com",
            "rds.amazonaws.com",
            "elasticache.amazonaws.com",
            "elasticloadbalancing.amazonaws.com",
            "ecs.application-autoscaling.amazonaws.com",
        ],
    )
}

fn iam(s: &Scope<'_>) -> Vec<Statement> {
    vec![Statement::allow(
        "RolesOfThePlan",
        &[
            "iam:CreateRole",
            "iam:DeleteRole",
            "iam:GetRole",
            "iam:TagRole",
            "iam:UntagRole",
            "iam:UpdateRole",
            "iam:UpdateAssumeRolePolicy",
            "iam:ListRolePolicies",
            "iam:ListAttachedRolePolicies",
            "iam:ListInstanceProfilesForRole",
            "iam:PutRolePolicy",
            "iam:GetRolePolicy",
            "iam:DeleteRolePolicy",
        ],
        vec![format!("arn:aws:iam::{}:role/{}*", s.account, s.stem)],
    )]
}

fn rds(s: &Scope<'_>) -> Vec<Statement> {
    let mut resources = s.each(K::RdsInstance, |n| s.arn("rds", &format!("db:{n}")));
    resources.extend(s.each(K::AuroraCluster, |n| s.arn("rds", &format!("cluster:{n}"))));
    resources.extend(s.each(K::DbSubnetGroup, |n| s.arn("rds", &format!("subgrp:{n}"))));
    // Proxies and their target groups are named by RDS (`prx-...`), not by the plan.
    resources.push(s.arn("rds", "db-proxy:*"));
    resources.push(s.arn("rds", "target-group:*"));
    resources.push(s.arn("rds", "pg:default.*"));
    resources.push(s.arn("rds", "cluster-pg:default.*"));
    resources.push(s.arn("rds", "og:default:*"));
    vec![
        Statement::allow(
            "RdsOfThePlanAndProxiesWhoseIdsRdsGenerates",
            &[
                "rds:CreateDBInstance",
                "rds:DeleteDBInstance",
                "rds:ModifyDBInstance",
                "rds:DescribeDBInstances",
                "rds:CreateDBCluster",
                "rds:DeleteDBCluster",
                "rds:ModifyDBCluster",
                "rds:DescribeDBClusters",
                "rds:CreateDBSubnetGroup",
                "rds:ModifyDBSubnetGroup",
                "rds:DeleteDBSubnetGroup",
                "rds:DescribeDBSubnetGroups",
                "rds:CreateDBProxy",
                "rds:DeleteDBProxy",
                "rds:ModifyDBProxy",
                "rds:DescribeDBProxies",
                "rds:DescribeDBProxyTargetGroups",
                "rds:DescribeDBProxyTargets",
                "rds:ModifyDBProxyTargetGroup",
                "rds:RegisterDBProxyTargets",
                "rds:DeregisterDBProxyTargets",
                "rds:AddTagsToResource",
                "rds:RemoveTagsFromResource",
                "rds:ListTagsForResource",
            ],
            resources,
        ),
        crate::shared::pass_role(s),
        service_linked(s),
    ]
}

fn elasticache(s: &Scope<'_>) -> Vec<Statement> {
    let mut resources =
        s.each(K::CacheReplicationGroup, |n| s.arn("elasticache", &format!("replicationgroup:{n}")));
    resources.extend(s.each(K::CacheReplicationGroup, |n| s.arn("elasticache", &format!("cluster:{n}"))));
    resources.extend(s.each(K::CacheSubnetGroup, |n| s.arn("elasticache", &format!("subnetgroup:{n}"))));
    resources.push(s.arn("elasticache", "parametergroup:default.*"));
    vec![
        Statement::allow(
            "CachesOfThePlan",
            &[
                "elasticache:CreateReplicationGroup",
                "elasticache:DeleteReplicationGroup",
                "elasticache:ModifyReplicationGroup",
                "elasticache:DescribeReplicationGroups",
                "elasticache:DescribeCacheClusters",
                "elasticache:CreateCacheSubnetGroup",
                "elasticache:ModifyCacheSubnetGroup",
                "elasticache:DeleteCacheSubnetGroup",
                "elasticache:DescribeCacheSubnetGroups",
                "elasticache:AddTagsToResource",
                "elasticache:RemoveTagsFromResource",
                "elasticache:ListTagsForResource",
            ],
            resources,
        ),
        service_linked(s),
    ]
}

fn s3(s: &Scope<'_>) -> Vec<Statement> {
    let mut resources = s.each(K::S3Bucket, |n| format!("arn:aws:s3:::{n}"));
    resources.extend(s.each(K::AlbLogBucket, |n| format!("arn:aws:s3:::{n}")));
    vec![Statement::allow(
        "BucketsOfThePlan",
        &[
            "s3:CreateBucket",
            "s3:DeleteBucket",
            "s3:ListBucket",
            "s3:GetBucket*",
            "s3:PutBucket*",
            "s3:DeleteBucketPolicy",
            "s3:Get*Configuration",
            "s3:Put*Configuration",
        ],
        resources,
    )]
}

fn cloudwatch(s: &Scope<'_>, kind: &str) -> Vec<Statement> {
    match kind {
        "logGroup:LogGroup" => vec![
            Statement::allow(
                "LogGroupsOfThePlan",
                &[
                    "logs:CreateLogGroup",
                    "logs:DeleteLogGroup",
                    "logs:PutRetentionPolicy",
                    "logs:DeleteRetentionPolicy",
                    "logs:TagResource",
                    "logs:UntagResource",
                    "logs:ListTagsForResource",
                    "logs:AssociateKmsKey",
                    "logs:DisassociateKmsKey",
                ],
                s.log_groups(),
            ),
            read(&["logs:DescribeLogGroups"]),
        ],
        "metricAlarm:MetricAlarm" => vec![Statement::allow(
            "AlarmsOfThePlan",
            &[
                "cloudwatch:PutMetricAlarm",
                "cloudwatch:DeleteAlarms",
                "cloudwatch:DescribeAlarms",
                "cloudwatch:TagResource",
                "cloudwatch:UntagResource",
                "cloudwatch:ListTagsForResource",
            ],
            s.each(K::MetricAlarm, |n| s.arn("cloudwatch", &format!("alarm:{n}"))),
        )],
        _ => vec![Statement::allow(
            "EventRulesOfThePlan",
            &[
                "events:PutRule",
                "events:DeleteRule",
                "events:DescribeRule",
                "events:PutTargets",
                "events:RemoveTargets",
                "events:ListTargetsByRule",
                "events:TagResource",
                "events:UntagResource",
                "events:ListTagsForResource",
            ],
            {
                // The environment's ECS rule, and each schedule's failure rule (`<name>-failed`).
                let mut rules = s.each(K::EcsEventRule, |n| s.arn("events", &format!("rule/{n}")));
                rules.extend(s.each(K::Schedule, |n| s.arn("events", &format!("rule/{n}-failed"))));
                rules
            },
        )],
    }
}

/// The schedules of the plan (EventBridge Scheduler, the default group), and passing each its
/// own role (`<name>-run`) to the scheduler only.
fn scheduler(s: &Scope<'_>) -> Vec<Statement> {
    vec![
        Statement::allow(
            "SchedulesOfThePlan",
            &[
                "scheduler:CreateSchedule",
                "scheduler:UpdateSchedule",
                "scheduler:DeleteSchedule",
                "scheduler:GetSchedule",
            ],
            s.each(K::Schedule, |n| s.arn("scheduler", &format!("schedule/default/{n}"))),
        ),
        Statement::allow(
            "PassEachScheduleItsRole",
            &["iam:PassRole"],
            s.each(K::Schedule, |n| format!("arn:aws:iam::{}:role/{n}-run", s.account)),
        )
        .when("StringEquals", "iam:PassedToService", &["scheduler.amazonaws.com"]),
    ]
}

fn elb(s: &Scope<'_>) -> Vec<Statement> {
    let stem = &s.stem;
    let lb = "elasticloadbalancing";
    vec![
        Statement::allow(
            "LoadBalancerOfThePlan",
            &[
                "elasticloadbalancing:CreateLoadBalancer",
                "elasticloadbalancing:DeleteLoadBalancer",
                "elasticloadbalancing:ModifyLoadBalancerAttributes",
                "elasticloadbalancing:SetSecurityGroups",
                "elasticloadbalancing:SetSubnets",
                "elasticloadbalancing:CreateTargetGroup",
                "elasticloadbalancing:DeleteTargetGroup",
                "elasticloadbalancing:ModifyTargetGroup",
                "elasticloadbalancing:ModifyTargetGroupAttributes",
                "elasticloadbalancing:CreateListener",
                "elasticloadbalancing:DeleteListener",
                "elasticloadbalancing:ModifyListener",
                "elasticloadbalancing:CreateRule",
                "elasticloadbalancing:DeleteRule",
                "elasticloadbalancing:ModifyRule",
                "elasticloadbalancing:SetRulePriorities",
                "elasticloadbalancing:AddTags",
                "elasticloadbalancing:RemoveTags",
            ],
            vec![
                s.arn(lb, &format!("loadbalancer/app/{stem}*/*")),
                s.arn(lb, &format!("targetgroup/{stem}*/*")),
                s.arn(lb, &format!("listener/app/{stem}*/*/*")),
                s.arn(lb, &format!("listener-rule/app/{stem}*/*/*/*")),
            ],
        ),
        read(&["elasticloadbalancing:Describe*"]),
        service_linked(s),
    ]
}

fn ec2(s: &Scope<'_>) -> Vec<Statement> {
    let [(_, product), (_, env)] = s.tags();
    vec![
        // The VPC, its subnets and route tables are the stack's inputs, not the plan's.
        Statement::allow(
            "CreateInTheStacksVpc",
            &["ec2:CreateSecurityGroup", "ec2:CreateVpcEndpoint"],
            vec![s.arn("ec2", "vpc/*"), s.arn("ec2", "subnet/*"), s.arn("ec2", "route-table/*")],
        ),
        Statement::allow(
            "CreateOnlyTaggedForThePlan",
            &["ec2:CreateSecurityGroup", "ec2:CreateVpcEndpoint", "ec2:CreateTags"],
            vec![s.arn("ec2", "security-group/*"), s.arn("ec2", "vpc-endpoint/*")],
        )
        .when("StringEquals", "aws:RequestTag/product", &[product])
        .when("StringEquals", "aws:RequestTag/environment", &[env]),
        Statement::allow(
            "ChangeOnlyWhatIsTaggedForThePlan",
            &[
                "ec2:AuthorizeSecurityGroupIngress",
                "ec2:AuthorizeSecurityGroupEgress",
                "ec2:RevokeSecurityGroupIngress",
                "ec2:RevokeSecurityGroupEgress",
                "ec2:ModifySecurityGroupRules",
                "ec2:DeleteSecurityGroup",
                "ec2:ModifyVpcEndpoint",
                "ec2:DeleteVpcEndpoints",
                "ec2:CreateTags",
                "ec2:DeleteTags",
            ],
            vec![s.arn("ec2", "security-group/*"), s.arn("ec2", "vpc-endpoint/*")],
        )
        .when("StringEquals", "aws:ResourceTag/product", &[product])
        .when("StringEquals", "aws:ResourceTag/environment", &[env]),
        // A rule's id is made by EC2 when the rule is; its security group is checked above.
        Statement::allow(
            "SecurityGroupRulesAreNamedByEc2",
            &[
                "ec2:AuthorizeSecurityGroupIngress",
                "ec2:AuthorizeSecurityGroupEgress",
                "ec2:RevokeSecurityGroupIngress",
                "ec2:RevokeSecurityGroupEgress",
                "ec2:ModifySecurityGroupRules",
                "ec2:CreateTags",
            ],
            vec![s.arn("ec2", "security-group-rule/*")],
        ),
        read(&["ec2:Describe*"]),
    ]
}

fn cloud_map() -> Vec<Statement> {
    // Cloud Map names namespaces and services by generated ids (`ns-...`, `srv-...`), and its
    // private namespace makes a Route 53 private zone in the stack's VPC.
    vec![Statement::allow(
        "CloudMapIdsAreGeneratedSoStar",
        &[
            "servicediscovery:CreatePrivateDnsNamespace",
            "servicediscovery:DeleteNamespace",
            "servicediscovery:GetNamespace",
            "servicediscovery:CreateService",
            "servicediscovery:UpdateService",
            "servicediscovery:DeleteService",
            "servicediscovery:GetService",
            "servicediscovery:GetOperation",
            "servicediscovery:ListTagsForResource",
            "servicediscovery:TagResource",
            "servicediscovery:UntagResource",
            "route53:CreateHostedZone",
            "route53:DeleteHostedZone",
            "route53:GetHostedZone",
            "route53:ChangeTagsForResource",
            "ec2:DescribeVpcs",
        ],
        vec!["*".to_owned()],
    )]
}

fn route53(s: &Scope<'_>) -> Vec<Statement> {
    let names = s.dns_names();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    vec![
        // The zone's id is the stack's `hostedZoneId` input; the records are the plan's names.
        Statement::allow(
            "RecordsOfThePlanInTheStacksZone",
            &["route53:ChangeResourceRecordSets"],
            vec!["arn:aws:route53:::hostedzone/*".to_owned()],
        )
        .when(
            "ForAllValues:StringEquals",
            "route53:ChangeResourceRecordSetsNormalizedRecordNames",
            &names,
        ),
        Statement::allow(
            "ReadTheStacksZoneAndChanges",
            &["route53:GetHostedZone", "route53:ListResourceRecordSets", "route53:GetChange"],
            vec!["arn:aws:route53:::hostedzone/*".to_owned(), "arn:aws:route53:::change/*".to_owned()],
        ),
    ]
}

fn autoscaling(s: &Scope<'_>) -> Vec<Statement> {
    // A scalable target's ARN holds an id Application Auto Scaling makes.
    vec![
        Statement::allow(
            "ScalingTargetIdsAreGeneratedSoStar",
            &[
                "application-autoscaling:RegisterScalableTarget",
                "application-autoscaling:DeregisterScalableTarget",
                "application-autoscaling:PutScalingPolicy",
                "application-autoscaling:DeleteScalingPolicy",
                "application-autoscaling:PutScheduledAction",
                "application-autoscaling:DeleteScheduledAction",
                "application-autoscaling:Describe*",
                "application-autoscaling:TagResource",
                "application-autoscaling:UntagResource",
                "application-autoscaling:ListTagsForResource",
            ],
            vec!["*".to_owned()],
        ),
        service_linked(s),
    ]
}

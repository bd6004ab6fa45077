//! What each alarm of the plan watches, how it is evaluated and its default threshold
//! ([`alarm_metric`]), and the parts of an `ItemSpec::MetricAlarm` item (which uses them).
//! Every alarm is a standard-resolution alarm on one metric (priced `alarm`, one alarm-month
//! each); docs/planning.md, "Alarms", lists them.

use compact_str::CompactString;
pub use runway_schema::{AlarmName, AlarmSetting};
use serde::Serialize;

/// The logical id of an environment's alerts topic: every alarm notifies it.
pub const ALERTS_TOPIC_ID: &str = "env_alerts";
/// Who the alerts topic's policy lets publish: CloudWatch alarms and EventBridge rules, each
/// only from this account and region (its source ARN).
pub const ALERT_PUBLISHERS: &[AlertPublisher] = &[CLOUDWATCH, EVENTS];
/// [`ALERT_PUBLISHERS`] and AWS Budgets, in an environment with a budget (it notifies the
/// topic too).
pub const ALERT_PUBLISHERS_WITH_BUDGET: &[AlertPublisher] = &[CLOUDWATCH, EVENTS, BUDGETS];
const CLOUDWATCH: AlertPublisher = AlertPublisher {
    principal: "cloudwatch.amazonaws.com",
    service: "cloudwatch",
    regional: true,
    resources: "alarm:*",
    key_source_account: true,
};
const EVENTS: AlertPublisher = AlertPublisher {
    principal: "events.amazonaws.com",
    service: "events",
    regional: true,
    resources: "rule/*",
    key_source_account: false,
};
const BUDGETS: AlertPublisher = AlertPublisher {
    principal: "budgets.amazonaws.com",
    service: "budgets",
    regional: false,
    resources: "*",
    key_source_account: false,
};

/// An AWS service allowed to publish to the alerts topic, from `arn:aws:<service>:<region>:
/// <account>:<resources>` only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlertPublisher {
    /// Its service principal.
    pub principal: &'static str,
    /// The service part of its source ARN.
    pub service: &'static str,
    /// Its source ARN names the region (AWS Budgets is global: `arn:aws:budgets::<account>:*`).
    pub regional: bool,
    /// The resource part of its source ARN (`alarm:*`).
    pub resources: &'static str,
    /// The key policy's grant to it is scoped with `aws:SourceAccount` (the deploying
    /// account): only where the service's KMS requests carry that key (CloudWatch). An
    /// EventBridge target's KMS request does not carry it, and AWS documents none for
    /// Budgets: a condition there would drop every alert (docs/secrets.md, "The
    /// environment's key").
    pub key_source_account: bool,
}
/// The ECS events the deployment rule sends to the alerts topic: `(detail-type, eventName)`.
pub const ECS_ALERT_EVENTS: &[(&str, &str)] = &[
    ("ECS Deployment State Change", "SERVICE_DEPLOYMENT_FAILED"),
    ("ECS Service Action", "SERVICE_TASK_START_IMPAIRED"),
];

/// How an alarm compares its metric with its threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Comparison {
    /// `GreaterThanThreshold`.
    GreaterThanThreshold,
    /// `LessThanThreshold`.
    LessThanThreshold,
}

impl Comparison {
    /// As CloudWatch names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Comparison::GreaterThanThreshold => "GreaterThanThreshold",
            Comparison::LessThanThreshold => "LessThanThreshold",
        }
    }
}

/// What one alarm watches and how: the metric, its statistic, the window, and the default
/// threshold in the file's unit ([`AlarmName::unit`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlarmMetric {
    /// The CloudWatch namespace (`AWS/RDS`).
    pub namespace: &'static str,
    /// The metric (`CPUUtilization`).
    pub metric: &'static str,
    /// The statistic (`Average`), or a percentile (`p95`, an extended statistic).
    pub statistic: &'static str,
    /// How the metric is compared with the threshold.
    pub comparison: Comparison,
    /// Seconds of one period (60 or 300: standard resolution).
    pub period_seconds: u32,
    /// Periods evaluated, and how many of them must breach.
    pub evaluation_periods: u32,
    /// How many of the evaluated periods must breach.
    pub datapoints_to_alarm: u32,
    /// How a period without data counts (`notBreaching`, `breaching`).
    pub missing_data: &'static str,
    /// The default threshold, in the file's unit (`None`: the workload's `scale.min`).
    pub default_threshold: Option<u64>,
    /// The metric's value of one file unit (`0.001`: a threshold in ms of a metric in seconds).
    pub unit_value: f64,
    /// What is watched, in words, for the alarm's description.
    pub what: &'static str,
}

impl AlarmMetric {
    /// A percentile statistic (`p95`) is an extended statistic in CloudWatch's API.
    pub fn extended(&self) -> bool {
        self.statistic.starts_with('p')
    }
}

const GT: Comparison = Comparison::GreaterThanThreshold;
const LT: Comparison = Comparison::LessThanThreshold;
/// Bytes of a MiB.
const MIB: f64 = 1_048_576.0;

const fn m(
    (namespace, metric, statistic): (&'static str, &'static str, &'static str),
    comparison: Comparison,
    (period_seconds, evaluation_periods, datapoints_to_alarm): (u32, u32, u32),
    missing_data: &'static str,
    default_threshold: Option<u64>,
    unit_value: f64,
    what: &'static str,
) -> AlarmMetric {
    AlarmMetric {
        namespace,
        metric,
        statistic,
        comparison,
        period_seconds,
        evaluation_periods,
        datapoints_to_alarm,
        missing_data,
        default_threshold,
        unit_value,
        what,
    }
}

/// What an alarm watches, how, and its default threshold (docs/planning.md, "Alarms").
pub fn alarm_metric(alarm: AlarmName) -> AlarmMetric {
    const ELB: &str = "AWS/ApplicationELB";
    const NB: &str = "notBreaching";
    match alarm {
        AlarmName::AlbErrors => m(
            (ELB, "HTTPCode_ELB_5XX_Count", "Sum"),
            GT,
            (60, 3, 3),
            NB,
            Some(10),
            1.0,
            "5xx responses of the ALB itself",
        ),
        AlarmName::TargetErrors => {
            m((ELB, "HTTPCode_Target_5XX_Count", "Sum"), GT, (60, 3, 3), NB, Some(10), 1.0, "5xx responses")
        }
        // Pages only: the ALB counts a booting target unhealthy after `unhealthyThreshold` x
        // `interval` whatever the grace says, so it is no deployment alarm (docs/planning.md).
        AlarmName::UnhealthyTargets => {
            m((ELB, "UnHealthyHostCount", "Maximum"), GT, (60, 3, 3), NB, Some(0), 1.0, "unhealthy targets")
        }
        AlarmName::TargetLatency => {
            m((ELB, "TargetResponseTime", "p95"), GT, (60, 5, 5), NB, Some(2_000), 0.001, "p95 response time")
        }
        // No data: no healthy target is registered. Declared with its service (it depends on
        // it), so the first `up` of a first deploy, which excludes the services and their
        // dependents, does not declare it before any task could run.
        AlarmName::RunningTasks => m(
            (ELB, "HealthyHostCount", "Minimum"),
            LT,
            (60, 5, 5),
            "breaching",
            None,
            1.0,
            "healthy tasks below the running minimum",
        ),
        AlarmName::DbCpu => {
            m(("AWS/RDS", "CPUUtilization", "Average"), GT, (300, 3, 3), NB, Some(80), 1.0, "CPU")
        }
        AlarmName::DbFreeStorage => {
            m(("AWS/RDS", "FreeStorageSpace", "Minimum"), LT, (300, 1, 1), NB, Some(10), 1.0, "free storage")
        }
        AlarmName::DbFreeableMemory => m(
            ("AWS/RDS", "FreeableMemory", "Minimum"),
            LT,
            (300, 3, 3),
            NB,
            Some(256),
            MIB,
            "freeable memory",
        ),
        // Percent of the class's `max_connections` (the catalogue's), watched in connections.
        AlarmName::DbConnections => m(
            ("AWS/RDS", "DatabaseConnections", "Maximum"),
            GT,
            (300, 3, 3),
            NB,
            Some(80),
            1.0,
            "connections",
        ),
        AlarmName::DbReplicaLag => {
            m(("AWS/RDS", "AuroraReplicaLag", "Maximum"), GT, (60, 5, 5), NB, Some(2_000), 1.0, "replica lag")
        }
        AlarmName::ProxyBorrowLatency => m(
            ("AWS/RDS", "DatabaseConnectionsBorrowLatency", "Average"),
            GT,
            (300, 3, 3),
            NB,
            Some(100),
            1_000.0,
            "connection borrow latency",
        ),
        AlarmName::CacheCpu => m(
            ("AWS/ElastiCache", "EngineCPUUtilization", "Average"),
            GT,
            (300, 3, 3),
            NB,
            Some(80),
            1.0,
            "engine CPU",
        ),
        AlarmName::CacheMemory => m(
            ("AWS/ElastiCache", "DatabaseMemoryUsagePercentage", "Maximum"),
            GT,
            (300, 3, 3),
            NB,
            Some(80),
            1.0,
            "memory use",
        ),
        AlarmName::CacheEvictions => {
            m(("AWS/ElastiCache", "Evictions", "Sum"), GT, (300, 1, 1), NB, Some(0), 1.0, "evictions")
        }
        AlarmName::QueueAge => m(
            ("AWS/SQS", "ApproximateAgeOfOldestMessage", "Maximum"),
            GT,
            (300, 1, 1),
            NB,
            Some(900),
            1.0,
            "age of the oldest message",
        ),
        AlarmName::DeadLetters => m(
            ("AWS/SQS", "ApproximateNumberOfMessagesVisible", "Maximum"),
            GT,
            (300, 1, 1),
            NB,
            Some(0),
            1.0,
            "messages in the dead-letter queue",
        ),
        // The service-level metrics ECS publishes without Container Insights; none while the
        // service runs no task.
        AlarmName::ServiceCpu => {
            m(("AWS/ECS", "CPUUtilization", "Average"), GT, (300, 3, 3), NB, Some(80), 1.0, "CPU")
        }
        AlarmName::ServiceMemory => {
            m(("AWS/ECS", "MemoryUtilization", "Maximum"), GT, (300, 3, 3), NB, Some(80), 1.0, "memory")
        }
    }
}

/// The longest window CloudWatch evaluates for a period under an hour: `Period` x
/// `EvaluationPeriods` at most one day (`PutMetricAlarm`).
pub const MAX_ALARM_WINDOW_SECONDS: u32 = 86_400;

/// Periods (each `period_seconds` long) an alarm that judges a task's health needs, all
/// breaching, so that it cannot fire within a `grace_seconds` grace: the default, or one more
/// than the grace's whole periods; at most [`MAX_ALARM_WINDOW_SECONDS`] (a grace is at most an
/// hour).
pub fn periods_past_grace(default: u32, period_seconds: u32, grace_seconds: u32) -> u32 {
    let past = grace_seconds / period_seconds.max(1) + 1;
    default.max(past).min(MAX_ALARM_WINDOW_SECONDS / period_seconds.max(1))
}

/// One dimension of an alarm's metric: its name and where its value comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlarmDimension {
    /// The dimension (`DBInstanceIdentifier`).
    pub name: &'static str,
    /// Its value.
    pub value: DimensionValue,
}

/// Where a dimension's value comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "from")]
pub enum DimensionValue {
    /// A name the plan knows (a physical name, a role).
    Text {
        /// The value.
        value: CompactString,
    },
    /// An output of another item (an ALB's or target group's `arnSuffix`).
    Output {
        /// The item's logical id.
        item: CompactString,
        /// The output.
        attribute: &'static str,
    },
}

//! The small parts item specs are made of: health checks, task secrets, grants, security rules
//! and listener actions. A leaf: it uses no other module of the plan.

use std::sync::Arc;

use compact_str::CompactString;
use serde::Serialize;

/// A health check as the task definition and target group take it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HealthSpec {
    /// HTTP path, when an HTTP check.
    pub path: Option<CompactString>,
    /// Command, when a command check.
    pub command: Option<Vec<CompactString>>,
    /// Seconds between checks.
    pub interval_seconds: u64,
    /// Seconds a check may take.
    pub timeout_seconds: u64,
    /// Successes before healthy.
    pub healthy_threshold: u32,
    /// Failures before unhealthy.
    pub unhealthy_threshold: u32,
    /// The container health check ECS runs in the task (`healthCheck.command`): a command
    /// check as written (`CMD` first when it names neither `CMD` nor `CMD-SHELL`), or for an
    /// internal workload's HTTP path a `CMD-SHELL` GET of it with `curl`, else `wget`;
    /// `None` for a public workload's HTTP path, which its target group checks.
    pub container_command: Option<Vec<CompactString>>,
}

/// The Secrets Manager secret a task's registry credentials are read from
/// (`repositoryCredentials.credentialsParameter`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "is")]
pub enum RepositoryCredentials {
    /// The registry secret item of the plan (written by `runway secrets prepare`).
    Item {
        /// Its logical id.
        item: CompactString,
    },
    /// An existing secret the plan does not declare.
    Arn {
        /// Its full ARN.
        arn: CompactString,
    },
}

/// A secret of a task definition: the container variable and the SSM parameter it reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskSecret {
    /// The variable name in the container.
    pub name: CompactString,
    /// The SSM parameter name (`valueFrom`): one text shared with the parameter's record, its
    /// binding and the execution role's grant (`Arc`), not a copy each.
    pub parameter: Arc<str>,
}

/// One permission statement of a role: these actions allowed on these resources.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Grant {
    /// IAM actions (`sqs:SendMessage`), sorted; never a wildcard. A list the planner holds
    /// once for every grant of its kind.
    pub actions: &'static [&'static str],
    /// What they apply to.
    pub resources: Vec<PolicyResource>,
}

/// A resource of a [`Grant`], as the plan knows it; the renderer writes its ARN.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase", tag = "is")]
pub enum PolicyResource {
    /// The ARN of an item of the plan.
    Item {
        /// Its logical id.
        item: CompactString,
    },
    /// Every object of a bucket item: its ARN followed by `/*`.
    ItemObjects {
        /// Logical id of the bucket.
        item: CompactString,
    },
    /// Every log stream of a log group item: its ARN followed by `:*`.
    ItemLogStreams {
        /// Logical id of the log group.
        item: CompactString,
    },
    /// SSM parameters of the deploying account, in the plan's region.
    SsmParameters {
        /// Their full names (`/acme-shop/dev/main-db/MAIN_DB_URL`); a binding's list is shared
        /// with the binding (`Arc`), and each name with the parameter's record.
        names: Arc<[Arc<str>]>,
    },
    /// The KMS key an alias names, looked up when the program runs.
    KmsAlias {
        /// `alias/...`.
        alias: CompactString,
    },
    /// A KMS key of the deploying account, in the plan's region, by key id.
    KmsKeyId {
        /// The key id.
        id: CompactString,
    },
    /// An ARN the plan knows in full (a key ARN, an ECR repository).
    Arn {
        /// The ARN.
        arn: CompactString,
    },
    /// Every resource: only for an action AWS authorizes on no resource
    /// (`ecr:GetAuthorizationToken`).
    Any,
}

/// One rule of a security group: TCP on one port, from (ingress) or to (egress) a peer.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SecurityRule {
    /// Who is on the other side.
    pub peer: Peer,
    /// The TCP port.
    pub port: u16,
}

/// The other side of a [`SecurityRule`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase", tag = "is")]
pub enum Peer {
    /// Whatever another security group of the plan is attached to.
    Group {
        /// Logical id of the group.
        item: CompactString,
    },
    /// Any IPv4 address (`0.0.0.0/0`).
    Internet,
    /// The members' security groups: the program's `memberSecurityGroupIds` input.
    Members,
    /// Any address of the VPC: its IPv4 CIDR blocks, the program's `vpcCidrBlocks` input.
    Vpc,
}

impl Peer {
    /// Is it a list input of the program (the members' groups, the VPC's CIDR blocks)? Only a
    /// group's own rule list can take one, so a group admitting it holds no other rule.
    pub fn is_list_input(&self) -> bool {
        match self {
            Peer::Members | Peer::Vpc => true,
            Peer::Group { .. } | Peer::Internet => false,
        }
    }
}

/// What a listener does with a request no rule matches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "is")]
pub enum ListenerAction {
    /// A fixed `404 not found`.
    NotFound,
    /// A redirect to the same host and path over HTTPS.
    #[serde(rename_all = "camelCase")]
    RedirectToHttps {
        /// The HTTPS port (443).
        port: u16,
        /// `HTTP_301` (permanent).
        status_code: CompactString,
    },
}

/// A container's plain environment values, in order, each name once: a list, as its readers
/// only go through it in order (an `IndexMap` held a hash and an index table besides, 0.8 MB
/// at N = 10,000). Written as a JSON object, as the map was.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlainVariables(Vec<(CompactString, CompactString)>);

impl PlainVariables {
    /// The values in order, as `(name, value)`.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&CompactString, &CompactString)> {
        self.0.iter().map(|(name, value)| (name, value))
    }

    /// The value of variable `name`, if set.
    pub fn get(&self, name: &str) -> Option<&CompactString> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, value)| value)
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Are there none?
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// In order; a later value of a name already there replaces it in its place (as an
/// `IndexMap` collects).
impl FromIterator<(CompactString, CompactString)> for PlainVariables {
    fn from_iter<I: IntoIterator<Item = (CompactString, CompactString)>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut list: Vec<(CompactString, CompactString)> = Vec::with_capacity(iter.size_hint().0);
        for (name, value) in iter {
            match list.iter_mut().find(|(n, _)| *n == name) {
                Some(slot) => slot.1 = value,
                None => list.push((name, value)),
            }
        }
        list.shrink_to_fit();
        PlainVariables(list)
    }
}

impl Serialize for PlainVariables {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

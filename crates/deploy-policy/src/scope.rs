//! The plan's names as ARN patterns: what each statement may act on.

use runtime_plan::{ItemKind, Plan};

/// The environment's names, region and account, and the ARN patterns built from them.
pub(crate) struct Scope<'p> {
    pub(crate) plan: &'p Plan,
    pub(crate) region: &'p str,
    pub(crate) account: &'p str,
    /// `<product>-<env>`: every physical name the plan gives starts with it (cut names keep
    /// their head), the cluster's is exactly it.
    pub(crate) stem: String,
}

impl<'p> Scope<'p> {
    pub(crate) fn new(plan: &'p Plan, account: &'p str) -> Scope<'p> {
        Scope { plan, region: &plan.region, account, stem: format!("{}-{}", plan.product, plan.environment) }
    }

    /// `arn:aws:<service>:<region>:<account>:<rest>`.
    pub(crate) fn arn(&self, service: &str, rest: &str) -> String {
        format!("arn:aws:{service}:{}:{}:{rest}", self.region, self.account)
    }

    /// The names of `kind`'s items as patterns: `<stem>*` when every one starts with the stem
    /// (or there is none), else the stem pattern and each name that does not.
    pub(crate) fn names(&self, kind: ItemKind) -> Vec<String> {
        let mut out = vec![format!("{}*", self.stem)];
        for item in self.plan.items.iter().filter(|i| i.kind() == kind) {
            if !item.physical_name.starts_with(self.stem.as_str()) {
                out.push(item.physical_name.to_string());
            }
        }
        out
    }

    /// `names(kind)` each placed into `template` at `{}`.
    pub(crate) fn each(&self, kind: ItemKind, template: impl Fn(&str) -> String) -> Vec<String> {
        self.names(kind).iter().map(|n| template(n)).collect()
    }

    /// [`Scope::each`] over several kinds, without repeats.
    pub(crate) fn each_of(&self, kinds: &[ItemKind], template: impl Fn(&str) -> String) -> Vec<String> {
        let mut out: Vec<String> = kinds.iter().flat_map(|k| self.each(*k, &template)).collect();
        out.sort();
        out.dedup();
        out
    }

    /// The SSM prefix (`/acme-shop/dev`) without a trailing `/`.
    pub(crate) fn ssm_prefix(&self) -> &str {
        self.plan.secrets.ssm_prefix.trim_end_matches('/')
    }

    /// `arn:aws:ssm:...:parameter<prefix>/*`: every parameter the plan and runway write.
    pub(crate) fn parameters(&self) -> String {
        self.arn("ssm", &format!("parameter{}/*", self.ssm_prefix()))
    }

    /// The Secrets Manager secrets the plan names: `<product>/<env>/*` (the name's random
    /// suffix included by the `*`).
    pub(crate) fn secrets(&self) -> String {
        self.arn("secretsmanager", &format!("secret:{}/{}/*", self.plan.product, self.plan.environment))
    }

    /// The log groups: the common folder of the plan's log groups (`/runway/<product>/<env>/`).
    pub(crate) fn log_groups(&self) -> Vec<String> {
        let folder = format!("/runway/{}/{}/", self.plan.product, self.plan.environment);
        let mut out = vec![self.arn("logs", &format!("log-group:{folder}*"))];
        for item in self.plan.items.iter().filter(|i| i.kind() == ItemKind::LogGroup) {
            if !item.physical_name.starts_with(folder.as_str()) {
                out.push(self.arn("logs", &format!("log-group:{}:*", item.physical_name)));
                out.push(self.arn("logs", &format!("log-group:{}", item.physical_name)));
            }
        }
        out
    }

    /// The environment's own KMS key, when runway makes it: its alias (`alias/runway/...`).
    pub(crate) fn own_key_alias(&self) -> Option<&str> {
        self.plan.items.iter().find(|i| i.kind() == ItemKind::KmsKey).map(|i| i.physical_name.as_str())
    }

    /// The DNS names the program writes records for.
    pub(crate) fn dns_names(&self) -> Vec<String> {
        let names = self.plan.items.iter().filter(|i| i.kind() == ItemKind::DnsRecord);
        names.map(|i| i.physical_name.trim_end_matches('.').to_ascii_lowercase()).collect()
    }

    /// The `product` and `environment` tag values every item carries.
    pub(crate) fn tags(&self) -> [(&'static str, &str); 2] {
        [("product", self.plan.product.as_str()), ("environment", self.plan.environment.as_str())]
    }
}

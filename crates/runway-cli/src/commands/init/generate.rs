//! What `runway init` writes, as text: pure, from the options to the files (path and text),
//! so that tests can read every file without touching a disk.

use std::fmt::Write as _;
use std::path::PathBuf;

use runway_schema::values::IMAGE_PLACEHOLDER;

/// A new product, as `runway init` was told it (flags, answers or a compose file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Product {
    /// The product name (`^[a-z][a-z0-9-]{1,30}[a-z0-9]$`).
    pub(crate) name: String,
    /// The AWS region of every environment.
    pub(crate) region: String,
    /// The production domain; each other environment gets `<env>.<domain>`. `None`: every
    /// workload is internal.
    pub(crate) domain: Option<String>,
    /// The environments, in order, with their caps in US dollars.
    pub(crate) environments: Vec<(String, Option<String>)>,
    /// Managed resources, in order.
    pub(crate) resources: Vec<Resource>,
    /// Workloads, in order.
    pub(crate) workloads: Vec<Workload>,
    /// The editor's schema: a path relative to the root file or a URL.
    pub(crate) schema: String,
    /// Write the schema file itself (`schema` is a local file runway writes).
    pub(crate) write_schema: bool,
    /// The Infisical project of the product's secrets (`--infisical-project`).
    pub(crate) infisical_project: Option<String>,
}

/// A managed resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Resource {
    pub(crate) name: String,
    pub(crate) kind: Kind,
    /// The engine's major version (postgres), when known.
    pub(crate) version: Option<String>,
    /// Why it is there (written as its comment).
    pub(crate) note: String,
}

/// The kinds `init` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Postgres,
    Queue,
    Cache,
    Bucket,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Self::Postgres => "postgres",
            Self::Queue => "queue",
            Self::Cache => "cache",
            Self::Bucket => "bucket",
        }
    }
}

/// A workload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Workload {
    pub(crate) name: String,
    /// The image; `None` writes the placeholder `check` refuses.
    pub(crate) image: Option<String>,
    pub(crate) port: u16,
    /// The container listens on `port` (false: a worker given a port only because runway asks
    /// for one).
    pub(crate) listens: bool,
    /// Served on the domain through the load balancer.
    pub(crate) public: bool,
    /// The resources it uses.
    pub(crate) uses: Vec<String>,
    /// Plain environment variables.
    pub(crate) env: Vec<(String, String)>,
    /// Names of secrets people set in Infisical.
    pub(crate) secrets: Vec<String>,
    /// Where it came from (written as its comment).
    pub(crate) note: String,
}

/// The files of a new product: `runway.yaml`, the schema when runway writes it, and one stack
/// settings file per environment (`infra/<env>/Pulumi.<env>.yaml`, where `runway emit pulumi
/// --env <env> --out infra/<env>` writes the program and reads them).
pub(crate) fn files(p: &Product) -> Vec<(PathBuf, String)> {
    let mut files = vec![(PathBuf::from("runway.yaml"), root(p))];
    if p.write_schema {
        files.push((PathBuf::from(&p.schema), runway_schema::format::root_schema()));
    }
    for (env, cap) in &p.environments {
        let path = PathBuf::from("infra").join(env).join(format!("Pulumi.{env}.yaml"));
        files.push((path, stack_settings(p, env, cap.is_some())));
    }
    files
}

/// The environment's domain: the product's for `production`, `<env>.<domain>` otherwise.
fn env_domain(domain: &str, env: &str) -> String {
    if env == "production" { domain.to_owned() } else { format!("{env}.{domain}") }
}

/// The root runway file.
fn root(p: &Product) -> String {
    let mut y = String::new();
    let _ = writeln!(y, "# yaml-language-server: $schema={}", p.schema);
    let _ =
        writeln!(y, "# {}: written by `runway init`; every field is in docs/runway-reference.md.", p.name);
    y.push_str("# `runway check` validates it and plans every environment against its cap.\n");
    y.push_str("runway: 3\n");
    let _ = writeln!(y, "product: {}", p.name);
    if p.resources.iter().any(|r| matches!(r.kind, Kind::Postgres | Kind::Cache))
        || p.workloads.iter().any(|w| !w.secrets.is_empty())
    {
        match &p.infisical_project {
            Some(id) => {
                y.push_str("secrets:\n  infisical:\n");
                y.push_str(SECRETS_SET);
                let _ = writeln!(y, "    project: {id}");
            }
            None => y.push_str(SECRETS_NOTE),
        }
    }
    y.push_str("environments:\n");
    for (env, cap) in &p.environments {
        environment(&mut y, p, env, cap.as_deref());
    }
    if !p.resources.is_empty() {
        y.push_str("resources:\n");
        for r in &p.resources {
            let _ = writeln!(y, "  # {}", r.note);
            let _ = writeln!(y, "  {}:", r.name);
            let _ = writeln!(y, "    kind: {}", r.kind.as_str());
            if let Some(v) = &r.version {
                let _ = writeln!(y, "    version: \"{v}\"");
            }
        }
    }
    if !p.workloads.is_empty() {
        y.push_str("workloads:\n");
        for w in &p.workloads {
            workload(&mut y, w, p.domain.is_some());
        }
    }
    y
}

/// Written over the secrets block when `--infisical-project` gave the project.
const SECRETS_SET: &str = "\
    # A postgres's and a cache's generated credentials and a workload's `secrets` live in this
    # Infisical project: `runway secrets prepare` reads and writes there (docs/secrets.md).
";

/// Written when something needs secrets and no project was given: commented out until set.
const SECRETS_NOTE: &str = "\
# A postgres's and a cache's generated credentials and a workload's `secrets` need Infisical to
# deploy: `runway secrets prepare` reads and writes there (docs/secrets.md). Uncomment with your
# project's id (or run `runway init --infisical-project ID`); until then `check` warns
# (`missing-infisical`).
# secrets:
#   infisical:
#     project: <your Infisical project id>
";

fn environment(y: &mut String, p: &Product, env: &str, cap: Option<&str>) {
    let _ = writeln!(y, "  {env}:");
    let _ =
        writeln!(y, "    # Every environment in one region; the catalogue prices it (`runway catalogue`).");
    let _ = writeln!(y, "    region: {}", p.region);
    match cap {
        Some(cap) => {
            let _ = writeln!(
                y,
                "    # `plan` refuses an estimate over the cap (exit 3); AWS Budgets alerts at it."
            );
            let _ = writeln!(y, "    limits: {{ monthly: {cap} }}");
        }
        None => {
            let _ = writeln!(y, "    # No cap: `plan` shows the estimate with an `uncapped` warning.");
        }
    }
    if let Some(domain) = &p.domain {
        let _ = writeln!(
            y,
            "    # Public workloads are served at <workload>.<domain> (a Route 53 zone of yours)."
        );
        let _ = writeln!(y, "    domain: {}", env_domain(domain, env));
    }
    if env != "production" && !p.workloads.is_empty() {
        // The default is one NAT gateway per zone (two), most of a small product's dev bill.
        let _ = writeln!(
            y,
            "    # One NAT gateway (no zone redundancy) outside production: the default is one per zone."
        );
        let _ = writeln!(y, "    network: {{ nat: 1 }}");
    }
}

fn workload(y: &mut String, w: &Workload, has_domain: bool) {
    let _ = writeln!(y, "  # {}", w.note);
    let _ = writeln!(y, "  {}:", w.name);
    match &w.image {
        Some(image) if runway_schema::ImageRef::parse(image).is_ok() => {
            let _ = writeln!(y, "    # Pinned by digest: the same bytes run in every environment.");
            let _ = writeln!(y, "    image: {image}");
        }
        Some(image) => {
            let _ = writeln!(
                y,
                "    # REPLACE: not pinned; `check` refuses it (`unpinned-image`) until its digest is added."
            );
            let _ = writeln!(y, "    image: {image}");
        }
        None => {
            let _ = writeln!(
                y,
                "    # REPLACE: your image pinned by digest (`<name>:<tag>@sha256:<64 hex>`); `check`"
            );
            let _ = writeln!(y, "    # refuses this placeholder (`unpinned-image`) until then.");
            let _ = writeln!(y, "    image: {IMAGE_PLACEHOLDER}/{}", w.name);
        }
    }
    let _ = writeln!(y, "    # The CPU the image is built for: arm64 (cheaper) or x86_64.");
    let _ = writeln!(y, "    platform: arm64");
    if w.listens {
        let _ = writeln!(y, "    # The port the container listens on.");
    } else {
        let _ = writeln!(y, "    # runway asks every workload for a port; nothing has to listen on it.");
    }
    let _ = writeln!(y, "    port: {}", w.port);
    if w.public && has_domain {
        let _ = writeln!(y, "    # Behind the load balancer, at {}.<the environment's domain>.", w.name);
        let _ = writeln!(y, "    expose: public");
        let _ = writeln!(y, "    # The load balancer's health check asks this path for a 2xx.");
        let _ = writeln!(y, "    health: {{ path: / }}");
    }
    if !w.uses.is_empty() {
        let _ = writeln!(
            y,
            "    # Each resource's variables (`<NAME>_URL`, ...) reach the container (`runway plan`)."
        );
        let _ = writeln!(y, "    uses: [{}]", w.uses.join(", "));
    }
    if !w.env.is_empty() {
        let _ = writeln!(y, "    # Plain values (no credential: those are `secrets`).");
        let _ = writeln!(y, "    env:");
        for (k, v) in &w.env {
            let _ = writeln!(y, "      {k}: {}", yaml_string(v));
        }
    }
    if !w.secrets.is_empty() {
        let _ = writeln!(y, "    # Set by people in Infisical; `runway secrets prepare` copies them to SSM.");
        let _ = writeln!(y, "    secrets: [{}]", w.secrets.join(", "));
    }
    let _ = writeln!(y, "    # Why a container and not a managed service (docs/runway-reference.md).");
    let _ = writeln!(y, "    reason:");
    let _ = writeln!(y, "      ground: no-managed-fit");
    let _ = writeln!(y, "      detail: The product's own code; no managed service runs it.");
}

/// A YAML double-quoted string: every value stays a string, whatever it looks like.
fn yaml_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// One environment's stack settings: the program's inputs, each a placeholder to replace.
fn stack_settings(p: &Product, env: &str, capped: bool) -> String {
    let n = &p.name;
    let public = p.domain.is_some() && p.workloads.iter().any(|w| w.public);
    let mut y = String::new();
    let _ = writeln!(
        y,
        "# The inputs of {n}'s `{env}` program (docs/pulumi.md, \"Inputs\"). `runway emit pulumi"
    );
    let _ =
        writeln!(y, "# --env {env} --out infra/{env}` writes Pulumi.yaml beside this file and checks it;");
    let _ = writeln!(y, "# replace every REPLACE-ME before `pulumi up` (the stack is `{env}`).");
    y.push_str("config:\n");
    let _ = writeln!(y, "  # The existing VPC the environment runs in.");
    let _ = writeln!(y, "  {n}:vpcId: vpc-REPLACE-ME");
    let _ = writeln!(
        y,
        "  # Private subnets in two Availability Zones (at least two): tasks, databases, caches."
    );
    let _ = writeln!(y, "  {n}:privateSubnetIds: [subnet-REPLACE-ME-a, subnet-REPLACE-ME-b]");
    if public {
        let _ = writeln!(y, "  # Public subnets in two zones: the load balancer.");
        let _ = writeln!(y, "  {n}:publicSubnetIds: [subnet-REPLACE-ME-c, subnet-REPLACE-ME-d]");
        let domain = p.domain.as_deref().map(|d| env_domain(d, env)).unwrap_or_default();
        let _ = writeln!(y, "  # An ACM certificate in {} covering *.{domain}.", p.region);
        let _ = writeln!(y, "  {n}:certificateArn: arn:aws:acm:{}:REPLACE-ME", p.region);
        let _ = writeln!(y, "  # The Route 53 hosted zone of {domain}.");
        let _ = writeln!(y, "  {n}:hostedZoneId: REPLACE-ME");
    }
    if capped {
        let _ = writeln!(y, "  # Who gets the budget's alerts (80% forecast, 100% actual of the cap).");
        let _ = writeln!(y, "  {n}:budgetAlertEmails: [REPLACE-ME@example.com]");
    }
    if env == "production" {
        let _ = writeln!(y, "  # Who the alarms mail (on by default in production); each confirms once.");
        let _ = writeln!(y, "  {n}:alertEmails: [REPLACE-ME@example.com]");
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    fn product() -> Product {
        Product {
            name: "shop".into(),
            region: "eu-west-1".into(),
            domain: Some("shop.example".into()),
            environments: vec![("dev".into(), Some("150".into())), ("production".into(), None)],
            resources: vec![Resource {
                name: "db".into(),
                kind: Kind::Postgres,
                version: Some("16".into()),
                note: "The database.".into(),
            }],
            workloads: vec![Workload {
                name: "web".into(),
                image: None,
                port: 8080,
                listens: true,
                public: true,
                uses: vec!["db".into()],
                env: vec![("MODE".into(), "1".into())],
                secrets: vec![],
                note: "The app.".into(),
            }],
            schema: "runway.schema.json".into(),
            write_schema: true,
            infisical_project: None,
        }
    }

    #[test]
    fn the_files_are_the_root_the_schema_and_one_stack_per_environment() {
        let files = files(&product());
        let paths: Vec<String> = files.iter().map(|(p, _)| p.display().to_string()).collect();
        assert_eq!(
            paths,
            [
                "runway.yaml",
                "runway.schema.json",
                "infra/dev/Pulumi.dev.yaml",
                "infra/production/Pulumi.production.yaml"
            ]
        );
        let root = &files[0].1;
        assert!(root.starts_with("# yaml-language-server: $schema=runway.schema.json\n"), "{root}");
        assert!(root.contains("image: REPLACE-ME/web\n"), "{root}");
        assert!(
            root.contains("    domain: dev.shop.example\n") && root.contains("    domain: shop.example\n")
        );
        assert!(root.contains("MODE: \"1\""), "a value stays a string: {root}");
        assert!(root.contains("# secrets:\n#   infisical:"), "a postgres says where its secrets go: {root}");
        let dev = &files[2].1;
        assert!(dev.contains("shop:publicSubnetIds:") && dev.contains("shop:budgetAlertEmails:"), "{dev}");
        assert!(
            !dev.lines().any(|l| l.trim_start().starts_with("shop:alertEmails")),
            "no alarms in dev: {dev}"
        );
        let production = &files[3].1;
        assert!(production.contains("shop:alertEmails:") && !production.contains("budgetAlertEmails"));
    }

    #[test]
    fn every_value_line_of_the_root_follows_a_comment_or_is_structure() {
        let root = root(&product());
        let lines: Vec<&str> = root.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let t = line.trim_start();
            let explained = i > 0 && lines[i - 1].trim_start().starts_with('#');
            let structure = t.ends_with(':') || t.starts_with('#') || t.starts_with("runway: ");
            let within =
                ["ground:", "detail:", "MODE:", "kind:", "version:"].iter().any(|k| t.starts_with(k));
            let named = t.starts_with("product:");
            assert!(explained || structure || within || named, "line {} has no comment: {line}", i + 1);
        }
    }

    #[test]
    fn without_a_domain_nothing_is_public_and_no_certificate_is_asked_for() {
        let mut p = product();
        p.domain = None;
        let files = files(&p);
        assert!(!files[0].1.contains("expose: public") && !files[0].1.contains("domain:"));
        assert!(!files[2].1.contains("certificateArn") && !files[2].1.contains("publicSubnetIds"));
    }
}

//! `runway init --from-compose`: a Compose file's services as resources and workloads, and
//! what could not be carried over, said per service. Pure: text in, values out.

use serde_json::Value;

use super::generate::{Kind, Resource, Workload};

/// What a Compose file maps to.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Mapped {
    pub(crate) resources: Vec<Resource>,
    pub(crate) workloads: Vec<Workload>,
    /// What was not carried over, one line each (`web: volumes ...`).
    pub(crate) unmapped: Vec<String>,
}

/// Images whose service a managed resource replaces: the repository's last part (`postgres`,
/// `bitnami/redis` -> `redis`) and the kind. Compatible protocols only: an SQS-speaking
/// ElasticMQ is a queue, a RabbitMQ (AMQP) is not.
const KNOWN: &[(&str, Kind)] = &[
    ("postgres", Kind::Postgres),
    ("postgresql", Kind::Postgres),
    ("postgis", Kind::Postgres),
    ("redis", Kind::Cache),
    ("valkey", Kind::Cache),
    ("elasticmq", Kind::Queue),
    ("elasticmq-native", Kind::Queue),
    ("minio", Kind::Bucket),
];

/// A workload's Compose keys runway has no field for, and what to do instead.
const UNMAPPED_KEYS: [(&str, &str); 5] = [
    ("command", "runway runs the image's CMD (only `migrate` takes a command): build it into the image"),
    ("entrypoint", "write it as the workload's `entryPoint` (a list) if the image's own is not right"),
    ("volumes", "Fargate tasks keep nothing on disk between runs: use a bucket"),
    ("healthcheck", "write it as the workload's `health` (`path` or `command`)"),
    ("deploy", "write `scale` and `size` per environment"),
];

/// The PostgreSQL majors RDS offers, read from a `postgres:<major>` tag.
const POSTGRES_MAJORS: std::ops::RangeInclusive<u32> = 13..=17;

/// Maps the Compose file `text`; an error says why it is not one.
pub(crate) fn map(text: &str) -> Result<Mapped, String> {
    let doc: Value = serde_saphyr::from_str(text).map_err(|e| format!("not YAML: {e}"))?;
    let services = doc
        .get("services")
        .and_then(Value::as_object)
        .ok_or_else(|| "no `services` mapping: not a Compose file".to_owned())?;
    let mut m = Mapped::default();
    let mut resource_services = Vec::new();
    for (name, service) in services {
        if let Some((kind, image)) = known(service) {
            let Some(id) = runway_name(name) else {
                m.unmapped.push(format!("{name}: not a runway name (lower case, digits, `-`)"));
                continue;
            };
            m.resources.push(resource(&id, kind, &image));
            resource_services.push((name.clone(), id));
            if service.get("volumes").is_some() || service.get("environment").is_some() {
                m.unmapped.push(format!(
                    "{name}: its volumes and environment (the managed {} keeps its own storage and \
                     generated credentials)",
                    kind_word(kind)
                ));
            }
        }
    }
    for (name, service) in services {
        if known(service).is_some() {
            continue;
        }
        match runway_name(name) {
            Some(id) => workload(&mut m, name, id, service, &resource_services),
            None => m.unmapped.push(format!("{name}: not a runway name (lower case, digits, `-`)")),
        }
    }
    for key in ["volumes", "networks", "configs", "secrets"] {
        if doc.get(key).and_then(Value::as_object).is_some_and(|o| !o.is_empty()) {
            m.unmapped
                .push(format!("top-level `{key}`: Fargate tasks keep no volumes or networks of Compose"));
        }
    }
    Ok(m)
}

/// A known resource image of the service: its kind and the image.
fn known(service: &Value) -> Option<(Kind, String)> {
    let image = service.get("image")?.as_str()?;
    let repo = image.split('@').next().unwrap_or(image);
    let last = repo.rsplit('/').next().unwrap_or(repo);
    let name = last.split(':').next().unwrap_or(last);
    KNOWN.iter().find(|(k, _)| *k == name).map(|(_, kind)| (*kind, image.to_owned()))
}

fn kind_word(kind: Kind) -> &'static str {
    match kind {
        Kind::Postgres => "database",
        Kind::Queue => "queue",
        Kind::Cache => "cache",
        Kind::Bucket => "bucket",
    }
}

fn resource(id: &str, kind: Kind, image: &str) -> Resource {
    let tag = image.split('@').next().unwrap_or(image).rsplit('/').next().unwrap_or("").split_once(':');
    let major = tag.and_then(|(_, t)| {
        let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
        digits.parse::<u32>().ok().filter(|m| POSTGRES_MAJORS.contains(m))
    });
    let (version, note) = match kind {
        Kind::Postgres => (
            major.map(|m| m.to_string()),
            format!("From Compose's `{image}`: RDS PostgreSQL behind an RDS Proxy."),
        ),
        Kind::Cache => {
            (None, format!("From Compose's `{image}`: Valkey (ElastiCache), which speaks Redis's protocol."))
        }
        Kind::Queue => (None, format!("From Compose's `{image}`: an SQS queue, the API ElasticMQ imitates.")),
        Kind::Bucket => (None, format!("From Compose's `{image}`: an S3 bucket, the API MinIO imitates.")),
    };
    Resource { name: id.to_owned(), kind, version, note }
}

/// A Compose name as a runway name (`my_app` -> `my-app`), when it can be one.
fn runway_name(name: &str) -> Option<String> {
    let id = name.to_ascii_lowercase().replace(['_', '.'], "-");
    runway_schema::values::is_valid_name(&id).then_some(id)
}

/// A service with an image becomes a workload; one with only `build` is listed.
fn workload(m: &mut Mapped, name: &str, id: String, service: &Value, resources: &[(String, String)]) {
    let Some(image) = service.get("image").and_then(Value::as_str) else {
        m.unmapped.push(format!(
            "{name}: built from source (`build`) with no `image`: push it to a registry, then add it as a \
             workload with its image pinned by digest"
        ));
        return;
    };
    let published = first_port(service.get("ports"));
    let port = published.or_else(|| first_port(service.get("expose")));
    let mut uses: Vec<String> = Vec::new();
    let depends = names(service.get("depends_on"));
    let (env, secrets, noted) = environment(service.get("environment"), resources);
    for (svc, id) in resources {
        if depends.contains(svc) || noted.iter().any(|(_, r)| r == svc) {
            uses.push(id.clone());
        }
    }
    for (var, svc) in &noted {
        m.unmapped.push(format!(
            "{name}: `{var}` points at `{svc}`: use the variables runway gives for it (`runway plan` lists them)"
        ));
    }
    if runway_schema::ImageRef::parse(image).is_err() {
        m.unmapped
            .push(format!("{name}: image `{image}` is not pinned by digest: add its `@sha256:` digest"));
    }
    if port.is_none() {
        m.unmapped.push(format!(
            "{name}: no port (a worker): written with port 8080, which nothing has to listen on"
        ));
    }
    for (key, what) in UNMAPPED_KEYS {
        if service.get(key).is_some() {
            m.unmapped.push(format!("{name}: `{key}`: {what}"));
        }
    }
    if depends.iter().any(|d| !resources.iter().any(|(s, _)| s == d)) {
        m.unmapped.push(format!(
            "{name}: `depends_on` ordering between workloads (ECS starts services side by side; each \
             must wait for what it calls)"
        ));
    }
    m.workloads.push(Workload {
        name: id,
        image: Some(image.to_owned()),
        port: port.unwrap_or(8080),
        listens: port.is_some(),
        public: published.is_some(),
        uses,
        env,
        secrets,
        note: format!("From Compose's service `{name}`."),
    });
}

/// The container port of the first `ports` (or `expose`) entry: `"8080:80"`, `"80"`,
/// `"127.0.0.1:8080:80/tcp"`, `80` or `{target: 80}`.
fn first_port(ports: Option<&Value>) -> Option<u16> {
    let first = ports?.as_array()?.first()?;
    let text = match first {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Object(o) => o.get("target")?.to_string(),
        Value::Null | Value::Bool(_) | Value::Array(_) => return None,
    };
    let container = text.rsplit(':').next()?.split('/').next()?;
    // A range (`8000-8010`) takes its first port.
    container.split('-').next()?.trim().parse().ok().filter(|p| *p > 0)
}

/// `depends_on` as names (a list, or a mapping with conditions).
fn names(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        Some(Value::Object(o)) => o.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// A variable whose name says it holds a credential: its value stays out of the runway file.
fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    ["PASSWORD", "SECRET", "TOKEN", "KEY", "CREDENTIAL", "PASSWD"].iter().any(|w| upper.contains(w))
}

/// Plain variables, names of secrets, and the variables pointing at a resource's service
/// (`(variable, service)`), left out.
type Environment = (Vec<(String, String)>, Vec<String>, Vec<(String, String)>);

fn environment(value: Option<&Value>, resources: &[(String, String)]) -> Environment {
    let pairs: Vec<(String, Option<String>)> = match value {
        Some(Value::Object(o)) => o.iter().map(|(k, v)| (k.clone(), scalar(v))).collect(),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(|s| match s.split_once('=') {
                Some((k, v)) => (k.to_owned(), Some(v.to_owned())),
                None => (s.to_owned(), None),
            })
            .collect(),
        _ => Vec::new(),
    };
    let (mut env, mut secrets, mut noted) = (Vec::new(), Vec::new(), Vec::new());
    for (key, value) in pairs {
        let valid = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            continue;
        }
        let points_at = value.as_deref().and_then(|v| {
            resources.iter().find(|(svc, _)| {
                v == svc
                    || [format!("@{svc}:"), format!("//{svc}:"), format!("//{svc}/"), format!("@{svc}/")]
                        .iter()
                        .any(|p| v.contains(p.as_str()))
            })
        });
        if let Some((svc, _)) = points_at {
            noted.push((key, svc.clone()));
        } else if is_secret_name(&key)
            || value.is_none()
            || value.as_deref().is_some_and(|v| v.contains("${"))
        {
            // A credential, or a value Compose takes from the shell: people set it in Infisical.
            secrets.push(key);
        } else if let Some(v) = value {
            env.push((key, v));
        }
    }
    (env, secrets, noted)
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIGEST: &str = "sha256:0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e";

    fn compose() -> String {
        format!(
            "services:
  web:
    image: ghcr.io/acme/web:1.2@{DIGEST}
    ports: [\"8000:3000\"]
    environment:
      DATABASE_URL: postgres://app:pw@db:5432/app
      LOG_LEVEL: info
      SESSION_SECRET: hunter2
    depends_on: [db, cache]
  worker:
    image: ghcr.io/acme/worker:1.2@{DIGEST}
    environment: [\"REDIS_URL=redis://cache:6379\", \"QUEUE=default\"]
    depends_on:
      db: {{ condition: service_healthy }}
  builder:
    build: .
  db:
    image: postgres:16-alpine
    environment: {{ POSTGRES_PASSWORD: pw }}
    volumes: [\"pg:/var/lib/postgresql/data\"]
  cache:
    image: valkey/valkey:8
volumes:
  pg: {{}}
"
        )
    }

    #[test]
    fn services_map_to_resources_and_workloads_and_the_rest_is_listed() {
        let m = map(&compose()).expect("a compose file");
        let kinds: Vec<(&str, Kind, Option<&str>)> =
            m.resources.iter().map(|r| (r.name.as_str(), r.kind, r.version.as_deref())).collect();
        assert_eq!(kinds, [("db", Kind::Postgres, Some("16")), ("cache", Kind::Cache, None)]);
        let web = &m.workloads[0];
        assert_eq!((web.name.as_str(), web.port, web.public, web.listens), ("web", 3000, true, true));
        assert_eq!(web.uses, ["db", "cache"]);
        assert_eq!(web.env, [("LOG_LEVEL".to_owned(), "info".to_owned())]);
        assert_eq!(web.secrets, ["SESSION_SECRET"], "a credential's value is never written");
        let worker = &m.workloads[1];
        assert_eq!((worker.port, worker.public, worker.listens), (8080, false, false));
        assert_eq!(worker.uses, ["db", "cache"], "depends_on and a URL to the cache");
        assert_eq!(m.workloads.len(), 2, "the build-only service is not a workload");
        let said = m.unmapped.join("\n");
        for expected in [
            "builder: built from source",
            "db: its volumes and environment",
            "web: `DATABASE_URL` points at `db`",
            "worker: `REDIS_URL` points at `cache`",
            "worker: no port",
            "top-level `volumes`",
        ] {
            assert!(said.contains(expected), "{expected:?} not in:\n{said}");
        }
        assert!(!said.contains("hunter2") && !format!("{m:?}").contains("hunter2"), "no secret value kept");
    }

    #[test]
    fn ports_read_in_every_compose_form() {
        let port = |y: &str| first_port(Some(&serde_saphyr::from_str::<Value>(y).expect("yaml")));
        assert_eq!(port("[\"127.0.0.1:8080:80/tcp\"]"), Some(80));
        assert_eq!(port("[8080]"), Some(8080));
        assert_eq!(port("[{target: 81, published: 8081}]"), Some(81));
        assert_eq!(port("[\"9000-9001:9000-9001\"]"), Some(9000));
        assert_eq!(port("[]"), None);
    }

    #[test]
    fn a_file_without_services_is_refused() {
        assert!(map("version: '3'\n").expect_err("no services").contains("no `services`"));
        assert!(map(": [").is_err());
    }
}

//! The emitter over the shipped example: the production program's golden, one resource per
//! planned item, and every emitted program constructed with the real Pulumi AWS SDK.

#![allow(clippy::disallowed_methods)] // reason: the tests read the shipped example from disk

use crate::pulumi_support;

use pulumi_program::{PROGRAM_FILE, Program, expected_resources, render};
use runtime_plan::Plan;
use runway_schema::{MemFiles, Options};
use test_support::{Scratch, scratch, workspace};

const EXAMPLE: &str = "examples/acme-shop";
const MEMBERS: [&str; 3] = ["services/orders", "services/billing", "tools/reporting"];

fn example_plans() -> Vec<Plan> {
    example_plans_with(|text| text.to_owned())
}

/// The example's plans, its root file edited by `edit` first.
fn example_plans_with(edit: impl Fn(&str) -> String) -> Vec<Plan> {
    let product = example_product_with(edit);
    let catalogue = cost::Catalogue::builtin();
    product
        .root
        .environments
        .keys()
        .map(|env| runtime_plan::plan(&product, env, &catalogue).expect("example plan"))
        .collect()
}

fn example_product() -> runway_schema::Product {
    example_product_with(|text| text.to_owned())
}

/// The example's product, its root file edited by `edit` first.
fn example_product_with(edit: impl Fn(&str) -> String) -> runway_schema::Product {
    let root = workspace().join(EXAMPLE);
    let mut files = MemFiles::default();
    for member in MEMBERS {
        let path = format!("{member}/runway.yaml");
        files = files.with(&path, std::fs::read(root.join(&path)).expect("member file"));
    }
    let text = std::fs::read_to_string(root.join("runway.yaml")).expect("example runway.yaml");
    let text = edit(&text);
    let loaded = runway_schema::load("runway.yaml", text.as_bytes(), &files, &Options::default());
    loaded.product.unwrap_or_else(|| panic!("example invalid: {:?}", loaded.diagnostics))
}

/// Resources declared under `resources:` of a program.
fn resource_count(program: &Program) -> usize {
    let text = program.file(PROGRAM_FILE).expect("Pulumi.yaml");
    let mut in_resources = false;
    let mut count = 0;
    for line in text.lines() {
        if !line.starts_with(' ') && !line.starts_with('#') {
            in_resources = line == "resources:";
        } else if in_resources && line.starts_with("  ") && !line.starts_with("   ") {
            count += 1;
        }
    }
    count
}

#[test]
fn golden_program_of_the_example() {
    for plan in example_plans() {
        let program = render(&plan).expect("render");
        assert_eq!(program, render(&plan).expect("render"), "rendering is deterministic");
        // One golden: production's, the richest (each kind alone, in dev and production, is
        // `kinds.rs`'s; the other environments are held by the checks below).
        if plan.environment == "production" {
            let text = program.file(PROGRAM_FILE).expect("Pulumi.yaml");
            insta::assert_snapshot!("acme-shop-production", text);
        }
    }
}

#[test]
fn one_resource_per_planned_item() {
    for plan in example_plans() {
        let program = render(&plan).expect("render");
        assert_eq!(resource_count(&program), expected_resources(&plan), "{}", plan.environment);
        let text = program.file(PROGRAM_FILE).expect("Pulumi.yaml");
        for item in plan.items.iter().filter(|i| i.managed_by == runtime_plan::ManagedBy::Pulumi) {
            assert!(text.contains(&format!("\n  {}:\n    type: ", item.id)), "{} missing", item.id);
        }
        // The other way (ARCHITECTURE.md, "Boundaries": runtime-plan alone decides what is
        // declared): every resource is a plan item's, or a parameter the plan lists.
        let resources = pulumi_program::program_resources(&plan).expect("resources");
        for r in &resources {
            match &r.item {
                Some(id) => {
                    assert!(plan.items.iter().any(|i| i.id == *id), "{r:?}: no such item in the plan")
                }
                None => assert_eq!(
                    r.token, "aws:ssm/parameter:Parameter",
                    "{r:?}: neither an item's nor a parameter"
                ),
            }
        }
        let program_parameters = resources.iter().filter(|r| r.item.is_none()).count();
        let parameters = (plan.secrets.ssm_parameters.iter())
            .filter(|p| p.written_by == runtime_plan::ParameterWriter::Program)
            .count();
        assert_eq!(program_parameters, parameters, "{}: the parameters the plan lists", plan.environment);
    }
}

/// Every tagged resource carries its item's tags from the plan, and every service propagates
/// them to its tasks.
#[test]
fn every_resource_is_tagged_and_every_service_tags_its_tasks() {
    for plan in example_plans() {
        let program = render(&plan).expect("render");
        let services = pulumi_support::assert_tags(&plan, &program);
        assert_eq!(services, plan.workloads.len(), "{}", plan.environment);
    }
}

/// Every environment's program, and a pull request's preview's (its look-ups of dev's shared
/// items: the functions' arguments and the outputs its resources read).
#[test]
fn every_program_of_the_example_passes_the_sdk_check() {
    let mut dirs: Vec<Scratch> = Vec::new();
    let preview = runtime_plan::preview_plan(&example_product(), 7, &cost::Catalogue::builtin()).unwrap();
    for plan in example_plans().into_iter().chain([preview]) {
        let dir = scratch(&format!("pulumi-emit-{}", plan.environment));
        pulumi_support::write(&dir, &render(&plan).expect("render"));
        dirs.push(dir);
    }
    let refs: Vec<&std::path::Path> = dirs.iter().map(Scratch::path).collect();
    let outcome = pulumi_support::check_pinned(&refs);
    assert!(outcome.success, "{}", outcome.output);
    assert_eq!(
        outcome.output.matches("\nok ").count() + usize::from(outcome.output.starts_with("ok ")),
        dirs.len()
    );
}

#[test]
fn no_credential_in_the_config_and_only_in_write_only_inputs() {
    for plan in example_plans() {
        let program = render(&plan).expect("render");
        let text = program.file(PROGRAM_FILE).expect("Pulumi.yaml");
        assert!(text.contains("  vpcId:\n    type: string\n"));
        assert!(text.contains("  privateSubnetIds:\n    type: array\n"));
        assert!(!text.contains("subnet-"), "no literal subnet id");
        assert!(!text.contains("vpc-"), "no literal VPC id");
        // No credential in the config (nothing for `Pulumi.<stack>.yaml`), none in an input
        // that is not write-only: each is read from SSM into `passwordWo`, `authTokenWo`,
        // `valueWo` (which the state still keeps in its inputs, as Pulumi secrets).
        assert!(!text.contains("secret: true"), "a secret config key");
        assert!(pulumi_support::assert_credentials_write_only(&program) > 0);
        for generated in &plan.secrets.generated {
            assert!(
                !text.contains(&format!("${{{}}}", generated.variable)),
                "{} as an input",
                generated.variable
            );
        }
    }
}

/// Two environments in one VPC (`tests/fixtures/valid/shared-vpc.yaml`): staging declares the
/// endpoints, whose group admits the VPC's CIDR blocks (an input); production declares none
/// (`endpoints: existing`) and applies its database and cache changes at the deploy
/// (`applyChanges: immediately`). Both programs pass the SDK check, every tag required.
#[test]
fn a_shared_vpc_and_changes_applied_at_the_deploy_pass_the_sdk_check() {
    const FIXTURE: &str = "tests/fixtures/valid/shared-vpc.yaml";
    let text = std::fs::read(workspace().join(FIXTURE)).expect("the fixture");
    let loaded = runway_schema::load(FIXTURE, &text, &MemFiles::default(), &Options::default());
    let product = loaded.product.unwrap_or_else(|| panic!("fixture invalid: {:?}", loaded.diagnostics));
    let catalogue = cost::Catalogue::builtin();
    let mut dirs: Vec<Scratch> = Vec::new();
    for env in ["staging", "production"] {
        let plan = runtime_plan::plan(&product, env, &catalogue).expect("plan");
        let program = render(&plan).expect("render");
        let text = program.file(PROGRAM_FILE).expect("Pulumi.yaml");
        let declares_endpoints = text.contains("type: aws:ec2/vpcEndpoint:VpcEndpoint");
        let admits_the_vpc = text.contains("cidrBlocks: \"${vpcCidrBlocks}\"")
            && text.contains("  vpcCidrBlocks:\n    type: array\n");
        let (now, later) =
            (text.matches("applyImmediately: true").count(), text.contains("applyImmediately: false"));
        if env == "staging" {
            assert!(declares_endpoints && admits_the_vpc, "{text}");
            assert_eq!((now, later), (2, false), "outside production: at the deploy");
        } else {
            assert!(!declares_endpoints && !text.contains("vpcCidrBlocks"), "{text}");
            assert_eq!((now, later), (2, false), "applyChanges: immediately");
        }
        pulumi_support::assert_tags(&plan, &program);
        let dir = scratch(&format!("pulumi-shared-vpc-{env}"));
        pulumi_support::write(&dir, &program);
        dirs.push(dir);
    }
    let refs: Vec<&std::path::Path> = dirs.iter().map(Scratch::path).collect();
    let outcome = pulumi_support::check_pinned(&refs);
    assert!(outcome.success, "{}", outcome.output);
}

/// Production's alerts topic subscribes as many `alertEmails` as the program is rendered with
/// (the stack settings' count, read by `alert_email_count`), and the settings' list is checked.
#[test]
fn the_alerts_topic_subscribes_each_alert_email_and_the_list_is_checked() {
    let plans = example_plans();
    let production = plans.iter().find(|p| p.environment == "production").expect("production");
    let dev = plans.iter().find(|p| p.environment == "dev").expect("dev");
    let settings = "config:\n  acme-shop:alertEmails:\n    - oncall@acme.example\n    - ops@acme.example\n    - cto@acme.example\n";
    assert_eq!(pulumi_program::alert_email_count(production, settings), Some(3));
    // Dev has no alarms: its program reads no `alertEmails`.
    assert_eq!(pulumi_program::alert_email_count(dev, settings), None);
    assert!(!render(dev).expect("render").file(PROGRAM_FILE).expect("Pulumi.yaml").contains("alertEmails"));
    let program =
        pulumi_program::render_with(production, pulumi_program::Options { alert_emails: 3 }).expect("render");
    let text = program.file(PROGRAM_FILE).expect("Pulumi.yaml");
    for n in 0..3 {
        assert!(text.contains(&format!("  env_alerts--email-{n}:\n")), "{n}");
        assert!(text.contains(&format!("endpoint: \"${{alertEmails[{n}]}}\"")), "{n}");
    }
    assert!(!text.contains("env_alerts--email-3"));
    // Two more subscriptions than the default program's one.
    assert_eq!(resource_count(&program), expected_resources(production) + 2);
    assert!(pulumi_program::check_stack_settings(production, "Pulumi.production.yaml", settings).is_empty());
    for (bad, says) in [
        ("config:\n  acme-shop:alertEmails: []\n", "`alertEmails` is empty"),
        ("config:\n  acme-shop:alertEmails: oncall@acme.example\n", "must be a list of email addresses"),
        ("config:\n  acme-shop:alertEmails:\n    - oncall\n", "\"oncall\" is not an email address"),
    ] {
        let diags = pulumi_program::check_stack_settings(production, "Pulumi.production.yaml", bad);
        assert_eq!(diags.len(), 1, "{bad}: {diags:?}");
        assert!(diags[0].is_error() && diags[0].message.contains(says), "{bad}: {diags:?}");
        // At the value, in the settings file.
        assert!(diags[0].location.line >= 2 && diags[0].location.file == "Pulumi.production.yaml", "{bad}");
    }
    // Dev reads no `alertEmails`: whatever its settings hold is not checked.
    assert!(
        pulumi_program::check_stack_settings(
            dev,
            "Pulumi.dev.yaml",
            "config:\n  acme-shop:alertEmails: []\n"
        )
        .is_empty()
    );
}

/// The environment's key (issues 32 and 39): the SSM parameters the program writes name it, and
/// its key policy names the account (IAM policies decide, AWS's default: a deleted deploy role
/// orphans nothing), the deploy role (which may also describe, disable and enable it), every
/// execution role and proxy role (the plan's decrypters, decrypting through SSM and Secrets
/// Manager only) and, in production, the services that publish to the alerts topic it
/// encrypts; no other AWS principal.
/// `alerts.https`: each endpoint is an HTTPS subscription whose URL is read at `up`, decrypted,
/// from its SSM SecureString (a secret variable): the program text names the parameter, never
/// a URL; the SDK constructs it.
#[test]
fn the_alerts_topic_subscribes_each_https_endpoint_from_its_parameter() {
    let text = std::fs::read_to_string(workspace().join(EXAMPLE).join("runway.yaml")).expect("example");
    let anchor = "    domain: acme.example\n";
    assert!(text.contains(anchor));
    let text = text.replacen(
        anchor,
        &format!("{anchor}    alerts: {{ https: [PAGERDUTY_URL, CHAT_WEBHOOK] }}\n"),
        1,
    );
    let plans = example_plans_with(|_| text.clone());
    let production = plans.iter().find(|p| p.environment == "production").expect("production");
    let program = render(production).expect("render");
    let yaml = program.file(PROGRAM_FILE).expect("Pulumi.yaml");
    for (n, name) in ["PAGERDUTY_URL", "CHAT_WEBHOOK"].iter().enumerate() {
        let at = yaml.find(&format!("  env_alerts--https-{n}:\n")).unwrap_or_else(|| panic!("{name}"));
        let block: String =
            yaml[at..].lines().skip(1).take_while(|l| l.starts_with("    ")).collect::<Vec<_>>().join("\n");
        assert!(block.contains("protocol: https") && block.contains("endpointAutoConfirms: true"), "{block}");
        assert!(block.contains(&format!("endpoint: \"${{credential-{name}}}\"")), "{block}");
        // Its variable: the parameter read with decryption, marked secret.
        let variable = format!("  credential-{name}:\n");
        let at = yaml.find(&variable).unwrap_or_else(|| panic!("{variable}"));
        let read: String = yaml[at..].lines().take(8).collect::<Vec<_>>().join("\n");
        assert!(read.contains("fn::secret") && read.contains("aws:ssm:getParameter"), "{read}");
        assert!(read.contains(&format!("name: /acme-shop/production/_alerts/{name}")), "{read}");
        assert!(read.contains("withDecryption: true"), "{read}");
    }
    assert!(!yaml.contains("https://"), "no URL in the program");
    assert_eq!(resource_count(&program), expected_resources(production));
    let dir = scratch("pulumi-alerts-https");
    pulumi_support::write(&dir, &program);
    let outcome = pulumi_support::check(&[dir.path()]);
    assert!(outcome.success, "{}", outcome.output);
}

/// The environment's key (issue 32): the SSM parameters the program writes name it, and its key
/// policy names exactly the principals the plan says: the deploy role, and every execution
/// role and proxy role (the plan's decrypters, which are all of them), nobody else.
#[test]
fn the_key_policy_names_the_account_the_plans_principals_and_the_alert_publishers() {
    for plan in example_plans() {
        let key = plan.item(runtime_plan::lower::KEY_ID).expect("the environment's key");
        let runtime_plan::ItemSpec::KmsKey { alias, decrypters, publishers } = &key.spec else {
            panic!("a key")
        };
        assert_eq!(alias, &plan.secrets.kms_key);
        let roles: Vec<&str> = plan
            .items
            .iter()
            .filter(|i| {
                matches!(
                    i.kind(),
                    runtime_plan::ItemKind::TaskExecutionRole | runtime_plan::ItemKind::ProxyRole
                )
            })
            .map(|i| i.id.as_str())
            .collect();
        assert_eq!(decrypters.iter().map(|d| d.as_str()).collect::<Vec<_>>(), roles);
        let program = render(&plan).expect("render");
        let doc: serde_json::Value =
            serde_saphyr::from_str(program.file(PROGRAM_FILE).expect("Pulumi.yaml")).expect("YAML");
        let resources = doc["resources"].as_object().expect("resources");
        let policy = &resources["env_kms-key--policy"];
        assert_eq!(policy["type"], "aws:kms/keyPolicy:KeyPolicy");
        assert_eq!(policy["properties"]["keyId"], "${env_kms-key.id}");
        let statements =
            policy["properties"]["policy"]["fn::toJSON"]["Statement"].as_array().expect("statements");
        let mut principals: Vec<String> = statements
            .iter()
            .filter_map(|s| s["Principal"]["AWS"].as_array())
            .flatten()
            .map(|p| p.as_str().expect("a principal").to_owned())
            .collect();
        principals.sort();
        let mut want: Vec<String> = roles.iter().map(|r| format!("${{{r}.arn}}")).collect();
        want.push("${deploy-role}".to_owned());
        want.push("arn:aws:iam::${aws-account-id}:root".to_owned());
        want.sort();
        assert_eq!(principals, want, "{}", plan.environment);
        // The account statement, as AWS's default key policy writes it.
        assert_eq!(
            statements[0]["Principal"]["AWS"],
            serde_json::json!(["arn:aws:iam::${aws-account-id}:root"])
        );
        assert_eq!(statements[0]["Action"], serde_json::json!(["kms:*"]));
        assert!(statements[0].get("Condition").is_none());
        // The deploy role administers, audits, and can stop and restart the key.
        let deploy = statements[1]["Action"].as_array().expect("actions");
        for action in ["kms:DescribeKey", "kms:DisableKey", "kms:EnableKey", "kms:PutKeyPolicy"] {
            assert!(deploy.iter().any(|a| a == action), "{action}");
        }
        // The roles decrypt, through SSM and Secrets Manager only.
        assert_eq!(statements[2]["Action"], serde_json::json!(["kms:Decrypt"]));
        assert!(statements[2]["Condition"]["StringEquals"]["kms:ViaService"].is_array());
        // The alerts topic's publishers, each a statement of its own; CloudWatch scoped to the
        // account.
        assert_eq!(statements.len(), 3 + publishers.len(), "{}", plan.environment);
        for (statement, publisher) in statements[3..].iter().zip(publishers.iter()) {
            assert_eq!(statement["Principal"]["Service"], publisher.principal);
            assert_eq!(statement["Action"], serde_json::json!(["kms:Decrypt", "kms:GenerateDataKey*"]));
            let scoped = &statement["Condition"]["StringEquals"]["aws:SourceAccount"];
            assert_eq!(scoped.as_str() == Some("${aws-account-id}"), publisher.key_source_account);
        }
        // Every parameter the program writes, and every execution role's grant, names the key.
        for (id, resource) in resources {
            if resource["type"] == "aws:ssm/parameter:Parameter" {
                assert_eq!(resource["properties"]["keyId"], alias.as_str(), "{id}");
            }
        }
        assert!(!program.file(PROGRAM_FILE).unwrap().contains("alias/aws/ssm"));
    }
}

/// Production's alerts topic is under the environment's key, after the key's policy names the
/// publishers (CloudWatch, EventBridge; Budgets for a capped environment).
#[test]
fn the_alerts_topic_is_under_the_environment_s_key() {
    let plans = example_plans();
    let production = plans.iter().find(|p| p.environment == "production").expect("production");
    let program = render(production).expect("render");
    let doc: serde_json::Value =
        serde_saphyr::from_str(program.file(PROGRAM_FILE).expect("Pulumi.yaml")).expect("YAML");
    let topic = &doc["resources"]["env_alerts"];
    assert_eq!(topic["type"], "aws:sns/topic:Topic");
    assert_eq!(topic["properties"]["kmsMasterKeyId"], "${env_kms-key.arn}");
    assert_eq!(topic["options"]["dependsOn"], serde_json::json!(["${env_kms-key--policy}"]));
    let statements =
        doc["resources"]["env_kms-key--policy"]["properties"]["policy"]["fn::toJSON"]["Statement"]
            .as_array()
            .expect("statements");
    for service in ["cloudwatch.amazonaws.com", "events.amazonaws.com"] {
        assert!(statements.iter().any(|s| s["Principal"]["Service"] == service), "{service}");
    }
}

/// Every resource and every function call of every program pins the pulumi-aws version that
/// `tools/requirements.txt` installs for the SDK check (which refuses any other version).
#[test]
fn every_program_pins_the_provider_version_it_is_checked_against() {
    let requirements =
        std::fs::read_to_string(workspace().join("tools/requirements.txt")).expect("requirements");
    let pinned = format!("pulumi-aws=={}", pulumi_program::PULUMI_AWS_VERSION);
    assert!(requirements.lines().any(|l| l.trim() == pinned), "tools/requirements.txt lacks `{pinned}`");
    for plan in example_plans() {
        let program = render(&plan).expect("render");
        let text = program.file(PROGRAM_FILE).expect("Pulumi.yaml");
        let doc: serde_json::Value = serde_saphyr::from_str(text).expect("YAML");
        for (id, resource) in doc["resources"].as_object().expect("resources") {
            assert_eq!(resource["options"]["version"], pulumi_program::PULUMI_AWS_VERSION, "{id}");
        }
        let invokes = text.matches("fn::invoke:").count();
        assert!(invokes > 0);
        let pins = text.matches(&format!("version: \"{}\"", pulumi_program::PULUMI_AWS_VERSION)).count();
        assert_eq!(
            pins,
            invokes + doc["resources"].as_object().expect("resources").len(),
            "{}",
            plan.environment
        );
    }
}

/// No bucket keeps a global name: every `aws:s3/bucket:Bucket`, the ALB's log bucket included,
/// is in the account-regional namespace, named with the deploying account and region.
#[test]
fn every_bucket_is_in_the_account_regional_namespace() {
    let mut buckets = 0;
    for plan in example_plans() {
        let program = render(&plan).expect("render");
        let doc: serde_json::Value =
            serde_saphyr::from_str(program.file(PROGRAM_FILE).expect("Pulumi.yaml")).expect("YAML");
        for (id, resource) in doc["resources"].as_object().expect("resources") {
            if resource["type"] != "aws:s3/bucket:Bucket" {
                continue;
            }
            buckets += 1;
            assert_eq!(resource["properties"]["bucketNamespace"], "account-regional", "{id}");
            let name = resource["properties"]["bucket"].as_str().expect("a name");
            assert!(name.ends_with(&format!("-${{aws-account-id}}-{}-an", plan.region)), "{id}: {name}");
        }
        if plan.environment == "production" {
            let logs = &doc["resources"]["env_alb-log-bucket"]["properties"];
            assert!(logs["bucket"].as_str().expect("a name").starts_with("acme-shop-production-alb-logs-"));
        }
    }
    assert!(buckets > 3, "the example's buckets and production's log bucket");
}

/// Production's database takes its backups and maintenance in the plan's windows; dev's leaves
/// them to RDS.
#[test]
fn production_databases_have_backup_and_maintenance_windows() {
    for plan in example_plans() {
        let program = render(&plan).expect("render");
        let doc: serde_json::Value =
            serde_saphyr::from_str(program.file(PROGRAM_FILE).expect("Pulumi.yaml")).expect("YAML");
        let mut databases = 0;
        for resource in doc["resources"].as_object().expect("resources").values() {
            if resource["type"] != "aws:rds/instance:Instance" {
                continue;
            }
            databases += 1;
            let props = &resource["properties"];
            if plan.environment == "production" {
                assert_eq!(props["backupWindow"], runtime_plan::lower::PRODUCTION_BACKUP_WINDOW);
                assert_eq!(props["maintenanceWindow"], runtime_plan::lower::PRODUCTION_MAINTENANCE_WINDOW);
            } else {
                assert!(props.get("backupWindow").is_none() && props.get("maintenanceWindow").is_none());
            }
        }
        assert!(databases > 0, "{}", plan.environment);
    }
}

/// The example's database as an Aurora cluster in production: the cluster takes the plan's
/// backup and maintenance windows, each of its instances the maintenance window, and the
/// program passes the SDK check.
#[test]
fn an_aurora_production_database_gets_its_windows_and_passes_the_sdk_check() {
    let mut product = example_product();
    product.root.resources.get_mut("main-db").expect("main-db").spec =
        runway_schema::ResourceSpec::Postgres {
            engine: runway_schema::PostgresEngine::Aurora,
            version: "16".into(),
        };
    let plan = runtime_plan::plan(&product, "production", &cost::Catalogue::builtin()).expect("plan");
    let program = render(&plan).expect("render");
    let doc: serde_json::Value =
        serde_saphyr::from_str(program.file(PROGRAM_FILE).expect("Pulumi.yaml")).expect("YAML");
    let (mut clusters, mut instances) = (0, 0);
    for resource in doc["resources"].as_object().expect("resources").values() {
        let props = &resource["properties"];
        if resource["type"] == "aws:rds/cluster:Cluster" {
            clusters += 1;
            assert_eq!(props["preferredBackupWindow"], runtime_plan::lower::PRODUCTION_BACKUP_WINDOW);
            assert_eq!(
                props["preferredMaintenanceWindow"],
                runtime_plan::lower::PRODUCTION_MAINTENANCE_WINDOW
            );
        } else if resource["type"] == "aws:rds/clusterInstance:ClusterInstance" {
            instances += 1;
            assert_eq!(
                props["preferredMaintenanceWindow"],
                runtime_plan::lower::PRODUCTION_MAINTENANCE_WINDOW
            );
        }
    }
    assert!(clusters == 1 && instances >= 1, "{clusters} clusters, {instances} instances");
    let dir = scratch("pulumi-emit-aurora-production");
    pulumi_support::write(&dir, &program);
    let outcome = pulumi_support::check_pinned(&[dir.path()]);
    assert!(outcome.success, "{}", outcome.output);
}

/// The container definition (`containerDefinitions[0]`) of a task definition of a program.
fn container(program: &Program, task_definition: &str) -> serde_json::Value {
    let doc: serde_json::Value =
        serde_saphyr::from_str(program.file(PROGRAM_FILE).expect("Pulumi.yaml")).expect("YAML");
    let resource = &doc["resources"][task_definition];
    assert_eq!(resource["type"], "aws:ecs/taskDefinition:TaskDefinition", "{task_definition}");
    resource["properties"]["containerDefinitions"]["fn::toJSON"][0].clone()
}

/// `entryPoint` (issue 39) in the container definitions as declared: the example's Metabase
/// (no entry point) hands `"migrate up"` to its image's ENTRYPOINT; with a workload's
/// `entryPoint`, its service runs it and its migrate inherits it; a migrate's own is its alone.
/// The programs pass the SDK check, whose container definitions are checked against the ECS
/// API model (`entryPoint` and `command` lists of strings).
#[test]
fn entry_points_and_commands_reach_the_container_definitions_as_declared() {
    let shipped = example_plans();
    let dev = shipped.iter().find(|p| p.environment == "dev").expect("dev");
    let program = render(dev).expect("render");
    let migrate = container(&program, "metabase_migrate-task");
    assert_eq!(migrate["command"], serde_json::json!(["migrate up"]));
    assert!(migrate.get("entryPoint").is_none(), "the image's ENTRYPOINT runs: {migrate}");
    let service = container(&program, "metabase_task");
    assert!(service.get("entryPoint").is_none() && service.get("command").is_none(), "{service}");

    let plans = example_plans_with(|text| {
        let edited = text
            .replacen(
                "    platform: x86_64\n",
                "    platform: x86_64\n    entryPoint: [/usr/bin/tini, --, /app/run_metabase.sh]\n",
                1,
            )
            .replacen(
                "    exec: true\n",
                "    exec: true\n    migrate: { entryPoint: [/app/migrate.sh], command: [up, --all] }\n",
                1,
            );
        let count = |t: &str| t.matches("entryPoint: [").count();
        assert_eq!(count(&edited), count(text) + 2, "both edits apply");
        edited
    });
    let mut dirs: Vec<Scratch> = Vec::new();
    for plan in &plans {
        let program = render(plan).expect("render");
        let tini = serde_json::json!(["/usr/bin/tini", "--", "/app/run_metabase.sh"]);
        let service = container(&program, "metabase_task");
        assert_eq!((&service["entryPoint"], service.get("command")), (&tini, None), "{}", plan.environment);
        let migrate = container(&program, "metabase_migrate-task");
        assert_eq!(
            (&migrate["entryPoint"], &migrate["command"]),
            (&tini, &serde_json::json!(["migrate up"])),
            "inherited in {}",
            plan.environment
        );
        let pdf = container(&program, "pdf-render_task");
        assert!(pdf.get("entryPoint").is_none() && pdf.get("command").is_none(), "{pdf}");
        let pdf_migrate = container(&program, "pdf-render_migrate-task");
        assert_eq!(
            (&pdf_migrate["entryPoint"], &pdf_migrate["command"]),
            (&serde_json::json!(["/app/migrate.sh"]), &serde_json::json!(["up", "--all"])),
            "{}",
            plan.environment
        );
        let dir = scratch(&format!("pulumi-entry-point-{}", plan.environment));
        pulumi_support::write(&dir, &program);
        dirs.push(dir);
    }
    let refs: Vec<&std::path::Path> = dirs.iter().map(Scratch::path).collect();
    let outcome = pulumi_support::check_pinned(&refs);
    assert!(outcome.success, "{}", outcome.output);
}

/// A shell's `${...}` in a command is the container's, not Pulumi's (an `env` value may hold no
/// `${` but a whole reference, which the validator enforces): the
/// program writes it `$${...}` (Pulumi YAML's escape), so `pulumi up` hands `${HOME}` to the
/// container as typed, and the SDK check (which reads `${` as an interpolation) passes.
#[test]
fn a_dollar_brace_in_a_command_is_escaped_for_pulumi_yaml() {
    let plans = example_plans_with(|text| {
        let edited = text.replacen(
            "    exec: true\n",
            "    exec: true\n    migrate: { command: [sh, -c, \"echo ${HOME}\"] }\n",
            1,
        );
        assert_ne!(edited, text, "the edit applies");
        edited
    });
    let mut dirs: Vec<Scratch> = Vec::new();
    for plan in &plans {
        let program = render(plan).expect("render");
        let migrate = container(&program, "pdf-render_migrate-task");
        assert_eq!(
            migrate["command"],
            serde_json::json!(["sh", "-c", "echo $${HOME}"]),
            "{}",
            plan.environment
        );
        let dir = scratch(&format!("pulumi-dollar-brace-{}", plan.environment));
        pulumi_support::write(&dir, &program);
        dirs.push(dir);
    }
    let refs: Vec<&std::path::Path> = dirs.iter().map(Scratch::path).collect();
    let outcome = pulumi_support::check_pinned(&refs);
    assert!(outcome.success, "{}", outcome.output);
}

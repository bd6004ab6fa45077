//! The emitter over the shipped example: golden programs per environment, one resource per
//! planned item, and every emitted program constructed with the real Pulumi AWS SDK.

#![allow(clippy::disallowed_methods)] // reason: the tests read the shipped example from disk

mod pulumi_support;

use pulumi_program::{PROGRAM_FILE, Program, expected_resources, render};
use runtime_plan::Plan;
use runway_schema::{MemFiles, Options};
use test_support::{Scratch, scratch, workspace};

const EXAMPLE: &str = "examples/acme-shop";
const MEMBERS: [&str; 3] = ["services/orders", "services/billing", "tools/reporting"];

fn example_plans() -> Vec<Plan> {
    let text = std::fs::read(workspace().join(EXAMPLE).join("runway.yaml")).expect("example runway.yaml");
    plans_of(&text)
}

/// The plans of the example with `text` as its root file.
fn plans_of(text: &[u8]) -> Vec<Plan> {
    let root = workspace().join(EXAMPLE);
    let mut files = MemFiles::default();
    for member in MEMBERS {
        let path = format!("{member}/runway.yaml");
        files = files.with(&path, std::fs::read(root.join(&path)).expect("member file"));
    }
    let loaded = runway_schema::load("runway.yaml", text, &files, &Options::default());
    let product = loaded.product.unwrap_or_else(|| panic!("example invalid: {:?}", loaded.diagnostics));
    let catalogue = cost::Catalogue::builtin();
    product
        .root
        .environments
        .keys()
        .map(|env| runtime_plan::plan(&product, env, &catalogue).expect("example plan"))
        .collect()
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
fn golden_programs_of_the_example() {
    for plan in example_plans() {
        let program = render(&plan).expect("render");
        assert_eq!(program, render(&plan).expect("render"), "rendering is deterministic");
        let text = program.file(PROGRAM_FILE).expect("Pulumi.yaml");
        insta::assert_snapshot!(format!("acme-shop-{}", plan.environment), text);
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

#[test]
fn every_program_of_the_example_passes_the_sdk_check() {
    let mut dirs: Vec<Scratch> = Vec::new();
    for plan in example_plans() {
        let dir = scratch(&format!("pulumi-emit-{}", plan.environment));
        pulumi_support::write(&dir, &render(&plan).expect("render"));
        dirs.push(dir);
    }
    let refs: Vec<&std::path::Path> = dirs.iter().map(Scratch::path).collect();
    let outcome = pulumi_support::check(&refs);
    assert!(outcome.success, "{}", outcome.output);
    assert_eq!(
        outcome.output.matches("\nok ").count() + usize::from(outcome.output.starts_with("ok ")),
        dirs.len()
    );
}

#[test]
fn no_secret_value_and_inputs_are_config() {
    for plan in example_plans() {
        let program = render(&plan).expect("render");
        let text = program.file(PROGRAM_FILE).expect("Pulumi.yaml");
        assert!(text.contains("  vpcId:\n    type: string\n"));
        assert!(text.contains("  privateSubnetIds:\n    type: array\n"));
        assert!(!text.contains("subnet-"), "no literal subnet id");
        assert!(!text.contains("vpc-"), "no literal VPC id");
        // No credential in the config (nothing for `Pulumi.<stack>.yaml`), none in an input
        // that is not write-only: each is read from SSM into `passwordWo`, `authTokenWo`,
        // `valueWo`.
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
    let outcome = pulumi_support::check(&refs);
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
    let plans = plans_of(text.as_bytes());
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
fn the_key_policy_names_exactly_the_plans_principals() {
    for plan in example_plans() {
        let key = plan.item(runtime_plan::lower::KEY_ID).expect("the environment's key");
        let runtime_plan::ItemSpec::KmsKey { alias, decrypters } = &key.spec else { panic!("a key") };
        assert_eq!(alias, &plan.secrets.kms_key);
        let roles: Vec<&str> = plan
            .items
            .iter()
            .filter(|i| {
                matches!(
                    i.kind,
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
            .flat_map(|s| s["Principal"]["AWS"].as_array().expect("AWS principals").iter())
            .map(|p| p.as_str().expect("a principal").to_owned())
            .collect();
        principals.sort();
        let mut want: Vec<String> = roles.iter().map(|r| format!("${{{r}.arn}}")).collect();
        want.push("${deploy-role}".to_owned());
        want.sort();
        assert_eq!(principals, want, "{}", plan.environment);
        // Only the deploy role administers; the roles decrypt, through SSM and Secrets Manager.
        assert_eq!(statements[1]["Action"], serde_json::json!(["kms:Decrypt"]));
        assert!(statements[1]["Condition"]["StringEquals"]["kms:ViaService"].is_array());
        // Every parameter the program writes, and every execution role's grant, names the key.
        for (id, resource) in resources {
            if resource["type"] == "aws:ssm/parameter:Parameter" {
                assert_eq!(resource["properties"]["keyId"], alias.as_str(), "{id}");
            }
        }
        assert!(!program.file(PROGRAM_FILE).unwrap().contains("alias/aws/ssm"));
    }
}

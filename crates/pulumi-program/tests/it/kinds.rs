//! One small golden per kind (ruff's per-rule fixtures as the model): each `tests/kinds/<kind>.yaml`
//! declares one resource or workload alone, and its golden holds the Pulumi resources the
//! program declares for it (its items' and the SSM parameters it owns), in dev and in
//! production, as `Pulumi.yaml` writes them. The plan items behind them are runtime-plan's
//! golden of the same fixture (its `tests/it/kinds.rs`); the environment's own resources are
//! the whole example's program (`pulumi_emit.rs`).

use pulumi_program::{PROGRAM_FILE, render};
use runtime_plan::Plan;
use runway_schema::{MemFiles, Options};

// `KINDS`: each fixture by name, its text, and the owner its golden holds.
include!("../../../../tests/kind_fixtures.rs");

/// The environments each golden holds.
const ENVIRONMENTS: [&str; 2] = ["dev", "production"];

fn plan(name: &str, text: &str, env: &str) -> Plan {
    let loaded = runway_schema::load(name, text.as_bytes(), &MemFiles::default(), &Options::default());
    let product = loaded.product.unwrap_or_else(|| panic!("{name}: {:?}", loaded.diagnostics));
    runtime_plan::plan(&product, env, &cost::Catalogue::builtin()).expect("plan")
}

/// The resources of `Pulumi.yaml` (name and its lines) under `resources:`, in order.
fn resources(program: &str) -> Vec<(&str, Vec<&str>)> {
    let mut out: Vec<(&str, Vec<&str>)> = Vec::new();
    let mut inside = false;
    for line in program.lines().filter(|l| !l.is_empty() && !l.starts_with('#')) {
        if !line.starts_with(' ') {
            inside = line == "resources:";
        } else if inside {
            match line.strip_prefix("  ").and_then(|l| l.strip_suffix(':')) {
                Some(name) if !name.starts_with([' ', '#']) => out.push((name, vec![line])),
                _ => out.last_mut().expect("a resource first").1.push(line),
            }
        }
    }
    out
}

/// Whose a resource of the program is: its item's owner, or the owner of the SSM parameter it
/// writes.
fn owner_of<'p>(plan: &'p Plan, resource: &str) -> Option<&'p str> {
    let id = resource.split("--").next().unwrap_or(resource);
    match plan.item(id) {
        Some(item) => item.owner.as_deref(),
        None => {
            let parameter = plan.secrets.ssm_parameters.iter().find(|p| p.program_id() == resource);
            Some(parameter.unwrap_or_else(|| panic!("{resource}: no item and no parameter")).owner.as_str())
        }
    }
}

#[test]
fn every_kind_has_its_small_golden_of_pulumi_resources() {
    for (name, text, owner) in KINDS {
        let mut golden = String::new();
        for env in ENVIRONMENTS {
            let plan = plan(name, text, env);
            let program = render(&plan).expect("render");
            let program = program.file(PROGRAM_FILE).expect("Pulumi.yaml");
            let owned: Vec<_> =
                resources(program).into_iter().filter(|(r, _)| owner_of(&plan, r) == Some(owner)).collect();
            assert!(!owned.is_empty(), "{name}: no resource of {owner} in {env}");
            golden.push_str(&format!("# {env}\n"));
            for (_, lines) in owned {
                golden.push_str(&lines.join("\n"));
                golden.push('\n');
            }
        }
        insta::assert_snapshot!(format!("kind-{name}"), golden);
    }
}

//! From an empty account, no task of a generated runway's program starts before a parameter it
//! reads exists: each program goes through `tools/simulate_up.py` against moto, after what
//! `secrets prepare` and people write first (its `--as-prepared`), with moto reset in between.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)] // reason: the test writes its inputs and runs Python

use crate::pulumi_support;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use pulumi_program::render;
use runtime_plan::ParameterWriter;
use test_support::{Moto, http, scratch};

/// Generated runways checked (each environment of each).
const RUNWAYS: usize = 12;

#[test]
fn no_task_of_a_generated_runway_starts_before_its_parameters() {
    let mut runner = TestRunner::deterministic();
    let strategy = runtime_plan::strategy::product();
    let catalogue = cost::Catalogue::builtin();
    let moto = Moto::start();
    let mut written = 0;
    for n in 0..RUNWAYS {
        let product = strategy.new_tree(&mut runner).expect("a generated runway").current();
        for env in product.root.environments.keys() {
            let Ok(plan) = runtime_plan::plan(&product, env, &catalogue) else { continue };
            let program = render(&plan).unwrap_or_else(|e| panic!("runway {n} env {env}: {e}"));
            let dir = scratch(&format!("task-start-{n}-{env}"));
            pulumi_support::write(&dir, &program);
            let outputs: serde_json::Map<String, serde_json::Value> = plan
                .outputs
                .iter()
                .map(|o| (o.name.to_string(), format!("value-of-{}", o.name).into()))
                .collect();
            let outputs_file = dir.join("outputs.json");
            let plan_file = dir.join("plan.json");
            #[allow(clippy::disallowed_methods)] // reason: the test writes its scratch inputs
            {
                std::fs::write(&outputs_file, serde_json::Value::Object(outputs).to_string())
                    .expect("outputs");
                std::fs::write(&plan_file, serde_json::to_string(&plan).expect("plan json")).expect("plan");
            }
            assert!(http(moto.port, "POST", "/moto-api/reset", "").is_some(), "moto reset");
            let out = std::process::Command::new(test_support::python())
                .arg(test_support::workspace().join("tools/simulate_up.py"))
                .args([dir.path(), &outputs_file])
                .arg("--as-prepared")
                .arg(&plan_file)
                .env("AWS_ENDPOINT_URL", moto.url())
                .env("AWS_ACCESS_KEY_ID", "testing")
                .env("AWS_SECRET_ACCESS_KEY", "testing")
                .output()
                .expect("run simulate_up");
            let report = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "runway {n} env {env}: {report}{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let program_written = plan
                .secrets
                .ssm_parameters
                .iter()
                .filter(|p| p.written_by == ParameterWriter::Program)
                .count();
            let report: serde_json::Value = serde_json::from_str(&report).expect("a JSON report");
            assert_eq!(
                report["written"].as_array().map(Vec::len),
                Some(program_written),
                "runway {n} env {env}"
            );
            written += program_written;
        }
    }
    assert!(written > 0, "no generated runway had a parameter the program writes");
}

#![allow(clippy::unwrap_used)] // reason: test helpers fail loudly
//! The embedding example writes a program per environment, and stops on a cap.

use std::process::Command;

use test_support::{acme_shop_with_dev_cap, example, scratch};

#[test]
fn writes_a_program_per_environment() {
    let out = scratch("embed-ok");
    let run = Command::new(env!("CARGO_BIN_EXE_embed-example"))
        .arg(example("acme-shop").join("runway.yaml"))
        .arg(out.path())
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    for env in ["dev", "staging", "production"] {
        let program = std::fs::read_to_string(out.join(env).join("Pulumi.yaml")).unwrap();
        assert!(program.contains("runtime: yaml"), "{env}");
    }
}

#[test]
fn stops_on_a_cap_and_writes_nothing() {
    let product = acme_shop_with_dev_cap("50", "embed-capped");
    let root = product.join("runway.yaml");
    let out = product.join("out");
    let run = Command::new(env!("CARGO_BIN_EXE_embed-example")).arg(&root).arg(&out).output().unwrap();
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("dev is refused"), "{stderr}");
    assert!(!out.exists(), "nothing is written when the first environment is refused");
}

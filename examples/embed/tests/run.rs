#![allow(clippy::unwrap_used)] // reason: test helpers fail loudly
//! The embedding example writes a program per environment, and stops on a cap.

use std::path::{Path, PathBuf};
use std::process::Command;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../acme-shop")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.path().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("runway-embed-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn writes_a_program_per_environment() {
    let out = scratch("ok");
    let run = Command::new(env!("CARGO_BIN_EXE_embed-example"))
        .arg(example().join("runway.yaml"))
        .arg(&out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    for env in ["dev", "staging", "production"] {
        let program = std::fs::read_to_string(out.join(env).join("Pulumi.yaml")).unwrap();
        assert!(program.contains("runtime: yaml"), "{env}");
    }
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn stops_on_a_cap_and_writes_nothing() {
    let product = scratch("capped");
    copy_dir(&example(), &product);
    let root = product.join("runway.yaml");
    let text = std::fs::read_to_string(&root).unwrap().replace("monthly: 150", "monthly: 50");
    std::fs::write(&root, text).unwrap();
    let out = product.join("out");
    let run = Command::new(env!("CARGO_BIN_EXE_embed-example")).arg(&root).arg(&out).output().unwrap();
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("dev is refused"), "{stderr}");
    assert!(!out.exists(), "nothing is written when the first environment is refused");
    std::fs::remove_dir_all(product).unwrap();
}

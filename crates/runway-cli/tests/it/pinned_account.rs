//! The pinned account (`environments.<env>.account`): every command that calls AWS asks STS
//! whose credentials it holds before anything else, and refuses another account with exit 2
//! naming both, before any write (Infisical's included). moto's account is 123456789012; a
//! recording proxy in front of moto ([`FaultProxy`] without faults) lists every call made.
//!
//! Needs the workspace venv: `cargo xtask venv` once (or set `RUNWAY_PYTHON`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use test_support::{FaultProxy, Faults, Scratch, copy_dir, example, scratch};

use crate::common::{self, Cloud, PROJECT, Run};

/// moto's account.
const MOTO_ACCOUNT: &str = "123456789012";
const OTHER_ACCOUNT: &str = "210987654321";

/// A copy of the example whose `dev` is pinned to `account`.
fn pinned_example(account: &str, name: &str) -> Scratch {
    let dir = scratch(name);
    copy_dir(&example("acme-shop"), &dir);
    let root = dir.join("runway.yaml");
    let text = std::fs::read_to_string(&root).unwrap();
    let pinned = text.replacen(
        "  dev:\n    region: us-east-1\n",
        &format!("  dev:\n    region: us-east-1\n    account: \"{account}\"\n"),
        1,
    );
    assert_ne!(pinned, text, "the example's dev no longer starts with its region");
    std::fs::write(&root, pinned).unwrap();
    dir
}

fn runway(infisical: &str, aws: &str, args: &[&str]) -> Run {
    Run::logged(common::cloud_command(infisical, aws, "runway-pinned-test-home").args(args), args)
}

#[test]
fn another_account_is_refused_with_exit_2_before_any_other_call() {
    let Cloud { infisical, moto } = Cloud::start();
    let proxy = FaultProxy::start(moto.port, Faults::NONE);
    let dir = pinned_example(OTHER_ACCOUNT, "pinned-other");
    let file = dir.join("runway.yaml");
    let file = file.to_str().unwrap();
    let outputs = dir.join("outputs.json");
    std::fs::write(&outputs, "{}").unwrap();
    let commands: [&[&str]; 7] = [
        &["secrets", "prepare", "--env", "dev", file],
        &["ssm", "publish", "--env", "dev", file],
        &["ssm", "verify", "--env", "dev", file],
        &["rollout", "--env", "dev", "--timeout", "5s", file],
        &["spend", "--env", "dev", file],
        &["preflight", "--env", "dev", file],
        // Before its lease, the job's first write.
        &["deploy", "--env", "dev", "--pulumi", "/nonexistent/pulumi", file],
    ];
    for args in commands {
        let before = proxy.requests().len();
        let run = runway(&infisical.url(), &proxy.url(), args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains(&format!("account {MOTO_ACCOUNT}"))
                && run.stderr.contains(&format!("pinned to account {OTHER_ACCOUNT}")),
            "{args:?}: {}",
            run.stderr
        );
        let calls: Vec<_> = proxy.requests()[before..].iter().map(|s| s.operation.clone()).collect();
        assert_eq!(calls, [Some("GetCallerIdentity".to_owned())], "{args:?}: only STS was asked");
    }
    // Not a write reached Infisical either (the login is not a write).
    let writes: Vec<_> =
        infisical.requests().into_iter().filter(|(m, p)| m != "GET" && !p.contains("/auth/")).collect();
    assert_eq!(writes, Vec::<(String, String)>::new());
}

#[test]
fn the_pinned_account_itself_works_and_is_asked_once() {
    let Cloud { infisical, moto } = Cloud::start();
    let proxy = FaultProxy::start(moto.port, Faults::NONE);
    common::set_in_infisical(&infisical.url(), PROJECT, common::PERSON_PLACE, "set-by-a-person-0b1c");
    let dir = pinned_example(MOTO_ACCOUNT, "pinned-same");
    let file = dir.join("runway.yaml");
    let run = runway(
        &infisical.url(),
        &proxy.url(),
        &["secrets", "prepare", "--env", "dev", file.to_str().unwrap()],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let calls: Vec<String> = proxy.requests().into_iter().filter_map(|s| s.operation).collect();
    assert_eq!(calls.first().map(String::as_str), Some("GetCallerIdentity"), "{calls:?}");
    assert_eq!(calls.iter().filter(|c| *c == "GetCallerIdentity").count(), 1, "{calls:?}");
    assert!(calls.iter().any(|c| c == "CreateKey"), "{calls:?}");
}

#[test]
fn an_account_that_is_not_12_digits_is_invalid_with_help() {
    let dir = pinned_example("12345", "pinned-short");
    let (code, stdout, _) =
        common::runway(&["check", "--format", "json", dir.join("runway.yaml").to_str().unwrap()]);
    assert_eq!(code, 1, "{stdout}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let d = &report["diagnostics"][0];
    assert_eq!(d["code"], "invalid-value", "{stdout}");
    assert_eq!(d["message"], "`12345` is not an AWS account id (exactly 12 digits)");
    // The line `pinned_example` added: right after dev's region.
    let text = std::fs::read_to_string(dir.join("runway.yaml")).unwrap();
    let line = text.lines().position(|l| l.starts_with("    account: ")).unwrap() as u64 + 1;
    assert_eq!((d["line"].as_u64(), d["column"].as_u64()), (Some(line), Some(14)));
    assert_eq!(d["path"], "environments.dev.account");
    assert!(d["help"].as_str().unwrap().contains("12 digits in quotes"), "{stdout}");
}

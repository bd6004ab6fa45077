//! `ci`'s last stage: the README's install line, run as written (the one line of its `sh`
//! blocks that starts `cargo install --locked`) with `--root` a scratch folder, so it depends
//! on no `CARGO_HOME/bin` and leaves nothing installed; then that binary's `--version`.
//!
//! The build lands in the workspace's target folder (`CARGO_TARGET_DIR`, as for every other
//! stage), so it is the release build the README's first command also uses, built once.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use crate::{root, run};

/// The README's install line, as its words.
fn readme_install_line() -> Result<Vec<String>, String> {
    let readme = std::fs::read_to_string(root().join("README.md")).map_err(|e| format!("README.md: {e}"))?;
    let mut in_sh = false;
    let mut found = Vec::new();
    for line in readme.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
        } else if in_sh && line.starts_with("cargo install --locked ") {
            let words = line.split(" #").next().unwrap_or_default();
            found.push(words.split_whitespace().map(str::to_owned).collect::<Vec<_>>());
        }
    }
    match found.len() {
        1 => Ok(found.remove(0)),
        n => Err(format!(
            "README.md shows {n} `cargo install --locked` lines in its sh blocks; one is expected"
        )),
    }
}

/// Runs the README's install line into a scratch `--root` and the installed `runway --version`.
pub(crate) fn readme_line() -> Result<(), String> {
    let words = readme_install_line()?;
    let scratch = std::env::temp_dir().join(format!("runway-install-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let started = Instant::now();
    let mut cmd = Command::new(&words[0]);
    cmd.args(&words[1..]).arg("--root").arg(&scratch);
    // `cargo install` builds in a temporary folder unless told otherwise; the workspace's
    // target folder keeps the release build for the README's other commands.
    if std::env::var_os("CARGO_TARGET_DIR").is_none() {
        cmd.env("CARGO_TARGET_DIR", root().join("target"));
    }
    let result = run(&mut cmd);
    eprintln!("install: {:.0} s", started.elapsed().as_secs_f64());
    result?;
    let bin: PathBuf = scratch.join("bin/runway");
    let out = Command::new(&bin).arg("--version").output().map_err(|e| format!("{}: {e}", bin.display()))?;
    let version = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let size = std::fs::metadata(&bin).map(|m| m.len()).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&scratch);
    if !out.status.success() || !version.starts_with("runway ") {
        return Err(format!("the installed runway --version printed `{version}` ({})", out.status));
    }
    eprintln!("installed {version}: {:.1} MB", size as f64 / 1_000_000.0);
    Ok(())
}

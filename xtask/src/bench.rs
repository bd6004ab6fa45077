//! `cargo xtask bench`: the five performance targets of docs/benchmarks.md (issue 15's four
//! and issue 45's JSON peak). Each is measured, printed with its limit and judged, and the
//! task fails when one is not met:
//!
//! 1. (check + plan of the three environments) / the serde-saphyr floor, in instructions, at
//!    N = 1,000: at most 1.5;
//! 2. growth of (check + plan of the three environments) from N = 1,000 to N = 10,000, in
//!    instructions: at most 12x;
//! 3. `runway plan --env dev examples/acme-shop/runway.yaml`, process to process (median wall
//!    time): under 10 ms;
//! 4. peak RSS of `runway plan --env dev` on the N = 10,000 product: at most 128 MB;
//! 5. peak RSS of `runway plan --env production --format json` on the same product (the
//!    largest plan, written as it is serialized): at most 256 MB.
//!
//! Instructions come from callgrind running `crates/bench/examples/profile.rs` (one step in a
//! loop, minus a run of the set-up alone), so the load of the machine does not change them; they
//! move by about 0.1% between runs because std's hash keys are random per process.
//! `bench --criterion [ARGS]` runs the criterion benches instead.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::{clean_env, root, run, shown, write_product};

/// The sizes of the instruction targets (and N of the memory target).
const SMALL: usize = 1_000;
const LARGE: usize = 10_000;
/// Iterations of a step in one callgrind run, at N = 1,000 and at N = 10,000 (where one run
/// takes minutes under callgrind).
const ITERATIONS_SMALL: usize = 2;
const ITERATIONS_LARGE: usize = 1;
/// Process-to-process runs: untimed warm-up runs, then the timed ones (their median counts).
const WARM_UP: usize = 5;
const RUNS: usize = 50;
/// Peak RSS runs (the largest counts).
const RSS_RUNS: usize = 3;
/// GNU time, which reports a child's peak RSS (`%M`, KiB).
const GNU_TIME: &str = "/usr/bin/time";

/// The limits of the five targets.
const RATIO_LIMIT: f64 = 1.5;
const GROWTH_LIMIT: f64 = 12.0;
const TIME_LIMIT_MS: f64 = 10.0;
const RSS_LIMIT_MB: f64 = 128.0;
const JSON_RSS_LIMIT_MB: f64 = 256.0;

const USAGE: &str = "usage: cargo xtask bench [--criterion [CRITERION ARGS]]";

/// Instructions per iteration of each step (callgrind, drop of the result included).
struct Instructions {
    floor: f64,
    /// `check` at N = 1,000 and N = 10,000.
    check: [f64; 2],
    /// `plan_all` (the three environments) at N = 1,000 and N = 10,000.
    plan_all: [f64; 2],
}

impl Instructions {
    /// (check + plan_all) at N = 1,000 and N = 10,000.
    fn core(&self) -> [f64; 2] {
        [self.check[0] + self.plan_all[0], self.check[1] + self.plan_all[1]]
    }
}

/// Process-to-process wall times of the example's plan, in milliseconds.
struct Times {
    median: f64,
    min: f64,
    max: f64,
}

/// One target as judged: what, the figure measured, the limit, and whether it is met.
struct Verdict {
    what: &'static str,
    figure: String,
    limit: &'static str,
    met: bool,
}

/// `bench [--criterion [ARGS...]]`.
pub(crate) fn bench(args: &[String]) -> Result<(), String> {
    match args.first().map(String::as_str) {
        None => targets(),
        Some("--criterion") => criterion(&args[1..]),
        Some(other) => Err(format!("unknown argument `{other}`; {USAGE}")),
    }
}

/// Where cargo puts its builds (and criterion its estimates).
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from)
}

/// Builds `runway` and `profile` with the `profiling` profile (release plus line tables),
/// measures the five targets, prints them, and fails when one is not met.
fn targets() -> Result<(), String> {
    // One cargo invocation, so both binaries share one resolution of features.
    run(Command::new("cargo").args([
        "build",
        "--profile",
        "profiling",
        "-p",
        "runway-cli",
        "--bin",
        "runway",
        "-p",
        "runway-bench",
        "--example",
        "profile",
    ]))?;
    let target = target_dir();
    let runway = target.join("profiling/runway");
    let profile = target.join("profiling/examples/profile");
    let out = target.join("bench");
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;

    let times = process_time(&runway)?;
    let product = out.join(format!("n{LARGE}"));
    write_product(LARGE, &product)?;
    let root_file = product.join("runway.yaml");
    let rss = peak_rss(&runway, &["plan", "--env", "dev"], &root_file, &out)?;
    let json_rss = peak_rss(&runway, &["plan", "--env", "production", "--format", "json"], &root_file, &out)?;
    let counts = instructions(&profile, &out)?;

    let verdicts = judge(&counts, &times, [rss, json_rss]);
    print_report(&counts, &verdicts);
    let missed: Vec<&str> = verdicts.iter().filter(|v| !v.met).map(|v| v.what).collect();
    if missed.is_empty() { Ok(()) } else { Err(format!("not met: {}", missed.join("; "))) }
}

/// Runs a command with its output captured (valgrind's is long), failing with its stderr.
fn quiet(cmd: &mut Command) -> Result<(), String> {
    clean_env(cmd);
    eprintln!("$ {shown}", shown = shown(cmd));
    let output = cmd
        .current_dir(root())
        .output()
        .map_err(|e| format!("cannot start {shown}: {e}", shown = shown(cmd)))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{shown} failed with {}:\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr),
            shown = shown(cmd)
        ))
    }
}

/// The instructions callgrind counted for one run of `profile STEP N ITERATIONS` (set-up
/// included). Its profile stays in `out` for `callgrind_annotate`.
fn callgrind(profile: &Path, out: &Path, step: &str, n: usize, iterations: usize) -> Result<u64, String> {
    let file = out.join(format!("callgrind.out.{step}.n{n}.i{iterations}"));
    let mut cmd = Command::new("valgrind");
    cmd.arg("--tool=callgrind").arg(format!("--callgrind-out-file={}", file.display()));
    cmd.arg(profile).args([step.to_owned(), n.to_string(), iterations.to_string()]);
    quiet(&mut cmd).map_err(|e| format!("{e}\n(the instruction targets need valgrind)"))?;
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    // The first event is `Ir`, instructions executed; `summary:` is the whole run's count.
    text.lines()
        .find_map(|line| line.strip_prefix("summary:").or_else(|| line.strip_prefix("totals:")))
        .and_then(|counts| counts.split_whitespace().next()?.parse().ok())
        .ok_or_else(|| format!("{}: no `summary:` line", file.display()))
}

/// Instructions per iteration of each step the two instruction targets need: (set-up and
/// ITERATIONS of the step − set-up alone) / ITERATIONS.
fn instructions(profile: &Path, out: &Path) -> Result<Instructions, String> {
    let per_iteration = |step: &str, n: usize, setup: u64| -> Result<f64, String> {
        let iterations = if n == SMALL { ITERATIONS_SMALL } else { ITERATIONS_LARGE };
        let total = callgrind(profile, out, step, n, iterations)?;
        let work = total.checked_sub(setup).ok_or("a step counted fewer instructions than its set-up")?;
        Ok(work as f64 / iterations as f64)
    };
    // With no iterations no step runs: this is the set-up every step of that size shares.
    let small = callgrind(profile, out, "setup", SMALL, 0)?;
    let floor = per_iteration("floor", SMALL, small)?;
    let check_small = per_iteration("check", SMALL, small)?;
    let plan_small = per_iteration("plan_all", SMALL, small)?;
    let large = callgrind(profile, out, "setup", LARGE, 0)?;
    let check_large = per_iteration("check", LARGE, large)?;
    let plan_large = per_iteration("plan_all", LARGE, large)?;
    Ok(Instructions { floor, check: [check_small, check_large], plan_all: [plan_small, plan_large] })
}

/// One `runway` command with stdout and stderr discarded; its wall time in milliseconds and
/// its exit code.
fn timed(cmd: &mut Command) -> Result<(f64, Option<i32>), String> {
    clean_env(cmd);
    cmd.current_dir(root()).stdout(Stdio::null()).stderr(Stdio::null());
    let start = Instant::now();
    let status = cmd.status().map_err(|e| format!("cannot start {shown}: {e}", shown = shown(cmd)))?;
    Ok((start.elapsed().as_secs_f64() * 1e3, status.code()))
}

/// `runway plan --env dev examples/acme-shop/runway.yaml`, process to process: WARM_UP runs,
/// then RUNS timed ones.
fn process_time(runway: &Path) -> Result<Times, String> {
    let mut cmd = Command::new(runway);
    cmd.args(["plan", "--env", "dev", "examples/acme-shop/runway.yaml"]);
    eprintln!("$ {shown} ({WARM_UP} warm-up runs, {RUNS} timed)", shown = shown(&cmd));
    let mut times = Vec::with_capacity(RUNS);
    for i in 0..WARM_UP + RUNS {
        let (ms, code) = timed(&mut cmd)?;
        if code != Some(0) {
            return Err(format!("{shown} exited with {code:?}", shown = shown(&cmd)));
        }
        if i >= WARM_UP {
            times.push(ms);
        }
    }
    times.sort_by(f64::total_cmp);
    let mid = times.len() / 2;
    let median = if times.len() % 2 == 0 { (times[mid - 1] + times[mid]) / 2.0 } else { times[mid] };
    Ok(Times { median, min: times[0], max: times[times.len() - 1] })
}

/// Peak RSS of `runway ARGS ROOT` in MB (10^6 bytes), the largest of RSS_RUNS runs, from GNU
/// time's `%M` (KiB).
fn peak_rss(runway: &Path, args: &[&str], root_file: &Path, out: &Path) -> Result<f64, String> {
    if !Path::new(GNU_TIME).exists() {
        return Err(format!("the memory target needs GNU time at {GNU_TIME} (Debian package `time`)"));
    }
    let report = out.join("time.txt");
    let mut cmd = Command::new(GNU_TIME);
    cmd.args(["-f", "%M", "-o"]).arg(&report).arg(runway).args(args).arg(root_file);
    eprintln!("$ {shown} ({RSS_RUNS} runs)", shown = shown(&cmd));
    let mut peak_kib: u64 = 0;
    for _ in 0..RSS_RUNS {
        let (_, code) = timed(&mut cmd)?;
        // The synthetic dev environment is planned in full, then refused by its cost cap (3).
        if !matches!(code, Some(0 | 3)) {
            return Err(format!("{shown} exited with {code:?}", shown = shown(&cmd)));
        }
        let text = std::fs::read_to_string(&report).map_err(|e| format!("{}: {e}", report.display()))?;
        // On a nonzero exit GNU time writes "Command exited with non-zero status 3" first.
        let kib = text
            .lines()
            .last()
            .and_then(|l| l.trim().parse::<u64>().ok())
            .ok_or_else(|| format!("{}: no peak RSS in {text:?}", report.display()))?;
        peak_kib = peak_kib.max(kib);
    }
    Ok(peak_kib as f64 * 1024.0 / 1e6)
}

/// The five targets, judged; `rss_mb` is the dev plan's peak, then the production JSON's.
fn judge(counts: &Instructions, times: &Times, rss_mb: [f64; 2]) -> Vec<Verdict> {
    let [rss_mb, json_rss_mb] = rss_mb;
    let [core_small, core_large] = counts.core();
    let ratio = core_small / counts.floor;
    let growth = core_large / core_small;
    vec![
        Verdict {
            what: "(check + plan_all) / floor, instructions, N = 1,000",
            figure: format!("{ratio:.3}"),
            limit: "<= 1.5",
            met: ratio <= RATIO_LIMIT,
        },
        Verdict {
            what: "(check + plan_all) growth, instructions, N = 1,000 to 10,000",
            figure: format!("{growth:.3}x"),
            limit: "<= 12x",
            met: growth <= GROWTH_LIMIT,
        },
        Verdict {
            what: "`runway plan --env dev` of acme-shop, process to process",
            figure: format!(
                "{:.2} ms (median of {RUNS}; min {:.2}, max {:.2})",
                times.median, times.min, times.max
            ),
            limit: "< 10 ms",
            met: times.median < TIME_LIMIT_MS,
        },
        Verdict {
            what: "peak RSS, `runway plan --env dev`, N = 10,000",
            figure: format!("{rss_mb:.1} MB (max of {RSS_RUNS})"),
            limit: "<= 128 MB",
            met: rss_mb <= RSS_LIMIT_MB,
        },
        Verdict {
            what: "peak RSS, `runway plan --env production --format json`, N = 10,000",
            figure: format!("{json_rss_mb:.1} MB (max of {RSS_RUNS})"),
            limit: "<= 256 MB",
            met: json_rss_mb <= JSON_RSS_LIMIT_MB,
        },
    ]
}

/// Prints the instruction counts and the five verdicts as markdown tables.
fn print_report(counts: &Instructions, verdicts: &[Verdict]) {
    let m = |x: f64| format!("{:.1} M", x / 1e6);
    println!("\ninstructions per iteration (callgrind)");
    println!("| step | N = {SMALL} | N = {LARGE} |\n|---|---:|---:|");
    println!("| floor | {} | - |", m(counts.floor));
    println!("| check | {} | {} |", m(counts.check[0]), m(counts.check[1]));
    println!("| plan_all | {} | {} |", m(counts.plan_all[0]), m(counts.plan_all[1]));
    let [core_small, core_large] = counts.core();
    println!("| check + plan_all | {} | {} |", m(core_small), m(core_large));
    println!("\ntargets\n| target | figure | limit | |\n|---|---:|---:|---|");
    for v in verdicts {
        let verdict = if v.met { "met" } else { "NOT MET" };
        println!("| {} | {} | {} | {verdict} |", v.what, v.figure, v.limit);
    }
}

/// The sizes and benches of `crates/bench/benches/plan.rs`.
const BENCH_SIZES: [usize; 4] = [10, 100, 1_000, 10_000];
const BENCHES: [&str; 5] = ["floor", "check", "plan_dev", "plan_all", "pulumi_dev"];

/// `bench --criterion [ARGS...]`: runs the criterion benches (`cargo bench -p runway-bench`,
/// extra arguments passed to criterion) and prints their mean times. Times on a shared VM vary
/// too much to judge the targets by, so nothing is judged here.
fn criterion(args: &[String]) -> Result<(), String> {
    run(Command::new("cargo").args(["bench", "-p", "runway-bench", "--bench", "plan", "--"]).args(args))?;
    let target = target_dir();
    // Mean time per iteration in nanoseconds, as criterion wrote it for this run.
    let mean = |n: usize, bench: &str| -> Option<f64> {
        let path = target.join(format!("criterion/n{n}/{bench}/new/estimates.json"));
        let text = std::fs::read_to_string(path).ok()?;
        let json: serde_json::Value = serde_json::from_str(&text).ok()?;
        json["mean"]["point_estimate"].as_f64()
    };
    let show = |ns: Option<f64>| match ns {
        None => "-".to_owned(),
        Some(ns) if ns >= 1e9 => format!("{:.2} s", ns / 1e9),
        Some(ns) if ns >= 1e6 => format!("{:.2} ms", ns / 1e6),
        Some(ns) => format!("{:.1} µs", ns / 1e3),
    };
    println!("\nmean time per iteration");
    print!("| bench |");
    for n in BENCH_SIZES {
        print!(" N = {n} |");
    }
    println!("\n|---|{}", "---:|".repeat(BENCH_SIZES.len()));
    for b in BENCHES {
        print!("| {b} |");
        for n in BENCH_SIZES {
            print!(" {} |", show(mean(n, b)));
        }
        println!();
    }
    let ratio = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| a / b);
    let sum = |n: usize| mean(n, "check").zip(mean(n, "plan_all")).map(|(a, b)| a + b);
    let shown = |r: Option<f64>| r.map_or("-".to_owned(), |r| format!("{r:.3}"));
    println!("\nin time, for reference (the targets are judged in instructions by `cargo xtask bench`):");
    println!("(check + plan_all) / floor, N = 1000: {}", shown(ratio(sum(1_000), mean(1_000, "floor"))));
    println!("(check + plan_all), N = 10000 / N = 1000: {}", shown(ratio(sum(10_000), sum(1_000))));
    println!("floor, N = 10000 / N = 1000: {}", shown(ratio(mean(10_000, "floor"), mean(1_000, "floor"))));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(check_large: f64) -> Instructions {
        Instructions { floor: 200e6, check: [100e6, check_large], plan_all: [100e6, 1_000e6] }
    }

    #[test]
    fn figures_within_their_limits_are_met() {
        let times = Times { median: 3.5, min: 3.0, max: 9.0 };
        let verdicts = judge(&counts(1_000e6), &times, [100.0, 200.0]);
        assert!(verdicts.iter().all(|v| v.met));
        assert_eq!(verdicts[0].figure, "1.000");
        assert_eq!(verdicts[1].figure, "10.000x");
    }

    #[test]
    fn each_target_is_judged_on_its_own_figure() {
        // growth 12.5x, 10 ms exactly (the limit is strict), 128.1 MB, 256 MB exactly
        let times = Times { median: 10.0, min: 3.0, max: 12.0 };
        let met: Vec<bool> = judge(&counts(1_500e6), &times, [128.1, 256.0]).iter().map(|v| v.met).collect();
        assert_eq!(met, [true, false, false, false, true]);
    }
}

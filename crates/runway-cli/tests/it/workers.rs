#![allow(clippy::unwrap_used)] // reason: test helpers fail loudly
//! `runway plan` on the shipped example's worker: the three figures of the estimate and the
//! next three runs of its nightly schedule, counted from the clock the CLI passes.

use crate::common::runway;

/// The shipped example's root file (its worker: `jobs-worker`).
fn example() -> std::path::PathBuf {
    test_support::example("acme-shop").join("runway.yaml")
}

#[test]
fn plan_lists_the_next_three_runs_of_each_schedule_in_its_timezone() {
    let root = example();
    let (code, out, err) = runway(&["plan", "--env", "production", root.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let tail = out.split("\nnext runs\n").nth(1).unwrap_or_else(|| panic!("no next runs in:\n{out}"));
    let line = tail.lines().next().unwrap();
    let times = line
        .strip_prefix("  jobs-worker/nightly-export (0 3 * * *, Europe/Berlin): ")
        .unwrap_or_else(|| panic!("{line}"));
    let times: Vec<&str> = times.split(", ").collect();
    assert_eq!(times.len(), 3, "{line}");
    // 03:00 Berlin time (CET or CEST), one a day, in order.
    for t in &times {
        assert!(t.ends_with("T03:00:00+01:00") || t.ends_with("T03:00:00+02:00"), "{t}");
    }
    assert!(times.windows(2).all(|w| w[0] < w[1]), "{times:?}");
}

#[test]
fn plan_shows_the_typical_figure_where_a_workload_scales() {
    let root = example();
    let (code, out, err) = runway(&["plan", "--env", "dev", root.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let figure = |name: &str| {
        let line =
            out.lines().find(|l| l.trim_start().starts_with(name)).unwrap_or_else(|| panic!("{name}: {out}"));
        line.rsplit('$').next().unwrap().trim().parse::<f64>().unwrap()
    };
    let (floor, typical, ceiling) = (figure("estimate "), figure("typical "), figure("ceiling "));
    assert!(floor < typical && typical < ceiling, "{floor} {typical} {ceiling}");
    // JSON: the typical figure beside the floor (`monthly`) and the ceiling.
    let (code, out, _) = runway(&["plan", "--env", "dev", "--format", "json", root.to_str().unwrap()]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["cost"]["typical"].is_string(), "{}", v["cost"]);
}

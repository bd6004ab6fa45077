//! One measured step in a loop, for a profiler (`perf record`, `valgrind --tool=callgrind`):
//! `cargo run --release -p runway-bench --example profile -- STEP N [ITERATIONS]`, where STEP is
//! `floor`, `check`, `plan_dev`, `plan_all` or `pulumi_dev`. The input is generated and loaded
//! before the loop, so a profile of `plan_*` shows planning only.

use std::hint::black_box;

use runway_bench::{Input, check, floor, plan_all, plan_env, product, pulumi};

/// The allocator of the `runway` binary, so profiles show what it does.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(step), Some(n)) = (args.first(), args.get(1).and_then(|n| n.parse::<usize>().ok())) else {
        eprintln!("usage: profile STEP N [ITERATIONS]");
        std::process::exit(2);
    };
    let iterations = args.get(2).and_then(|i| i.parse::<usize>().ok()).unwrap_or(1);
    let input = Input::new(n);
    let loaded = product(&input);
    let dev = plan_env(&input, &loaded, "dev");
    for _ in 0..iterations {
        match step.as_str() {
            "floor" => drop(black_box(floor(&input))),
            "check" => drop(black_box(check(&input))),
            "plan_dev" => drop(black_box(plan_env(&input, &loaded, "dev"))),
            "plan_all" => drop(black_box(plan_all(&input, &loaded))),
            "pulumi_dev" => drop(black_box(pulumi(&dev))),
            other => {
                eprintln!("unknown step `{other}`");
                std::process::exit(2);
            }
        }
    }
}

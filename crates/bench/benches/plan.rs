//! Criterion benchmarks of the planning core on synthetic products of N resources.
//!
//! One group per N (`n10`, `n100`, `n1000`, `n10000`), five benches in each:
//! `floor` (YAML into a generic value), `check` (parse + validate), `plan_dev` (plan one
//! environment of a loaded product), `plan_all` (plan all three), `pulumi_dev` (render the
//! Pulumi program of the dev plan). `cargo xtask bench` runs them and prints the ratios.
#![allow(missing_docs)] // reason: `criterion_group!` generates an undocumented function

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// The allocator of the `runway` binary: every step, the floor included, runs on it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use runway_bench::{Input, check, floor, plan_all, plan_env, product, pulumi};

/// The sizes measured.
const SIZES: [usize; 4] = [10, 100, 1_000, 10_000];

fn benches(c: &mut Criterion) {
    for n in SIZES {
        let input = Input::new(n);
        let loaded = product(&input);
        let dev_plan = plan_env(&input, &loaded, "dev");
        let mut group = c.benchmark_group(format!("n{n}"));
        group.throughput(Throughput::Bytes(input.bytes() as u64));
        if n >= 10_000 {
            // Each iteration takes a good fraction of a second: few samples keep a run short.
            group.sample_size(10);
            group.warm_up_time(Duration::from_secs(2));
            group.measurement_time(Duration::from_secs(10));
        } else {
            group.warm_up_time(Duration::from_secs(1));
            group.measurement_time(Duration::from_secs(3));
        }
        group.bench_function("floor", |b| b.iter(|| floor(black_box(&input))));
        group.bench_function("check", |b| b.iter(|| check(black_box(&input))));
        group.bench_function("plan_dev", |b| b.iter(|| plan_env(&input, black_box(&loaded), "dev")));
        group.bench_function("plan_all", |b| b.iter(|| plan_all(&input, black_box(&loaded))));
        group.bench_function("pulumi_dev", |b| b.iter(|| pulumi(black_box(&dev_plan))));
        group.finish();
    }
}

criterion_group!(plan, benches);
criterion_main!(plan);

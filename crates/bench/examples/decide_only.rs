//! A measurement for the plan-model decision (docs/benchmarks.md, "What is left"), not a
//! planner: what planning costs when it only decides — each resource's and workload's size
//! and monthly figures, the total — and builds none of the plan's records (items, bindings,
//! SSM parameters, connection variables, cost lines, outputs) and formats no names.
//!
//! `cargo run --release -p runway-bench --example decide_only -- N [ITERATIONS]` decides every
//! environment ITERATIONS times; with ITERATIONS = 1 it prints each environment's total. It
//! prices what `runtime_plan` prices for declared resources and workloads, through the same
//! catalogue, asking it once per distinct thing; it leaves out the implicit `shared-<engine>`
//! resources of members (a handful of owners), so its totals are a little below the plan's.

use std::hint::black_box;

use cost::{Catalogue, Item};
use runway_bench::{Input, product};
use runway_schema::{Expose, Money, Product, ResourceSpec};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// One owner's figures: at rest and at most; `None` when unpriced.
struct Figures {
    monthly: Option<Money>,
    ceiling: Option<Money>,
}

/// Every owner's figures in one environment, and the environment's total at rest.
fn decide<'p>(product: &'p Product, env: &str, catalogue: &Catalogue) -> (Vec<Figures>, Money) {
    let root = &product.root;
    let region = root.environments.get(env).map_or("", |e| e.region.as_str());
    let mut asked: Vec<(Item<'p>, Option<Money>)> = Vec::new();
    let mut price = |item: &Item<'p>| -> Option<Money> {
        if let Some((_, m)) = asked.iter().find(|(a, _)| a == item) {
            return *m;
        }
        let m = catalogue.price(region, item).monthly();
        asked.push((item.clone(), m));
        m
    };
    // The environment's total counts every priced item, as the plan's cost does; an owner's own
    // figure is `None` when any of its items is unpriced.
    let mut total = Money::ZERO;
    let mut figure = |items: &[Item<'p>], total: &mut Money| -> Option<Money> {
        let mut all = Some(Money::ZERO);
        for item in items {
            let m = price(item);
            *total = *total + m.unwrap_or(Money::ZERO);
            all = all.zip(m).map(|(a, b)| a + b);
        }
        all
    };
    let mut owners = Vec::with_capacity(root.resources.len() + root.workloads.len());
    for r in root.resources.values() {
        let size = r.size_in(env);
        let m = match &r.spec {
            ResourceSpec::Postgres { engine, .. } => figure(
                &[
                    Item::Postgres { engine: *engine, size, storage_gb: None, io: None },
                    Item::RdsProxy { engine: *engine, size },
                    Item::Secret,
                ],
                &mut total,
            ),
            ResourceSpec::Cache { .. } => figure(&[Item::Cache { size }], &mut total),
            ResourceSpec::Queue { fifo, .. } => {
                figure(&[Item::Queue { fifo: *fifo, size, requests: None }], &mut total)
            }
            ResourceSpec::Topic { fifo } => {
                figure(&[Item::Topic { fifo: *fifo, size, requests: None }], &mut total)
            }
            ResourceSpec::Bucket { .. } => {
                figure(&[Item::Bucket { size, storage_gb: None, requests: None }], &mut total)
            }
        };
        owners.push(Figures { monthly: m, ceiling: m });
    }
    let (mut public, mut internal) = (false, false);
    for w in root.workloads.values() {
        let (size, scale) = (w.size_in(env), w.scale_in(env));
        let monthly = figure(&[Item::Tasks { size, tasks: scale.min, architecture: w.platform }], &mut total);
        // The ceiling is not part of the total at rest.
        let mut at_most = Money::ZERO;
        let ceiling = if scale.max == scale.min {
            monthly
        } else {
            figure(&[Item::Tasks { size, tasks: scale.max, architecture: w.platform }], &mut at_most)
        };
        public |= w.expose == Expose::Public;
        internal |= w.expose != Expose::Public;
        owners.push(Figures { monthly, ceiling });
    }
    // The VPC's NAT gateways by default when there are workloads (`env_vpc`): one per zone in
    // production, one elsewhere.
    let nat = if env == "production" { 2 } else { 1 };
    let nat = Item::Vpc { nat, endpoints: false, nat_gb: None, endpoint_gb: None, internet_gb: None };
    let platform =
        [(public, Item::Alb { zones: 2 }), (internal, Item::PrivateZone), (public || internal, nat)];
    for (needed, item) in platform {
        if needed {
            figure(&[item], &mut total);
        }
    }
    (owners, total)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(n) = args.first().and_then(|n| n.parse::<usize>().ok()) else {
        eprintln!("usage: decide_only N [ITERATIONS]");
        std::process::exit(2);
    };
    let iterations = args.get(1).and_then(|i| i.parse::<usize>().ok()).unwrap_or(1);
    let input = Input::new(n);
    let loaded = product(&input);
    let envs: Vec<&str> = loaded.root.environments.keys().map(String::as_str).collect();
    for _ in 0..iterations {
        for env in &envs {
            let (owners, total) = black_box(decide(&loaded, env, &input.catalogue));
            if iterations == 1 {
                let unpriced = owners.iter().filter(|o| o.monthly.is_none() || o.ceiling.is_none()).count();
                println!("{env}: {} owners, ${total} a month, {unpriced} unpriced", owners.len());
            }
        }
    }
}

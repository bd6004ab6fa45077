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
use runway_schema::{Expose, Money, PostgresEngine, Product, ResourceSpec};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// What the catalogue is asked about, with the size borrowed from the product.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ask<'a> {
    Postgres(PostgresEngine, &'a str),
    Proxy(PostgresEngine, &'a str),
    Cache(&'a str),
    Queue(bool, &'a str),
    Topic(bool, &'a str),
    Bucket(&'a str),
    Tasks(&'a str, u32),
    Alb,
    PrivateZone,
    Secret,
}

impl<'a> Ask<'a> {
    fn item(self) -> Item<'a> {
        match self {
            Ask::Postgres(engine, size) => Item::Postgres { engine, size },
            Ask::Proxy(engine, size) => Item::RdsProxy { engine, size },
            Ask::Cache(size) => Item::Cache { size },
            Ask::Queue(fifo, size) => Item::Queue { fifo, size },
            Ask::Topic(fifo, size) => Item::Topic { fifo, size },
            Ask::Bucket(size) => Item::Bucket { size },
            Ask::Tasks(size, tasks) => Item::Tasks { size, tasks },
            Ask::Alb => Item::Alb,
            Ask::PrivateZone => Item::PrivateZone,
            Ask::Secret => Item::Secret,
        }
    }
}

/// One owner's figures: at rest and at most; `None` when unpriced.
struct Figures {
    monthly: Option<Money>,
    ceiling: Option<Money>,
}

/// Every owner's figures in one environment, and the environment's total at rest.
fn decide<'p>(product: &'p Product, env: &str, catalogue: &Catalogue) -> (Vec<Figures>, Money) {
    let root = &product.root;
    let region = root.environments.get(env).map_or("", |e| e.region.as_str());
    let mut asked: Vec<(Ask<'p>, Option<Money>)> = Vec::new();
    let mut price = |ask: Ask<'p>| -> Option<Money> {
        if let Some((_, m)) = asked.iter().find(|(a, _)| *a == ask) {
            return *m;
        }
        let m = catalogue.price(region, &ask.item()).monthly();
        asked.push((ask, m));
        m
    };
    // The environment's total counts every priced item, as the plan's cost does; an owner's own
    // figure is `None` when any of its items is unpriced.
    let mut total = Money::ZERO;
    let mut figure = |asks: &[Ask<'p>], total: &mut Money| -> Option<Money> {
        let mut all = Some(Money::ZERO);
        for ask in asks {
            let m = price(*ask);
            *total = *total + m.unwrap_or(Money::ZERO);
            all = all.zip(m).map(|(a, b)| a + b);
        }
        all
    };
    let mut owners = Vec::with_capacity(root.resources.len() + root.workloads.len());
    for r in root.resources.values() {
        let size = r.size_in(env);
        let m = match &r.spec {
            ResourceSpec::Postgres { engine, .. } => {
                figure(&[Ask::Postgres(*engine, size), Ask::Proxy(*engine, size), Ask::Secret], &mut total)
            }
            ResourceSpec::Cache { .. } => figure(&[Ask::Cache(size)], &mut total),
            ResourceSpec::Queue { fifo, .. } => figure(&[Ask::Queue(*fifo, size)], &mut total),
            ResourceSpec::Topic { fifo } => figure(&[Ask::Topic(*fifo, size)], &mut total),
            ResourceSpec::Bucket { .. } => figure(&[Ask::Bucket(size)], &mut total),
            _ => None,
        };
        owners.push(Figures { monthly: m, ceiling: m });
    }
    let (mut public, mut internal) = (false, false);
    for w in root.workloads.values() {
        let (size, scale) = (w.size_in(env), w.scale_in(env));
        let monthly = figure(&[Ask::Tasks(size, scale.min)], &mut total);
        // The ceiling is not part of the total at rest.
        let mut at_most = Money::ZERO;
        let ceiling = if scale.max == scale.min {
            monthly
        } else {
            figure(&[Ask::Tasks(size, scale.max)], &mut at_most)
        };
        public |= w.expose == Expose::Public;
        internal |= w.expose != Expose::Public;
        owners.push(Figures { monthly, ceiling });
    }
    let platform = [(public, Ask::Alb), (internal, Ask::PrivateZone)];
    for (needed, ask) in platform {
        if needed {
            figure(&[ask], &mut total);
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

//! The live heap bytes each part of a plan holds: `cargo build --profile profiling -p
//! runway-bench --example fields`, then `fields N [ENV]` (dev unless named). It plans the
//! synthetic product of N resources, then drops the plan part by part (the task definitions'
//! secrets, environment and health first, the items' specs by kind, then each list) and prints
//! the bytes each part freed, counted by dhat's allocator; a list also shows how many records
//! it holds, its room and the size of one record. What a part shares with a part dropped later
//! (an `Arc`) is counted with the later one: the order is the table's.

use runtime_plan::{ItemSpec, Plan, PlannedItem, TaskDefinitionSpec};
use runway_bench::{Input, check, plan_env};

#[global_allocator]
static ALLOCATOR: dhat::Alloc = dhat::Alloc;

/// Live heap bytes now.
fn live() -> usize {
    dhat::HeapStats::get().curr_bytes
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

/// Runs `drop_it` and prints what it freed under `what`, with `detail`.
fn freed(what: &str, detail: &str, drop_it: impl FnOnce()) {
    let before = live();
    drop_it();
    println!("{what:<30} {:8.2} MB  {detail}", mb(before.saturating_sub(live())));
}

/// Takes list `list` out of the plan and prints what it held.
fn list<T>(what: &str, list: &mut Vec<T>) {
    let taken = std::mem::take(list);
    let detail = format!("{:6} (room {:6}) x {:4} B", taken.len(), taken.capacity(), size_of::<T>());
    freed(what, &detail, || drop(taken));
}

/// The task definitions' parts, then the execution roles' grants, then the rest of each item's
/// spec by kind (the largest fifteen), then the items' texts.
fn items(plan: &mut Plan) {
    let (count, secrets, variables) = plan_definitions(&plan.items);
    freed("task definitions' secrets", &format!("{secrets} in {count}"), || {
        each_definition(plan, |t| t.secrets = Vec::new())
    });
    freed("task definitions' environment", &format!("{variables} values"), || {
        each_definition(plan, |t| t.environment = Default::default())
    });
    freed("task definitions' health, run", "", || {
        each_definition(plan, |t| (t.health, t.entry_point, t.command) = (None, None, None))
    });
    freed("execution roles' grants", "", || {
        for item in &mut plan.items {
            if let ItemSpec::TaskExecutionRole { grants, .. } = &mut item.spec {
                *grants = Vec::new();
            }
        }
    });
    freed("items' depends_on", "", || plan.items.iter_mut().for_each(|i| i.depends_on = Box::default()));
    let mut by_kind: std::collections::BTreeMap<&'static str, (usize, usize)> = Default::default();
    let before = live();
    for item in &mut plan.items {
        let kind = by_kind.entry(item.kind().as_str()).or_default();
        let at = live();
        item.spec = ItemSpec::DbSubnetGroup {};
        kind.0 += at.saturating_sub(live());
        kind.1 += 1;
    }
    let mut kinds: Vec<_> = by_kind.into_iter().collect();
    kinds.sort_by_key(|(_, (bytes, _))| std::cmp::Reverse(*bytes));
    for (kind, (bytes, n)) in kinds.iter().take(15) {
        println!("   spec {kind:<23} {:8.2} MB  {n:6} items {:5} B each", mb(*bytes), bytes / n);
    }
    println!("{:<30} {:8.2} MB", "items' specs (the rest)", mb(before.saturating_sub(live())));
    freed("items' texts", "", || {
        for i in &mut plan.items {
            (i.id, i.physical_name, i.owner, i.size) = Default::default();
        }
    });
}

/// How many task definitions, secrets and plain values the plan's items have.
fn plan_definitions(items: &[PlannedItem]) -> (usize, usize, usize) {
    let mut out = (0, 0, 0);
    for item in items {
        if let ItemSpec::TaskDefinition(t) = &item.spec {
            out = (out.0 + 1, out.1 + t.secrets.len(), out.2 + t.environment.len());
        }
    }
    out
}

/// Runs `f` on every task definition of the plan.
fn each_definition(plan: &mut Plan, mut f: impl FnMut(&mut TaskDefinitionSpec)) {
    for item in &mut plan.items {
        if let ItemSpec::TaskDefinition(t) = &mut item.spec {
            f(t);
        }
    }
}

fn main() {
    let Some(n) = std::env::args().nth(1).and_then(|n| n.parse::<usize>().ok()) else {
        eprintln!("usage: fields N [ENV]");
        std::process::exit(2);
    };
    let env = std::env::args().nth(2).unwrap_or_else(|| "dev".to_owned());
    let _profiler = dhat::Profiler::builder().testing().build();
    let input = Input::new(n);
    let Some(product) = check(&input).product else {
        eprintln!("the generated product is invalid");
        std::process::exit(1);
    };
    let before = live();
    let mut plan = plan_env(&input, &product, &env);
    println!("plan {env}, N = {n}: {:.2} MB live", mb(live().saturating_sub(before)));
    items(&mut plan);
    list("items", &mut plan.items);
    list("secrets.ssm_parameters", &mut plan.secrets.ssm_parameters);
    list("secrets.connection", &mut plan.secrets.connection);
    list("secrets.generated", &mut plan.secrets.generated);
    list("secrets.bootstraps", &mut plan.secrets.bootstraps);
    list("secrets.registry_copies", &mut plan.secrets.registry_copies);
    list("bindings", &mut plan.bindings);
    list("cost.lines", &mut plan.cost.lines);
    list("cost.usage_based", &mut plan.cost.usage_based);
    list("cost.usage", &mut plan.cost.usage);
    list("resources", &mut plan.resources);
    list("workloads", &mut plan.workloads);
    list("outputs", &mut plan.outputs);
    list("tasks", &mut plan.tasks);
    list("diagnostics", &mut plan.diagnostics);
    freed("the rest of the plan", "", || drop(plan));
    freed("the product", "", || drop(product));
}

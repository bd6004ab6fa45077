//! scratch: live heap bytes by plan field (not committed)
use runway_bench::{Input, check, plan_env};
#[global_allocator]
static ALLOCATOR: dhat::Alloc = dhat::Alloc;
fn cur() -> usize {
    dhat::HeapStats::get().curr_bytes
}
fn main() {
    let n: usize = std::env::args().nth(1).unwrap().parse().unwrap();
    let _p = dhat::Profiler::builder().testing().build();
    let input = Input::new(n);
    let loaded = check(&input);
    let product = loaded.product.unwrap();
    let b0 = cur();
    let mut plan = plan_env(&input, &product, "dev");
    let b1 = cur();
    println!("plan total {:.2} MB (product {:.2} MB held)", (b1 - b0) as f64 / 1e6, 0.0);
    macro_rules! take { ($name:literal, $e:expr) => {{ let before = cur(); let v = std::mem::take(&mut $e); let (n, cap, sz) = (v.len(), v.capacity(), std::mem::size_of_val(&v[..]) / v.len().max(1)); drop(v); println!("{:<28} {:8.2} MB  {:6} (room {:6}) x {:4} B", $name, (before-cur()) as f64/1e6, n, cap, sz); }} }
    // items: split spec heap vs rest
    {
        let (mut ns, mut ne, mut nd) = (0usize, 0usize, 0usize);
        let before = cur();
        for it in plan.items.iter_mut() {
            if let runtime_plan::ItemSpec::TaskDefinition(t) = &mut it.spec {
                nd += 1;
                ns += t.secrets.len();
                t.secrets = Vec::new();
            }
        }
        println!(
            "{:<28} {:8.2} MB ({} secrets in {} defs)",
            "td.secrets",
            (before - cur()) as f64 / 1e6,
            ns,
            nd
        );
        let before = cur();
        for it in plan.items.iter_mut() {
            if let runtime_plan::ItemSpec::TaskDefinition(t) = &mut it.spec {
                ne += t.environment.len();
                t.environment = Default::default();
            }
        }
        println!("{:<28} {:8.2} MB ({} entries)", "td.environment", (before - cur()) as f64 / 1e6, ne);
        let before = cur();
        for it in plan.items.iter_mut() {
            if let runtime_plan::ItemSpec::TaskDefinition(t) = &mut it.spec {
                t.health = None;
                t.entry_point = None;
                t.command = None;
            }
        }
        println!("{:<28} {:8.2} MB", "td.health+cmd", (before - cur()) as f64 / 1e6);
        let before = cur();
        let mut ng = 0;
        let mut nr = 0;
        for it in plan.items.iter_mut() {
            if let runtime_plan::ItemSpec::TaskExecutionRole { grants, .. } = &mut it.spec {
                ng += grants.len();
                nr += grants.iter().map(|g| g.resources.len()).sum::<usize>();
                *grants = Vec::new();
            }
        }
        println!(
            "{:<28} {:8.2} MB ({} grants {} resources)",
            "exec.grants",
            (before - cur()) as f64 / 1e6,
            ng,
            nr
        );
    }
    {
        let before = cur();
        for it in plan.items.iter_mut() {
            it.depends_on = Box::default();
        }
        println!("{:<28} {:8.2} MB", "items.depends_on", (before - cur()) as f64 / 1e6);
        let before = cur();
        let mut by: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
        for it in plan.items.iter_mut() {
            let k = format!("{:?}", it.kind());
            let e = by.entry(k).or_default();
            let b = cur();
            it.spec = runtime_plan::ItemSpec::DbSubnetGroup {};
            e.0 += b - cur();
            e.1 += 1;
        }
        let mut v: Vec<_> = by.into_iter().collect();
        v.sort_by_key(|x| std::cmp::Reverse(x.1.0));
        for (k, (b, c)) in v.iter().take(15) {
            println!("   spec {:<22} {:8.2} MB {:6} items {:5} B/item", k, *b as f64 / 1e6, c, b / c);
        }
        println!("{:<28} {:8.2} MB", "items.spec heap", (before - cur()) as f64 / 1e6);
        let before = cur();
        for it in plan.items.iter_mut() {
            it.id = Default::default();
            it.physical_name = Default::default();
            it.owner = None;
            it.size = None;
        }
        println!("{:<28} {:8.2} MB", "items.strings heap", (before - cur()) as f64 / 1e6);
    }
    take!("items vec", plan.items);
    take!("ssm_parameters", plan.secrets.ssm_parameters);
    take!("connection", plan.secrets.connection);
    take!("generated", plan.secrets.generated);
    take!("bootstraps", plan.secrets.bootstraps);
    take!("registry_copies", plan.secrets.registry_copies);
    take!("bindings", plan.bindings);
    take!("cost.lines", plan.cost.lines);
    take!("cost.usage_based", plan.cost.usage_based);
    take!("cost.usage", plan.cost.usage);
    take!("resources", plan.resources);
    take!("workloads", plan.workloads);
    take!("outputs", plan.outputs);
    take!("tasks", plan.tasks);
    take!("diagnostics", plan.diagnostics);
    take!("tags", plan.tags);
    let before = cur();
    drop(plan);
    println!("{:<28} {:8.2} MB", "rest", (before - cur()) as f64 / 1e6);
    let before = cur();
    drop(product);
    println!("{:<28} {:8.2} MB", "product", (before - cur()) as f64 / 1e6);
}

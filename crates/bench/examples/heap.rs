//! Heap bytes of each phase of `runway plan --env ENV` (dev unless named), counted by dhat's
//! allocator: `cargo run --release -p runway-bench --example heap -- N [ENV]`. Peak RSS (`/usr/bin/time -v`)
//! says how much the process held; this says which phase held it: the live bytes after each
//! phase (load, plan, the plan's text, its JSON) and the highest total so far, over what the
//! generated input already held. It also writes `dhat-heap.json` (open it with valgrind's
//! `dh_view.html`): the bytes of every allocation site at the peak.

use runway_bench::{Input, check, plan_env};

#[global_allocator]
static ALLOCATOR: dhat::Alloc = dhat::Alloc;

/// Text written nowhere: what a rendering holds, not what it writes.
struct Sink;

impl std::fmt::Write for Sink {
    fn write_str(&mut self, _: &str) -> std::fmt::Result {
        Ok(())
    }
}

fn mb(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

fn main() {
    let Some(n) = std::env::args().nth(1).and_then(|n| n.parse::<usize>().ok()) else {
        eprintln!("usage: heap N [ENV]");
        std::process::exit(2);
    };
    let env = std::env::args().nth(2).unwrap_or_else(|| "dev".to_owned());
    let _profiler = dhat::Profiler::new_heap();
    let input = Input::new(n);
    let base = dhat::HeapStats::get().curr_bytes;
    println!(
        "input: {} in {} files (held by the generator: {})",
        mb(input.bytes()),
        input.texts.len(),
        mb(base)
    );
    let at = |what: &str| {
        let s = dhat::HeapStats::get();
        println!(
            "{what:<8} live after {:>9}   peak over the input {:>9}",
            mb(s.curr_bytes.saturating_sub(base)),
            mb(s.max_bytes.saturating_sub(base))
        );
    };
    let loaded = check(&input);
    at("load");
    let Some(product) = loaded.product else {
        eprintln!("the generated product is invalid");
        std::process::exit(1);
    };
    drop(loaded.diagnostics);
    let plan = plan_env(&input, &product, &env);
    at("plan");
    println!(
        "plan: {} items, {} SSM parameters, {} cost lines",
        plan.items.len(),
        plan.secrets.ssm_parameters.len(),
        plan.cost.lines.len()
    );
    // The text as `runway plan` renders it, here with the product still held (the command drops
    // it first since the fifth memory pass: this is an upper bound of its text's peak).
    if let Err(e) = plan_render::write_plan_text(&plan, &mut Sink) {
        eprintln!("cannot render the plan: {e}");
        std::process::exit(1);
    }
    at("text");
    drop(product);
    at("product dropped");
    // `runway plan --format json` writes as it serializes: nothing should be held here.
    if let Err(e) = runtime_plan::write_json(&plan, std::io::sink()) {
        eprintln!("cannot serialize the plan: {e}");
        std::process::exit(1);
    }
    at("json");
    drop(plan);
}

//! `runway plan --env ENV`: one environment's plan.

use std::io::Write as _;

use crate::output::{stream_stdout, stream_stdout_bytes};
use crate::planning::refuse_if_capped;
use crate::prelude::*;

/// The plan for one environment: resources, workloads, bindings, secrets layout, cost.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    env: EnvArgs,
    #[command(flatten)]
    format: FormatArg,
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        self.format.format.json()
    }
}

/// `runway plan`: one environment's plan; exit 3 when it is refused.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    // Only the plan is written: the product goes before, so a large plan is not written
    // with both held (14 MB at N = 10,000; docs/benchmarks.md, "Planning's memory, fifth pass").
    let Session { plan, product, .. } = Session::open(&args.env, out)?;
    drop(product);
    let plan = &plan;
    match args.format.format {
        // Streamed: a large plan's text is written as it is made, never held whole.
        Format::Text => stream_stdout(|sink| {
            plan_render::write_plan_text(plan, sink)?;
            // The one clock read: the core counts the schedules' next runs from it.
            plan_render::write_next_runs(&plan.next_runs(jiff::Timestamp::now(), 3), sink)
        }),
        // Streamed too (N = 10,000: 254 MB); the blank line after it is `outln!`'s, kept.
        Format::Json => stream_stdout_bytes(|sink| {
            runtime_plan::write_json(plan, &mut *sink)?;
            sink.write_all(b"\n")
        }),
    }
    refuse_if_capped(plan)
}

//! `runway cost`: every environment side by side.

use crate::planning::{catalogue_for, load_valid};
use crate::prelude::*;

/// Every environment side by side: estimate, ceiling, cap, verdict.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    format: FormatArg,
    #[command(flatten)]
    root: RootArgs,
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        self.format.format.json()
    }
}

/// `runway cost`: every environment side by side; exit 3 when one is refused.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    let (format, args) = (args.format.format, args.root);
    let cat = catalogue_for(&args.file, args.catalogue.as_deref(), out)?;
    let (product, warnings) = load_valid(&args.file, &cat, out)?;
    warn(&warnings);
    let mut plans = Vec::new();
    for env in product.root.environments.keys() {
        plans.push(runtime_plan::plan(&product, env, &cat).map_err(|e| out.usage(e))?);
    }
    match format {
        Format::Text => out!("{}", plan_render::render_cost_text(&plans)),
        Format::Json => outln!("{}", runtime_plan::to_json(&plan_render::cost_report(&plans))),
    }
    if plans.iter().any(runtime_plan::Plan::has_errors) { Err(Exit(EXIT_CAP)) } else { Ok(()) }
}

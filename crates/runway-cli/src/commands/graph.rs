//! `runway graph --env ENV`: one environment's resource graph.

use clap::ValueEnum;

use crate::prelude::*;

/// The resource graph of one environment (consumers -> resources -> platform).
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    env: EnvArgs,
    #[arg(long, value_enum, default_value = "mermaid")]
    format: GraphFormat,
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        self.format == GraphFormat::Json
    }
}

/// How the graph is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum GraphFormat {
    Mermaid,
    Dot,
    /// The graph as data: `{"nodes":[{"id","label","layer"}],"edges":[{"from","to","label"}]}`.
    Json,
}

/// `runway graph`: one environment's resource graph.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    let plan = Session::open(&args.env, out)?.plan;
    match args.format {
        GraphFormat::Mermaid => out!("{}", plan_render::render_mermaid(&plan.graph())),
        GraphFormat::Dot => out!("{}", plan_render::render_dot(&plan.graph())),
        GraphFormat::Json => out!("{}", runtime_plan::to_json(&plan.graph())),
    }
    Ok(())
}

//! A product's xtask step, embedding runway instead of shelling out to the `runway` binary:
//! load the runway files, stop on any diagnostic error, plan every environment, stop when a
//! plan is refused by its cap, and write one Pulumi program per environment.
//!
//! `cargo run -p embed-example -- examples/acme-shop/runway.yaml build/pulumi`

use std::path::Path;
use std::process::ExitCode;

fn run(root: &Path, out: &Path) -> Result<(), String> {
    // The façade: the catalogue the root chooses, then the files under its folder, once.
    let catalogue = runway_files::catalogue_for(root)
        .map_err(|diags| diags.iter().map(|d| d.message.clone()).collect::<Vec<_>>().join("; "))?;
    let loaded = runway_files::load(root, &runway_files::options(&catalogue))
        .map_err(|u| format!("{}: {}", root.display(), runway_files::describe(&u)))?;
    for d in &loaded.diagnostics {
        eprintln!("{}:{}:{}: {}: {}", d.location.file, d.location.line, d.location.column, d.code, d.message);
    }
    let product = loaded.product.ok_or("the runway is invalid")?;
    for env in product.root.environments.keys() {
        let plan = runtime_plan::plan(&product, env, &catalogue).map_err(|e| e.to_string())?;
        if plan.has_errors() {
            let why: Vec<String> =
                plan.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.clone()).collect();
            return Err(format!("{env} is refused: {}", why.join("; ")));
        }
        let program = pulumi_program::render(&plan).map_err(|e| e.to_string())?;
        let dir = out.join(env);
        write_program(&dir, &program).map_err(|e| format!("{}: {e}", dir.display()))?;
        println!(
            "{env}: ${} a month (ceiling ${}), program in {}",
            plan.cost.monthly,
            plan.cost.ceiling,
            dir.display()
        );
    }
    Ok(())
}

/// Writes the program's files (plain file names, `Pulumi.yaml`) into `dir`.
fn write_program(dir: &Path, program: &pulumi_program::Program) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, text) in &program.files {
        std::fs::write(dir.join(name), text)?;
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(root), Some(out)) = (args.first(), args.get(1)) else {
        eprintln!("usage: embed-example <runway.yaml> <out-dir>");
        return ExitCode::from(2);
    };
    match run(Path::new(root), Path::new(out)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

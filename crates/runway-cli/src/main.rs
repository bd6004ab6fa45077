//! The `runway` command: plans a product's cloud runtime from its `runway.yaml`.
//!
//! Exit codes: 0 success (warnings allowed), 1 the runway is invalid, 2 usage error,
//! 3 refused by a cost cap, 4 a remote call failed.

/// `print!` that never panics: a closed stdout (`runway plan | head`) ends the process quietly
/// instead of panicking with a broken pipe.
macro_rules! out {
    ($($arg:tt)*) => { $crate::write_stdout(&format!($($arg)*)) };
}

/// `println!` that never panics (see `out!`).
macro_rules! outln {
    () => { $crate::write_stdout("\n") };
    ($($arg:tt)*) => { $crate::write_stdout(&format!("{}\n", format!($($arg)*))) };
}

mod deploy;
mod files;
mod git;
mod prices;
mod program;
mod review;

/// Planning makes many short strings; glibc malloc spends a third of a large plan consolidating
/// free chunks, mimalloc does not (docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use cost::Catalogue;
use runway_schema::{Diagnostic, Options, Product};

/// Exit code: the runway is invalid.
const EXIT_INVALID: u8 = 1;
/// Exit code: usage error (bad flags, unreadable file).
const EXIT_USAGE: u8 = 2;
/// Exit code: refused by a cost cap (or unpriced under a cap).
const EXIT_CAP: u8 = 3;

#[derive(Parser)]
#[command(name = "runway", version, about = "Plan a product's cloud runtime from its runway.yaml")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Validate the root runway and its members, and plan every environment; print every
    /// diagnostic, those `plan` would refuse an environment for among them.
    Check {
        /// The root runway file.
        #[arg(default_value = "runway.yaml")]
        file: PathBuf,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// A catalogue file that replaces or extends the built-in one.
        #[arg(long)]
        catalogue: Option<PathBuf>,
    },
    /// The plan for one environment: resources, workloads, bindings, secrets layout, cost.
    Plan {
        /// The environment.
        #[arg(long)]
        env: String,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[command(flatten)]
        args: PlanArgs,
    },
    /// Every environment side by side: estimate, ceiling, cap, verdict.
    Cost {
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[command(flatten)]
        args: PlanArgs,
    },
    /// The resource graph of one environment (consumers -> resources -> platform).
    Graph {
        /// The environment.
        #[arg(long)]
        env: String,
        #[arg(long, value_enum, default_value = "mermaid")]
        format: GraphFormat,
        #[command(flatten)]
        args: PlanArgs,
    },
    /// What changes between two runway versions: added, removed, resized items, cost delta,
    /// and (as a review) what breaks for consumers.
    Diff {
        /// The environment; without it, every environment either side declares.
        #[arg(long)]
        env: Option<String>,
        /// The older root runway file to compare against.
        #[arg(long, conflicts_with = "base_ref", required_unless_present = "base_ref")]
        base: Option<PathBuf>,
        /// A git revision: the base is FILE and its members as of that revision.
        #[arg(long, value_name = "REV")]
        base_ref: Option<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: review::DiffFormat,
        #[command(flatten)]
        args: PlanArgs,
    },
    /// Write a program for one environment (`runway emit pulumi --env ENV --out DIR`).
    Emit {
        #[command(subcommand)]
        target: EmitTarget,
    },
    /// Deploy job: generate credentials, publish connection details (Infisical, Secrets Manager).
    Secrets {
        #[command(subcommand)]
        command: deploy::SecretsCommand,
    },
    /// Deploy job: write or check the SSM parameters workloads reference.
    Ssm {
        #[command(subcommand)]
        command: deploy::SsmCommand,
    },
    /// Print the JSON Schema of the root and member formats.
    Schema {
        /// Which format.
        #[arg(long, value_enum, default_value = "root")]
        which: SchemaWhich,
        /// The schema is JSON already; `--format json` is accepted like on every command.
        #[arg(long, value_enum, default_value = "json")]
        format: SchemaFormat,
    },
    /// The language server for editors, over stdin and stdout: check's diagnostics as you type,
    /// cost on hover, completion, go to definition, references and fixes (docs/editor.md).
    Lsp {
        /// A catalogue file that replaces or extends the built-in one.
        #[arg(long)]
        catalogue: Option<PathBuf>,
    },
    /// The sizes and prices in use, with their sources and how old they are;
    /// `runway catalogue import` reads prices from the AWS Price List.
    #[command(args_conflicts_with_subcommands = true)]
    Catalogue {
        #[command(subcommand)]
        command: Option<prices::CatalogueCommand>,
        /// A root runway file: its `catalogue:` setting is used, and the prices its plans use
        /// are checked for age.
        root: Option<PathBuf>,
        /// Only this region's prices.
        #[arg(long)]
        region: Option<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// A catalogue file that replaces or extends the built-in one.
        #[arg(long)]
        catalogue: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum GraphFormat {
    Mermaid,
    Dot,
    /// The graph as data: `{"nodes":[{"id","label","layer"}],"edges":[{"from","to","label"}]}`.
    Json,
}

/// What every planning command takes.
#[derive(clap::Args)]
struct PlanArgs {
    /// The root runway file.
    #[arg(default_value = "runway.yaml")]
    file: PathBuf,
    /// A catalogue file that replaces or extends the built-in one.
    #[arg(long)]
    catalogue: Option<PathBuf>,
}

#[derive(Subcommand)]
enum EmitTarget {
    /// A Pulumi YAML program (`Pulumi.yaml`) declaring every planned item.
    Pulumi {
        /// The environment.
        #[arg(long)]
        env: String,
        /// The program's folder (created when missing).
        #[arg(long)]
        out: PathBuf,
        /// `json`: what was written, with the plan's verdict (`{"environment","verdict",
        /// "refused","wrote":[..],"diagnostics":[..]}`).
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[command(flatten)]
        args: PlanArgs,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum SchemaFormat {
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum SchemaWhich {
    Root,
    Member,
}

/// A command's failure: its exit code, with what was already printed.
struct Exit(u8);

/// Set once by `main` when the command prints JSON: an invalid runway or catalogue then also
/// prints its diagnostics as JSON on stdout (the `check` shape), and a usage or remote failure
/// its `{"error": ...}`, so a script reading stdout never gets nothing. A flag rather than a
/// parameter, as every command's loading (plan, cost, diff, review, deploy) reports through the
/// same few functions.
static JSON_OUTPUT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Does the command print JSON (`--format json`)?
fn prints_json(command: &Command) -> bool {
    use deploy::{SecretsCommand as S, SsmCommand as M};
    match command {
        Command::Check { format, .. }
        | Command::Plan { format, .. }
        | Command::Cost { format, .. }
        | Command::Catalogue { command: None, format, .. }
        | Command::Catalogue { command: Some(prices::CatalogueCommand::Import { format, .. }), .. }
        | Command::Secrets { command: S::Prepare { format, .. } | S::Publish { format, .. } }
        | Command::Ssm { command: M::Publish { format, .. } | M::Verify { format, .. } } => {
            *format == Format::Json
        }
        Command::Diff { format, .. } => *format == review::DiffFormat::Json,
        Command::Graph { format, .. } => *format == GraphFormat::Json,
        Command::Emit { target: EmitTarget::Pulumi { format, .. } } => *format == Format::Json,
        Command::Schema { .. } | Command::Lsp { .. } => false,
    }
}

/// The diagnostics of an invalid input: as text on stderr, and as JSON on stdout when the
/// command prints JSON.
fn report_invalid(diags: &[Diagnostic]) {
    eprint!("{}", files::render_text(diags, stderr_colour()));
    if JSON_OUTPUT.load(std::sync::atomic::Ordering::Relaxed) {
        print_diagnostics_json(diags);
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    JSON_OUTPUT.store(prints_json(&cli.command), std::sync::atomic::Ordering::Relaxed);
    let result = match cli.command {
        Command::Check { file, format, catalogue } => check(&file, format, catalogue.as_deref()),
        Command::Plan { env, format, args } => plan_cmd(&env, format, &args),
        Command::Cost { format, args } => cost_cmd(format, &args),
        Command::Graph { env, format, args } => graph_cmd(&env, format, &args),
        Command::Diff { env, base, base_ref, format, args } => {
            diff_cmd(env.as_deref(), base.as_deref(), base_ref.as_deref(), format, &args)
        }
        Command::Emit { target: EmitTarget::Pulumi { env, out, format, args } } => {
            emit_pulumi(&env, &out, format, &args)
        }
        Command::Secrets { command } => deploy::secrets(&command),
        Command::Ssm { command } => deploy::ssm(&command),
        Command::Schema { which, format: SchemaFormat::Json } => {
            out!(
                "{}",
                match which {
                    SchemaWhich::Root => runway_schema::format::root_schema(),
                    SchemaWhich::Member => runway_schema::format::member_schema(),
                }
            );
            Ok(())
        }
        Command::Lsp { catalogue } => lsp_cmd(catalogue.as_deref()),
        Command::Catalogue { command: Some(command), .. } => prices::run(&command),
        Command::Catalogue { command: None, root, region, format, catalogue } => {
            prices::show(root.as_deref(), region.as_deref(), format, catalogue.as_deref())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Exit(code)) => ExitCode::from(code),
    }
}

/// Prints a usage-level error and gives exit 2.
fn usage(message: impl std::fmt::Display) -> Exit {
    fail(EXIT_USAGE, message)
}

/// Reports a failure that is not a diagnostic of the runway (usage, a remote call): on
/// stderr, and for a JSON command also on stdout as `{"error": {"exit", "message"}}`, so a
/// script reading stdout always gets JSON.
fn fail(code: u8, message: impl std::fmt::Display) -> Exit {
    eprintln!("error: {message}");
    if JSON_OUTPUT.load(std::sync::atomic::Ordering::Relaxed) {
        outln!("{}", serde_json::json!({ "error": { "exit": code, "message": message.to_string() } }));
    }
    Exit(code)
}

/// The built-in catalogue, extended with the user's file when given.
fn catalogue(file: Option<&Path>) -> Result<Catalogue, Exit> {
    let builtin = Catalogue::builtin();
    let Some(file) = file else { return Ok(builtin) };
    let text =
        std::fs::read_to_string(file).map_err(|e| usage(format!("cannot read {}: {e}", file.display())))?;
    let name = file.to_string_lossy();
    match Catalogue::parse(&name, &text) {
        Ok(user) => Ok(builtin.extended_with(&user)),
        Err(diags) => {
            report_invalid(&diags);
            Err(Exit(EXIT_INVALID))
        }
    }
}

/// The catalogue of the product at `root`: `--catalogue FILE` when given, else the root's
/// `catalogue:` setting (relative to the root file), else the built-in one. A setting whose
/// file is missing or invalid is a `catalogue-file` diagnostic at the setting (exit 1).
fn catalogue_for(root: &Path, flag: Option<&Path>) -> Result<Catalogue, Exit> {
    if flag.is_some() {
        return catalogue(flag);
    }
    match setting_catalogue(root) {
        None => catalogue(None),
        Some(Ok(cat)) => Ok(cat),
        Some(Err(diags)) => {
            report_invalid(&diags);
            Err(Exit(EXIT_INVALID))
        }
    }
}

/// The catalogue a root names with `catalogue:`, laid over the built-in one; `None` when it
/// names none (or cannot be read: the loader reports that). `Err` holds a `catalogue-file`
/// diagnostic at the setting, then the file's own diagnostics.
fn setting_catalogue(root: &Path) -> Option<Result<Catalogue, Vec<Diagnostic>>> {
    let bytes = std::fs::read(root).ok()?;
    let name = root.to_string_lossy().replace('\\', "/");
    let setting = runway_schema::catalogue_setting(&name, &bytes)?;
    let base = root.parent().unwrap_or(Path::new(""));
    let path = base.join(&setting.path);
    let text = files::FsFiles::new(base).catalogue_text(&setting.path);
    Some(Catalogue::builtin().with_setting(
        &setting,
        &path.display().to_string(),
        text.as_deref().map_err(Clone::clone),
    ))
}

fn options(cat: &Catalogue) -> Options {
    Options { sizes: cat.size_names(), regions: cat.regions() }
}

fn print_diagnostics_json(diags: &[Diagnostic]) {
    outln!("{}", serde_json::json!({ "diagnostics": diags }));
}

/// Loads and validates; returns the product, or exit 1 with the diagnostics reported
/// (`report_invalid`: text on stderr, and JSON on stdout for a JSON command).
fn load_valid(file: &Path, cat: &Catalogue) -> Result<(Product, Vec<Diagnostic>), Exit> {
    let loaded = files::load(file, &options(cat)).map_err(usage)?;
    match loaded.product {
        Some(p) => Ok((p, loaded.diagnostics)),
        None => {
            report_invalid(&loaded.diagnostics);
            eprintln!("{}: the runway is invalid ({})", file.display(), files::summary(&loaded.diagnostics));
            Err(Exit(EXIT_INVALID))
        }
    }
}

/// Validates, then plans every environment of a valid runway: `check` reports what `plan`
/// would refuse (over a cap, unpriced under a cap, any other plan error) with the same
/// diagnostics and exit code, so passing `check` means no environment is refused.
fn check(file: &Path, format: Format, catalogue_file: Option<&Path>) -> Result<(), Exit> {
    // A `catalogue:` file that cannot be used is reported as check reports the rest.
    let cat = match (catalogue_file, setting_catalogue(file)) {
        (None, Some(Err(diagnostics))) => {
            print_check(file, format, &diagnostics, &[]);
            return Err(Exit(EXIT_INVALID));
        }
        (None, Some(Ok(cat))) => cat,
        _ => catalogue(catalogue_file)?,
    };
    let loaded = files::load(file, &options(&cat)).map_err(usage)?;
    let mut refused = Vec::new();
    let checked = runtime_plan::check_each(loaded, &cat, |plan| {
        if plan.has_errors() {
            refused.push(refused_message(&plan));
        }
    })
    .map_err(usage)?;
    let (diagnostics, invalid) = (checked.diagnostics, checked.invalid);
    print_check(file, format, &diagnostics, &refused);
    match (invalid, refused.is_empty()) {
        (true, _) => Err(Exit(EXIT_INVALID)),
        (false, false) => Err(Exit(EXIT_CAP)),
        (false, true) => Ok(()),
    }
}

/// What `check` prints: its diagnostics, then each refused environment's line and a summary.
fn print_check(file: &Path, format: Format, diagnostics: &[Diagnostic], refused: &[String]) {
    match format {
        Format::Json => print_diagnostics_json(diagnostics),
        Format::Text => {
            out!("{}", files::render_text(diagnostics, files::colour(files::stdout_is_terminal())));
            for line in refused {
                outln!("{line}");
            }
            if diagnostics.is_empty() {
                outln!("{}: ok", file.display());
            } else {
                outln!("{}: {}", file.display(), files::summary(diagnostics));
            }
        }
    }
}

/// The line `plan` and `check` print when an environment's plan is refused, saying why as
/// its verdict does.
fn refused_message(plan: &runtime_plan::Plan) -> String {
    let why = match plan.cost.verdict {
        runtime_plan::Verdict::Over => "is over its cap",
        runtime_plan::Verdict::RefusedUnpriced => "has unpriced items under its cap",
        _ => "has errors",
    };
    format!(
        "refused: the {} plan of {} {why} (verdict {})",
        plan.environment,
        plan.product,
        plan.cost.verdict.text(true)
    )
}

/// Serves the language server over stdio until the editor says `exit`. Exit 0 after
/// `shutdown`, 1 without it (the protocol's codes), 2 when the protocol was not followed.
fn lsp_cmd(catalogue_file: Option<&Path>) -> Result<(), Exit> {
    // Without `--catalogue`, the server reads each root's `catalogue:` setting itself.
    let cat = catalogue_file.map(|f| catalogue(Some(f))).transpose()?;
    match runway_lsp::run_stdio(cat) {
        Ok(runway_lsp::Ended::Shutdown) => Ok(()),
        Ok(runway_lsp::Ended::WithoutShutdown) => {
            eprintln!("runway lsp: the editor ended the session without `shutdown`");
            Err(Exit(1))
        }
        Err(e) => Err(usage(format!("the language server stopped: {e}"))),
    }
}

fn stderr_colour() -> bool {
    files::colour(std::io::IsTerminal::is_terminal(&std::io::stderr()))
}

/// Loads, validates and plans one environment. Warnings of the runway go to stderr.
fn plan_env(file: &Path, env: &str, cat: &Catalogue) -> Result<runtime_plan::Plan, Exit> {
    let (product, warnings) = load_valid(file, cat)?;
    eprint!("{}", files::render_text(&warnings, stderr_colour()));
    runtime_plan::plan(&product, env, cat).map_err(usage)
}

/// Exit 3 with the cap diagnostics on stderr when the plan is refused.
fn refuse_if_capped(plan: &runtime_plan::Plan) -> Result<(), Exit> {
    if plan.has_errors() {
        let refused: Vec<Diagnostic> = plan.diagnostics.iter().filter(|d| d.is_error()).cloned().collect();
        eprint!("{}", files::render_text(&refused, stderr_colour()));
        eprintln!("{}", refused_message(plan));
        return Err(Exit(EXIT_CAP));
    }
    Ok(())
}

fn plan_cmd(env: &str, format: Format, args: &PlanArgs) -> Result<(), Exit> {
    let cat = catalogue_for(&args.file, args.catalogue.as_deref())?;
    let plan = plan_env(&args.file, env, &cat)?;
    match format {
        // Streamed: a large plan's text is written as it is made, never held whole.
        Format::Text => stream_stdout(|out| runtime_plan::write_plan_text(&plan, out)),
        Format::Json => outln!("{}", runtime_plan::to_json(&plan)),
    }
    refuse_if_capped(&plan)
}

fn cost_cmd(format: Format, args: &PlanArgs) -> Result<(), Exit> {
    let cat = catalogue_for(&args.file, args.catalogue.as_deref())?;
    let (product, warnings) = load_valid(&args.file, &cat)?;
    eprint!("{}", files::render_text(&warnings, stderr_colour()));
    let mut plans = Vec::new();
    for env in product.root.environments.keys() {
        plans.push(runtime_plan::plan(&product, env, &cat).map_err(usage)?);
    }
    match format {
        Format::Text => out!("{}", runtime_plan::render_cost_text(&plans)),
        Format::Json => outln!("{}", runtime_plan::to_json(&runtime_plan::cost_report(&plans))),
    }
    if plans.iter().any(runtime_plan::Plan::has_errors) { Err(Exit(EXIT_CAP)) } else { Ok(()) }
}

fn graph_cmd(env: &str, format: GraphFormat, args: &PlanArgs) -> Result<(), Exit> {
    let cat = catalogue_for(&args.file, args.catalogue.as_deref())?;
    let plan = plan_env(&args.file, env, &cat)?;
    match format {
        GraphFormat::Mermaid => out!("{}", plan.graph().to_mermaid()),
        GraphFormat::Dot => out!("{}", plan.graph().to_dot()),
        GraphFormat::Json => out!("{}", runtime_plan::to_json(&plan.graph())),
    }
    Ok(())
}

fn diff_cmd(
    env: Option<&str>,
    base: Option<&Path>,
    base_ref: Option<&str>,
    format: review::DiffFormat,
    args: &PlanArgs,
) -> Result<(), Exit> {
    use review::{Base, DiffFormat};
    let cat = catalogue_for(&args.file, args.catalogue.as_deref())?;
    let base = match (base, base_ref) {
        (Some(file), None) => Base::File(file),
        (None, Some(rev)) => Base::Rev(rev),
        // clap refuses both and neither; kept for a caller that bypasses it.
        _ => return Err(usage("give either --base FILE or --base-ref REV")),
    };
    // `--base FILE --env ENV` as text or JSON prints the plan diff it always printed, and
    // exits as it always did; every other form is a review (docs/review.md).
    if let (Base::File(file), Some(env), DiffFormat::Text | DiffFormat::Json) = (base, env, format) {
        let old = plan_env(file, env, &cat)?;
        let new = plan_env(&args.file, env, &cat)?;
        let d = runtime_plan::diff(&old, &new);
        match format {
            DiffFormat::Json => outln!("{}", runtime_plan::to_json(&d)),
            _ => out!("{}", runtime_plan::render_diff_text(&d)),
        }
        return Ok(());
    }
    review::run(env, base, format, &args.file, &cat)
}

/// The first line of every program runway writes; a `Pulumi.yaml` without it is not ours.
const GENERATED_MARKER: &str = "# Generated by `runway emit pulumi";

/// The JSON a command that acts on a plan (`emit`, `secrets`, `ssm publish`) prints when the
/// plan is refused, and `emit` when it wrote: the plan's verdict, and what was written.
#[derive(serde::Serialize)]
struct ActionReport<'a> {
    environment: &'a str,
    verdict: runtime_plan::Verdict,
    refused: bool,
    /// `emit`: the paths written (none when refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    wrote: Option<Vec<String>>,
    /// The plan's diagnostics.
    diagnostics: &'a [Diagnostic],
}

fn action_report(plan: &runtime_plan::Plan, wrote: Option<&[PathBuf]>) {
    let report = ActionReport {
        environment: &plan.environment,
        verdict: plan.cost.verdict,
        refused: plan.cost.refused,
        wrote: wrote.map(|w| w.iter().map(|p| p.display().to_string()).collect()),
        diagnostics: &plan.diagnostics,
    };
    out!("{}", runtime_plan::to_json(&report));
}

/// [`refuse_if_capped`] for a command that acts on the plan: as JSON, a refused plan also
/// prints its verdict and diagnostics on stdout, so the output says why the exit code is 3.
fn refuse_before_acting(plan: &runtime_plan::Plan, format: Format) -> Result<(), Exit> {
    if format == Format::Json && plan.has_errors() {
        action_report(plan, None);
    }
    refuse_if_capped(plan)
}

fn emit_pulumi(env: &str, out: &Path, format: Format, args: &PlanArgs) -> Result<(), Exit> {
    let cat = catalogue_for(&args.file, args.catalogue.as_deref())?;
    let plan = plan_env(&args.file, env, &cat)?;
    if format == Format::Json && plan.has_errors() {
        action_report(&plan, Some(&[]));
    }
    // Refused before anything is written.
    refuse_if_capped(&plan)?;
    let program =
        pulumi_program::render(&plan).map_err(|e| usage(format!("cannot render the program: {e}")))?;
    for (name, _) in &program.files {
        let path = out.join(name);
        if let Ok(existing) = std::fs::read_to_string(&path)
            && !existing.starts_with(GENERATED_MARKER)
        {
            return Err(usage(format!(
                "{} exists and was not written by runway; move it away or choose another --out",
                path.display()
            )));
        }
    }
    check_stack_settings(&plan, out)?;
    let written = program::write_program(out, &program)
        .map_err(|e| usage(format!("cannot write into {}: {e}", out.display())))?;
    if format == Format::Json {
        action_report(&plan, Some(&written));
        return Ok(());
    }
    for path in written {
        outln!("wrote {}", path.display());
    }
    outln!(
        "next: set the config inputs listed in its `config:` block, then `pulumi preview --cwd {}`",
        out.display()
    );
    Ok(())
}

/// Checks each stack settings file (`Pulumi.<stack>.yaml`) already in the program's directory
/// against the plan (the subnet inputs); an error stops the program from being written, as
/// `pulumi up` would otherwise stop half-way.
fn check_stack_settings(plan: &runtime_plan::Plan, out: &Path) -> Result<(), Exit> {
    let Ok(entries) = std::fs::read_dir(out) else { return Ok(()) };
    let mut stacks: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with("Pulumi.")
                    && n != "Pulumi.yaml"
                    && (n.ends_with(".yaml") || n.ends_with(".yml"))
            })
        })
        .collect();
    stacks.sort();
    let mut diags = Vec::new();
    for path in stacks {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| usage(format!("cannot read {}: {e}", path.display())))?;
        let file = path.display().to_string();
        diags.extend(pulumi_program::check_stack_settings(plan, &file, &text));
    }
    if diags.is_empty() {
        return Ok(());
    }
    if diags.iter().any(Diagnostic::is_error) {
        report_invalid(&diags);
        eprintln!(
            "the stack settings would fail at `pulumi up` ({}); nothing written",
            files::summary(&diags)
        );
        return Err(Exit(EXIT_INVALID));
    }
    // Warnings only: the program is written, and JSON output stays the action report.
    eprint!("{}", files::render_text(&diags, stderr_colour()));
    Ok(())
}

/// Buffered stdout as a `fmt::Write`, keeping the I/O error a `fmt::Error` cannot carry.
struct StdoutText {
    out: std::io::BufWriter<std::io::StdoutLock<'static>>,
    error: Option<std::io::Error>,
}

impl std::fmt::Write for StdoutText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        use std::io::Write as _;
        self.out.write_all(s.as_bytes()).map_err(|e| {
            self.error = Some(e);
            std::fmt::Error
        })
    }
}

/// Runs `write` with stdout as its sink, then flushes; a closed stdout ends the process
/// quietly, as `out!` does.
fn stream_stdout(write: impl FnOnce(&mut StdoutText) -> std::fmt::Result) {
    use std::io::Write as _;
    let mut sink = StdoutText { out: std::io::BufWriter::new(std::io::stdout().lock()), error: None };
    let written = write(&mut sink);
    let result = match (written, sink.error.take()) {
        (_, Some(e)) => Err(e),
        (Err(_), None) => Err(std::io::Error::other("formatting the output failed")),
        (Ok(()), None) => sink.out.flush(),
    };
    if let Err(e) = result {
        exit_on_write_error(&e);
    }
}

/// A closed stdout (`runway … | head`) ends quietly with 0; any other write error is reported.
fn exit_on_write_error(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("error: cannot write the output: {e}");
    std::process::exit(i32::from(EXIT_USAGE));
}

/// Writes to stdout; when the reader has gone away (broken pipe), exits with success, as
/// `head` closing the pipe is not a failure of runway's.
fn write_stdout(text: &str) {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        exit_on_write_error(&e);
    }
}

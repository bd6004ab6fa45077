//! `runway preview up --pr N`: the pool's check first (the live previews found by their tags,
//! plus this one, against `previews.limits.monthly` and `previews.max`; exit 3 before any
//! write, naming the previews that hold the pool), then the preview's record, its stack made
//! once, and `runway deploy --env pr-<n>` (the same job, its own lease and stack).

use std::ffi::OsString;

use aws_adapter::aws::{CREATED_TAG, MONTHLY_TAG, PREVIEW_TAG, PreviewRecord, RECORD};
use clap::FromArgMatches;
use runtime_plan::preview_pool::{Admitted, PoolRefusal, admit};
use serde_json::json;

use super::{StackArgs, clock, live, span};
use crate::commands::{deploy, emit};
use crate::prelude::*;

/// Deploys pull request N's preview (`pr-<n>`) through `runway deploy`, after the pooled cap
/// and `max` allow it (exit 3 before any write otherwise).
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The pull request's number.
    #[arg(long)]
    pr: u64,
    #[command(flatten)]
    stack: StackArgs,
    /// Start the preview's expiry again from now (a push does not, by default).
    #[arg(long)]
    extend: bool,
    /// The time to take as now (RFC 3339; default the clock): its creation time.
    #[arg(long, value_name = "TIME")]
    now: Option<String>,
    /// Handed to `runway deploy`: its lease's holder.
    #[arg(long, value_name = "TEXT")]
    holder: Option<String>,
    /// Handed to `runway deploy`: how long its lease holds unless renewed.
    #[arg(long, value_name = "DURATION")]
    lease_duration: Option<String>,
    /// Handed to `runway deploy`: the pause between two looks.
    #[arg(long, value_name = "DURATION")]
    interval: Option<String>,
    /// Handed to `runway deploy`: `rollout`'s most time.
    #[arg(long, value_name = "DURATION")]
    rollout_timeout: Option<String>,
    /// `json`: the pool's decision as a `{"event":"pool",..}` line, then the deploy's events.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    #[command(flatten)]
    root: RootArgs,
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        self.format.json()
    }
}

/// Runs `runway preview up`.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    let name = format!("pr-{}", args.pr);
    if args.pr == 0 {
        return Err(out.usage(runtime_plan::PreviewError::InvalidNumber(0)));
    }
    let env = EnvArgs {
        env: name.clone(),
        root: RootArgs { file: args.root.file.clone(), catalogue: args.root.catalogue.clone() },
    };
    let session = Session::open(&env, out)?;
    let Some(preview) = session.plan.preview.clone() else {
        return Err(
            out.usage(format!("{name} is a declared environment, not a preview: use `runway deploy`"))
        );
    };
    session.refuse_before_acting(args.format)?;
    let now = clock(args.now.as_deref(), out)?;
    let rt = session.runtime()?;
    let admitted = rt.block_on(async {
        let aws = crate::session::aws(&session.plan, out).await?;
        let found = live::find(&aws, &session.plan.product, None, out).await?;
        let adds = session.plan.cost.monthly;
        let admitted = admit(&preview, adds, &found.previews, now, args.extend)
            .map_err(|refusal| refused(&refusal, args.format))?;
        let record = record(&session, &preview, &admitted);
        aws.put_preview_record(&record)
            .await
            .map_err(|e| out.remote(format!("the preview's record {}: {}", record.parameter, chain(&e))))?;
        Ok::<Admitted, Exit>(admitted)
    })?;
    admitted_line(&name, &admitted, args.format);
    let pulumi = args.stack.pulumi(&args.root.file, &name);
    if !pulumi.stack_exists()? {
        // Once per preview: its folder, the program, `pulumi stack init`.
        std::fs::create_dir_all(&pulumi.cwd)
            .map_err(|e| out.usage(format!("cannot create {}: {e}", pulumi.cwd.display())))?;
        let emit_args: emit::Args = parsed(argv(&args, &name, &["pulumi"], &[("out", &pulumi.cwd)]), out)?;
        emit::run(emit_args, Out::new(false))?;
        pulumi.init_stack(&deploy::report::Reporter::new(args.format))?;
    }
    let mut words: Vec<String> =
        vec![format!("--format={}", if args.format.json() { "json" } else { "text" })];
    words.push(format!("--pulumi={}", args.stack.pulumi_program().display()));
    for (flag, value) in [
        ("holder", &args.holder),
        ("lease-duration", &args.lease_duration),
        ("interval", &args.interval),
        ("rollout-timeout", &args.rollout_timeout),
    ] {
        if let Some(v) = value {
            words.push(format!("--{flag}={v}"));
        }
    }
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let deploy_args: deploy::Args = parsed(argv(&args, &name, &words, &[("cwd", &pulumi.cwd)]), out)?;
    deploy::run(deploy_args, out)
}

/// The record `up` writes first: the creation time (kept on a later `up` unless
/// `--extend`) and the estimate in its tags.
fn record(session: &Session, preview: &runtime_plan::plan::Preview, admitted: &Admitted) -> PreviewRecord {
    let tags = [
        ("product", session.plan.product.to_string()),
        ("environment", preview.name.to_string()),
        ("resource", "preview".to_owned()),
        (PREVIEW_TAG, preview.name.to_string()),
        (runtime_plan::previews::PREVIEW_FROM_TAG, preview.from.to_string()),
        (CREATED_TAG, admitted.created_at.to_string()),
        (MONTHLY_TAG, admitted.adds.cents().to_string()),
    ];
    PreviewRecord {
        parameter: format!("{}/{RECORD}", preview.ssm_prefix),
        tags: tags.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
    }
}

/// The pool's answer, said before the deploy.
fn admitted_line(name: &str, a: &Admitted, format: Format) {
    let text = plan_render::preview_pool_line(name, a.adds, a.others, a.cap);
    if format.json() {
        let event = json!({"event": "pool", "action": "admitted", "message": text, "count": a.count,
            "adds": a.adds, "others": a.others, "cap": a.cap});
        outln!("{event}");
    } else {
        outln!("{text}; {} live with it", a.count);
    }
}

/// The refusal (exit 3): why, and the previews that hold the pool, oldest first, with their
/// age and estimate.
fn refused(refusal: &PoolRefusal, format: Format) -> Exit {
    errln!("error: {refusal}");
    for h in refusal.holders() {
        let age = h.age_seconds.map_or_else(|| "age unknown".to_owned(), |s| format!("up {}", span(s)));
        let monthly =
            h.monthly.map_or_else(|| "estimate unknown".to_owned(), |m| format!("${} a month", m.cents()));
        errln!("  held by {}: {age}, {monthly}", h.name);
    }
    errln!(
        "  help: `runway preview down --pr N` one of them, or raise `previews.limits.monthly` / `previews.max`"
    );
    if format.json() {
        let event = json!({"event": "pool", "action": "refused", "refusal": refusal, "exit": EXIT_CAP});
        outln!("{event}");
    }
    Exit(EXIT_CAP)
}

/// A command line after `runway`: `words`, `--env pr-<n>`, `paths`, the catalogue, `--` and
/// the root file, as a person would type it.
fn argv(args: &Args, name: &str, words: &[&str], paths: &[(&str, &Path)]) -> Vec<OsString> {
    let mut argv: Vec<OsString> =
        std::iter::once("runway").chain(words.iter().copied()).map(OsString::from).collect();
    argv.push(format!("--env={name}").into());
    for (flag, path) in paths {
        let mut f = OsString::from(format!("--{flag}="));
        f.push(path.as_os_str());
        argv.push(f);
    }
    if let Some(catalogue) = &args.root.catalogue {
        let mut f = OsString::from("--catalogue=");
        f.push(catalogue.as_os_str());
        argv.push(f);
    }
    argv.extend([OsString::from("--"), args.root.file.clone().into_os_string()]);
    argv
}

/// A command's own `Args` parsed from its command line.
fn parsed<A: clap::Args + FromArgMatches>(argv: Vec<OsString>, out: Out) -> Result<A, Exit> {
    A::augment_args(clap::Command::new("runway"))
        .try_get_matches_from(argv)
        .and_then(|m| A::from_arg_matches(&m))
        .map_err(|e| out.usage(format!("runway preview up: {e}")))
}

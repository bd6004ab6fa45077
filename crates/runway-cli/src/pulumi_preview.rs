//! `runway diff --pulumi-preview [ENV=]FILE`: reads what `pulumi preview --json` printed for an
//! environment's stack and adds it to that environment's review (pulumi-program reads it and
//! maps each resource to its item; the review shows it). See docs/review.md, "What Pulumi
//! would do".

use std::io::Read as _;
use std::path::Path;

use runtime_plan::{Plan, Review};

use crate::output::{Exit, Out};

/// A preview file is read no further than this: a stack of thousands of resources prints a few
/// MiB.
const MAX_BYTES: u64 = 64 << 20;

/// Adds each `[ENV=]FILE` preview to its environment of `review`. A `FILE` alone is the
/// environment of `--env`, the only environment reviewed, or the one its stack is named after.
/// Exit 2 for a file that cannot be read, is not a preview, or is of another program.
pub(crate) fn attach(
    review: &mut Review,
    specs: &[String],
    env: Option<&str>,
    (old, new): (&[Plan], &[Plan]),
    out: Out,
) -> Result<(), Exit> {
    for spec in specs {
        let names: Vec<&str> = review.environments.iter().map(|e| e.name.as_str()).collect();
        let (named, file) = match spec.split_once('=') {
            Some((e, f)) if names.contains(&e) => (Some(e.to_owned()), f),
            _ => (None, spec.as_str()),
        };
        let text = read(Path::new(file)).map_err(|e| out.usage(format!("--pulumi-preview {file}: {e}")))?;
        let preview = pulumi_program::read_preview(&text)
            .map_err(|e| out.usage(format!("--pulumi-preview {file}: {e}")))?;
        let stack = preview.steps.first().map(|s| s.stack.clone());
        let target = named
            .or_else(|| env.map(str::to_owned))
            .or_else(|| (names.len() == 1).then(|| names[0].to_owned()))
            .or_else(|| stack.filter(|s| names.contains(&s.as_str())));
        let Some(target) = target else {
            return Err(out.usage(format!(
                "--pulumi-preview {file}: say which environment it is of: --pulumi-preview ENV={file} (one of {})",
                names.join(", ")
            )));
        };
        let Some(new_plan) = find(new, &target) else {
            return Err(out.usage(format!(
                "--pulumi-preview {file}: `{target}` is not an environment of the working version, so it has no stack to preview"
            )));
        };
        let items = pulumi_program::items_of(&preview, find(old, &target), new_plan)
            .map_err(|e| out.usage(format!("--pulumi-preview {file} ({target}): {e}")))?;
        if let Some(e) = review.environments.iter_mut().find(|e| e.name == target) {
            e.pulumi = Some(items);
        }
    }
    Ok(())
}

/// The plan of environment `env` among `plans`.
fn find<'p>(plans: &'p [Plan], env: &str) -> Option<&'p Plan> {
    plans.iter().find(|p| p.environment == env)
}

/// The file's text, at most [`MAX_BYTES`].
fn read(path: &Path) -> Result<String, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(format!("larger than {} MiB, not a preview", MAX_BYTES >> 20));
    }
    String::from_utf8(bytes).map_err(|_| "not UTF-8 text, not a preview".to_owned())
}

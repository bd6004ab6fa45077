//! The review's preview line (`runway diff --base-ref REV --preview-pr 42`): "preview pr-42
//! would add $14.20; previews $61.30 of $120.00". The review runs without AWS credentials, so
//! the live previews come from a file: what `runway preview list --format json` printed (the
//! pull request's job runs it with the `from` environment's role); without it, the line says
//! the live pool was not read.

use std::path::Path;

use cost::Catalogue;
use runway_schema::{Money, Product};

use crate::output::{Exit, Out};

/// The line for pull request `pr`'s preview of `product`, the live pool read from
/// `pool` (`runway preview list --format json`) when given; `None` when the runway declares
/// no `previews`.
pub(crate) fn line(
    product: &Product,
    pr: u64,
    pool: Option<&Path>,
    cat: &Catalogue,
    out: Out,
) -> Result<Option<String>, Exit> {
    if product.root.previews.is_none() {
        return Ok(None);
    }
    let plan = runtime_plan::preview_plan(product, pr, cat).map_err(|e| out.usage(e))?;
    let Some(preview) = &plan.preview else { return Ok(None) };
    let adds = plan.cost.monthly;
    let Some(file) = pool else {
        let text = plan_render::preview_pool_line(&preview.name, adds, Money::ZERO, preview.pool_cap);
        return Ok(Some(format!("{text} (the live previews not read: give --previews-pool)")));
    };
    let text = std::fs::read_to_string(file)
        .map_err(|e| out.usage(format!("cannot read --previews-pool {}: {e}", file.display())))?;
    let list: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        out.usage(format!("--previews-pool {}: not `runway preview list --format json`: {e}", file.display()))
    })?;
    let Some(previews) = list["previews"].as_array() else {
        return Err(out.usage(format!("--previews-pool {}: no `previews` list", file.display())));
    };
    // The others: this preview going up again replaces its own estimate.
    let others: Money = previews
        .iter()
        .filter(|p| p["name"].as_str() != Some(preview.name.as_str()))
        .filter_map(|p| p["monthly"].as_str().and_then(|m| Money::parse(m).ok()))
        .sum();
    Ok(Some(plan_render::preview_pool_line(&preview.name, adds, others, preview.pool_cap)))
}

//! The previews in the account: every resource of the product tagged `runway-preview`, grouped
//! by the tag's value; each preview's creation time and estimate from its record's tags, and
//! whether a Pulumi stack holds it.

use aws_adapter::aws::{AwsClients, CREATED_TAG, MONTHLY_TAG, TaggedResource};
use runtime_plan::Plan;
use runtime_plan::preview_pool::LivePreview;
use runway_schema::{Money, Product};

use super::StackArgs;
use crate::prelude::*;

/// What the product's previews are in the account: by their tags.
pub(crate) struct Found {
    /// Every tagged resource, by preview then ARN.
    pub(crate) resources: Vec<TaggedResource>,
    /// The previews, by name.
    pub(crate) previews: Vec<LivePreview>,
}

/// Reads the tags (one paginated call) and, with `stacks`, asks Pulumi which previews a
/// stack holds (without it, every preview counts as held: the pool counts them all anyway).
pub(crate) async fn find(
    aws: &AwsClients,
    product: &str,
    stacks: Option<(&StackArgs, &Path)>,
    out: Out,
) -> Result<Found, Exit> {
    let resources = aws
        .preview_resources(product)
        .await
        .map_err(|e| out.remote(format!("cannot find the previews by their tags: {}", chain(&e))))?;
    let mut previews: Vec<LivePreview> = Vec::new();
    for r in &resources {
        let index = match previews.iter().position(|p| p.name == r.preview) {
            Some(i) => i,
            None => {
                previews.push(LivePreview {
                    name: r.preview.as_str().into(),
                    created_at: None,
                    monthly: None,
                    stack: true,
                });
                previews.len() - 1
            }
        };
        if r.is_record() {
            let p = &mut previews[index];
            p.created_at = r.tag(CREATED_TAG).and_then(|t| t.parse().ok());
            p.monthly = r.tag(MONTHLY_TAG).and_then(|t| Money::parse(t).ok());
        }
    }
    if let Some((stack, file)) = stacks {
        for p in &mut previews {
            p.stack = stack.pulumi(file, &p.name).stack_exists()?;
        }
    }
    previews.sort_by_key(|p| (runtime_plan::preview_pool::pr_of(&p.name), p.name.clone()));
    Ok(Found { resources, previews })
}

/// The product loaded and valid, and the `from` environment's plan (its region and account:
/// where the previews live). Exit 2 when the runway declares no `previews`.
pub(crate) fn product_and_from(root: &RootArgs, out: Out) -> Result<(Product, Plan, cost::Catalogue), Exit> {
    let cat = crate::planning::catalogue_for(&root.file, root.catalogue.as_deref(), out)?;
    let (product, warnings) = crate::planning::load_valid(&root.file, &cat, out)?;
    warn(&warnings);
    let Some(previews) = &product.root.previews else {
        return Err(out.usage(runtime_plan::PreviewError::NotDeclared));
    };
    let from = runtime_plan::plan(&product, &previews.from, &cat).map_err(|e| out.usage(e))?;
    Ok((product, from, cat))
}

//! Whether a postgres resource's bootstrap task can pull its image from the private subnets it
//! runs in, as far as the plan can tell (the VPC is an input): a warning when it cannot.
//!
//! The rule (docs/secrets.md, "Database roles"):
//! - a NAT the environment pays for (`network.nat`, or its default when it has workloads and no
//!   VPC endpoints: one per zone in production, one elsewhere) reaches every registry;
//! - with `network.endpoints: false`, a `network.nat` written `0` says the VPC's NAT is shared
//!   and paid elsewhere (the reference's meaning of it): the plan believes it;
//! - with VPC endpoints (`true` or `existing`) and no NAT, only an image in a private ECR
//!   registry of the environment's own region is reached (`ecr.api`, `ecr.dkr` and the S3
//!   gateway; an interface endpoint serves its own region only); ECR Public, Docker Hub and
//!   every other registry are not.
//!
//! Anything else (no NAT and no endpoints: a product whose only consumers are members, by
//! default) reaches no registry at all.

use runway_schema::{Code, Diagnostic, Endpoints};

use super::context::Cx;
use super::identity::ecr_repository;

/// Why the private subnets have no route to `image`, or `None` when they have one.
fn unreachable(cx: &Cx, image: &str) -> Option<String> {
    // The VPC's item holds the NAT gateways the plan decided (planned before the resources;
    // `vpc.rs` notes them in the context as it plans it).
    if cx.vpc_nat.unwrap_or(0) > 0 {
        return None;
    }
    let network = cx.env.network;
    match network.endpoints {
        Endpoints::None if network.nat.is_some() => None,
        Endpoints::None => Some(
            "the environment has no NAT gateway (`network.nat` is 0 by default without workloads) and no VPC \
             endpoints: its private subnets reach no registry"
                .to_owned(),
        ),
        Endpoints::Declared | Endpoints::Existing => {
            let region = cx.env.region.as_str();
            let in_region = ecr_repository(image)
                .is_some_and(|arn| arn.strip_prefix("arn:aws:ecr:").is_some_and(|r| r.starts_with(&format!("{region}:"))));
            (!in_region).then(|| {
                format!(
                    "the environment reaches AWS through VPC endpoints and pays for no NAT gateway (`network.nat` \
                     is 0): only an image in a private ECR registry of {region} is reached that way"
                )
            })
        }
    }
}

/// Warns when `r`'s bootstrap task has no route to `image`: the task would stop with
/// `CannotPullContainerError` and no consumer could log in.
pub(in crate::lower) fn check(cx: &mut Cx, r: &str, image: &str) {
    let Some(why) = unreachable(cx, image) else { return };
    let e = cx.env_name;
    let (at, path) = match &cx.env.bootstrap.at {
        Some(at) => (at.clone(), format!("environments.{e}.bootstrap.image")),
        None => (cx.env.at.clone(), format!("environments.{e}.network")),
    };
    let region = &cx.env.region;
    cx.diagnostics.push(
        Diagnostic::warning(
            Code::UnreachableImage,
            at,
            path,
            format!("the bootstrap of `{r}` cannot pull its image `{image}` in `{e}`: {why}"),
        )
        .with_help(format!(
            "copy the image to this account's ECR in {region} (a mirror, or a pull-through cache seeded once) and set \
             `environments.{e}.bootstrap.image` to it, with `network.endpoints`; or set `network.nat` (1 for one \
             zone; 0 when the VPC's NAT is paid elsewhere)"
        )),
    );
}

//! The regions the importer knows, and the prefix each gives its usage types.
//!
//! A price-list row's `usagetype` is its kind of usage, prefixed with the region's billing code
//! (`EUC1-Fargate-ARM-GB-Hours`, `EU-InstanceUsage:db.t4g.micro`); a few us-east-1 rows carry no
//! prefix (`InstanceUsage:db.t4g.micro`), others keep `USE1-`. The codes are those AWS bills
//! under, as surveyed from the live Price List API (research/aws-price-list.md, A.5).

/// Every commercial region the importer can read, with its usage-type prefix.
pub const REGIONS: &[(&str, &str)] = &[
    ("us-east-1", "USE1"),
    ("us-east-2", "USE2"),
    ("us-west-1", "USW1"),
    ("us-west-2", "USW2"),
    ("ca-central-1", "CAN1"),
    ("ca-west-1", "CAN2"),
    ("mx-central-1", "MXC1"),
    ("sa-east-1", "SAE1"),
    ("eu-central-1", "EUC1"),
    ("eu-central-2", "EUC2"),
    ("eu-west-1", "EU"),
    ("eu-west-2", "EUW2"),
    ("eu-west-3", "EUW3"),
    ("eu-north-1", "EUN1"),
    ("eu-south-1", "EUS1"),
    ("eu-south-2", "EUS2"),
    ("il-central-1", "ILC1"),
    ("me-central-1", "MEC1"),
    ("me-south-1", "MES1"),
    ("af-south-1", "AFS1"),
    ("ap-east-1", "APE1"),
    ("ap-east-2", "APE2"),
    ("ap-south-1", "APS3"),
    ("ap-south-2", "APS5"),
    ("ap-northeast-1", "APN1"),
    ("ap-northeast-2", "APN2"),
    ("ap-northeast-3", "APN3"),
    ("ap-southeast-1", "APS1"),
    ("ap-southeast-2", "APS2"),
    ("ap-southeast-3", "APS4"),
    ("ap-southeast-4", "APS6"),
    ("ap-southeast-5", "APS7"),
    ("ap-southeast-6", "APS8"),
    ("ap-southeast-7", "APS9"),
];

/// The usage-type prefix of a region (`EUC1` for eu-central-1); `None` for a region the
/// importer does not know.
pub fn usage_prefix(region: &str) -> Option<&'static str> {
    REGIONS.iter().find(|(r, _)| *r == region).map(|(_, p)| *p)
}

/// Does `usagetype` name the usage `kind` in the region of `prefix`: `kind` itself, or
/// `<prefix>-<kind>`? Any other prefix (another region, `TS-`, an Outposts variant) does not.
pub(crate) fn usage_is(usagetype: &str, prefix: &str, kind: &str) -> bool {
    usagetype == kind
        || usagetype
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_prefix('-'))
            .is_some_and(|rest| rest == kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_usage_type_matches_bare_or_with_its_own_regions_prefix_only() {
        assert!(usage_is("InstanceUsage:db.t4g.micro", "USE1", "InstanceUsage:db.t4g.micro"));
        assert!(usage_is("EUC1-InstanceUsage:db.t4g.micro", "EUC1", "InstanceUsage:db.t4g.micro"));
        assert!(usage_is("EU-LCUUsage", "EU", "LCUUsage"));
        assert!(!usage_is("EUC1-LCUUsage", "EU", "LCUUsage"));
        assert!(!usage_is("TS-LoadBalancerUsage", "USE1", "LoadBalancerUsage"));
        assert!(!usage_is("USE1-InstanceUsageIOOptimized:db.r7g.xl", "USE1", "InstanceUsage:db.r7g.xl"));
        assert!(!usage_is("USE1InstanceUsage:db.r7g.xl", "USE1", "InstanceUsage:db.r7g.xl"));
        assert_eq!(usage_prefix("eu-west-1"), Some("EU"));
        assert_eq!(usage_prefix("mars-north-1"), None);
    }
}

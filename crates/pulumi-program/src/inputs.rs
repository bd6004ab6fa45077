//! The values of a stack settings file (`Pulumi.<stack>.yaml`) that name things in the account
//! (`runway preflight` looks them up): the VPC, the subnets, the certificate, the hosted zone.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The account's items a stack's settings name; an input not set is `None` (or empty).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StackInputs {
    /// `vpcId`.
    pub vpc_id: Option<String>,
    /// `privateSubnetIds`.
    pub private_subnets: Vec<String>,
    /// `publicSubnetIds`.
    pub public_subnets: Vec<String>,
    /// `certificateArn`.
    pub certificate_arn: Option<String>,
    /// `hostedZoneId`.
    pub hosted_zone_id: Option<String>,
    /// `memberSecurityGroupIds`.
    pub member_security_groups: Vec<String>,
}

#[derive(Deserialize)]
struct Settings {
    config: Option<BTreeMap<String, serde_json::Value>>,
}

/// Reads the inputs of `product`'s program (keys `<product>:<input>`, or bare) from a stack
/// settings file's text; an error says why it is not YAML.
pub fn stack_inputs(product: &str, text: &str) -> Result<StackInputs, String> {
    let settings: Settings = serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
    let config = settings.config.unwrap_or_default();
    let get = |input: &str| config.get(&format!("{product}:{input}")).or_else(|| config.get(input));
    let text = |input: &str| get(input).and_then(|v| v.as_str()).map(str::to_owned);
    let list = |input: &str| {
        get(input)
            .and_then(|v| v.as_array())
            .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
            .unwrap_or_default()
    };
    Ok(StackInputs {
        vpc_id: text("vpcId"),
        private_subnets: list("privateSubnetIds"),
        public_subnets: list("publicSubnetIds"),
        certificate_arn: text("certificateArn"),
        hosted_zone_id: text("hostedZoneId"),
        member_security_groups: list("memberSecurityGroupIds"),
    })
}

#[cfg(test)]
mod tests {
    use super::stack_inputs;

    #[test]
    fn inputs_are_read_by_the_products_keys() {
        let text = "config:\n  acme-shop:vpcId: vpc-1\n  acme-shop:privateSubnetIds: [subnet-a, subnet-b]\n  \
                    acme-shop:certificateArn: arn:aws:acm:us-east-1:1:certificate/x\n  aws:region: us-east-1\n";
        let inputs = stack_inputs("acme-shop", text).unwrap();
        assert_eq!(inputs.vpc_id.as_deref(), Some("vpc-1"));
        assert_eq!(inputs.private_subnets, ["subnet-a", "subnet-b"]);
        assert!(inputs.public_subnets.is_empty());
        assert_eq!(inputs.certificate_arn.as_deref(), Some("arn:aws:acm:us-east-1:1:certificate/x"));
        assert!(stack_inputs("acme-shop", "config: [").is_err());
    }
}

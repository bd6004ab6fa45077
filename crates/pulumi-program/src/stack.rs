//! The stack settings a program is deployed with (`Pulumi.<stack>.yaml`): Pulumi YAML config
//! has no minimum length nor format, so a subnet list of one, or a VPC CIDR block that is not
//! one, would only fail at `pulumi up`, half-way through creating resources. This checks the
//! list inputs before the program is written.

use std::collections::BTreeMap;

use runtime_plan::{ItemKind, ItemSpec, Peer, Plan};
use runway_schema::{Code, Diagnostic, Location};
use serde::Deserialize;
use serde_saphyr::Spanned;

/// Fewest subnets an ALB, an RDS Proxy and a DB subnet group accept (two Availability Zones).
const MIN_SUBNETS: usize = 2;
/// The prefix lengths a VPC's IPv4 CIDR block may have.
const VPC_PREFIXES: std::ops::RangeInclusive<u8> = 16..=28;

#[derive(Deserialize)]
struct Settings {
    config: Option<BTreeMap<String, Spanned<serde_json::Value>>>,
}

/// Checks the list inputs of a stack settings file against the plan of its program: each
/// subnet list the program reads holds at least two subnets (error), with interface endpoints
/// the private subnets are as many as the zones their hours are priced for (warning), and the
/// VPC's CIDR blocks the endpoints admit are one or more IPv4 blocks a VPC can have (error).
/// Inputs not set yet are left to Pulumi, which names them.
pub fn check_stack_settings(plan: &Plan, file: &str, text: &str) -> Vec<Diagnostic> {
    let settings: Settings = match serde_saphyr::from_str(text) {
        Ok(s) => s,
        Err(e) => {
            let loc = e.location().map_or((0, 0), |l| (l.line(), l.column()));
            let message = format!("the stack settings are not valid YAML: {e}");
            return vec![Diagnostic::error(Code::YamlSyntax, at(file, text, loc), "", message)];
        }
    };
    let config = settings.config.unwrap_or_default();
    let mut out = Vec::new();
    let public = plan.items.iter().any(|i| i.kind() == ItemKind::Alb);
    let inputs = [("privateSubnetIds", true), ("publicSubnetIds", public)];
    for (input, _) in inputs.into_iter().filter(|(_, read)| *read) {
        let Some(value) = config.get(&format!("{}:{input}", plan.product)) else { continue };
        let loc = at(file, text, (value.referenced.line(), value.referenced.column()));
        let count = value.value.as_array().map_or(0, Vec::len);
        if count < MIN_SUBNETS {
            out.push(too_few(input, count, loc.clone()));
        }
        if input == "privateSubnetIds"
            && let Some(zones) = endpoint_zones(plan)
            && count >= MIN_SUBNETS
            && count != zones
        {
            out.push(zones_differ(count, zones, loc));
        }
    }
    if reads_vpc_cidr_blocks(plan)
        && let Some(value) = config.get(&format!("{}:vpcCidrBlocks", plan.product))
    {
        let loc = at(file, text, (value.referenced.line(), value.referenced.column()));
        out.extend(cidr_blocks(&value.value, loc));
    }
    if has_alert_topic(plan)
        && let Some(value) = config.get(&format!("{}:alertEmails", plan.product))
    {
        let loc = at(file, text, (value.referenced.line(), value.referenced.column()));
        out.extend(alert_emails(&value.value, loc));
    }
    out
}

/// How many addresses the `alertEmails` list of a stack settings file holds, when the plan has
/// an alerts topic and the file sets the list (what [`crate::Options::alert_emails`] is for).
pub fn alert_email_count(plan: &Plan, text: &str) -> Option<usize> {
    if !has_alert_topic(plan) {
        return None;
    }
    let settings: Settings = serde_saphyr::from_str(text).ok()?;
    let value = settings.config?.remove(&format!("{}:alertEmails", plan.product))?;
    value.value.as_array().map(Vec::len)
}

/// Does the plan declare an alerts topic (whose subscriptions read `alertEmails`)?
fn has_alert_topic(plan: &Plan) -> bool {
    plan.items.iter().any(|i| i.kind() == ItemKind::AlertTopic)
}

/// `alertEmails`: a list of one or more email addresses.
fn alert_emails(value: &serde_json::Value, loc: Location) -> Option<Diagnostic> {
    let help = "the addresses the environment's alarms mail (each confirms its subscription once): \
                `pulumi config set --path 'alertEmails[0]' oncall@example.com`";
    let problem = match value.as_array() {
        None => format!("`alertEmails` must be a list of email addresses, found {value}"),
        Some(list) if list.is_empty() => "`alertEmails` is empty: the alarms would mail nobody".to_owned(),
        Some(list) => {
            let bad = list.iter().find(|a| !a.as_str().is_some_and(is_email))?;
            format!("{bad} is not an email address")
        }
    };
    Some(Diagnostic::error(Code::InvalidValue, loc, "alertEmails", problem).with_help(help))
}

/// `local@domain.tld`: one `@`, something before it, a dot in the domain, no spaces.
fn is_email(text: &str) -> bool {
    let Some((local, domain)) = text.split_once('@') else { return false };
    !local.is_empty()
        && !domain.contains('@')
        && domain.split('.').count() >= 2
        && domain.split('.').all(|l| !l.is_empty())
        && !text.chars().any(char::is_whitespace)
}

/// Does the program read the `vpcCidrBlocks` input (a group admitting the VPC)?
fn reads_vpc_cidr_blocks(plan: &Plan) -> bool {
    plan.items.iter().any(|i| {
        let ItemSpec::SecurityGroup { ingress, .. } = &i.spec else { return false };
        ingress.iter().any(|r| r.peer == Peer::Vpc)
    })
}

/// `vpcCidrBlocks`: a list of one or more IPv4 CIDR blocks with a prefix a VPC may have.
fn cidr_blocks(value: &serde_json::Value, loc: Location) -> Option<Diagnostic> {
    let help = "the VPC's IPv4 CIDR blocks, primary and secondary, as the VPC console lists them: \
                `pulumi config set --path 'vpcCidrBlocks[0]' 10.0.0.0/16`";
    let problem = match value.as_array() {
        None => format!("`vpcCidrBlocks` must be a list of CIDR blocks, found {value}"),
        Some(list) if list.is_empty() => {
            "`vpcCidrBlocks` is empty: the VPC endpoints would admit nobody".to_owned()
        }
        Some(list) => {
            let bad = list.iter().find(|b| !b.as_str().is_some_and(is_vpc_cidr))?;
            format!("{bad} is not an IPv4 CIDR block a VPC can have (a.b.c.d/16 to /28)")
        }
    };
    Some(Diagnostic::error(Code::InvalidValue, loc, "vpcCidrBlocks", problem).with_help(help))
}

/// `a.b.c.d/n`: four decimal octets and a prefix length a VPC block may have.
fn is_vpc_cidr(text: &str) -> bool {
    let Some((address, prefix)) = text.split_once('/') else { return false };
    let octets: Vec<&str> = address.split('.').collect();
    let decimal = |t: &str| !t.is_empty() && t.len() <= 3 && t.bytes().all(|b| b.is_ascii_digit());
    octets.len() == 4
        && octets.iter().all(|o| decimal(o) && o.parse::<u8>().is_ok())
        && decimal(prefix)
        && prefix.parse::<u8>().is_ok_and(|p| VPC_PREFIXES.contains(&p))
}

fn too_few(input: &str, count: usize, loc: Location) -> Diagnostic {
    let message = format!("`{input}` holds {count} subnet(s); the program needs at least {MIN_SUBNETS}");
    let help = format!(
        "an ALB, an RDS Proxy and a DB subnet group each need subnets in two Availability Zones: \
         `pulumi config set --path '{input}[1]' subnet-...`"
    );
    Diagnostic::error(Code::InvalidValue, loc, input, message).with_help(help)
}

fn zones_differ(count: usize, zones: usize, loc: Location) -> Diagnostic {
    let message = format!(
        "`privateSubnetIds` holds {count} subnets, but the plan prices its interface endpoints in \
         {zones} zones (`network.zones`)"
    );
    let help = format!(
        "an interface endpoint takes one subnet per zone: set `network.zones: {count}` in the \
         environment if the subnets are in {count} zones, or give one private subnet per zone"
    );
    Diagnostic::warning(Code::InvalidValue, loc, "privateSubnetIds", message).with_help(help)
}

/// The zones the plan's interface endpoints are priced for, when it has one.
fn endpoint_zones(plan: &Plan) -> Option<usize> {
    plan.items.iter().find_map(|i| {
        let ItemSpec::VpcEndpoint { zones: Some(zones), .. } = &i.spec else { return None };
        usize::try_from(*zones).ok()
    })
}

/// A zero-length location at a 1-based line and column (in characters) of `text`; its byte
/// offset is where the excerpt is drawn.
fn at(file: &str, text: &str, (line, column): (u64, u64)) -> Location {
    let index = usize::try_from(line.saturating_sub(1)).unwrap_or(usize::MAX);
    let line_start = runway_schema::line_starts(text).get(index).copied().unwrap_or(text.len());
    let rest = text.get(line_start..).unwrap_or_default();
    let skip = usize::try_from(column.saturating_sub(1)).unwrap_or(usize::MAX);
    let in_line = rest.char_indices().nth(skip).map_or(rest.len(), |(i, _)| i);
    Location {
        file: file.to_owned(),
        line: u32::try_from(line).unwrap_or(u32::MAX),
        column: u32::try_from(column).unwrap_or(u32::MAX),
        offset: line_start + in_line,
        len: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::{is_email, is_vpc_cidr};

    #[test]
    fn alert_emails_are_addresses() {
        for ok in ["oncall@acme.example", "a.b+alerts@mail.acme.example"] {
            assert!(is_email(ok), "{ok}");
        }
        for bad in [
            "",
            "oncall",
            "@acme.example",
            "oncall@",
            "oncall@acme",
            "on call@acme.example",
            "a@b@c.d",
            "a@b..c",
        ] {
            assert!(!is_email(bad), "{bad}");
        }
    }

    #[test]
    fn vpc_cidr_blocks_are_ipv4_blocks_of_16_to_28() {
        for ok in ["10.0.0.0/16", "172.31.0.0/16", "10.1.2.0/24", "192.168.0.0/28"] {
            assert!(is_vpc_cidr(ok), "{ok}");
        }
        for bad in [
            "10.0.0.0",
            "10.0.0.0/8",
            "0.0.0.0/0",
            "10.0.0.0/29",
            "10.0.0/16",
            "256.0.0.0/16",
            "a.b.c.d/16",
            "10.0.0.0/+16",
            "10.0.0.0/",
            "2001:db8::/56",
            "",
        ] {
            assert!(!is_vpc_cidr(bad), "{bad}");
        }
    }
}

//! `AmazonRDS`: RDS for PostgreSQL instances (Single-AZ) and gp3 storage, RDS Proxy, Aurora
//! PostgreSQL instances (Standard, not I/O-Optimized), Aurora storage and Aurora's I/O requests
//! on standard storage (`Aurora:StorageIOUsage`, per I/O, written per million).
//!
//! Traps in the file: a Multi-AZ row beside each Single-AZ one; rows of every engine (MySQL,
//! Aurora MySQL, ...) for the same instance type; an I/O-Optimized Aurora row
//! (`InstanceUsageIOOptimized:`) beside each Standard one with the same `instanceType` and
//! engine; Aurora usage types abbreviate the size (`InstanceUsage:db.r7g.xl` for
//! `db.r7g.xlarge`), so instances are matched by `instanceType` and the usage kind's head.

use super::{Lookup, Rule, units, usage, usage_kind};

const OFFER: &str = "AmazonRDS";

/// The rule of an `AmazonRDS` key, if the key is one.
pub(crate) fn rule(key: &str) -> Option<Lookup> {
    let rule = if let Some(class) = key.strip_prefix("rds-instance/").filter(|c| !c.is_empty()) {
        let class = class.to_owned();
        Rule {
            key: key.to_owned(),
            offer: OFFER,
            unit: "hour",
            offer_units: units::HOURS,
            scale: 1,
            wants: format!("PostgreSQL {class} Single-AZ instance hours (Database Instance, InstanceUsage)"),
            global: false,
            test: Box::new(move |p, prefix| {
                p.family == "Database Instance"
                    && p.attr("databaseEngine") == "PostgreSQL"
                    && p.attr("deploymentOption") == "Single-AZ"
                    && p.attr("instanceType") == class
                    && usage_kind(p.attr("usagetype"), prefix).starts_with("InstanceUsage:")
            }),
        }
    } else if let Some(class) = key.strip_prefix("aurora-instance/").filter(|c| !c.is_empty()) {
        let class = class.to_owned();
        Rule {
            key: key.to_owned(),
            offer: OFFER,
            unit: "hour",
            offer_units: units::HOURS,
            scale: 1,
            wants: format!(
                "Aurora PostgreSQL {class} instance hours in the Standard configuration (InstanceUsage, not InstanceUsageIOOptimized)"
            ),
            global: false,
            test: Box::new(move |p, prefix| {
                p.family == "Database Instance"
                    && p.attr("databaseEngine") == "Aurora PostgreSQL"
                    && p.attr("instanceType") == class
                    && usage_kind(p.attr("usagetype"), prefix).starts_with("InstanceUsage:")
                    && p.attr("storage") != "Aurora IO Optimization Mode"
            }),
        }
    } else {
        match key {
            "rds-storage-gp3" => Rule {
                key: key.to_owned(),
                offer: OFFER,
                unit: "GB-month",
                offer_units: units::GB_MONTH,
                scale: 1,
                wants: "Single-AZ gp3 storage for PostgreSQL (Database Storage, RDS:GP3-Storage)".to_owned(),
                global: false,
                test: Box::new(|p, prefix| {
                    p.family == "Database Storage"
                        && matches!(p.attr("databaseEngine"), "PostgreSQL" | "Any")
                        && p.attr("deploymentOption") == "Single-AZ"
                        && usage(p, prefix, "RDS:GP3-Storage")
                }),
            },
            "rds-proxy" => Rule {
                key: key.to_owned(),
                offer: OFFER,
                unit: "vCPU-hour",
                offer_units: units::HOURS,
                scale: 1,
                wants: "RDS Proxy vCPU-hours for PostgreSQL (RDS:ProxyUsage)".to_owned(),
                global: false,
                test: Box::new(|p, prefix| {
                    p.attr("databaseEngine") == "PostgreSQL" && usage(p, prefix, "RDS:ProxyUsage")
                }),
            },
            "aurora-storage" => Rule {
                key: key.to_owned(),
                offer: OFFER,
                unit: "GB-month",
                offer_units: units::GB_MONTH,
                scale: 1,
                wants: "Aurora Standard storage (Database Storage, Aurora:StorageUsage, not I/O-Optimized)"
                    .to_owned(),
                global: false,
                test: Box::new(|p, prefix| {
                    p.family == "Database Storage"
                        && matches!(p.attr("databaseEngine"), "Aurora PostgreSQL" | "Any")
                        && usage(p, prefix, "Aurora:StorageUsage")
                }),
            },
            "aurora-io" => Rule {
                key: key.to_owned(),
                offer: OFFER,
                unit: "million requests",
                offer_units: units::IOS,
                scale: 1_000_000,
                wants: "Aurora I/O requests on standard storage (Aurora:StorageIOUsage)".to_owned(),
                global: false,
                test: Box::new(|p, prefix| {
                    matches!(p.attr("databaseEngine"), "Aurora PostgreSQL" | "Any")
                        && usage(p, prefix, "Aurora:StorageIOUsage")
                }),
            },
            _ => return None,
        }
    };
    Some(Lookup::Rule(rule))
}

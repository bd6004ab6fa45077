//! `AmazonCloudWatch`: a standard-resolution metric alarm a month (`CW:AlarmMonitorUsage`),
//! and CloudWatch Logs' ingestion (`DataProcessing-Bytes`, the Standard log class) and storage
//! (`TimedStorage-ByteHrs`) of the workloads' log groups. Traps: high-resolution alarms
//! (`CW:HighResAlarmMonitorUsage`), metrics (`CW:MetricMonitorUsage`), vended logs
//! (`VendedLog-Bytes`, tiered) and the Infrequent Access log class (`DataProcessingIA-Bytes`).
//! The usage types were read in public tools that index this offer (docs/catalogue.md).

use super::{Lookup, Rule, units, usage};

/// The rule of an `AmazonCloudWatch` key, if the key is one.
pub(crate) fn rule(key: &str) -> Option<Lookup> {
    let (unit, offer_units, kind, wants): (_, &'static [&'static str], _, _) = match key {
        "alarm" => (
            "alarm-month",
            units::ALARMS,
            "CW:AlarmMonitorUsage",
            "standard-resolution alarms (CW:AlarmMonitorUsage)",
        ),
        "logs-ingestion" => {
            ("GB", units::GB, "DataProcessing-Bytes", "Standard-class log ingestion (DataProcessing-Bytes)")
        }
        "logs-storage" => {
            ("GB-month", units::GB_MONTH, "TimedStorage-ByteHrs", "log storage (TimedStorage-ByteHrs)")
        }
        _ => return None,
    };
    Some(Lookup::Rule(Rule {
        key: key.to_owned(),
        offer: "AmazonCloudWatch",
        unit,
        offer_units,
        scale: 1,
        wants: wants.to_owned(),
        global: false,
        test: Box::new(move |p, prefix| usage(p, prefix, kind)),
    }))
}

//! What a workload's desired count follows (`scale.<env>.on`), when it runs at all
//! (`scale.<env>.active`), and which estimate an environment's cap refuses on (`limits.on`).

use indexmap::IndexMap;
use serde::Serialize;

/// `scale.<env>` beyond `min` and `max`: the metrics it follows and its active hours.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Scaling {
    /// `on`: the target-tracking metrics; `None` follows the CPU at the default target.
    pub on: Option<ScaleOn>,
    /// `active`: the hours it runs; `None` runs all the time.
    pub active: Option<Active>,
}

/// `scale.<env>.on`: one target-tracking policy per metric written.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ScaleOn {
    /// Average CPU utilisation, percent (`cpu: 60%`).
    pub cpu: Option<u32>,
    /// Average memory utilisation, percent (`memory: 70%`).
    pub memory: Option<u32>,
    /// Requests per target a minute through the load balancer (`requests: 500`), public only.
    pub requests: Option<u32>,
    /// Messages visible per running task, by queue the workload uses (`queue: { jobs: 100 }`).
    pub queue: IndexMap<String, u32>,
}

/// `scale.<env>.active`: the days and hours it runs in a timezone; outside them it runs no task.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Active {
    /// The days it runs, Monday first (`days: Mon-Fri`).
    pub days: [bool; 7],
    /// The minute of the day it starts (`hours: 07:00-20:00`).
    pub from_minute: u32,
    /// The minute of the day it stops, after `from_minute`.
    pub to_minute: u32,
    /// The IANA timezone the hours are in (`Europe/Berlin`).
    pub timezone: String,
}

/// The days of the week as written, Monday first.
pub const WEEKDAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

impl Active {
    /// Hours it runs a week.
    pub fn hours_a_week(&self) -> rust_decimal::Decimal {
        let days = self.days.iter().filter(|d| **d).count();
        let minutes = u64::from(self.to_minute - self.from_minute) * days as u64;
        rust_decimal::Decimal::from(minutes) / rust_decimal::Decimal::from(60)
    }

    /// The days as a cron day-of-week field (`MON-FRI`, `MON,WED`), ranges joined.
    pub fn cron_days(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        let mut i = 0;
        while i < 7 {
            if !self.days[i] {
                i += 1;
                continue;
            }
            let start = i;
            while i + 1 < 7 && self.days[i + 1] {
                i += 1;
            }
            let name = |d: usize| WEEKDAYS[d].to_ascii_uppercase();
            parts.push(if start == i { name(i) } else { format!("{}-{}", name(start), name(i)) });
            i += 1;
        }
        parts.join(",")
    }
}

/// `limits.on`: which estimate the cap refuses on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum CapOn {
    /// Every workload at `min` tasks within its active hours, none outside (the default:
    /// what the cap has always been compared with, the estimate at `scale.min`).
    #[default]
    Floor,
    /// Every workload at its typical count (midway between `min` and `max`, rounded up)
    /// within its active hours.
    Typical,
    /// Every workload at `max` tasks all month.
    Ceiling,
}

impl CapOn {
    /// The three, in order.
    pub const ALL: [CapOn; 3] = [CapOn::Floor, CapOn::Typical, CapOn::Ceiling];
    /// As written in files.
    pub const NAMES: [&'static str; 3] = ["floor", "typical", "ceiling"];

    /// As written in files.
    pub fn as_str(self) -> &'static str {
        match self {
            CapOn::Floor => "floor",
            CapOn::Typical => "typical",
            CapOn::Ceiling => "ceiling",
        }
    }
}

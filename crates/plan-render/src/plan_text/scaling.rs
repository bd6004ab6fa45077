//! How a workload scales, under its row of the workloads table: the metrics its scaling
//! policies track and the hours it runs, read from the plan's scaling items.

use runtime_plan::plan::{ItemSpec, PlannedItem, PlannedWorkload, ScalingSource};

use super::sorted::Sorted;

/// The plan's items by id, made once for the whole text: a search of the whole item list per
/// workload made the text of a 10,000-resource plan take a minute and a half.
pub(super) struct Index<'i, 'p>(pub(super) &'i Sorted<'p, PlannedItem>);

impl<'p> Index<'_, 'p> {
    fn item(&self, id: &str) -> Option<&'p PlannedItem> {
        self.0.get(id)
    }

    /// `scales on cpu 70%, queue jobs 100 per task; active MON-FRI 07:00-20:00 Europe/Berlin`,
    /// or nothing for a workload with a fixed number of tasks.
    pub(super) fn text(&self, w: &PlannedWorkload) -> Option<String> {
        let items = || w.items.iter().filter_map(|id| self.item(id));
        let metrics: Vec<String> = items()
            .filter_map(|i| {
                let ItemSpec::ScalingPolicy(policy) = &i.spec else { return None };
                Some(self.metric_text(&policy.metric, policy.target_value, policy.source.as_ref()))
            })
            .collect();
        let active = items().find_map(|i| {
            let ItemSpec::ScalingTarget(target) = &i.spec else { return None };
            let a = target.active.as_ref()?;
            Some(format!("active {} {}", hours_text(&a.start, &a.stop), a.timezone))
        });
        let mut parts = Vec::new();
        if !metrics.is_empty() {
            parts.push(format!("scales on {}", metrics.join(", ")));
        }
        parts.extend(active);
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    fn metric_text(&self, metric: &str, value: u32, source: Option<&ScalingSource>) -> String {
        match (metric, source) {
            ("ECSServiceAverageCPUUtilization", _) => format!("cpu {value}%"),
            ("ECSServiceAverageMemoryUtilization", _) => format!("memory {value}%"),
            ("ALBRequestCountPerTarget", _) => format!("{value} requests a minute per task"),
            (_, Some(ScalingSource::Queue { queue, .. })) => {
                let name = self.item(queue).map_or(queue.as_str(), |q| q.owner_name());
                format!("queue {name} {value} per task")
            }
            (other, _) => format!("{other} {value}"),
        }
    }
}

/// `MON-FRI 07:00-20:00` from the scheduled actions' `cron(M H ? * DAYS *)` pair.
fn hours_text(start: &str, stop: &str) -> String {
    let fields = |cron: &str| -> Option<(String, String)> {
        let inner = cron.strip_prefix("cron(")?.strip_suffix(')')?;
        let f: Vec<&str> = inner.split(' ').collect();
        let (m, h, days) = (f.first()?.parse::<u32>().ok()?, f.get(1)?.parse::<u32>().ok()?, f.get(4)?);
        Some((format!("{h:02}:{m:02}"), (*days).to_owned()))
    };
    match (fields(start), fields(stop)) {
        (Some((from, days)), Some((to, _))) => format!("{days} {from}-{to}"),
        _ => format!("{start} to {stop}"),
    }
}

//! Hover: what a resource or workload is, what each environment declares for it and costs a
//! month, and the environment's total against its cap; on a size, what it declares and costs.

use std::fmt::Write as _;

use runtime_plan::{Plan, PlannedResource, PlannedWorkload};
use runway_schema::Money;

use crate::analysis::Analysis;
use crate::cursor::{Owner, Target};

/// The hover text (markdown) of a target, or `None` when it names nothing declared.
pub fn hover(analysis: &Analysis, target: &Target) -> Option<String> {
    match target {
        Target::Resource(name) | Target::Use(name) => resource(analysis, name),
        Target::Workload(name) => workload(analysis, name),
        Target::Size { owner, env } => size(analysis, owner, env),
        Target::Shared { env, engine } => shared(analysis, env, engine),
    }
}

/// `$12.34`, or `unpriced`.
fn money(m: Option<Money>) -> String {
    m.map_or_else(|| "unpriced".to_owned(), |m| format!("${m}"))
}

/// The environment's estimate against its cap: `$120.00 of $150.00 cap: within`.
fn total(plan: &Plan) -> String {
    let c = &plan.cost;
    match c.cap {
        Some(cap) => format!("${} of ${cap} cap: {}", c.monthly, c.verdict.text(c.refused)),
        None => format!("${}, no cap", c.monthly),
    }
}

/// Why there is no figure: the runway has errors, so nothing is planned.
fn unplanned(analysis: &Analysis) -> String {
    let n = analysis.errors;
    let errors = if n == 1 { "1 error".to_owned() } else { format!("{n} errors") };
    format!("No estimate: the runway has {errors}; cost shows once they are fixed.")
}

/// The kind as declared, read from the root's text (for a runway that does not plan).
fn declared_kind(analysis: &Analysis, name: &str) -> Option<String> {
    let tree = analysis.root_tree()?;
    tree.root().get("resources")?.get(name)?.get("kind")?.text()
}

fn resource(analysis: &Analysis, name: &str) -> Option<String> {
    let rows: Vec<(&Plan, &PlannedResource)> = analysis
        .plans
        .iter()
        .filter_map(|p| p.resources.iter().find(|r| r.name == name).map(|r| (p, r)))
        .collect();
    let mut out = String::new();
    let Some((_, first)) = rows.first() else {
        let kind = declared_kind(analysis, name)?;
        let _ = write!(out, "**{name}** · {kind}\n\n{}", unplanned(analysis));
        return Some(out);
    };
    let version = first.version.as_deref().map(|v| format!(" {v}")).unwrap_or_default();
    let _ = writeln!(
        out,
        "**{name}** · {} ({}{version}), {}\n",
        first.kind.as_str(),
        first.engine,
        first.origin.as_str()
    );
    out.push_str("| environment | size | declares | a month | environment total |\n|---|---|---|---|---|\n");
    for (plan, r) in &rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            plan.environment,
            r.size,
            r.summary,
            money(r.monthly),
            total(plan)
        );
    }
    let consumers = &first.consumers;
    if !consumers.is_empty() {
        let names: Vec<&str> = consumers.iter().map(|c| c.as_str()).collect();
        let _ = write!(out, "\nUsed by: {}", names.join(", "));
    }
    Some(out)
}

/// `0.25 vCPU, 0.5 GB` from ECS units.
fn task_text(w: &PlannedWorkload) -> String {
    let vcpu = f64::from(w.task.cpu) / 1024.0;
    let gb = f64::from(w.task.memory_mib) / 1024.0;
    format!("{vcpu} vCPU, {gb} GB")
}

fn tasks_text(w: &PlannedWorkload) -> String {
    if w.min == w.max { w.min.to_string() } else { format!("{}–{}", w.min, w.max) }
}

fn workload_cost(w: &PlannedWorkload) -> String {
    if w.min == w.max || w.ceiling == w.monthly {
        money(w.monthly)
    } else {
        format!("{} (up to {})", money(w.monthly), money(w.ceiling))
    }
}

fn workload(analysis: &Analysis, name: &str) -> Option<String> {
    let rows: Vec<(&Plan, &PlannedWorkload)> = analysis
        .plans
        .iter()
        .filter_map(|p| p.workloads.iter().find(|w| w.name == name).map(|w| (p, w)))
        .collect();
    let mut out = String::new();
    let Some((_, first)) = rows.first() else {
        let tree = analysis.root_tree()?;
        tree.root().get("workloads")?.get(name)?;
        let _ = write!(out, "**{name}** · workload\n\n{}", unplanned(analysis));
        return Some(out);
    };
    let port = first.port.map_or_else(|| "no port (a worker)".to_owned(), |p| format!("port {p}"));
    let _ = writeln!(out, "**{name}** · workload, {}, {port}\n", first.expose.as_str());
    out.push_str(
        "| environment | size | task | tasks | a month | environment total |\n|---|---|---|---|---|---|\n",
    );
    for (plan, w) in &rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            plan.environment,
            w.size,
            task_text(w),
            tasks_text(w),
            workload_cost(w),
            total(plan)
        );
    }
    if !first.uses.is_empty() {
        let names: Vec<&str> = first.uses.iter().map(|c| c.as_str()).collect();
        let _ = write!(out, "\nUses: {}", names.join(", "));
    }
    Some(out)
}

fn size(analysis: &Analysis, owner: &Owner, env: &str) -> Option<String> {
    let Some(plan) = analysis.plan(env) else {
        return Some(unplanned(analysis));
    };
    match owner {
        Owner::Resource(name) => {
            let r = plan.resources.iter().find(|r| r.name == *name)?;
            Some(format!(
                "**{}** `{}` in {env}: {}\n\n{} a month · {}",
                r.name,
                r.size,
                r.summary,
                money(r.monthly),
                total(plan)
            ))
        }
        Owner::Workload(name) => {
            let w = plan.workloads.iter().find(|w| w.name == *name)?;
            Some(format!(
                "**{}** `{}` in {env}: {} per task, {} task(s)\n\n{} a month · {}",
                w.name,
                w.size,
                task_text(w),
                tasks_text(w),
                workload_cost(w),
                total(plan)
            ))
        }
    }
}

fn shared(analysis: &Analysis, env: &str, engine: &str) -> Option<String> {
    let Some(plan) = analysis.plan(env) else {
        return Some(unplanned(analysis));
    };
    let name = format!("shared-{engine}");
    match plan.resources.iter().find(|r| r.name == name) {
        Some(r) => Some(format!(
            "**{name}** `{}` in {env}: {}\n\n{} a month · {}",
            r.size,
            r.summary,
            money(r.monthly),
            total(plan)
        )),
        None => Some(format!("**{name}**: no member requires `{engine}`, so nothing is planned in {env}.")),
    }
}

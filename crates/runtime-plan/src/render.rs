//! Text and JSON renderings of plans for the CLI.

use std::fmt::{self, Write as _};

use runway_schema::Money;
use serde::Serialize;

use crate::plan::{
    Binding, ConnectionSource, ConnectionVariable, Delivery, GeneratedSecret, Plan, PlannedResource,
    PlannedWorkload, Verdict,
};

fn money(m: Option<Money>) -> String {
    m.map_or_else(|| "unpriced".to_owned(), |m| format!("${m}"))
}

/// Pads rows of cells into aligned columns (two spaces apart), each line indented by two.
fn table(rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    let _ = write_table(rows, &mut out);
    out
}

/// [`table`], written to `out`.
fn write_table(rows: &[Vec<String>], out: &mut impl fmt::Write) -> fmt::Result {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| rows.iter().filter_map(|r| r.get(c)).map(|s| s.chars().count()).max().unwrap_or(0))
        .collect();
    let mut line = String::new();
    for r in rows {
        line.clear();
        line.push_str("  ");
        for (c, cell) in r.iter().enumerate() {
            if c + 1 == r.len() {
                line.push_str(cell);
            } else {
                write!(line, "{cell:<w$}  ", w = widths[c])?;
            }
        }
        out.write_str(line.trim_end())?;
        out.write_char('\n')?;
    }
    Ok(())
}

fn cap_text(p: &Plan) -> String {
    match (p.cost.cap, p.cost.verdict) {
        (Some(cap), Verdict::Over) => format!("over the cap ${cap}: REFUSED"),
        (Some(cap), Verdict::RefusedUnpriced) => format!("unpriced items under the cap ${cap}: REFUSED"),
        (Some(cap), _) => format!("within the cap ${cap}"),
        (None, _) => "no cap".to_owned(),
    }
}

/// The plan as text: resources, workloads, bindings, secrets layout, cost lines and the
/// total against the cap, then diagnostics.
pub fn render_plan_text(p: &Plan) -> String {
    let mut out = String::new();
    let _ = write_plan_text(p, &mut out);
    out
}

/// [`render_plan_text`], written to `out` as it is made (a large plan's text is never held
/// whole in memory; only one section's rows at a time).
pub fn write_plan_text(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    writeln!(out, "plan {} / {} ({})", p.product, p.environment, p.region)?;
    write_section(out, "resources", &p.resources, resource_row)?;
    write_section(out, "workloads", &p.workloads, workload_row)?;
    write_section(out, "bindings", &p.bindings, binding_row)?;
    crate::access::write(p, out)?;
    write_secrets(p, out)?;
    write_cost(p, out)?;
    write_diagnostics(p, out)
}

/// A titled section: one table row per record, or `(none)`.
fn write_section<T>(
    out: &mut impl fmt::Write,
    title: &str,
    records: &[T],
    row: impl Fn(&T) -> Vec<String>,
) -> fmt::Result {
    write!(out, "\n{title}\n")?;
    if records.is_empty() {
        return out.write_str("  (none)\n");
    }
    let rows: Vec<Vec<String>> = records.iter().map(row).collect();
    write_table(&rows, out)
}

fn resource_row(r: &PlannedResource) -> Vec<String> {
    vec![
        r.name.to_string(),
        r.kind.as_str().to_owned(),
        r.origin.as_str().to_owned(),
        r.size.to_string(),
        r.physical_name.to_string(),
        r.summary.to_string(),
        money(r.monthly),
    ]
}

fn workload_row(w: &PlannedWorkload) -> Vec<String> {
    vec![
        w.name.to_string(),
        w.size.to_string(),
        format!("{} vCPU-units/{} MiB", w.task.cpu, w.task.memory_mib),
        format!("{}..{}", w.min, w.max),
        w.expose.as_str().to_owned(),
        w.host.as_ref().or(w.dns_name.as_ref()).map(ToString::to_string).unwrap_or_default(),
        money(w.monthly),
        format!("ceiling {}", money(w.ceiling)),
    ]
}

fn binding_row(b: &Binding) -> Vec<String> {
    vec![
        b.consumer.to_string(),
        format!("-> {}", b.resource),
        b.infisical.to_string(),
        match b.delivery {
            Delivery::Ssm => "ssm".to_owned(),
            Delivery::EncoreSync => "encore sync".to_owned(),
            _ => "infisical".to_owned(),
        },
        b.variables.join(" "),
    ]
}

/// The secrets layout: generated values, connection variables, SSM parameters.
fn write_secrets(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    let s = &p.secrets;
    out.write_str("\nsecrets\n")?;
    if s.generated.is_empty() && s.connection.is_empty() && s.ssm_parameters.is_empty() {
        out.write_str("  (none)\n")?;
    }
    if !s.generated.is_empty() {
        out.write_str("  generated (secrets prepare, never shown):\n")?;
        let rows: Vec<Vec<String>> = s.generated.iter().map(generated_row).collect();
        write_table(&rows, out)?;
    }
    if !s.connection.is_empty() {
        out.write_str("  connection (secrets publish):\n")?;
        let rows: Vec<Vec<String>> = s.connection.iter().map(connection_row).collect();
        write_table(&rows, out)?;
    }
    if !s.ssm_parameters.is_empty() {
        writeln!(out, "  ssm parameters (SecureString, {}):", s.kms_key)?;
        let rows: Vec<Vec<String>> = s
            .ssm_parameters
            .iter()
            .map(|s| vec![format!("  {}", s.name), format!("read by {}", s.referenced_by.join(", "))])
            .collect();
        write_table(&rows, out)?;
    }
    Ok(())
}

fn generated_row(g: &GeneratedSecret) -> Vec<String> {
    vec![
        format!("  {}", g.variable),
        g.infisical.display(),
        g.secrets_manager.clone().map(|s| format!("+ Secrets Manager {s}")).unwrap_or_default(),
    ]
}

fn connection_row(c: &ConnectionVariable) -> Vec<String> {
    vec![
        format!("  {}", c.infisical.name),
        c.infisical.display(),
        match &c.source {
            ConnectionSource::Output { output } => format!("output {output}"),
            ConnectionSource::Literal { value } => format!("= {value}"),
            ConnectionSource::Template { template } => format!("= {template}"),
        },
    ]
}

/// Cost lines, unpriced items, the estimate and the ceiling, then the total against the cap.
fn write_cost(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    out.write_str("\ncost (a month, 730 hours)\n")?;
    let mut rows: Vec<Vec<String>> = p
        .cost
        .lines
        .iter()
        .map(|l| {
            vec![
                l.item.to_string(),
                l.line.what.to_string(),
                format!(
                    "{} {} x ${}",
                    l.line.quantity.normalize(),
                    l.line.unit,
                    l.line.unit_price.0.normalize()
                ),
                format!("${}", l.line.monthly),
            ]
        })
        .collect();
    for u in &p.cost.unpriced {
        rows.push(vec![u.item.to_string(), u.physical_name.to_string(), String::new(), "unpriced".into()]);
    }
    rows.push(vec![
        "estimate".into(),
        "workloads at scale.min".into(),
        String::new(),
        format!("${}", p.cost.monthly),
    ]);
    rows.push(vec![
        "ceiling".into(),
        "workloads at scale.max".into(),
        String::new(),
        format!("${}", p.cost.ceiling),
    ]);
    write_table(&rows, out)?;
    writeln!(out, "  total ${} a month: {}", p.cost.monthly, cap_text(p))?;
    if !p.cost.unpriced.is_empty() {
        out.write_str("  unpriced (never counted as $0):\n")?;
        for u in &p.cost.unpriced {
            writeln!(out, "    {}: {}", u.item, u.reason)?;
        }
    }
    Ok(())
}

/// Errors and warnings with their help, when there are any.
fn write_diagnostics(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    if p.diagnostics.is_empty() {
        return Ok(());
    }
    out.write_str("\ndiagnostics\n")?;
    for d in &p.diagnostics {
        let sev = if d.is_error() { "error" } else { "warning" };
        writeln!(out, "  {sev}[{}]: {}", d.code, d.message)?;
        if let Some(h) = &d.help {
            writeln!(out, "    help: {h}")?;
        }
    }
    Ok(())
}

/// Every environment side by side: estimate, ceiling, cap, verdict.
pub fn render_cost_text(plans: &[Plan]) -> String {
    let mut rows = vec![vec![
        "environment".to_owned(),
        "region".to_owned(),
        "estimate".to_owned(),
        "ceiling".to_owned(),
        "cap".to_owned(),
        "verdict".to_owned(),
    ]];
    for p in plans {
        rows.push(vec![
            p.environment.to_string(),
            p.region.to_string(),
            format!("${}", p.cost.monthly),
            format!("${}", p.cost.ceiling),
            p.cost.cap.map_or_else(|| "none".to_owned(), |c| format!("${c}")),
            match p.cost.unpriced.len() {
                0 => p.cost.verdict.text(p.cost.refused),
                n => format!("{} ({n} unpriced)", p.cost.verdict.text(p.cost.refused)),
            },
        ]);
    }
    table(&rows)
}

/// One environment of the `cost` command's JSON.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CostEnvironment {
    /// Environment name.
    pub name: String,
    /// Estimate.
    pub monthly: Money,
    /// Ceiling.
    pub ceiling: Money,
    /// Cap, when there is one.
    pub cap: Option<Money>,
    /// Verdict of the cost check (the word the text's verdict column starts with).
    pub verdict: Verdict,
    /// The plan is refused (exit 3): by its verdict, or by another error of the plan.
    pub refused: bool,
    /// Region.
    pub region: String,
    /// Logical ids of unpriced items.
    pub unpriced: Vec<String>,
}

/// The `cost` command's JSON shape:
/// `{"environments":[{"name","monthly","ceiling","cap","verdict","refused"}]}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CostReport {
    /// One entry per plan, in the order given.
    pub environments: Vec<CostEnvironment>,
}

/// The `cost` report of some plans.
pub fn cost_report(plans: &[Plan]) -> CostReport {
    CostReport {
        environments: plans
            .iter()
            .map(|p| CostEnvironment {
                name: p.environment.to_string(),
                monthly: p.cost.monthly,
                ceiling: p.cost.ceiling,
                cap: p.cost.cap,
                verdict: p.cost.verdict,
                refused: p.cost.refused,
                region: p.region.to_string(),
                unpriced: p.cost.unpriced.iter().map(|u| u.item.to_string()).collect(),
            })
            .collect(),
    }
}

/// Pretty JSON of any plan value (plan, diff, cost report), with a final newline.
pub fn to_json<T: Serialize>(value: &T) -> String {
    // Plan values hold only string-keyed maps, strings, numbers and booleans: serializing
    // them cannot fail.
    let mut s = serde_json::to_string_pretty(value).unwrap_or_default();
    s.push('\n');
    s
}

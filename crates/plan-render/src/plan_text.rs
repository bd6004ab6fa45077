//! The plan as text (`runway plan`), and the `cost` command's text and JSON shape.

use std::fmt;

use runway_schema::Money;
use serde::Serialize;

use runtime_plan::plan::{
    ApplyChanges, Binding, CompactString, ConnectionSource, ConnectionVariable, Delivery, Endpoints,
    GeneratedSecret, ParameterSource, ParameterWriter, Plan, PlannedItem, PlannedResource, PlannedWorkload,
    SsmParameter, Verdict,
};

mod access;
mod cost;
mod fixed;
mod scaling;
mod sorted;

use crate::table::{Line, Table, WIDTH, wrap, write_twice};
use sorted::Sorted;

fn money(m: Option<Money>) -> String {
    m.map_or_else(|| "unpriced".to_owned(), |m| format!("${m}"))
}

fn cap_text(p: &Plan) -> String {
    let on = match p.cost.cap_on {
        runway_schema::CapOn::Floor => String::new(),
        other @ (runway_schema::CapOn::Typical | runway_schema::CapOn::Ceiling) => {
            format!(" (judged on the {} figure)", other.as_str())
        }
    };
    let text = cap_verdict(p);
    if p.cost.cap.is_some() { format!("{text}{on}") } else { text }
}

/// The cap's verdict in words.
fn cap_verdict(p: &Plan) -> String {
    match (p.cost.cap, p.cost.verdict) {
        (Some(cap), Verdict::Over) => format!("over the cap ${cap}: REFUSED"),
        (Some(cap), Verdict::RefusedUnpriced) => format!("unpriced items under the cap ${cap}: REFUSED"),
        (Some(cap), _) => format!("within the cap ${cap}"),
        (None, _) => "no cap".to_owned(),
    }
}

/// The plan as text: resources, workloads, bindings, secrets layout, cost lines and the
/// total against the cap, then diagnostics. Every table has a header row; items are named
/// by their owner and what they are (`main-db RDS instance`), never by logical id; lines fit
/// 100 columns for names up to 30 characters (a longer name widens its lines, never cut).
pub fn render_plan_text(p: &Plan) -> String {
    let mut out = String::new();
    let _ = write_plan_text(p, &mut out);
    out
}

/// [`render_plan_text`], written to `out` as it is made: no table's rows are held (each is
/// made twice, for the columns' widths then for its lines), so a large plan's text adds about
/// 1 MB to the plan it writes (N = 10,000; docs/benchmarks.md, "seventh pass: mem-render").
pub fn write_plan_text(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    writeln!(out, "plan {} / {} ({})", p.product, p.environment, p.region)?;
    // The items by id, for every section that names an item by its label.
    let items = Sorted::by(&p.items, |i| i.id.as_str());
    write_settings(p, out)?;
    fixed::write(p, out)?;
    write_section(
        out,
        "resources",
        &["name", "kind", "origin", "size", "monthly", "AWS name / declares"],
        &p.resources,
        resource_row,
    )?;
    let scaling = scaling::Index(&items);
    write_section(
        out,
        "workloads",
        &[
            "name",
            "size",
            "CPU units",
            "memory",
            "arch",
            "tasks",
            "expose",
            "monthly",
            "ceiling",
            "address / scaling",
        ],
        &p.workloads,
        |w| workload_row(&scaling, w),
    )?;
    write_section(
        out,
        "bindings",
        &["consumer", "resource", "delivery", "variables"],
        &p.bindings,
        binding_row,
    )?;
    access::write(p, &items, out)?;
    write_secrets(p, &items, out)?;
    cost::write(p, &items, out)?;
    crate::previews::write_preview_text(p, out)?;
    write_diagnostics(p, out)
}

/// The environment's settings under the title, where they matter: when database and cache
/// changes take effect (with a database or cache), and VPC endpoints assumed present.
fn write_settings(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    if p.items.iter().any(|i| i.apply_immediately().is_some()) {
        write_note(out, 2, apply_changes_text(p.apply_changes))?;
    }
    match p.vpc_endpoints {
        Endpoints::Existing => write_note(
            out,
            2,
            "VPC endpoints: existing in the VPC and assumed present; none declared or charged \
             (network.endpoints: existing)",
        ),
        Endpoints::None | Endpoints::Declared => Ok(()),
    }
}

/// When database and cache changes take effect, as the plan's text says it.
pub fn apply_changes_text(apply: ApplyChanges) -> &'static str {
    match apply {
        ApplyChanges::Immediately => {
            "database and cache changes apply at the deploy (applyChanges: immediately)"
        }
        ApplyChanges::MaintenanceWindow => {
            "database and cache changes apply at their next maintenance window, not at the deploy \
             (applyChanges: maintenance-window)"
        }
    }
}

/// A titled table: a header and one row per record (its last column wraps), or `(none)`.
fn write_section<T>(
    out: &mut impl fmt::Write,
    title: &str,
    header: &[&str],
    records: &[T],
    row: impl Fn(&T) -> Vec<String>,
) -> fmt::Result {
    write!(out, "\n{title}\n")?;
    if records.is_empty() {
        return out.write_str("  (none)\n");
    }
    write_twice(out, (2, header, Some(header.len() - 1)), |emit| {
        records.iter().try_for_each(|r| emit(Line::Cells(&row(r))))
    })
}

fn resource_row(r: &PlannedResource) -> Vec<String> {
    vec![
        r.name.to_string(),
        r.kind.as_str().to_owned(),
        r.origin.as_str().to_owned(),
        r.size.to_string(),
        money(r.monthly),
        format!("{}\n{}", r.physical_name, r.summary),
    ]
}

fn workload_row(scaling: &scaling::Index<'_, '_>, w: &PlannedWorkload) -> Vec<String> {
    let address = w.host.as_ref().or(w.dns_name.as_ref()).map(ToString::to_string);
    let scaling = scaling.text(w);
    vec![
        w.name.to_string(),
        w.size.to_string(),
        w.task.cpu.to_string(),
        format!("{} MiB", w.task.memory_mib),
        w.platform.as_str().to_owned(),
        format!("{}..{}", w.min, w.max),
        // A worker listens on no port: nothing reaches it, whatever `expose` says.
        if w.port.is_some() { w.expose.as_str() } else { "worker" }.to_owned(),
        money(w.monthly),
        money(w.ceiling),
        address.into_iter().chain(scaling).collect::<Vec<_>>().join("\n"),
    ]
}

fn binding_row(b: &Binding) -> Vec<String> {
    vec![
        b.consumer.to_string(),
        b.resource.to_string(),
        match b.delivery {
            Delivery::Ssm => "ssm".to_owned(),
            Delivery::EncoreSync => "encore sync".to_owned(),
            Delivery::Infisical => "infisical".to_owned(),
        },
        b.variables.join(" "),
    ]
}

/// A note under a section: wrapped to the width, continuation lines indented two more.
fn write_note(out: &mut impl fmt::Write, indent: usize, text: &str) -> fmt::Result {
    for (i, line) in wrap(text, WIDTH - indent - 2).iter().enumerate() {
        let pad = if i == 0 { indent } else { indent + 2 };
        writeln!(out, "{:pad$}{line}", "")?;
    }
    Ok(())
}

/// The secrets layout: generated values, connection variables, the SSM parameters copied
/// from Infisical, and the workloads' own secrets, which people set.
fn write_secrets(p: &Plan, items: &Sorted<'_, PlannedItem>, out: &mut impl fmt::Write) -> fmt::Result {
    let s = &p.secrets;
    out.write_str("\nsecrets\n")?;
    if s.generated.is_empty()
        && s.registry_copies.is_empty()
        && s.connection.is_empty()
        && s.ssm_parameters.is_empty()
    {
        out.write_str("  (none)\n")?;
    }
    write_generated(p, out)?;
    write_registry_copies(p, out)?;
    write_connection(p, out)?;
    write_parameters(p, items, out)?;
    if s.ssm_parameters.iter().any(|p| p.source == ParameterSource::WorkloadSecret) {
        write_workload_secrets(p, out)?;
    }
    Ok(())
}

/// The values `runway secrets prepare` generates, then each database consumer's own login.
fn write_generated(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    let (logins, generated) = (
        || p.secrets.generated.iter().filter(|g| g.consumer.is_some()),
        || p.secrets.generated.iter().filter(|g| g.consumer.is_none()),
    );
    if generated().next().is_some() {
        write_note(out, 2, "generated by `runway secrets prepare`, written blind (never shown):")?;
        let header: &[&str] = &["variable", "infisical", "Secrets Manager copy"];
        write_twice(out, (4, header, Some(2)), |emit| {
            generated().try_for_each(|g| emit(Line::Cells(&generated_row(g))))
        })?;
    }
    if logins().next().is_some() {
        write_note(out, 2, "each database consumer's own login, its password generated the same way:")?;
        let header: &[&str] = &["role", "infisical, then its Secrets Manager copy"];
        write_twice(out, (4, header, Some(1)), |emit| {
            logins().try_for_each(|g| {
                let role = g.secrets_manager_username.as_ref().map(ToString::to_string).unwrap_or_default();
                let copy = g.secrets_manager.as_ref().map(ToString::to_string).unwrap_or_default();
                let place = format!("{}/{}", g.infisical.display(), g.infisical.name);
                emit(Line::Cells(&[role, format!("{place}\n{copy}")]))
            })
        })?;
    }
    Ok(())
}

/// The registry credentials copied from Infisical to Secrets Manager.
fn write_registry_copies(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    let copies = &p.secrets.registry_copies;
    if copies.is_empty() {
        return Ok(());
    }
    write_note(
        out,
        2,
        "registry credentials a person sets in Infisical, copied by `runway secrets prepare`:",
    )?;
    let header: &[&str] = &["workload", "Secrets Manager copy", "from infisical"];
    write_twice(out, (4, header, Some(2)), |emit| {
        copies.iter().try_for_each(|c| {
            let from = format!(
                "{}/{}\n{}/{}",
                c.username.display(),
                c.username.name,
                c.password.display(),
                c.password.name
            );
            emit(Line::Cells(&[c.workload.to_string(), c.secrets_manager.to_string(), from]))
        })
    })
}

/// The connection variables `runway secrets publish` writes, then each login's, under its
/// folder.
fn write_connection(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    let all = &p.secrets.connection;
    let connection = || all.iter().filter(|c| c.consumer.is_none());
    if connection().next().is_some() {
        write_note(out, 2, "connection variables, written by `runway secrets publish`:")?;
        let header: &[&str] = &["variable", "infisical", "value"];
        write_twice(out, (4, header, Some(2)), |emit| {
            connection().try_for_each(|c| emit(Line::Cells(&connection_row(c))))
        })?;
    }
    // A login's variables, each run of one folder under its note (long: its own line).
    let mut logins = all.iter().filter(|c| c.consumer.is_some()).peekable();
    while let Some(first) = logins.peek() {
        let folder = first.infisical.display();
        let run = logins.clone().take_while(|c| c.infisical.display() == folder);
        let note = format!("a consumer's own login: variables `runway secrets publish` writes to {folder}:");
        write_note(out, 2, &note)?;
        write_twice(out, (4, &["variable", "value"], Some(1)), |emit| {
            run.clone().try_for_each(|c| {
                let mut row = connection_row(c);
                row.remove(1);
                emit(Line::Cells(&row))
            })
        })?;
        while logins.next_if(|c| c.infisical.display() == folder).is_some() {}
    }
    Ok(())
}

/// The SSM parameters copied from Infisical, then those the program writes: each with the
/// items that read it (a login's own parameters each on its line, their readers below).
fn write_parameters(p: &Plan, items: &Sorted<'_, PlannedItem>, out: &mut impl fmt::Write) -> fmt::Result {
    let s = &p.secrets;
    // A workload's own secret has a section of its own: people set it before `prepare` copies it.
    let by = |w: ParameterWriter| {
        s.ssm_parameters.iter().filter(move |p| p.written_by == w && p.source == ParameterSource::Resource)
    };
    if !s.ssm_parameters.is_empty() {
        write_note(out, 2, &format!("every parameter is a SecureString under the KMS key {}", s.kms_key))?;
    }
    for (writer, note) in [
        (ParameterWriter::SecretsPrepare, "ssm parameters `runway secrets prepare` copies from Infisical"),
        (ParameterWriter::Program, "ssm parameters the program writes before a service reads them"),
    ] {
        let rows = || by(writer).filter(|s| s.consumer.is_none());
        let login_rows = || by(writer).filter(|s| s.consumer.is_some());
        let (any_rows, any_logins) = (rows().next().is_some(), login_rows().next().is_some());
        if any_rows || any_logins {
            write_note(out, 2, &format!("{note}:"))?;
        }
        if any_rows {
            write_twice(out, (4, &["parameter", "read by"], Some(1)), |emit| {
                rows().try_for_each(|s| emit(Line::Cells(&parameter_row(s, items))))
            })?;
        }
        if any_logins {
            let header: &[&str] = &["parameter of a consumer's own login"];
            write_twice(out, (4, header, Some(0)), |emit| {
                login_rows()
                    .try_for_each(|s| emit(Line::Cells(&[parameter_row(s, items).join("\n  read by ")])))
            })?;
        }
    }
    Ok(())
}

/// A parameter and the items that read it, as people read them.
fn parameter_row(s: &SsmParameter, items: &Sorted<'_, PlannedItem>) -> [String; 2] {
    let label = |id: &CompactString| items.get(id).map_or_else(|| id.to_string(), PlannedItem::label);
    let by: Vec<String> = s.referenced_by.iter().map(label).collect();
    [s.name.to_string(), by.join(", ")]
}

/// The workloads' own secrets: where a person sets each one (Infisical, the workload's
/// folder), the parameter `runway secrets prepare` copies it to, and what the commands say
/// while it is unset.
fn write_workload_secrets(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    write_note(
        out,
        2,
        "workload secrets: values a person sets in Infisical, copied by `runway secrets prepare`:",
    )?;
    // Place and parameter are long: each on its own line below the secret.
    let own = || p.secrets.ssm_parameters.iter().filter(|p| p.source == ParameterSource::WorkloadSecret);
    write_twice(out, (4, &["workload secret"], Some(0)), |emit| {
        own().try_for_each(|s| {
            let place =
                s.infisical.as_ref().map(|i| format!("{}/{}", i.display(), i.name)).unwrap_or_default();
            emit(Line::Cells(&[format!(
                "{} {}\n  set in {place}\n  copied to {}",
                s.owner, s.variable, s.name
            )]))
        })
    })?;
    write_note(
        out,
        4,
        "`runway secrets prepare` copies each to its parameter (`runway ssm publish` after a \
         change, restarting the services that read it). Set each one before the workload's first \
         deploy: until then `runway secrets prepare` does everything else, then exits 1 naming \
         each place to set; `runway ssm verify` reports `missing` with the parameter's name.",
    )
}

fn generated_row(g: &GeneratedSecret) -> [String; 3] {
    [
        g.variable.to_string(),
        g.infisical.display(),
        g.secrets_manager.as_ref().map(ToString::to_string).unwrap_or_default(),
    ]
}

fn connection_row(c: &ConnectionVariable) -> Vec<String> {
    vec![
        c.infisical.name.to_string(),
        c.infisical.display(),
        match &c.source {
            ConnectionSource::Output { output } => format!("stack output {output}"),
            ConnectionSource::Literal { value } => value.to_string(),
            ConnectionSource::Template { template } => template.to_string(),
        },
    ]
}

/// Errors and warnings with their help, when there are any, wrapped to the width.
fn write_diagnostics(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    if p.diagnostics.is_empty() {
        return Ok(());
    }
    out.write_str("\ndiagnostics\n")?;
    for d in &p.diagnostics {
        let sev = if d.is_error() { "error" } else { "warning" };
        write_note(out, 2, &format!("{sev}[{}]: {}", d.code, d.message))?;
        if let Some(h) = &d.help {
            write_note(out, 4, &format!("help: {h}"))?;
        }
    }
    Ok(())
}

/// Every environment side by side: estimate, ceiling, cap, verdict.
pub fn render_cost_text(plans: &[Plan]) -> String {
    let mut t = Table::new(2, &["environment", "region", "estimate", "ceiling", "cap", "verdict"]);
    for p in plans {
        t.row(vec![
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
    let mut out = String::new();
    let _ = t.write(&mut out);
    out
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

/// The next run times of the plan's schedules (`runtime_plan::Plan::next_runs`, from a clock
/// the caller read): one line per schedule, nothing without schedules.
pub fn write_next_runs(runs: &[runtime_plan::NextRuns], out: &mut impl fmt::Write) -> fmt::Result {
    if runs.is_empty() {
        return Ok(());
    }
    writeln!(out, "next runs")?;
    for r in runs {
        let times = if r.times.is_empty() { "none within five years".to_owned() } else { r.times.join(", ") };
        writeln!(out, "  {}/{} ({}, {}): {times}", r.workload, r.schedule, r.cron, r.timezone)?;
    }
    Ok(())
}

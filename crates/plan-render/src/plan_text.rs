//! The plan as text (`runway plan`), and the `cost` command's text and JSON shape.

use std::fmt;

use runway_schema::Money;
use serde::Serialize;

use runtime_plan::plan::{
    ApplyChanges, Binding, BudgetBasis, CompactString, ConnectionSource, ConnectionVariable, CostLine,
    Delivery, Endpoints, GeneratedSecret, ItemSpec, ParameterSource, ParameterWriter, Plan, PlannedItem,
    PlannedResource, PlannedWorkload, SsmParameter, UnpricedItem, Verdict,
};

mod access;
mod fixed;
mod scaling;

use std::collections::BTreeMap;

use crate::table::{Row, Rows, Table, WIDTH, wrap};

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

/// [`render_plan_text`], written to `out` as it is made (a large plan's text is never held
/// whole in memory; only one section's rows at a time).
pub fn write_plan_text(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    writeln!(out, "plan {} / {} ({})", p.product, p.environment, p.region)?;
    write_settings(p, out)?;
    fixed::write(p, out)?;
    write_section(
        out,
        "resources",
        &["name", "kind", "origin", "size", "monthly", "AWS name / declares"],
        &p.resources,
        resource_row,
    )?;
    let scaling = scaling::Index::of(p);
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
    access::write(p, out)?;
    write_secrets(p, out)?;
    write_cost(p, out)?;
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
    let rows = records.iter().map(|r| Row::Cells(row(r))).collect();
    Table { indent: 2, header, rows, flex: Some(header.len() - 1) }.write(out)
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

fn workload_row(scaling: &scaling::Index<'_>, w: &PlannedWorkload) -> Vec<String> {
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
fn write_secrets(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    let s = &p.secrets;
    out.write_str("\nsecrets\n")?;
    if s.generated.is_empty()
        && s.registry_copies.is_empty()
        && s.connection.is_empty()
        && s.ssm_parameters.is_empty()
    {
        out.write_str("  (none)\n")?;
    }
    let (logins, generated): (Vec<&GeneratedSecret>, Vec<&GeneratedSecret>) =
        s.generated.iter().partition(|g| g.consumer.is_some());
    if !generated.is_empty() {
        write_note(out, 2, "generated by `runway secrets prepare`, written blind (never shown):")?;
        let rows = generated.iter().map(|g| Row::Cells(generated_row(g))).collect();
        let header = &["variable", "infisical", "Secrets Manager copy"];
        Table { indent: 4, header, rows, flex: Some(2) }.write(out)?;
    }
    if !logins.is_empty() {
        write_note(out, 2, "each database consumer's own login, its password generated the same way:")?;
        let rows = logins
            .iter()
            .map(|g| {
                let role = g.secrets_manager_username.as_ref().map(ToString::to_string).unwrap_or_default();
                let copy = g.secrets_manager.as_ref().map(ToString::to_string).unwrap_or_default();
                let place = format!("{}/{}", g.infisical.display(), g.infisical.name);
                Row::Cells(vec![role, format!("{place}\n{copy}")])
            })
            .collect();
        let header = &["role", "infisical, then its Secrets Manager copy"];
        Table { indent: 4, header, rows, flex: Some(1) }.write(out)?;
    }
    if !s.registry_copies.is_empty() {
        write_note(
            out,
            2,
            "registry credentials a person sets in Infisical, copied by `runway secrets prepare`:",
        )?;
        let rows = s
            .registry_copies
            .iter()
            .map(|c| {
                let from = format!(
                    "{}/{}\n{}/{}",
                    c.username.display(),
                    c.username.name,
                    c.password.display(),
                    c.password.name
                );
                Row::Cells(vec![c.workload.to_string(), c.secrets_manager.to_string(), from])
            })
            .collect();
        let header = &["workload", "Secrets Manager copy", "from infisical"];
        Table { indent: 4, header, rows, flex: Some(2) }.write(out)?;
    }
    let (login_vars, connection): (Vec<&ConnectionVariable>, Vec<&ConnectionVariable>) =
        s.connection.iter().partition(|c| c.consumer.is_some());
    if !connection.is_empty() {
        write_note(out, 2, "connection variables, written by `runway secrets publish`:")?;
        let rows = connection.iter().map(|c| Row::Cells(connection_row(c))).collect();
        Table { indent: 4, header: &["variable", "infisical", "value"], rows, flex: Some(2) }.write(out)?;
    }
    // A login's variables, each login's under its folder (long: its own line).
    let mut start = 0;
    while start < login_vars.len() {
        let folder = login_vars[start].infisical.display();
        let end = login_vars[start..]
            .iter()
            .position(|c| c.infisical.display() != folder)
            .map_or(login_vars.len(), |n| start + n);
        let note = format!("a consumer's own login: variables `runway secrets publish` writes to {folder}:");
        write_note(out, 2, &note)?;
        let rows = login_vars[start..end]
            .iter()
            .map(|c| {
                let mut row = connection_row(c);
                row.remove(1);
                Row::Cells(row)
            })
            .collect();
        Table { indent: 4, header: &["variable", "value"], rows, flex: Some(1) }.write(out)?;
        start = end;
    }
    // A workload's own secret has a section of its own: people set it before `prepare` copies it.
    let by = |w: ParameterWriter| {
        s.ssm_parameters.iter().filter(move |p| p.written_by == w && p.source == ParameterSource::Resource)
    };
    let labels: BTreeMap<&str, &PlannedItem> = p.items.iter().map(|i| (i.id.as_str(), i)).collect();
    if !s.ssm_parameters.is_empty() {
        write_note(out, 2, &format!("every parameter is a SecureString under the KMS key {}", s.kms_key))?;
    }
    for (writer, note) in [
        (ParameterWriter::SecretsPrepare, "ssm parameters `runway secrets prepare` copies from Infisical"),
        (ParameterWriter::Program, "ssm parameters the program writes before a service reads them"),
    ] {
        let rows: Rows = by(writer)
            .filter(|s| s.consumer.is_none())
            .map(|s| Row::Cells(parameter_row(s, &labels)))
            .collect();
        // A login's own parameters have long names: each on its line, its readers below.
        let login_rows: Rows = by(writer)
            .filter(|s| s.consumer.is_some())
            .map(|s| Row::Cells(vec![parameter_row(s, &labels).join("\n  read by ")]))
            .collect();
        if !rows.is_empty() || !login_rows.is_empty() {
            write_note(out, 2, &format!("{note}:"))?;
        }
        if !rows.is_empty() {
            Table { indent: 4, header: &["parameter", "read by"], rows, flex: Some(1) }.write(out)?;
        }
        if !login_rows.is_empty() {
            let header = &["parameter of a consumer's own login"];
            Table { indent: 4, header, rows: login_rows, flex: Some(0) }.write(out)?;
        }
    }
    let own: Vec<&SsmParameter> =
        s.ssm_parameters.iter().filter(|p| p.source == ParameterSource::WorkloadSecret).collect();
    if !own.is_empty() {
        write_workload_secrets(out, &own)?;
    }
    Ok(())
}

/// A parameter and the items that read it, as people read them.
fn parameter_row(s: &SsmParameter, labels: &BTreeMap<&str, &PlannedItem>) -> Vec<String> {
    let label = |id: &CompactString| labels.get(id.as_str()).map_or_else(|| id.to_string(), |i| i.label());
    let by: Vec<String> = s.referenced_by.iter().map(label).collect();
    vec![s.name.to_string(), by.join(", ")]
}

/// The workloads' own secrets: where a person sets each one (Infisical, the workload's
/// folder), the parameter `runway secrets prepare` copies it to, and what the commands say
/// while it is unset.
fn write_workload_secrets(out: &mut impl fmt::Write, own: &[&SsmParameter]) -> fmt::Result {
    write_note(
        out,
        2,
        "workload secrets: values a person sets in Infisical, copied by `runway secrets prepare`:",
    )?;
    // Place and parameter are long: each on its own line below the secret.
    let rows = own
        .iter()
        .map(|s| {
            let place =
                s.infisical.as_ref().map(|i| format!("{}/{}", i.display(), i.name)).unwrap_or_default();
            Row::Cells(vec![format!("{} {}\n  set in {place}\n  copied to {}", s.owner, s.variable, s.name)])
        })
        .collect();
    Table { indent: 4, header: &["workload secret"], rows, flex: Some(0) }.write(out)?;
    write_note(
        out,
        4,
        "`runway secrets prepare` copies each to its parameter (`runway ssm publish` after a \
         change, restarting the services that read it). Set each one before the workload's first \
         deploy: until then `runway secrets prepare` does everything else, then exits 1 naming \
         each place to set; `runway ssm verify` reports `missing` with the parameter's name.",
    )
}

fn generated_row(g: &GeneratedSecret) -> Vec<String> {
    vec![
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

/// Cost lines grouped by owner (the environment, each resource, each workload), unpriced
/// items with their reason, the estimate and the ceiling, then the total against the cap.
fn write_cost(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    out.write_str("\ncost (a month, 730 hours)\n")?;
    let mut lines: BTreeMap<&str, Vec<&CostLine>> = BTreeMap::new();
    for l in &p.cost.lines {
        lines.entry(l.item.as_str()).or_default().push(l);
    }
    let unpriced: BTreeMap<&str, &UnpricedItem> =
        p.cost.unpriced.iter().map(|u| (u.item.as_str(), u)).collect();
    let mut rows = Rows::default();
    // Unpriced items by reason (many items share one), reasons in the order first met.
    let mut reasons: Vec<(&str, Vec<String>)> = Vec::new();
    let mut owner: Option<&str> = None;
    // Each owner's items together, owners in the order first met: the alarms, planned last,
    // join their resource's or workload's lines.
    let mut first_met: BTreeMap<&str, usize> = BTreeMap::new();
    for item in &p.items {
        let next = first_met.len();
        first_met.entry(item.owner_name()).or_insert(next);
    }
    let mut items: Vec<&PlannedItem> = p.items.iter().collect();
    items.sort_by_key(|i| first_met.get(i.owner_name()).copied().unwrap_or(usize::MAX));
    for item in items {
        let (item_lines, why) = (lines.get(item.id.as_str()), unpriced.get(item.id.as_str()));
        if item_lines.is_none() && why.is_none() {
            continue;
        }
        if owner != Some(item.owner_name()) {
            owner = Some(item.owner_name());
            rows.push(Row::Group(item.owner_name().to_owned()));
        }
        // An alarm's name goes in the wrapping column: `alarm cache-evictions (node 2)` as an
        // item would widen the item column past the page.
        let (mut what, named) = match item.what().strip_prefix("alarm ") {
            Some(name) if matches!(item.spec, ItemSpec::MetricAlarm { .. }) => {
                ("  alarm".to_owned(), Some(format!("{name}, standard alarm")))
            }
            _ => (format!("  {}", item.what()), None),
        };
        for l in item_lines.into_iter().flatten() {
            rows.push(Row::Cells(vec![
                std::mem::take(&mut what),
                named.clone().unwrap_or_else(|| l.line.what.to_string()),
                format!(
                    "{} {} x ${}",
                    quantity(l.line.quantity),
                    l.line.unit,
                    l.line.unit_price.0.normalize()
                ),
                format!("${}", l.line.monthly),
            ]));
        }
        if let Some(u) = why {
            match reasons.iter_mut().find(|(r, _)| *r == u.reason.as_str()) {
                Some((_, labels)) => labels.push(item.label()),
                None => reasons.push((u.reason.as_str(), vec![item.label()])),
            }
            let unpriced = match item.what().strip_prefix("alarm ") {
                Some(name) if named.is_some() => format!("{name}, not in the catalogue (why below)"),
                _ => "not in the catalogue (why below)".to_owned(),
            };
            rows.push(Row::Cells(vec![what, unpriced, String::new(), "unpriced".into()]));
        }
    }
    // The floor (the estimate), typical and ceiling figures; typical only where it differs.
    let typical = p.cost.typical.map(|t| ("typical", "workloads midway to scale.max", t));
    for (name, what, m) in std::iter::once(("estimate", "workloads at scale.min", p.cost.monthly))
        .chain(typical)
        .chain([("ceiling", "workloads at scale.max", p.cost.ceiling)])
    {
        rows.push(Row::Cells(vec![name.into(), what.into(), String::new(), format!("${m}")]));
    }
    let header = &["item", "what", "quantity x unit price", "monthly"];
    Table { indent: 2, header, rows, flex: Some(1) }.write(out)?;
    writeln!(out, "  total ${} a month: {}", p.cost.monthly, cap_text(p))?;
    if !p.cost.unpriced.is_empty() {
        writeln!(out, "  {} unpriced item(s), never counted as $0:", p.cost.unpriced.len())?;
        for (reason, labels) in &reasons {
            write_note(out, 4, &format!("why: {reason}"))?;
            write_note(out, 4, &format!("items: {}", labels.join(", ")))?;
        }
    }
    write_usage(p, out)?;
    write_usage_based(p, out)?;
    write_budget(p, out)
}

/// The amounts of use the estimate counts, each with where it comes from: declared in the
/// environment's `usage`, or the default of the item's size.
fn write_usage(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    if p.cost.usage.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "  usage counted in the estimate (a month; declare it under environments.{}.usage):",
        p.environment
    )?;
    let mut table = Table { flex: Some(3), ..Table::new(4, &["owner", "usage", "amount", "source"]) };
    // The title names the environment's `usage`: each key is shown from there.
    let prefix = format!("environments.{}.", p.environment);
    for u in &p.cost.usage {
        let from = u.from.strip_prefix(prefix.as_str()).unwrap_or(&u.from);
        table.row(vec![
            u.owner.as_deref().unwrap_or("environment").to_owned(),
            u.usage.as_str().to_owned(),
            format!("{} {}", u.amount.normalize(), u.unit),
            format!("{} ({from})", u.source.as_str()),
        ]);
    }
    table.write(out)
}

/// The rates of what is billed by use: shown, never added to the estimate.
fn write_usage_based(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    if p.cost.usage_based.is_empty() {
        return Ok(());
    }
    out.write_str("  billed by use, not in the estimate:\n")?;
    let mut table = Table { flex: Some(1), ..Table::new(4, &["item", "charge", "rate"]) };
    // By id once: a lookup per line would walk every item for each (quadratic in a large plan).
    let items: BTreeMap<&str, &PlannedItem> = p.items.iter().map(|i| (i.id.as_str(), i)).collect();
    for u in &p.cost.usage_based {
        let label = items.get(u.item.as_str()).map_or_else(|| u.item.to_string(), |i| i.label());
        let rate = match u.rate.unit_price {
            // `$0.5 / GB`, `$5 / 1M requests`: the column stays narrow enough for 30-character
            // names beside the longest charges.
            Some(price) => {
                format!("${} / {}", price.0.normalize(), u.rate.unit.replacen("million ", "1M ", 1))
            }
            None => "no price in the catalogue".to_owned(),
        };
        table.row(vec![label, u.rate.what.to_string(), rate]);
    }
    table.write(out)
}

/// The budget backstop of the environment, or that it has none.
fn write_budget(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    let budget = p.items.iter().find_map(|i| {
        let ItemSpec::Budget(budget) = &i.spec else { return None };
        Some((&budget.limit, &budget.alerts))
    });
    match budget {
        Some((limit, alerts)) => {
            let when: Vec<String> = alerts
                .iter()
                .map(|a| {
                    let basis = match a.basis {
                        BudgetBasis::Forecasted => "forecast",
                        BudgetBasis::Actual => "actual",
                    };
                    format!("{}% {basis}", a.percent)
                })
                .collect();
            writeln!(
                out,
                "  budget: AWS Budgets ${} a month, alerts at {}",
                limit.cents(),
                when.join(" and ")
            )
        }
        None => out.write_str("  budget: none (no cap, so no AWS Budgets backstop)\n"),
    }
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

/// A quantity as the cost table shows it: exact up to two decimals, else rounded to two with
/// `~` (hours within active hours are fractions such as 70.6101190476...; the line's monthly
/// figure stays exact).
fn quantity(q: rust_decimal::Decimal) -> String {
    let shown = q.round_dp(2);
    if shown == q { q.normalize().to_string() } else { format!("~{}", shown.normalize()) }
}

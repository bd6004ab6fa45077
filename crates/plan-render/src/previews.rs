//! A pull request's preview as text: what it shares with the environment it comes from,
//! where its own data and values live, and the pool's line (`runway plan` of a preview,
//! `runway preview up`, the review's line in `runway diff --base-ref`).

use std::fmt;

use runtime_plan::plan::Plan;
use runway_schema::Money;

/// The preview's section of its plan's text (nothing for an environment's plan).
pub fn write_preview_text(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    let Some(preview) = &p.preview else { return Ok(()) };
    writeln!(out)?;
    writeln!(out, "preview {} of pull request #{}, from {}", preview.name, preview.pr, preview.from)?;
    if let Some(domain) = &preview.domain {
        writeln!(out, "  hosts: <workload>.{domain}")?;
    }
    writeln!(out, "  shares with {} (not charged to the preview):", preview.from)?;
    for s in &preview.shares {
        let owner = s.owner.as_deref().unwrap_or("environment");
        writeln!(out, "    {owner} {} {}", s.kind.words(), s.physical_name)?;
    }
    for (resource, database) in &preview.databases {
        writeln!(out, "  its own database {database} in {resource}'s shared instance")?;
    }
    if !preview.left_out.is_empty() {
        writeln!(out, "  leaves out: {}", preview.left_out.join(", "))?;
    }
    writeln!(
        out,
        "  values: Infisical {}:{}, SSM {}/",
        preview.infisical_environment, preview.infisical_folder, preview.ssm_prefix
    )?;
    let days = preview.expire_after_seconds / 86_400;
    let hours = (preview.expire_after_seconds % 86_400) / 3_600;
    writeln!(out, "  expires {days}d {hours}h after it is made; at most {} previews live", preview.max)?;
    writeln!(out, "  adds ${} a month; the pool's cap ${}", p.cost.monthly.cents(), preview.pool_cap.cents())
}

/// The review's line: `preview pr-42 would add $14.20; previews $61.30 of $120.00` (the live
/// previews' total before this one, plus it, against the pool's cap).
pub fn preview_pool_line(name: &str, adds: Money, live: Money, cap: Money) -> String {
    let total = live + adds;
    format!("preview {name} would add ${}; previews ${} of ${}", cents(adds), cents(total), cents(cap))
}

/// A figure with its two decimals (`120.00`).
fn cents(m: Money) -> String {
    format!("{:.2}", m.cents().0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_line_names_the_preview_its_cost_and_the_pool() {
        let m = |t: &str| Money::parse(t).unwrap();
        assert_eq!(
            preview_pool_line("pr-42", m("14.2"), m("47.1"), m("120")),
            "preview pr-42 would add $14.20; previews $61.30 of $120.00"
        );
    }
}

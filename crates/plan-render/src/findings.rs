//! The preflight's findings as text (`runway preflight`).

use runtime_plan::preflight::{Finding, Severity};

/// The findings as text: errors first, then warnings, each with its help; a last line counts
/// them.
pub fn render_findings_text(environment: &str, findings: &[Finding]) -> String {
    let mut text = String::new();
    let mut sorted: Vec<&Finding> = findings.iter().collect();
    sorted.sort_by_key(|f| f.severity);
    for f in &sorted {
        text.push_str(&format!(
            "{}[{}] {}: {}\n  help: {}\n",
            f.severity.as_str(),
            f.check,
            f.subject,
            f.message,
            f.help
        ));
    }
    let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
    let warnings = findings.len() - errors;
    let verdict =
        if errors == 0 { "ready to deploy" } else { "not ready: fix the errors before `pulumi up`" };
    text.push_str(&format!("preflight {environment}: {errors} error(s), {warnings} warning(s); {verdict}\n"));
    text
}

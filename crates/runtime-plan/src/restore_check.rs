//! `restore.check`: the query a postgres resource declares, run by `runway restore` against a
//! restored copy before the copy is reported usable (and before `--switch` moves the product
//! onto it). Decided here, pure: which task runs it (the resource's bootstrap task definition,
//! whose image holds `psql` and whose secrets give the admin's login), the command that
//! replaces the container's ([`CHECK_COMMAND`]), the variables it is handed, the temporary
//! security group that lets that one task reach that one copy, and the tag that records the
//! result on the copy.
//!
//! How the task reaches the copy (an RDS instance, or an Aurora cluster through its writer:
//! the cluster's endpoint and the cluster's groups): the copy is made in the live one's
//! security groups, which admit only the proxy. Rather than open a group the live one shares
//! (or the bootstrap's group, which Pulumi owns), the run makes a group of its own, named
//! [`check_group_name`] (`<copy>-check`), that admits itself on the PostgreSQL port and sends
//! only there; the copy gets it beside its own groups, the check task gets it beside the
//! bootstrap's. The live instance or cluster never has it. After the task, it is taken off the copy and
//! deleted; a run again after a kill finds it by its name and does the same.

use compact_str::CompactString;
use serde::Serialize;

use crate::plan::{OneOffTask, Plan, TaskPurpose};

/// The copy's tag the check's result is recorded in: [`CHECK_PASSED`] or [`CHECK_FAILED`].
/// `--switch` moves the product only onto a copy whose check passed.
pub const CHECK_TAG: &str = "runway-check";
/// The [`CHECK_TAG`] value of a copy whose check passed.
pub const CHECK_PASSED: &str = "passed";
/// The [`CHECK_TAG`] value of a copy whose check failed.
pub const CHECK_FAILED: &str = "failed";

/// The container variable holding the copy's address (the task definition's `PGHOST` names
/// the proxy, which the command replaces with it).
pub const CHECK_HOST_VARIABLE: &str = "RUNWAY_CHECK_HOST";
/// The container variable holding the query.
pub const CHECK_SQL_VARIABLE: &str = "RUNWAY_CHECK_SQL";
/// Who starts a check task (`startedBy`): a later run adopts a check an interrupted run
/// started, never a bootstrap of the same task definition.
pub const CHECK_STARTED_BY: &str = "runway-restore-check";
/// The line the command writes to its log when the query ran, followed by its first row.
pub const CHECK_PASSED_LINE: &str = "runway-check: passed; first row: ";

/// The command that replaces the bootstrap container's for a check: `psql` connects to the
/// copy ([`CHECK_HOST_VARIABLE`]) as the admin (the task definition's `PGUSER`, `PGPASSWORD`,
/// `PGDATABASE`, `PGPORT`, `PGSSLMODE`), every transaction read-only (`PGOPTIONS`: the check
/// cannot change the copy), and runs [`CHECK_SQL_VARIABLE`] with `ON_ERROR_STOP`. A run that
/// cannot connect (psql's exit 2) is tried again as the bootstrap's is (its
/// `RUNWAY_BOOTSTRAP_ATTEMPTS` and `RUNWAY_BOOTSTRAP_PAUSE`); a query that fails exits with
/// psql's code, its error on stderr; one that runs writes [`CHECK_PASSED_LINE`] and its first
/// row, and exits 0. No `${` in it (as the bootstrap's).
pub const CHECK_COMMAND: [&str; 3] = [
    "sh",
    "-c",
    "[ -n \"$RUNWAY_BOOTSTRAP_ATTEMPTS\" ] || RUNWAY_BOOTSTRAP_ATTEMPTS=1; \
     [ -n \"$RUNWAY_BOOTSTRAP_PAUSE\" ] || RUNWAY_BOOTSTRAP_PAUSE=0; \
     PGHOST=\"$RUNWAY_CHECK_HOST\"; PGOPTIONS='-c default_transaction_read_only=on'; \
     export PGHOST PGOPTIONS; \
     n=0; while :; do n=$((n+1)); \
     rows=$(psql --no-psqlrc --no-align --tuples-only --set=ON_ERROR_STOP=1 \
     --command=\"$RUNWAY_CHECK_SQL\"); s=$?; \
     if [ \"$s\" -eq 0 ]; then \
     printf 'runway-check: passed; first row: %s\\n' \"$(printf '%s\\n' \"$rows\" | head -n 1)\"; exit 0; fi; \
     if [ \"$s\" -ne 2 ]; then echo \"runway-check: the query failed (psql exit $s)\" >&2; exit \"$s\"; fi; \
     if [ \"$n\" -ge \"$RUNWAY_BOOTSTRAP_ATTEMPTS\" ]; then \
     echo \"runway-check: psql could not connect in $n attempt(s); giving up (exit 2)\" >&2; exit 2; fi; \
     echo \"runway-check: psql could not connect (attempt $n of $RUNWAY_BOOTSTRAP_ATTEMPTS); \
     again in $RUNWAY_BOOTSTRAP_PAUSE s\" >&2; \
     sleep \"$RUNWAY_BOOTSTRAP_PAUSE\"; done",
];

/// A resource's check: the query and the task that runs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RestoreCheck {
    /// The resource.
    pub resource: CompactString,
    /// The query (`restore.check`).
    pub query: CompactString,
    /// The resource's bootstrap task, whose task definition runs the check.
    pub task: OneOffTask,
}

impl RestoreCheck {
    /// The variables the check's container is given besides its task definition's: the
    /// copy's address and the query.
    pub fn environment(&self, copy_address: &str) -> Vec<(CompactString, CompactString)> {
        vec![
            (CompactString::const_new(CHECK_HOST_VARIABLE), copy_address.into()),
            (CompactString::const_new(CHECK_SQL_VARIABLE), self.query.clone()),
        ]
    }

    /// The check task's name, shown in each line (`check-main-db`).
    pub fn name(&self) -> CompactString {
        let mut name = CompactString::const_new("check-");
        name.push_str(&self.resource);
        name
    }
}

/// Why a declared check cannot run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// The plan has no bootstrap task for the resource (no cluster: nothing runs tasks).
    #[error("`{resource}` declares `restore.check` but the plan has no bootstrap task to run it from")]
    NoTask {
        /// The resource.
        resource: String,
    },
}

/// The check of `resource` in `plan`: `Ok(None)` when it declares none.
pub fn restore_check(plan: &Plan, resource: &str) -> Result<Option<RestoreCheck>, CheckError> {
    let Some(query) =
        plan.resources.iter().find(|r| r.name == resource).and_then(|r| r.restore_check.clone())
    else {
        return Ok(None);
    };
    let task = plan
        .tasks
        .iter()
        .find(|t| matches!(&t.purpose, TaskPurpose::DatabaseBootstrap { resource: r } if r.as_str() == resource))
        .ok_or_else(|| CheckError::NoTask { resource: resource.to_owned() })?;
    Ok(Some(RestoreCheck { resource: resource.into(), query, task: task.clone() }))
}

/// The temporary security group of a copy's check: `<copy>-check` (a name EC2 takes: up to 255
/// characters; an RDS identifier has at most 63).
pub fn check_group_name(copy: &str) -> CompactString {
    let mut name = CompactString::from(copy);
    name.push_str("-check");
    name
}

#[cfg(test)]
mod tests {
    use super::{CHECK_COMMAND, CHECK_PASSED_LINE, check_group_name};

    #[test]
    fn the_group_is_named_for_its_copy_and_the_command_writes_the_passed_line() {
        assert_eq!(check_group_name("shop-dev-main-db-drill"), "shop-dev-main-db-drill-check");
        assert!(CHECK_COMMAND[2].contains(CHECK_PASSED_LINE.trim_end()));
        assert!(!CHECK_COMMAND[2].contains("${"), "Pulumi-safe, as the bootstrap's");
    }
}

//! The deploy lease: one SSM parameter per environment that says which `runway deploy` job may
//! write there now, until when, and which of its steps it finished (so that the job that takes
//! it over after a death can skip what was done).
//!
//! SSM has no compare-and-swap on an existing parameter, so the lease is built from what it
//! has: `PutParameter` without `Overwrite` fails with `ParameterAlreadyExists` when the
//! parameter exists (a conditional create), and every write gets the next version number, in
//! one order for all writers. Taking a lease that expired is an overwrite followed by a read
//! of the history: of all the jobs that overwrote the same expired version, the one whose write
//! got the version right after it won; the others stop without writing again (docs/pipeline.md,
//! "The lease").

use std::fmt;

use aws_sdk_ssm::error::ProvideErrorMetadata;
use aws_sdk_ssm::types::ParameterType;
use serde::{Deserialize, Serialize};

use super::{AwsClients, RemoteError};

/// What the lease parameter holds: who holds it, until when, and what its job finished.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaseRecord {
    /// Who runs the job, for people (`github run 123 of acme/shop`, `ana@laptop pid 4242`).
    pub holder: String,
    /// This job's own id (unique per run): tells two runs of the same holder apart.
    pub job: String,
    /// Until when the lease holds, in seconds since the Unix epoch (the holder's clock).
    pub expires_at: u64,
    /// The holder let it go (a failed job keeps its journal for the next one).
    #[serde(default)]
    pub released: bool,
    /// The steps the job finished, each with what it worked on (free text for the caller).
    #[serde(default)]
    pub done: Vec<DoneStep>,
    /// The step running at the last write (a job that died then may have left it half done).
    #[serde(default)]
    pub running: Option<String>,
}

/// One finished step of a deploy job, as the lease's journal keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DoneStep {
    /// The step's name (`up`).
    pub step: String,
    /// What the step worked on, for the caller to compare (a program's fingerprint).
    pub input: String,
}

impl LeaseRecord {
    /// Whether another job may take it at `now`.
    pub fn free_at(&self, now: u64) -> bool {
        self.released || self.expires_at <= now
    }
}

/// A lease held by this job.
#[derive(Debug, Clone)]
pub struct Lease {
    /// The SSM parameter.
    pub parameter: String,
    /// What this job wrote last.
    pub record: LeaseRecord,
    /// The previous holder's record when this job took the lease over (expired or released):
    /// its journal says what it finished.
    pub previous: Option<LeaseRecord>,
}

/// Why the lease is not this job's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LeaseError {
    /// Another job holds it.
    #[error("another deploy holds {parameter}: {} (job {}) until {}", holder.holder, holder.job, utc(holder.expires_at))]
    Held {
        /// The lease parameter.
        parameter: String,
        /// Its holder's record.
        holder: Box<LeaseRecord>,
    },
    /// This job's lease expired (it was not renewed in time) and another job took it.
    #[error("the lease {parameter} was taken over by {} (job {}): this job stops", by.holder, by.job)]
    Lost {
        /// The lease parameter.
        parameter: String,
        /// The new holder.
        by: Box<LeaseRecord>,
    },
    /// The parameter holds something that is not a lease record.
    #[error(
        "{parameter} holds no lease record; if no deploy runs, delete it (aws ssm delete-parameter --name {parameter})"
    )]
    Unreadable {
        /// The lease parameter.
        parameter: String,
    },
    /// A call failed.
    #[error("the deploy lease {parameter}: {source}")]
    Remote {
        /// The lease parameter.
        parameter: String,
        /// The failed call.
        #[source]
        source: RemoteError,
    },
}

/// Seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ` (UTC), for people.
pub fn utc(secs: u64) -> String {
    let days = secs / 86_400;
    let rest = secs % 86_400;
    // Howard Hinnant's civil-from-days, for dates after 1970.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rest / 3600, (rest % 3600) / 60, rest % 60)
}

impl fmt::Display for LeaseRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (job {}) until {}", self.holder, self.job, utc(self.expires_at))
    }
}

impl AwsClients {
    /// Takes the lease `parameter` for `record` (its holder, job and expiry) at `now`: created
    /// when absent, taken over when its holder released it or let it expire, refused
    /// ([`LeaseError::Held`]) while another job holds it.
    pub async fn lease_take(
        &self,
        parameter: &str,
        record: &LeaseRecord,
        now: u64,
    ) -> Result<Lease, LeaseError> {
        let remote = |source| LeaseError::Remote { parameter: parameter.to_owned(), source };
        let value = encode(record);
        let created =
            self.ssm.put_parameter().name(parameter).value(&value).r#type(ParameterType::String).send().await;
        match created {
            Ok(_) => {
                return Ok(Lease { parameter: parameter.to_owned(), record: record.clone(), previous: None });
            }
            Err(e) if e.code() == Some("ParameterAlreadyExists") => {}
            Err(e) => return Err(remote(RemoteError::from_sdk("PutParameter", e))),
        }
        let (current, version) = self.lease_read(parameter).await?;
        if !current.free_at(now) {
            return Err(LeaseError::Held { parameter: parameter.to_owned(), holder: Box::new(current) });
        }
        self.lease_put(parameter, &value).await?;
        // Every job that saw `version` free wrote after it; the first of them won.
        match self.lease_version(parameter, version + 1).await? {
            Some(winner) if winner.job == record.job => {
                Ok(Lease { parameter: parameter.to_owned(), record: record.clone(), previous: Some(current) })
            }
            Some(winner) => {
                Err(LeaseError::Held { parameter: parameter.to_owned(), holder: Box::new(winner) })
            }
            None => Err(LeaseError::Unreadable { parameter: parameter.to_owned() }),
        }
    }

    /// Renews the lease until `expires_at`, with its journal as it is now; fails with
    /// [`LeaseError::Lost`] when the lease expired at `now` and another job holds it.
    pub async fn lease_renew(&self, lease: &mut Lease, expires_at: u64, now: u64) -> Result<(), LeaseError> {
        let (current, _) = self.lease_read(&lease.parameter).await?;
        // Another job's write while this lease held was a take-over that lost: written over.
        if current.job != lease.record.job && lease.record.expires_at <= now {
            return Err(LeaseError::Lost { parameter: lease.parameter.clone(), by: Box::new(current) });
        }
        let mut record = lease.record.clone();
        record.expires_at = expires_at;
        self.lease_put(&lease.parameter, &encode(&record)).await?;
        lease.record = record;
        Ok(())
    }

    /// Lets the lease go: deleted when `keep_journal` is false (the job finished), else kept
    /// as released with its journal (a failed job: the next one skips what it finished).
    /// Nothing happens when another job holds it now.
    pub async fn lease_release(&self, lease: &Lease, keep_journal: bool) -> Result<(), LeaseError> {
        let remote = |source| LeaseError::Remote { parameter: lease.parameter.clone(), source };
        let (current, _) = self.lease_read(&lease.parameter).await?;
        if current.job != lease.record.job {
            return Ok(());
        }
        if keep_journal {
            let record = LeaseRecord { released: true, ..lease.record.clone() };
            return self.lease_put(&lease.parameter, &encode(&record)).await;
        }
        match self.ssm.delete_parameter().name(&lease.parameter).send().await {
            Ok(_) => Ok(()),
            Err(e) if e.code() == Some("ParameterNotFound") => Ok(()),
            Err(e) => Err(remote(RemoteError::from_sdk("DeleteParameter", e))),
        }
    }

    /// The lease parameter's record and version, whoever holds it.
    pub async fn lease_read(&self, parameter: &str) -> Result<(LeaseRecord, i64), LeaseError> {
        let got = self.ssm.get_parameter().name(parameter).send().await.map_err(|e| LeaseError::Remote {
            parameter: parameter.to_owned(),
            source: RemoteError::from_sdk("GetParameter", e),
        })?;
        let found = got.parameter();
        let record = found.and_then(|p| p.value()).and_then(decode);
        match (record, found) {
            (Some(record), Some(p)) => Ok((record, p.version())),
            _ => Err(LeaseError::Unreadable { parameter: parameter.to_owned() }),
        }
    }

    /// Overwrites the lease parameter.
    async fn lease_put(&self, parameter: &str, value: &str) -> Result<(), LeaseError> {
        let put = self
            .ssm
            .put_parameter()
            .name(parameter)
            .value(value)
            .r#type(ParameterType::String)
            .overwrite(true);
        put.send().await.map_err(|e| LeaseError::Remote {
            parameter: parameter.to_owned(),
            source: RemoteError::from_sdk("PutParameter", e),
        })?;
        Ok(())
    }

    /// The record written as `version` of the lease parameter, from its history.
    async fn lease_version(&self, parameter: &str, version: i64) -> Result<Option<LeaseRecord>, LeaseError> {
        let mut pages = self.ssm.get_parameter_history().name(parameter).into_paginator().send();
        while let Some(page) = pages.next().await {
            let page = page.map_err(|e| LeaseError::Remote {
                parameter: parameter.to_owned(),
                source: RemoteError::from_sdk("GetParameterHistory", e),
            })?;
            if let Some(entry) = page.parameters().iter().find(|p| p.version() == version) {
                return Ok(entry.value().and_then(decode));
            }
        }
        Ok(None)
    }
}

/// The record as the parameter holds it.
fn encode(record: &LeaseRecord) -> String {
    // Invariant: strings, numbers and a list of strings serialise.
    serde_json::to_string(record).unwrap_or_default()
}

fn decode(value: &str) -> Option<LeaseRecord> {
    serde_json::from_str(value).ok()
}

#[cfg(test)]
mod tests {
    use super::{LeaseRecord, utc};

    #[test]
    fn times_are_shown_in_utc() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(1_796_551_200), "2026-12-06T10:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn a_lease_is_free_once_released_or_expired() {
        let record = LeaseRecord {
            holder: "a".into(),
            job: "1".into(),
            expires_at: 100,
            released: false,
            done: vec![],
            running: None,
        };
        assert!(!record.free_at(99));
        assert!(record.free_at(100));
        assert!(LeaseRecord { released: true, ..record }.free_at(0));
    }
}

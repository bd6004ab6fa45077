//! The job's hold on its environment: the lease taken before the first step, renewed by a
//! thread every third of its duration, its journal written as steps start and end, and let go
//! at the end (docs/pipeline.md, "The lease").

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_adapter::aws::{AwsClients, ClientSettings, DoneStep, Lease, LeaseError, LeaseRecord};

/// Exit code: another deploy holds the environment's lease.
pub(crate) const EXIT_HELD: u8 = 6;

/// Seconds since the epoch.
pub(crate) fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default()
}

/// Who runs this job, for a refused deploy: the CI run when there is one, else user@host.
pub(crate) fn holder() -> String {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    if let (Some(run), Some(repo)) = (var("GITHUB_RUN_ID"), var("GITHUB_REPOSITORY")) {
        let actor = var("GITHUB_ACTOR").map(|a| format!(" by {a}")).unwrap_or_default();
        return format!("github run {run} of {repo}{actor}");
    }
    let user = var("USER").or_else(|| var("USERNAME")).unwrap_or_else(|| "someone".into());
    let host = var("HOSTNAME")
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok().map(|h| h.trim().to_owned()))
        .unwrap_or_else(|| "a host".into());
    format!("{user}@{host} pid {}", std::process::id())
}

/// This run's own id.
pub(crate) fn job_id() -> String {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or_default();
    format!("{}-{}-{nanos:09}", std::process::id(), now())
}

/// The lease while the job runs.
struct Held {
    lease: Lease,
    /// Set when a renewal found the lease taken over: the job stops before its next step.
    lost: Option<LeaseError>,
}

/// A held lease and the thread that renews it.
pub(crate) struct Holder {
    held: Arc<Mutex<Held>>,
    /// This thread's runtime and clients (a client's connections belong to one runtime).
    rt: tokio::runtime::Runtime,
    aws: AwsClients,
    duration: Duration,
    stop: Arc<AtomicBool>,
    renewer: Option<std::thread::JoinHandle<()>>,
}

fn lock(held: &Mutex<Held>) -> std::sync::MutexGuard<'_, Held> {
    held.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A runtime for the lease's calls, with clients of its own.
fn connect(settings: &ClientSettings) -> Option<(tokio::runtime::Runtime, AwsClients)> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
    let aws = rt.block_on(AwsClients::connect(settings));
    Some((rt, aws))
}

impl Holder {
    /// Takes the lease `parameter`; the record written names this job.
    pub(crate) fn take(
        settings: &ClientSettings,
        parameter: &str,
        holder: String,
        duration: Duration,
    ) -> Result<Self, LeaseError> {
        let (rt, aws) = connect(settings).ok_or_else(|| unreachable_runtime(parameter))?;
        let record = LeaseRecord {
            holder,
            job: job_id(),
            expires_at: now() + duration.as_secs().max(1),
            released: false,
            done: Vec::new(),
            running: None,
        };
        let mut lease = rt.block_on(aws.lease_take(parameter, &record, now()))?;
        // The journal carries on from job to job until one finishes (deleting it): a job that
        // skipped an `up` as done passes that on.
        if let Some(previous) = &lease.previous {
            lease.record.done.clone_from(&previous.done);
        }
        let held = Arc::new(Mutex::new(Held { lease, lost: None }));
        let stop = Arc::new(AtomicBool::new(false));
        let renewer = {
            let (held, stop, settings) = (held.clone(), stop.clone(), settings.clone());
            std::thread::spawn(move || renew(&held, &stop, &settings, duration))
        };
        Ok(Self { held, rt, aws, duration, stop, renewer: Some(renewer) })
    }

    /// The previous holder's record, when this job took the lease over.
    pub(crate) fn previous(&self) -> Option<LeaseRecord> {
        lock(&self.held).lease.previous.clone()
    }

    /// The lease as written now.
    pub(crate) fn record(&self) -> LeaseRecord {
        lock(&self.held).lease.record.clone()
    }

    /// Stops the job when a renewal lost the lease.
    pub(crate) fn check(&self) -> Result<(), LeaseError> {
        match lock(&self.held).lost.clone() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Writes the journal now: `running` is starting, or `done` finished (with its input).
    pub(crate) fn journal(&self, running: Option<&str>, done: Option<DoneStep>) -> Result<(), LeaseError> {
        let mut held = lock(&self.held);
        held.lease.record.running = running.map(str::to_owned);
        if let Some(done) = done {
            held.lease.record.done.retain(|d| d.step != done.step);
            held.lease.record.done.push(done);
        }
        let expires = now() + self.duration.as_secs().max(1);
        let lease = &mut held.lease;
        self.rt.block_on(self.aws.lease_renew(lease, expires, now()))
    }

    /// Lets the lease go (the journal kept for a job that did not finish) and stops renewing.
    pub(crate) fn release(mut self, keep_journal: bool) -> Result<(), LeaseError> {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(renewer) = self.renewer.take() {
            let _ = renewer.join();
        }
        let held = lock(&self.held);
        self.rt.block_on(self.aws.lease_release(&held.lease, keep_journal))
    }
}

/// The runtime could not start.
fn unreachable_runtime(parameter: &str) -> LeaseError {
    LeaseError::Unreadable { parameter: parameter.to_owned() }
}

/// Renews the lease every third of its duration until told to stop or the lease is lost; a
/// failed call is tried again at the next turn (the lease holds until it expires).
fn renew(held: &Mutex<Held>, stop: &AtomicBool, settings: &ClientSettings, duration: Duration) {
    let every = (duration / 3).max(Duration::from_millis(300));
    let Some((rt, aws)) = connect(settings) else { return };
    let mut last = std::time::Instant::now();
    while !stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(100));
        if last.elapsed() < every {
            continue;
        }
        last = std::time::Instant::now();
        let mut held = lock(held);
        let expires = now() + duration.as_secs().max(1);
        match rt.block_on(aws.lease_renew(&mut held.lease, expires, now())) {
            Ok(()) => {}
            Err(e @ LeaseError::Lost { .. }) => {
                held.lost = Some(e);
                return;
            }
            Err(_) => {}
        }
    }
}

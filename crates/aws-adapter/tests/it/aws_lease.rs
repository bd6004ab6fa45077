//! The deploy lease against a real moto server: taken once, refused while held (naming the
//! holder), taken over once expired or released (with the previous journal), of two jobs
//! taking over the same expired lease exactly one wins, a job whose lease was taken over learns
//! it has lost, and release deletes it or keeps the journal.

use crate::aws_support;

use aws_adapter::aws::{DoneStep, LeaseError, LeaseRecord};
use aws_support::clients;
use test_support::Moto;

const LEASE: &str = "/acme-shop/dev/runway/deploy/lease";

fn record(job: &str, expires_at: u64) -> LeaseRecord {
    LeaseRecord {
        holder: format!("holder of {job}"),
        job: job.to_owned(),
        expires_at,
        released: false,
        done: Vec::new(),
        running: None,
    }
}

#[tokio::test]
async fn one_holder_at_a_time_and_taken_over_once_expired() {
    let moto = Moto::start();
    let aws = clients(&moto.url()).await;
    let mut first = aws.lease_take(LEASE, &record("a", 100), 50).await.unwrap();
    assert!(first.previous.is_none());

    // Held: refused, naming who and until when.
    let refused = aws.lease_take(LEASE, &record("b", 200), 60).await.unwrap_err();
    match &refused {
        LeaseError::Held { holder, .. } => assert_eq!((holder.job.as_str(), holder.expires_at), ("a", 100)),
        other => panic!("{other:?}"),
    }
    assert!(refused.to_string().contains("holder of a (job a) until 1970-01-01T00:01:40Z"), "{refused}");

    // Renewed with its journal; still refused later on.
    first.record.done.push(DoneStep { step: "up".into(), input: "f1".into() });
    aws.lease_renew(&mut first, 150, 90).await.unwrap();
    assert!(matches!(aws.lease_take(LEASE, &record("b", 300), 120).await, Err(LeaseError::Held { .. })));

    // Expired: taken over, the dead job's journal handed on.
    let second = aws.lease_take(LEASE, &record("b", 300), 151).await.unwrap();
    let previous = second.previous.clone().unwrap();
    assert_eq!(previous.job, "a");
    assert_eq!(previous.done, [DoneStep { step: "up".into(), input: "f1".into() }]);

    // The first job, back after its lease expired, has lost it.
    let lost = aws.lease_renew(&mut first, 400, 160).await.unwrap_err();
    assert!(matches!(&lost, LeaseError::Lost { by, .. } if by.job == "b"), "{lost:?}");

    // Released keeping the journal: free at once for the next job.
    aws.lease_release(&second, true).await.unwrap();
    let third = aws.lease_take(LEASE, &record("c", 500), 170).await.unwrap();
    assert!(third.previous.unwrap().released);
    // Released for good: the parameter is gone, and a new job creates it.
    let third = aws.lease_take(LEASE, &record("d", 600), 600).await.unwrap();
    aws.lease_release(&third, false).await.unwrap();
    let fresh = aws.lease_take(LEASE, &record("e", 700), 600).await.unwrap();
    assert!(fresh.previous.is_none());
}

#[tokio::test]
async fn of_two_jobs_taking_over_the_same_expired_lease_one_wins() {
    let moto = Moto::start();
    let aws = clients(&moto.url()).await;
    aws.lease_take(LEASE, &record("dead", 10), 0).await.unwrap();
    let (rx, ry) = (record("x", 100), record("y", 100));
    let (x, y) = tokio::join!(aws.lease_take(LEASE, &rx, 20), aws.lease_take(LEASE, &ry, 20));
    let won = [x.is_ok(), y.is_ok()];
    assert_eq!(won.iter().filter(|w| **w).count(), 1, "{x:?} {y:?}");
    let winner = if won[0] { "x" } else { "y" };
    let loser = if won[0] { y.unwrap_err() } else { x.unwrap_err() };
    assert!(matches!(&loser, LeaseError::Held { holder, .. } if holder.job == winner), "{loser:?}");
}

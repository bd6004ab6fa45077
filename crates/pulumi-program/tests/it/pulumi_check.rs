//! The provider-SDK check itself: the hand-written reference program passes, and copies broken
//! in one place (a property, a nested property, a token, a reference) fail naming the place.

#![allow(clippy::disallowed_methods)] // reason: the tests copy the reference program on disk

use crate::pulumi_support;

use std::path::PathBuf;

use test_support::{Scratch, scratch, workspace};

fn reference() -> PathBuf {
    workspace().join("tools/pulumi-reference")
}

/// A copy of the reference program with `from` replaced by `to` (which must occur).
fn broken(name: &str, from: &str, to: &str) -> Scratch {
    let text = std::fs::read_to_string(reference().join("Pulumi.yaml")).expect("reference program");
    assert!(text.contains(from), "`{from}` is not in the reference program");
    let dir = scratch(&format!("pulumi-{name}"));
    std::fs::write(dir.join("Pulumi.yaml"), text.replacen(from, to, 1)).expect("write the copy");
    dir
}

#[test]
fn the_reference_program_passes() {
    let outcome = pulumi_support::check(&[&reference()]);
    assert!(outcome.success, "{}", outcome.output);
    assert!(outcome.output.contains("66 resources constructed and registered"), "{}", outcome.output);
}

#[test]
fn a_wrong_property_name_fails_naming_it() {
    let dir = broken("property", "visibilityTimeoutSeconds: 30", "visibilityTimeoutSecs: 30");
    let outcome = pulumi_support::check(&[&dir]);
    assert!(!outcome.success, "{}", outcome.output);
    assert!(
        outcome.output.contains(
            "resources.jobs_queue.properties.visibilityTimeoutSecs: `visibilityTimeoutSecs` is not an input of aws:sqs/queue:Queue"
        ),
        "{}",
        outcome.output
    );
}

#[test]
fn a_wrong_nested_property_name_fails_naming_it() {
    let dir = broken("nested", "maxConnectionsPercent: 90", "maxConnectionPercent: 90");
    let outcome = pulumi_support::check(&[&dir]);
    assert!(!outcome.success, "{}", outcome.output);
    assert!(
        outcome
            .output
            .contains("connectionPoolConfig.maxConnectionPercent: `maxConnectionPercent` is not an input"),
        "{}",
        outcome.output
    );
}

#[test]
fn a_wrong_token_fails_naming_it() {
    let dir = broken("token", "aws:sns/topic:Topic", "aws:sns/topic:Topik");
    let outcome = pulumi_support::check(&[&dir]);
    assert!(!outcome.success, "{}", outcome.output);
    assert!(outcome.output.contains("pulumi_aws.sns has no resource `Topik`"), "{}", outcome.output);
}

#[test]
fn an_unknown_reference_or_output_fails_naming_it() {
    let dir = broken("reference", "${jobs_queue.url}", "${jobs_queue.queueUrl}");
    let outcome = pulumi_support::check(&[&dir]);
    assert!(!outcome.success, "{}", outcome.output);
    assert!(outcome.output.contains("has no output `queueUrl`"), "{}", outcome.output);

    let dir = broken("unknown-resource", "${events_topic.arn}", "${event_topic.arn}");
    let outcome = pulumi_support::check(&[&dir]);
    assert!(!outcome.success, "{}", outcome.output);
    assert!(outcome.output.contains("`${event_topic}` names no config key"), "{}", outcome.output);
}

#[test]
fn a_deprecated_resource_fails() {
    let dir = broken("deprecated", "aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2");
    let outcome = pulumi_support::check(&[&dir]);
    assert!(!outcome.success, "{}", outcome.output);
    assert!(outcome.output.contains("BucketV2 is deprecated"), "{}", outcome.output);
}

#[test]
fn a_wrong_container_definition_field_fails() {
    let dir = broken("container", "valueFrom: /acme-shop/production/jobs/JOBS_URL", "value: x");
    let outcome = pulumi_support::check(&[&dir]);
    assert!(!outcome.success, "{}", outcome.output);
    assert!(outcome.output.contains("ECS Secret needs `valueFrom`"), "{}", outcome.output);
}

/// A program pinned to another pulumi-aws version than the one checked fails naming the place;
/// with `--require-version` an unpinned resource fails too.
#[test]
fn a_version_other_than_the_checked_one_or_none_when_required_fails() {
    let dir = broken(
        "version",
        "  jobs_queue:\n    type: aws:sqs/queue:Queue\n",
        "  jobs_queue:\n    type: aws:sqs/queue:Queue\n    options:\n      version: 6.83.1\n",
    );
    let outcome = pulumi_support::check(&[&dir]);
    assert!(!outcome.success, "{}", outcome.output);
    assert!(
        outcome.output.contains(&format!(
            "resources.jobs_queue.options.version: pins pulumi-aws 6.83.1, but is checked against {}",
            pulumi_program::PULUMI_AWS_VERSION
        )),
        "{}",
        outcome.output
    );
    let outcome = pulumi_support::check_pinned(&[&reference()]);
    assert!(!outcome.success, "{}", outcome.output);
    assert!(outcome.output.contains("no provider version (`options.version: "), "{}", outcome.output);
}

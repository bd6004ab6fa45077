//! The ALB's access logs and deletion protection, decided per environment: in `production` the
//! ALB refuses deletion and writes its access logs to a bucket of the environment; elsewhere
//! neither (those environments are rebuilt, and their traffic is the team's own).
//!
//! The log bucket is private like every bucket (public access blocked, TLS only), named in the
//! account-regional namespace like every bucket (S3 says such buckets work with every AWS
//! service that global ones do; ELB asks only for a bucket in the load balancer's region), and
//! encrypted
//! with SSE-S3, the only encryption ALB log delivery writes to. Its objects are deleted
//! [`ALB_LOG_DAYS`] after they are written. Its policy lets the region's Elastic Load Balancing
//! log delivery put objects under `AWSLogs/`: in a region opened before August 2022 that is the
//! region's Elastic Load Balancing account ([`ELB_LOG_ACCOUNTS`]), in a later one the service
//! principal [`LOG_DELIVERY_SERVICE`].

use compact_str::CompactString;

use super::context::{Cx, NewItem};
use super::protection::{self, ABORT_INCOMPLETE_UPLOADS_DAYS, BUCKET_ENCRYPTION};
use super::{bucket, cat};
use crate::plan::{AlbLogBucketSpec, BucketLifecycle, ItemSpec, LogDelivery};
use crate::pricing::Priceable;

/// Days the ALB's access logs are kept before S3 deletes them.
pub const ALB_LOG_DAYS: u32 = 90;

/// The service principal that delivers ALB access logs in the regions opened since August 2022.
pub const LOG_DELIVERY_SERVICE: &str = "logdelivery.elasticloadbalancing.amazonaws.com";

/// The Elastic Load Balancing account that delivers access logs in each region opened before
/// August 2022 (AWS, "Enable access logs for your Application Load Balancer", step 2).
pub const ELB_LOG_ACCOUNTS: &[(&str, &str)] = &[
    ("us-east-1", "127311923021"),
    ("us-east-2", "033677994240"),
    ("us-west-1", "027434742980"),
    ("us-west-2", "797873946194"),
    ("af-south-1", "098369216593"),
    ("ap-east-1", "754344448648"),
    ("ap-south-1", "718504428378"),
    ("ap-northeast-1", "582318560864"),
    ("ap-northeast-2", "600734575887"),
    ("ap-northeast-3", "383597477331"),
    ("ap-southeast-1", "114774131450"),
    ("ap-southeast-2", "783225319266"),
    ("ca-central-1", "985666609251"),
    ("eu-central-1", "054676820928"),
    ("eu-west-1", "156460612806"),
    ("eu-west-2", "652711504416"),
    ("eu-west-3", "009996457667"),
    ("eu-south-1", "635631232127"),
    ("eu-north-1", "897822967062"),
    ("sa-east-1", "507241528517"),
];

/// Does the environment's ALB refuse deletion and write access logs?
pub(in crate::lower) fn production_alb(env_name: &str) -> bool {
    protection::production(env_name)
}

/// Who delivers ALB access logs in `region`.
pub fn log_delivery(region: &str) -> LogDelivery {
    match ELB_LOG_ACCOUNTS.iter().find(|(r, _)| *r == region) {
        Some((_, account)) => LogDelivery::Account { account_id: (*account).into() },
        None => LogDelivery::Service { principal: LOG_DELIVERY_SERVICE.into() },
    }
}

/// Declares the ALB's log bucket `<product>-<env>-alb-logs`, in the account-regional namespace
/// like every bucket (`<product>-<env>-alb-logs-<account>-<region>-an`: a name no other account
/// can take first); returns its logical id.
pub(in crate::lower) fn log_bucket(cx: &mut Cx, env_base: &str) -> CompactString {
    let (name, name_suffix) = bucket::account_regional(&cat(&[env_base, "-alb-logs"]), &cx.env.region);
    let spec = ItemSpec::AlbLogBucket(Box::new(AlbLogBucketSpec {
        name_suffix,
        block_public_access: true,
        encryption: BUCKET_ENCRYPTION.into(),
        tls_only: true,
        lifecycle: BucketLifecycle {
            abort_incomplete_uploads_days: ABORT_INCOMPLETE_UPLOADS_DAYS,
            noncurrent_version_days: None,
            expire_days: Some(ALB_LOG_DAYS),
        },
        log_delivery: log_delivery(&cx.env.region),
        protect: protection::protect_bucket(cx.env_name),
    }));
    cx.push(NewItem::new("env_alb-log-bucket".into(), name, None, spec).priced(Priceable::LogBucket))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn older_regions_name_their_account_and_newer_ones_the_service() {
        let account = |id: &str| LogDelivery::Account { account_id: id.into() };
        assert_eq!(log_delivery("us-east-1"), account("127311923021"));
        assert_eq!(log_delivery("eu-west-1"), account("156460612806"));
        assert_eq!(log_delivery("eu-central-1"), account("054676820928"));
        // Opened after August 2022.
        let service = LogDelivery::Service { principal: LOG_DELIVERY_SERVICE.into() };
        assert_eq!(log_delivery("eu-central-2"), service);
        assert_eq!(log_delivery("ap-southeast-4"), service);
    }

    #[test]
    fn every_listed_account_is_twelve_digits_once() {
        for (i, (region, account)) in ELB_LOG_ACCOUNTS.iter().enumerate() {
            assert!(account.len() == 12 && account.bytes().all(|b| b.is_ascii_digit()), "{region}");
            assert!(ELB_LOG_ACCOUNTS[..i].iter().all(|(r, _)| r != region), "{region} twice");
        }
    }
}

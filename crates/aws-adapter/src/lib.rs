//! Writes SSM parameters and the proxy secret through the AWS SDK. (The Pulumi program is
//! rendered by the pure `pulumi-program` crate.)

pub mod aws;

//! Turns a plan into a Pulumi program, and writes SSM parameters and the proxy secret through the AWS SDK.

pub mod aws;
pub mod pulumi;

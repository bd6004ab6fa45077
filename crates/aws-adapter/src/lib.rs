//! Writes SSM parameters and the proxy secret through the AWS SDK, and reads the ECS services'
//! state after a deploy. (The Pulumi program is rendered by the pure `pulumi-program` crate.)

pub mod aws;

//! `runway ssm verify`: every parameter the plan references exists as a SecureString under
//! the right key; no value is decrypted.

use aws_adapter::aws::ParameterExpectation;

use crate::prelude::*;

/// Check that every referenced SSM parameter exists as a SecureString with the right key,
/// without decrypting any value. Exit 1 when one is missing or wrong.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    env: EnvArgs,
    #[command(flatten)]
    format: FormatArg,
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        self.format.format.json()
    }
}

/// Runs `runway ssm verify`.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    let format = args.format.format;
    let session = Session::open(&args.env, out)?;
    let plan = &session.plan;
    let expected: Vec<ParameterExpectation> = plan
        .secrets
        .ssm_parameters
        .iter()
        .map(|p| ParameterExpectation { name: p.name.to_string(), kms_key: plan.secrets.kms_key.to_string() })
        .collect();
    let rt = session.runtime()?;
    let aws = rt.block_on(crate::session::aws(plan, out))?;
    let report = rt.block_on(aws.ssm_verify(&expected)).map_err(|e| out.remote(chain(&e)))?;
    match format {
        Format::Text => outln!("{report}"),
        Format::Json => print_json(&report),
    }
    if report.is_ok() { Ok(()) } else { Err(Exit(EXIT_INVALID)) }
}

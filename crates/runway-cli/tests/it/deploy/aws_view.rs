//! What AWS (moto) holds after the deploy tests' commands, read without runway's commands: SSM
//! values with boto3, and whether a secret holds a given value through the AWS adapter's own
//! dry-run copy (read calls only).

use aws_adapter::aws::{
    Action, AwsClients, ClientSettings, IsolatedEndpoint, ProxyAdminCopy, RegistryCredentialsCopy, Scope,
};
use secrets_adapter::SecretString;
use test_support::Moto;

use super::{ENV_KEY, PROXY_SECRET, REGISTRY_SECRET};
use crate::common::REGION;

/// The AWS adapter talking to this moto only, for the tests' own checks.
fn with_aws<T>(moto: &Moto, f: impl AsyncFnOnce(AwsClients) -> T) -> T {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let mut settings = ClientSettings::new(REGION);
        settings.isolated = Some(IsolatedEndpoint {
            endpoint_url: moto.url(),
            access_key_id: "testing".into(),
            secret_access_key: SecretString::from("testing"),
        });
        f(AwsClients::connect(&settings).await).await
    })
}

fn scope() -> Scope {
    Scope { product: "acme-shop".into(), environment: "dev".into() }
}

/// Whether SSM holds exactly `value` at `name`, read back decrypted with boto3 (the test's own
/// reader: runway never reads a value back).
pub(super) fn ssm_holds(moto: &Moto, name: &str, value: &str) -> bool {
    let read = "import boto3, sys\n\
                p = boto3.client('ssm', region_name='us-east-1').get_parameter(Name=sys.argv[1], WithDecryption=True)\n\
                sys.stdout.write(p['Parameter']['Value'])";
    moto.python(read, &[name]) == value.as_bytes()
}

/// Whether moto's proxy secret holds exactly `{"username":"runway","password":<password>}`
/// (`Unchanged`) or is absent (`Created`), asked with a dry-run copy (read calls only).
pub(super) fn proxy_state(moto: &Moto, password: &str) -> Action {
    with_aws(moto, async |aws| {
        let copy = ProxyAdminCopy {
            secret_name: PROXY_SECRET.into(),
            resource: "main-db".into(),
            username: "runway".into(),
            password: SecretString::from(password),
            // What `secrets prepare` writes it under: the environment's own key.
            kms_key: Some(ENV_KEY.into()),
            tags: Vec::new(),
        };
        aws.copy_proxy_admin(&scope(), &copy, true).await.unwrap().action
    })
}

/// Whether moto's registry secret holds exactly `{"username":<user>,"password":<password>}`
/// (`Unchanged`) or is absent (`Created`), asked with a dry-run copy (read calls only).
pub(super) fn registry_state(moto: &Moto, user: &str, password: &str) -> Action {
    with_aws(moto, async |aws| {
        let copy = RegistryCredentialsCopy {
            secret_name: REGISTRY_SECRET.into(),
            workload: "pdf-render".into(),
            username: SecretString::from(user),
            password: SecretString::from(password),
            kms_key: Some(ENV_KEY.into()),
            tags: Vec::new(),
        };
        aws.copy_registry_credentials(&scope(), &copy, true).await.unwrap().action
    })
}

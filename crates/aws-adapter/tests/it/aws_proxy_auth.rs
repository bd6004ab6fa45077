//! A preview's logins on the RDS proxy it shares (`register_proxy_logins`,
//! `deregister_proxy_logins`): the secrets and the proxies are moto's; moto 5.2 does not
//! implement `ModifyDBProxy` (its `rds/responses.py` has no such action), so that one call is
//! answered by a canned endpoint in front of moto that records it, and the test reads the whole
//! `Auth` list the adapter sent.

use aws_adapter::aws::{ProxyAuthError, secret_name};
use test_support::{CannedAws, Moto, Route};

use crate::aws_support::{REGION, clients, sdk_config};

const PROXY: &str = "acme-shop-dev-main-db-proxy";
const DONE: &str = "<ModifyDBProxyResponse xmlns=\"http://rds.amazonaws.com/doc/2014-10-31/\">\
    <ModifyDBProxyResult><DBProxy><DBProxyName>acme-shop-dev-main-db-proxy</DBProxyName></DBProxy>\
    </ModifyDBProxyResult><ResponseMetadata><RequestId>canned</RequestId></ResponseMetadata>\
    </ModifyDBProxyResponse>";

/// `from`'s entries: the admin's secret and one login's (with a description, kept as it is).
fn from_entries() -> Vec<(String, Option<&'static str>)> {
    let arn = |name: &str| format!("arn:aws:secretsmanager:{REGION}:123456789012:secret:{name}-Ab12Cd");
    vec![
        (arn("acme-shop/dev/main-db/proxy-admin"), Some("the admin")),
        (arn("acme-shop/dev/main-db/proxy-api"), None),
    ]
}

/// A proxy in moto named `name` whose `auth` lists `entries` (ARN, description).
async fn proxy(url: &str, name: &str, entries: &[(String, Option<&str>)]) {
    let config = sdk_config(url).await;
    let ec2 = aws_sdk_ec2::Client::new(&config);
    let subnets = ec2.describe_subnets().send().await.unwrap();
    let subnets: Vec<String> =
        subnets.subnets().iter().take(2).filter_map(|s| s.subnet_id().map(str::to_owned)).collect();
    let auth = entries.iter().map(|(arn, description)| {
        aws_sdk_rds::types::UserAuthConfig::builder()
            .auth_scheme(aws_sdk_rds::types::AuthScheme::Secrets)
            .iam_auth(aws_sdk_rds::types::IamAuthMode::Disabled)
            .secret_arn(arn)
            .set_description(description.map(str::to_owned))
            .build()
    });
    aws_sdk_rds::Client::new(&config)
        .create_db_proxy()
        .db_proxy_name(name)
        .engine_family(aws_sdk_rds::types::EngineFamily::Postgresql)
        .role_arn("arn:aws:iam::123456789012:role/acme-shop-dev-main-db-proxy-role")
        .set_vpc_subnet_ids(Some(subnets))
        .set_auth(Some(auth.collect()))
        .send()
        .await
        .unwrap();
}

/// Makes the secret `name` in moto; its ARN.
async fn secret(url: &str, name: &str) -> String {
    let sm = aws_sdk_secretsmanager::Client::new(&sdk_config(url).await);
    let made = sm.create_secret().name(name).secret_string("{}").send().await.unwrap();
    made.arn().unwrap().to_owned()
}

/// `%XX` and `+` of a form body decoded.
fn decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 3 <= bytes.len() => {
                out.push(u8::from_str_radix(&text[i + 1..i + 3], 16).unwrap());
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap()
}

/// One `Auth` entry as sent: its fields by name.
type Entry = Vec<(String, String)>;

/// Each `ModifyDBProxy` the canned endpoint got: its proxy and its `Auth` list, each entry's
/// fields by name, in the list's order.
fn modifications(canned: &CannedAws) -> Vec<(String, Vec<Entry>)> {
    let calls = canned.calls().into_iter().filter(|c| c.operation == "ModifyDBProxy");
    calls
        .map(|c| {
            let fields: Vec<(String, String)> = (c.body.split('&'))
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (decoded(k), decoded(v)))
                .collect();
            let proxy = fields.iter().find(|(k, _)| k == "DBProxyName").map(|(_, v)| v.clone()).unwrap();
            let mut entries: Vec<Entry> = Vec::new();
            for (k, v) in &fields {
                let Some(rest) = k.strip_prefix("Auth.member.") else { continue };
                let (n, field) = rest.split_once('.').unwrap();
                let n: usize = n.parse().unwrap();
                entries.resize(entries.len().max(n), Vec::new());
                entries[n - 1].push((field.to_owned(), v.clone()));
            }
            (proxy, entries)
        })
        .collect()
}

/// The `SecretArn` of each entry.
fn arns(entries: &[Entry]) -> Vec<String> {
    entries
        .iter()
        .map(|e| e.iter().find(|(k, _)| k == "SecretArn").map(|(_, v)| v.clone()).unwrap())
        .collect()
}

/// `up` adds exactly the preview's secrets to the shared proxy's list and keeps `from`'s (its
/// description too); a list that has them already gets no call; a missing secret is refused
/// before any write; `down` takes out only the preview's (another preview's stays), and run
/// again after that, or on a proxy gone, calls nothing and goes on.
#[tokio::test]
async fn a_previews_logins_are_added_to_the_shared_proxy_and_taken_off_it_alone() {
    let moto = Moto::start();
    let canned = CannedAws::in_front_of(&moto.url(), vec![Route::ok("ModifyDBProxy", DONE)]);
    let aws = clients(&canned.url()).await;
    let names =
        ["acme-shop/pr-7/main-db/proxy-api".to_owned(), "acme-shop/pr-7/main-db/proxy-worker".to_owned()];
    let mut ours = Vec::new();
    for name in &names {
        ours.push(secret(&moto.url(), name).await);
    }
    let other = secret(&moto.url(), "acme-shop/pr-77/main-db/proxy-api").await;
    proxy(&moto.url(), PROXY, &from_entries()).await;

    // up: every entry of `from` kept as it was, the preview's two added after them.
    let change = aws.register_proxy_logins(PROXY, &names).await.unwrap();
    assert_eq!((change.outcome, change.entries), ("registered", 4));
    assert_eq!(change.secrets, ours);
    let sent = modifications(&canned);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0].0, PROXY);
    let from: Vec<String> = from_entries().into_iter().map(|(a, _)| a).collect();
    assert_eq!(arns(&sent[0].1), [from.clone(), ours.clone()].concat());
    assert!(sent[0].1[0].contains(&("Description".to_owned(), "the admin".to_owned())), "{:?}", sent[0].1);
    for entry in &sent[0].1[2..] {
        assert!(entry.contains(&("AuthScheme".to_owned(), "SECRETS".to_owned())), "{entry:?}");
        assert!(entry.contains(&("IAMAuth".to_owned(), "DISABLED".to_owned())), "{entry:?}");
    }

    // A second up: the proxy lists them already (the list the first one sent): no call.
    let registered: Vec<(String, Option<&str>)> =
        from_entries().into_iter().chain(ours.iter().map(|a| (a.clone(), None))).collect();
    let with_other: Vec<(String, Option<&str>)> =
        registered.iter().cloned().chain([(other.clone(), None)]).collect();
    proxy(&moto.url(), "registered", &with_other).await;
    let again = aws.register_proxy_logins("registered", &names).await.unwrap();
    assert_eq!((again.outcome, again.entries, again.secrets.len()), ("unchanged", 5, 0));
    assert_eq!(modifications(&canned).len(), 1, "a second up called ModifyDBProxy");

    // A secret `secrets prepare` has not written: refused, nothing sent.
    let missing = ["acme-shop/pr-8/main-db/proxy-api".to_owned()];
    let refused = aws.register_proxy_logins(PROXY, &missing).await.unwrap_err();
    assert!(
        matches!(refused, ProxyAuthError::SecretMissing { ref name } if name == &missing[0]),
        "{refused}"
    );
    assert_eq!(modifications(&canned).len(), 1);

    // down: the preview's two out, `from`'s and pr-77's kept.
    let down = aws.deregister_proxy_logins("registered", "acme-shop/pr-7/main-db/proxy-").await.unwrap();
    assert_eq!((down.outcome, down.entries), ("deregistered", 3));
    assert_eq!(down.secrets, ours);
    let sent = modifications(&canned);
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[1].0, "registered");
    assert_eq!(arns(&sent[1].1), [from.clone(), vec![other.clone()]].concat());

    // A down killed after that and run again finds them gone: no call, it goes on.
    let rerun = aws.deregister_proxy_logins(PROXY, "acme-shop/pr-7/main-db/proxy-").await.unwrap();
    assert_eq!((rerun.outcome, rerun.entries), ("unchanged", 2));
    let gone = aws.deregister_proxy_logins("no-such-proxy", "acme-shop/pr-7/main-db/proxy-").await.unwrap();
    assert_eq!(gone.outcome, "gone");
    assert_eq!(modifications(&canned).len(), 2, "nothing more sent");
    assert!(ours.iter().all(|a| secret_name(a).is_some_and(|n| names.iter().any(|m| m == n))), "{ours:?}");
}

/// A login secret made again (a new ARN for the same name) replaces its old entry, never sits
/// beside it.
#[tokio::test]
async fn a_secret_made_again_replaces_its_old_entry() {
    let moto = Moto::start();
    let canned = CannedAws::in_front_of(&moto.url(), vec![Route::ok("ModifyDBProxy", DONE)]);
    let aws = clients(&canned.url()).await;
    let name = "acme-shop/pr-7/main-db/proxy-api".to_owned();
    let now = secret(&moto.url(), &name).await;
    let old = format!("arn:aws:secretsmanager:{REGION}:123456789012:secret:{name}-Old123");
    let entries: Vec<(String, Option<&str>)> = from_entries().into_iter().chain([(old, None)]).collect();
    proxy(&moto.url(), PROXY, &entries).await;
    let change = aws.register_proxy_logins(PROXY, std::slice::from_ref(&name)).await.unwrap();
    assert_eq!((change.outcome, change.entries), ("registered", 3));
    let sent = modifications(&canned);
    let from: Vec<String> = from_entries().into_iter().map(|(a, _)| a).collect();
    assert_eq!(arns(&sent[0].1), [from, vec![now]].concat());
}

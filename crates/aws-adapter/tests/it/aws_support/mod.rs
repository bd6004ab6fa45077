//! Shared test fixtures of the AWS tests (moto itself is `test_support::Moto`): a TCP gate in
//! front of moto that can refuse traffic (to cut the network part way through a publish while
//! moto keeps its state), the adapter's settings for it, and an in-memory value source.
#![allow(dead_code, missing_docs)]

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_adapter::aws::{AwsClients, ClientSettings, IsolatedEndpoint, Scope, SourceError, ValueSource};
use secrecy::SecretString;

pub const REGION: &str = "eu-west-1";

/// A TCP forwarder to `target` that can be closed: while closed, new connections are dropped
/// at once and open ones are cut at their next request. Moto behind it keeps its state.
pub struct Gate {
    pub port: u16,
    open: Arc<AtomicBool>,
}

impl Gate {
    pub fn start(target: u16) -> Gate {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind gate");
        let port = listener.local_addr().expect("gate addr").port();
        let open = Arc::new(AtomicBool::new(true));
        let flag = Arc::clone(&open);
        // The accept loop lives as long as the test process; it holds nothing but sockets.
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                if !flag.load(Ordering::SeqCst) {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(server) = TcpStream::connect(("127.0.0.1", target)) else {
                    continue;
                };
                let flag = Arc::clone(&flag);
                std::thread::spawn(move || forward(client, server, &flag));
            }
        });
        Gate { port, open }
    }

    pub fn close(&self) {
        self.open.store(false, Ordering::SeqCst);
    }

    pub fn open(&self) {
        self.open.store(true, Ordering::SeqCst);
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

fn forward(mut client: TcpStream, mut server: TcpStream, open: &AtomicBool) {
    let (Ok(mut client_w), Ok(mut server_r)) = (client.try_clone(), server.try_clone()) else {
        return;
    };
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut server_r, &mut client_w);
        let _ = client_w.shutdown(Shutdown::Both);
    });
    let mut buf = [0u8; 16 * 1024];
    loop {
        let n = match client.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if !open.load(Ordering::SeqCst) || server.write_all(&buf[..n]).is_err() {
            break;
        }
    }
    let _ = client.shutdown(Shutdown::Both);
    let _ = server.shutdown(Shutdown::Both);
}

/// Settings pointing at `url` with test credentials and an empty environment; few, quick
/// retries so that fault tests finish fast.
pub fn settings(url: &str) -> ClientSettings {
    let mut s = ClientSettings::new(REGION);
    s.max_attempts = 2;
    s.initial_backoff = Duration::from_millis(20);
    s.connect_timeout = Duration::from_secs(2);
    s.attempt_timeout = Duration::from_secs(10);
    s.operation_timeout = Duration::from_secs(30);
    s.isolated = Some(IsolatedEndpoint {
        endpoint_url: url.to_owned(),
        access_key_id: "testing".to_owned(),
        secret_access_key: SecretString::from("testing"),
    });
    s
}

pub async fn clients(url: &str) -> AwsClients {
    AwsClients::connect(&settings(url)).await
}

/// Raw SDK config for the test's own checks (reading state the adapter must not report).
pub async fn sdk_config(url: &str) -> aws_config::SdkConfig {
    aws_config::defaults(aws_config::BehaviorVersion::latest())
        .empty_test_environment()
        .region(aws_config::Region::new(REGION))
        .endpoint_url(url)
        .credentials_provider(aws_sdk_ssm::config::Credentials::new("testing", "testing", None, None, "test"))
        .load()
        .await
}

pub fn scope() -> Scope {
    Scope { product: "acme-shop".to_owned(), environment: "dev".to_owned() }
}

/// Values by `resource/variable`; counts reads and can run a hook before the n-th read.
#[derive(Default)]
pub struct MapSource {
    pub values: Mutex<BTreeMap<String, String>>,
    pub reads: AtomicUsize,
    pub before_read: Option<(usize, Box<dyn Fn() + Send + Sync>)>,
}

impl MapSource {
    pub fn new(values: &[(&str, &str)]) -> Self {
        MapSource {
            values: Mutex::new(values.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()),
            ..MapSource::default()
        }
    }

    pub fn set(&self, key: &str, value: &str) {
        self.values.lock().expect("lock").insert(key.to_owned(), value.to_owned());
    }
}

impl ValueSource for MapSource {
    async fn value(&self, resource: &str, variable: &str) -> Result<Option<SecretString>, SourceError> {
        let n = self.reads.fetch_add(1, Ordering::SeqCst);
        if let Some((at, hook)) = &self.before_read
            && *at == n
        {
            hook();
        }
        let key = format!("{resource}/{variable}");
        Ok(self.values.lock().expect("lock").get(&key).map(|v| SecretString::from(v.clone())))
    }
}

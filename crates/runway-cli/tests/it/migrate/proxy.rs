//! The proxy's target and the bootstrap's connection attempts (issue 39): the bootstrap waits
//! for its proxy's target (moto), a target `UNAVAILABLE` with its reason and a bootstrap that
//! exited 2 (canned answers), and the container's bounded retry (its command, run with psql).

use super::*;

/// Runs boto3 `code` (clients `rds` and `ec2`) against moto.
fn boto(moto: &Moto, code: &str) {
    let script = format!(
        "import boto3\nkw = dict(region_name='us-east-1', endpoint_url='{}', aws_access_key_id='testing', \
         aws_secret_access_key='testing')\nrds = boto3.client('rds', **kw)\nec2 = boto3.client('ec2', **kw)\n{code}",
        moto.url()
    );
    moto.python(&script, &[]);
}

/// main-db's proxy as the first `pulumi up` makes it (moto's default subnets stand in for the
/// private ones), its target registered when `target`; returns its name (the plan's).
pub(super) fn proxy(moto: &Moto, target: bool) -> String {
    let name = bootstrap_task()["proxy"].as_str().unwrap().to_owned();
    boto(
        moto,
        &format!(
            "subnets = [s['SubnetId'] for s in ec2.describe_subnets()['Subnets'][:2]]\n\
             rds.create_db_proxy(DBProxyName='{name}', EngineFamily='POSTGRESQL', Auth=[{{'AuthScheme': \
             'SECRETS', 'IAMAuth': 'DISABLED', 'SecretArn': \
             'arn:aws:secretsmanager:us-east-1:123456789012:secret:proxy-admin-abcdef'}}], \
             RoleArn='arn:aws:iam::123456789012:role/proxy', VpcSubnetIds=subnets)"
        ),
    );
    if target {
        register(moto, &name);
    }
    name
}

/// Registers main-db's database as the proxy's target (moto answers it `AVAILABLE` next).
fn register(moto: &Moto, proxy: &str) {
    boto(
        moto,
        &format!(
            "rds.register_db_proxy_targets(DBProxyName='{proxy}', DBInstanceIdentifiers=['acme-shop-dev-main-db'])"
        ),
    );
}

/// Right after the first `pulumi up` the proxy's target is still registering: the bootstrap
/// is started only once one is available (here registered while `migrate` waits).
#[test]
fn the_bootstrap_waits_for_its_proxys_target() {
    let moto = Moto::start();
    let aws = Aws::of(&moto);
    let revision = aws.first_up();
    let name = proxy(&moto, false);
    let dir = test_support::scratch("migrate-proxy-wait");
    let outputs = outputs(&dir, &revision);
    // The target is registered once `migrate` says it waits (its progress on stdout).
    let mut cmd = common::aws_command(&moto.url(), "runway-migrate-test-home");
    cmd.args([
        "migrate",
        "--env",
        "dev",
        "--interval",
        "1s",
        "--outputs",
        outputs.to_str().unwrap(),
        &example(),
    ]);
    let mut child =
        cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut lines = String::new();
    let waiting = format!("bootstrap-main-db: waiting for the proxy {name}: no target registered yet");
    while !lines.contains(&waiting) {
        let read = std::io::BufRead::read_line(&mut stdout, &mut lines).unwrap();
        assert!(read > 0, "migrate ended without waiting: {lines}");
    }
    register(&moto, &name);
    std::io::Read::read_to_string(&mut stdout, &mut lines).unwrap();
    let status = child.wait_with_output().unwrap();
    assert_eq!(status.status.code(), Some(0), "{lines}{}", String::from_utf8_lossy(&status.stderr));
    let started = lines.find("bootstrap-main-db: started task ");
    assert!(started > lines.find(&waiting), "{lines}");
    assert_eq!(aws.bootstrap_tasks(), 1);
}

/// A proxy with no available target by the timeout: nothing is started, exit 5, and the message
/// says what the targets were and how to look at them.
#[test]
fn a_proxy_without_an_available_target_starts_nothing_and_exits_5() {
    let moto = Moto::start();
    let aws = Aws::of(&moto);
    let revision = aws.first_up();
    let name = proxy(&moto, false);
    let dir = test_support::scratch("migrate-proxy-timeout");
    let outputs = outputs(&dir, &revision);
    let run = migrate(&moto.url(), &outputs, &["--timeout", "3s", "--format", "json"], &[]);
    assert_eq!(run.code, 5, "{}", run.stderr);
    let report = json_of(&run);
    assert_eq!(report["verdict"], "timed-out");
    let t = &report["tasks"][0];
    assert_eq!(
        (t["name"].as_str(), t["state"].as_str()),
        (Some("bootstrap-main-db"), Some("proxy-unavailable"))
    );
    assert_eq!(
        (t["proxy"].as_str(), t["targets"].as_str()),
        (Some(name.as_str()), Some("no target registered yet"))
    );
    assert!(
        run.stderr.contains(&format!(
            "error: bootstrap-main-db: the proxy {name} had no available target within 3s"
        )) && run.stderr.contains(&format!("aws rds describe-db-proxy-targets --db-proxy-name {name}")),
        "{}",
        run.stderr
    );
    assert_eq!((aws.bootstrap_tasks(), aws.tasks()), (0, 0), "neither the bootstrap nor the migration");
}

/// `DescribeDBProxyTargets` as RDS answers it (XML): one instance target in `state`.
fn targets(state: &str, reason: Option<(&str, &str)>) -> String {
    let reason = reason
        .map(|(r, d)| format!("<Reason>{r}</Reason><Description>{d}</Description>"))
        .unwrap_or_default();
    format!(
        "<DescribeDBProxyTargetsResponse xmlns=\"http://rds.amazonaws.com/doc/2014-10-31/\">\
         <DescribeDBProxyTargetsResult><Targets><member><RdsResourceId>acme-shop-dev-main-db</RdsResourceId>\
         <Type>RDS_INSTANCE</Type><Port>5432</Port><TargetHealth><State>{state}</State>{reason}</TargetHealth>\
         </member></Targets></DescribeDBProxyTargetsResult></DescribeDBProxyTargetsResponse>"
    )
}

/// The bootstrap not done yet: its parameters at version 1, no record.
fn bootstrap_due() -> Vec<Route> {
    let (names, _) = bootstrap_record(1);
    let parameters: Vec<Value> = names
        .iter()
        .map(|n| json!({"Name": n, "Type": "SecureString", "Value": "ciphertext", "Version": 1}))
        .collect();
    vec![
        Route::ok("GetParameters", &json!({"Parameters": parameters, "InvalidParameters": []}).to_string()),
        Route {
            operation: "GetParameter".into(),
            body_contains: None,
            answers: vec![(
                "400 Bad Request".into(),
                r#"{"__type":"ParameterNotFound","message":"Parameter not found"}"#.into(),
            )],
        },
        Route::ok("ListTasks", r#"{"taskArns": []}"#),
        Route::ok("RunTask", &task("PROVISIONING", None, None)),
    ]
}

/// A target the proxy cannot log in to (what moto never answers): the reason is in the
/// progress and in the message at the timeout.
#[test]
fn an_unavailable_target_is_shown_with_its_reason() {
    let dir = test_support::scratch("migrate-proxy-unavailable");
    let outputs = outputs(&dir, &format!("{ARN}:task-definition/{FAMILY}:4"));
    let mut routes = bootstrap_due();
    let refused = targets("UNAVAILABLE", Some(("AUTH_FAILURE", "The secret's password is wrong")));
    routes.push(Route::ok("DescribeDBProxyTargets", &refused));
    let aws = CannedAws::start(routes);
    let run = migrate(&aws.url(), &outputs, &["--timeout", "2s"], &[]);
    assert_eq!(run.code, 5, "{}", run.stderr);
    let shown = "acme-shop-dev-main-db UNAVAILABLE (AUTH_FAILURE: The secret's password is wrong)";
    assert!(
        run.stdout.contains(&format!("waiting for the proxy acme-shop-dev-main-db-proxy: {shown}")),
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains(shown), "{}", run.stderr);
    assert!(!aws.asked().contains(&"RunTask".to_owned()), "{:?}", aws.asked());
}

/// The bootstrap's container tried to connect its bounded number of times and exited 2 (psql's
/// connection failure): exit 1, and the message says it could not connect and where to look.
#[test]
fn a_bootstrap_that_could_not_connect_exits_1_saying_so() {
    let dir = test_support::scratch("migrate-bootstrap-exit-2");
    let outputs = outputs(&dir, &format!("{ARN}:task-definition/{FAMILY}:4"));
    let mut routes = bootstrap_due();
    routes.push(Route::ok("DescribeDBProxyTargets", &targets("AVAILABLE", None)));
    let stopped =
        task("STOPPED", Some(("EssentialContainerExited", "Essential container in task exited")), Some(2));
    routes.push(Route::ok("DescribeTasks", &stopped));
    let aws = CannedAws::start(routes);
    let run = migrate(&aws.url(), &outputs, &[], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.starts_with(&format!(
            "error: bootstrap-main-db exited 2: psql could not connect to the database through its proxy in {} \
             attempts",
            runtime_plan::ATTEMPTS
        )),
        "{}",
        run.stderr
    );
    // One bootstrap task, and no migration after it.
    assert_eq!(aws.asked().iter().filter(|a| *a == "RunTask").count(), 1, "{:?}", aws.asked());
}

/// The container's retry is bounded: its command, run as the program declares it against a
/// port nothing listens on, tries `RUNWAY_BOOTSTRAP_ATTEMPTS` times and exits 2 with a line
/// saying so (psql on `PATH` or in Debian's PostgreSQL folders, as `db_roles.rs` finds it).
#[test]
fn the_bootstrap_command_gives_up_after_its_attempts_with_exit_2() {
    let psql =
        psql().expect("no psql on PATH or in /usr/lib/postgresql/*/bin: `.ci/run` installs PostgreSQL");
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let path = format!("{}:{}", psql.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    let command = runtime_plan::BOOTSTRAP_COMMAND;
    let out = std::process::Command::new(command[0])
        .args(&command[1..])
        .env("PATH", path)
        .env("PGHOST", "127.0.0.1")
        .env("PGPORT", port.to_string())
        .env("PGUSER", "runway")
        .env("PGDATABASE", "main_db")
        .env("PGCONNECT_TIMEOUT", "2")
        .env("RUNWAY_BOOTSTRAP_ATTEMPTS", "3")
        .env("RUNWAY_BOOTSTRAP_PAUSE", "0")
        .env("RUNWAY_BOOTSTRAP_SQL", "SELECT 1;")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.matches("runway: psql could not connect (attempt ").count(), 2, "{stderr}");
    assert!(
        stderr.contains("runway: psql could not connect in 3 attempt(s); giving up (exit 2)"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("Connection refused").count(), 3, "one psql per attempt: {stderr}");
}

/// A `psql` to run: on `PATH`, else Debian's.
fn psql() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let on_path = std::env::split_paths(&path).map(|d| d.join("psql")).find(|p| p.exists());
    let debian = std::fs::read_dir("/usr/lib/postgresql").into_iter().flatten().filter_map(Result::ok);
    on_path.or_else(|| debian.map(|d| d.path().join("bin/psql")).find(|p| p.exists()))
}

//! `runway preview up|down|list|sweep` end to end: the real binary against moto, the Infisical
//! contract server and the Pulumi stand-in (`tools/pulumi_standin.py` as `pulumi`), on a copy of
//! `examples/acme-shop` whose dev environment is deployed first (the previews share its
//! cluster, ALB, database instance and proxy). The example's preview adds $38.52 a month; the
//! pool is $120 for at most 5 previews (docs/previews.md).

use std::process::{Command, Stdio};

use serde_json::Value;

use test_support::{CannedAws, Route};

use crate::common::{self, Run};
use crate::deploy_job::{World, assert_no_secret, python};

/// The clock every command of these tests is given: now, and days before it.
const NOW: &str = "2026-12-06T12:00:00Z";
const FOUR_DAYS_AGO: &str = "2026-12-02T12:00:00Z";
const A_DAY_AGO: &str = "2026-12-05T12:00:00Z";

/// `runway preview ARGS FILE` with the world's settings.
fn preview(world: &World, args: &[&str]) -> Run {
    let mut cmd = Command::new(common::RUNWAY);
    world.env(&mut cmd);
    cmd.arg("preview").args(args).arg(world.file());
    let mut shown = vec!["preview"];
    shown.extend_from_slice(args);
    Run::logged(&mut cmd, &shown)
}

/// `preview up --pr N` at `now`, the deploy's waits short.
fn up(world: &World, pr: &str, now: &str) -> Run {
    let args = [
        "up",
        "--pr",
        pr,
        "--now",
        now,
        "--interval",
        "1s",
        "--rollout-timeout",
        "60s",
        "--lease-duration",
        "5s",
    ];
    preview(world, &args)
}

/// Every ARN of the product tagged `runway-preview: <name>` (moto's tagging API, as `down`
/// and `list` see them), and every parameter under the preview's prefix.
fn tagged(world: &World, name: &str) -> Vec<String> {
    let script = format!(
        "tags = boto3.client('resourcegroupstaggingapi')\n\
         arns = [m['ResourceARN'] for page in tags.get_paginator('get_resources').paginate(TagFilters=[\
         {{'Key': 'product', 'Values': ['acme-shop']}}, {{'Key': 'runway-preview', 'Values': ['{name}']}}]) \
         for m in page['ResourceTagMappingList']]\n\
         ecs = boto3.client('ecs')\n\
         gone = lambda a: ':service/' in a and all(s['status'] == 'INACTIVE' for s in \
         ecs.describe_services(cluster=a.split('/')[-2], services=[a])['services'])\n\
         arns = [a for a in arns if not gone(a)]\n\
         ssm = boto3.client('ssm')\n\
         arns += [p['Name'] for page in ssm.get_paginator('get_parameters_by_path').paginate(\
         Path='/acme-shop/dev/previews/{name}', Recursive=True) for p in page['Parameters']]\n\
         print(json.dumps(sorted(set(arns))))"
    );
    serde_json::from_str(&python(&world.moto, &script)).unwrap()
}

/// Puts into the bucket `arn` names (an S3 ARN) two versions of one object, then deletes it (a
/// delete marker), and one more object: four versions in all, which S3 must see gone before it
/// deletes the bucket.
fn fill_bucket(world: &World, arn: &str) {
    let bucket = arn.strip_prefix("arn:aws:s3:::").unwrap();
    let script = format!(
        "s3 = boto3.client('s3')\n\
         for body in (b'one', b'two'):\n    s3.put_object(Bucket='{bucket}', Key='invoices/1.pdf', Body=body)\n\
         s3.delete_object(Bucket='{bucket}', Key='invoices/1.pdf')\n\
         s3.put_object(Bucket='{bucket}', Key='avatars/7.png', Body=b'png')\n\
         v = s3.list_object_versions(Bucket='{bucket}')\n\
         print(len(v.get('Versions', [])) + len(v.get('DeleteMarkers', [])))"
    );
    assert_eq!(python(&world.moto, &script).trim(), "4", "{bucket} holds four versions");
}

/// The preview's own bucket, queue and log group among what carries its tag.
fn own_bucket(world: &World, name: &str) -> String {
    let arns = tagged(world, name);
    let prefix = format!("arn:aws:sqs:us-east-1:123456789012:acme-shop-{name}-");
    assert!(arns.iter().any(|a| a.starts_with(&prefix)), "{name}'s queues: {arns:?}");
    assert!(arns.iter().any(|a| a.contains(&format!(":log-group:/runway/acme-shop/{name}/"))), "{arns:?}");
    let bucket = format!("arn:aws:s3:::acme-shop-{name}-uploads-");
    arns.into_iter().find(|a| a.starts_with(&bucket)).unwrap_or_else(|| panic!("{name} has no bucket"))
}

/// The Infisical folders of the previews' environment under `/previews/<name>`.
fn folders_of(world: &World, name: &str) -> Vec<String> {
    let state = world.infisical.state(false);
    let folders = state["folders"].as_array().unwrap().iter().filter_map(Value::as_str);
    let own = format!(":preview:/previews/{name}");
    folders.filter(|f| f.contains(&own)).map(str::to_owned).collect()
}

/// The SQL each task `down` started was given in place of its bootstrap's (`RunTask`'s
/// container override, as moto keeps it), by task.
fn drop_sql_sent(world: &World) -> Vec<String> {
    let script = "ecs = boto3.client('ecs')\n\
        arns = sorted(set((c, t) for c in ecs.list_clusters()['clusterArns'] for s in ['RUNNING', 'STOPPED'] \
        for t in ecs.list_tasks(cluster=c, desiredStatus=s, startedBy='runway-preview-down')['taskArns']))\n\
        tasks = [d for c, t in arns for d in ecs.describe_tasks(cluster=c, tasks=[t])['tasks']]\n\
        print(json.dumps([e['value'] for t in tasks for o in t.get('overrides', {}).get('containerOverrides', []) \
        for e in o.get('environment', []) if e['name'] == 'RUNWAY_BOOTSTRAP_SQL']))";
    serde_json::from_str(&python(&world.moto, script)).unwrap()
}

/// Dev's RDS Proxy, which every preview shares.
const DEV_PROXY: &str = "acme-shop-dev-main-db-proxy";

/// The answer to `ModifyDBProxy`, which moto 5.2 does not implement (its `rds/responses.py`
/// has no such action): a canned endpoint in front of moto gives it and records the request.
const MODIFIED: &str = "<ModifyDBProxyResponse xmlns=\"http://rds.amazonaws.com/doc/2014-10-31/\">\
    <ModifyDBProxyResult><DBProxy><DBProxyName>acme-shop-dev-main-db-proxy</DBProxyName></DBProxy>\
    </ModifyDBProxyResult><ResponseMetadata><RequestId>canned</RequestId></ResponseMetadata>\
    </ModifyDBProxyResponse>";

/// Each `ModifyDBProxy` runway sent, in order: its proxy and each `Auth` entry's `SecretArn`,
/// in the list's order (decoded by Python's own form parser).
fn proxy_lists(world: &World, canned: &CannedAws) -> Vec<(String, Vec<String>)> {
    let bodies: Vec<String> =
        canned.calls().into_iter().filter(|c| c.operation == "ModifyDBProxy").map(|c| c.body).collect();
    let script = format!(
        "from urllib.parse import parse_qs\n\
         out = []\n\
         for body in {bodies:?}:\n    q = parse_qs(body)\n    \
         n = len([k for k in q if k.startswith('Auth.member.') and k.endswith('.SecretArn')])\n    \
         out.append([q['DBProxyName'][0], [q[f'Auth.member.{{i}}.SecretArn'][0] for i in range(1, n + 1)]])\n\
         print(json.dumps(out))"
    );
    serde_json::from_str(&python(&world.moto, &script)).unwrap()
}

/// Dev's proxy in moto made to list `arns`, as AWS would once it took the list runway sent:
/// moto cannot apply a `ModifyDBProxy`, so the proxy is deleted and made again with the same
/// settings and targets. Gives the ARNs it lists.
fn apply(world: &World, arns: &[String]) -> Vec<String> {
    let script = format!(
        "rds = boto3.client('rds')\n\
         p = rds.describe_db_proxies(DBProxyName='{DEV_PROXY}')['DBProxies'][0]\n\
         targets = rds.describe_db_proxy_targets(DBProxyName='{DEV_PROXY}')['Targets']\n\
         rds.delete_db_proxy(DBProxyName='{DEV_PROXY}')\n\
         rds.create_db_proxy(DBProxyName='{DEV_PROXY}', EngineFamily=p['EngineFamily'], RoleArn=p['RoleArn'], \
         VpcSubnetIds=p['VpcSubnetIds'], Auth=[{{'AuthScheme': 'SECRETS', 'IAMAuth': 'DISABLED', 'SecretArn': a}} \
         for a in {arns:?}])\n\
         ids = [t['RdsResourceId'] for t in targets if t.get('Type') == 'RDS_INSTANCE']\n\
         if ids:\n    rds.register_db_proxy_targets(DBProxyName='{DEV_PROXY}', DBInstanceIdentifiers=ids)\n\
         print(json.dumps([a['SecretArn'] for a in rds.describe_db_proxies(DBProxyName='{DEV_PROXY}')['DBProxies'][0]['Auth']]))"
    );
    serde_json::from_str(&python(&world.moto, &script)).unwrap()
}

/// What dev's proxy lists now (moto's answer).
fn listed(world: &World) -> Vec<String> {
    let script = format!(
        "rds = boto3.client('rds')\n\
         print(json.dumps([a['SecretArn'] for a in rds.describe_db_proxies(DBProxyName='{DEV_PROXY}')['DBProxies'][0]['Auth']]))"
    );
    serde_json::from_str(&python(&world.moto, &script)).unwrap()
}

/// The ARNs of preview `name`'s login secrets on main-db's proxy, sorted (moto's).
fn login_secrets(world: &World, name: &str) -> Vec<String> {
    let script = format!(
        "sm = boto3.client('secretsmanager')\n\
         arns = [s['ARN'] for page in sm.get_paginator('list_secrets').paginate() for s in page['SecretList'] \
         if s['Name'].startswith('acme-shop/{name}/main-db/proxy-')]\n\
         print(json.dumps(sorted(arns)))"
    );
    serde_json::from_str(&python(&world.moto, &script)).unwrap()
}

/// The last `ModifyDBProxy` sent went to dev's proxy and listed `before`, kept in their order,
/// then exactly preview `name`'s login secrets; applied to moto's proxy, as AWS would.
fn registered(world: &World, canned: &CannedAws, before: &[String], name: &str) -> Vec<String> {
    let lists = proxy_lists(world, canned);
    let (proxy, list) = lists.last().unwrap_or_else(|| panic!("no ModifyDBProxy for {name}"));
    assert_eq!(proxy, DEV_PROXY);
    assert_eq!(&list[..before.len()], before, "{name}: every entry already there kept, in order");
    let mut added = list[before.len()..].to_vec();
    added.sort();
    let ours = login_secrets(world, name);
    assert!(!ours.is_empty(), "{name} has login secrets");
    assert_eq!(added, ours, "{name}: exactly its login secrets added");
    apply(world, list)
}

/// The ECS services' names, but the deleted ones (`INACTIVE`).
fn services(world: &World) -> Vec<String> {
    let script = "ecs = boto3.client('ecs')\n\
        arns = [(c, s) for c in ecs.list_clusters()['clusterArns'] for s in ecs.list_services(cluster=c)['serviceArns']]\n\
        active = [s for c, s in arns if ecs.describe_services(cluster=c, services=[s])['services'][0]['status'] == 'ACTIVE']\n\
        print(json.dumps(sorted(s.split('/')[-1] for s in active)))";
    serde_json::from_str(&python(&world.moto, script)).unwrap()
}

/// Three previews go up under the pool; a fourth is refused by the pooled cap, then (the cap
/// raised, `max` lowered) by `max`, both before any write, naming the previews that hold the
/// pool; `list` shows them and the total; `down` of one leaves nothing tagged with it while
/// the others run; a sweep with the clock past `expireAfter` removes exactly the expired one.
#[test]
fn three_previews_share_the_pool_and_clean_up_after_themselves() {
    let envs = ["--environment", "dev", "--environment", "prod", "--environment", "preview"];
    let mut world = World::with_infisical("previews-pool", &envs);
    let (dev, _) = world.deploy_to_end("dev job");
    assert_eq!(dev.code, 0, "dev is deployed first: {}", dev.stderr);
    // runway's calls from here through the canned endpoint, for `ModifyDBProxy` alone.
    let canned = CannedAws::in_front_of(&world.moto.url(), vec![Route::ok("ModifyDBProxy", MODIFIED)]);
    world.aws = canned.url();
    let mut proxy = listed(&world);
    assert_eq!(proxy.len(), 1, "dev's proxy lists its admin's secret as the stand-in made it: {proxy:?}");

    for (pr, now) in [("1", FOUR_DAYS_AGO), ("2", A_DAY_AGO), ("3", NOW)] {
        // Metabase's own secret, set by a person in the preview's folder (docs/previews.md).
        let folder = format!("/previews/pr-{pr}/runtime/metabase");
        let place = ("preview", folder.as_str(), "MB_ENCRYPTION_SECRET_KEY");
        common::set_in_infisical(
            &world.infisical.url(),
            common::PROJECT,
            place,
            "preview-person-canary-7d1e",
        );
        let run = up(&world, pr, now);
        assert_eq!(run.code, 0, "preview {pr}: {}", run.stderr);
        // The person's secret reaches the task, never the deploy's output.
        assert!(!run.stdout.contains("canary-7d1e") && !run.stderr.contains("canary-7d1e"), "preview {pr}");
        assert!(run.stdout.contains(&format!("preview pr-{pr} would add $38.52")), "{}", run.stdout);
        // Its logins registered with dev's proxy before its bootstrap: the others' kept.
        proxy = registered(&world, &canned, &proxy, &format!("pr-{pr}"));
        let line = format!("of pr-{pr} with the shared proxy {DEV_PROXY} ({} listed)", proxy.len());
        assert!(run.stdout.contains(&line), "{}", run.stdout);
    }
    // A push: pr-3's `up` again finds its logins listed and sends nothing.
    let sent = proxy_lists(&world, &canned).len();
    let again = up(&world, "3", NOW);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(again.stdout.contains("lists pr-3's logins already"), "{}", again.stdout);
    assert_eq!(proxy_lists(&world, &canned).len(), sent, "a second up sent ModifyDBProxy");
    let running = services(&world);
    for pr in ["pr-1", "pr-2", "pr-3"] {
        assert!(running.contains(&format!("acme-shop-{pr}-metabase-service")), "{running:?}");
        assert!(tagged(&world, pr).iter().any(|a| a.ends_with("/runway/preview")), "{pr}'s record");
        // Its own bucket holds objects when it goes down (S3 refuses to delete it otherwise).
        fill_bucket(&world, &own_bucket(&world, pr));
        assert!(!folders_of(&world, pr).is_empty(), "{pr}'s Infisical folders");
    }
    // Each preview's values are in the previews' Infisical environment, its own folder.
    let versions = world.infisical.versions();
    assert!(versions.keys().any(|k| k.starts_with("preview:/previews/pr-2/")), "{versions:?}");
    assert!(
        !versions.keys().any(|k| k.contains("pr-") && !k.starts_with("preview:/previews/pr-")),
        "{versions:?}"
    );

    refusals(&world);
    list_and_review(&world);
    down_and_sweep(&world, &canned);
    killed_down_finishes(&world, &canned);
}

/// A fourth preview refused by the pooled cap, then by `max`, before any write.
fn refusals(world: &World) {
    // A fourth: $154.08 over $120, refused before any write, naming the three by age.
    let before = world.infisical.requests().len();
    let refused = up(world, "4", NOW);
    assert_eq!(refused.code, 3, "{}", refused.stderr);
    assert!(refused.stderr.contains("$154.08 is over the pool's cap of $120.00"), "{}", refused.stderr);
    for held in ["held by pr-1: up 4d 0h", "held by pr-2: up 1d 0h", "held by pr-3: up 0m"] {
        assert!(refused.stderr.contains(held), "{held}: {}", refused.stderr);
    }
    assert_eq!(tagged(world, "pr-4"), Vec::<String>::new());
    assert!(!world.dir.join("infra/pr-4").exists());
    let writes = world.infisical.requests()[before..].iter().filter(|(m, _)| m != "GET").count();
    assert!(writes <= 1, "only a login may reach Infisical: {:?}", &world.infisical.requests()[before..]);

    // The cap raised, `max` lowered to 3: the fourth is refused by the count.
    let file = world.file();
    common::edit(&file, "max: 5", "max: 3");
    common::edit(&file, "limits: { monthly: 120 }", "limits: { monthly: 1000 }");
    let refused = up(world, "4", NOW);
    assert_eq!(refused.code, 3, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("pr-4 would be live preview number 4: over `previews.max` (3)"),
        "{}",
        refused.stderr
    );
    common::edit(&file, "max: 3", "max: 5");
    common::edit(&file, "limits: { monthly: 1000 }", "limits: { monthly: 120 }");
}

/// `list` shows the three and the pool; the review of a fourth pull request reads it.
fn list_and_review(world: &World) {
    let list = preview(world, &["list", "--now", NOW, "--format", "json"]);
    assert_eq!(list.code, 0, "{}", list.stderr);
    let listed: Value = serde_json::from_str(&list.stdout).unwrap();
    let names: Vec<&str> =
        listed["previews"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["pr-1", "pr-2", "pr-3"], "{listed:#}");
    assert_eq!(listed["total"], "115.56");
    assert_eq!(listed["cap"], "120.00");
    assert_eq!(listed["previews"][0]["ageSeconds"], 4 * 86_400);
    assert!(listed["previews"].as_array().unwrap().iter().all(|p| p["leftover"] == false));

    // The review of a fourth pull request reads that list: what it would add to the pool.
    let pool = world.dir.join("pool.json");
    std::fs::write(&pool, &list.stdout).unwrap();
    common::git(&world.dir, &["init", "-q", "-b", "main"]);
    common::git(&world.dir, &["add", "runway.yaml"]);
    common::git(&world.dir, &["commit", "-q", "-m", "base"]);
    let review = Run::logged(
        common::repo_command(&world.dir)
            .args([
                "diff",
                "--base-ref",
                "HEAD",
                "--format",
                "markdown",
                "--preview-pr",
                "4",
                "--previews-pool",
            ])
            .arg(&pool)
            .arg("runway.yaml"),
        &[
            "diff",
            "--base-ref",
            "HEAD",
            "--format",
            "markdown",
            "--preview-pr",
            "4",
            "--previews-pool",
            "pool.json",
        ],
    );
    assert_eq!(review.code, 0, "{}", review.stderr);
    assert!(
        review.stdout.ends_with("preview pr-4 would add $38.52; previews $154.08 of $120.00\n"),
        "{}",
        review.stdout
    );
}

/// `down` of one leaves nothing tagged with it; a sweep past `expireAfter` removes the expired.
fn down_and_sweep(world: &World, canned: &CannedAws) {
    // What dev's proxy lists, and pr-1's and pr-2's login secrets (`down` deletes them).
    let (before, one, two) = (listed(world), login_secrets(world, "pr-1"), login_secrets(world, "pr-2"));
    // `down` of pr-2: its database dropped first (its bootstrap task, the SQL replaced by the
    // plan's drop SQL: the override moto was sent), nothing tagged with it is left, the others
    // still run.
    let down = preview(world, &["down", "--pr", "2", "--interval", "1s"]);
    assert_eq!(down.code, 0, "{}", down.stderr);
    // Every version and the delete marker, before the destroy (S3 refuses a bucket holding any).
    let emptied = "  emptied bucket acme-shop-pr-2-uploads-123456789012-us-east-1-an (4 versions deleted)\n";
    assert!(down.stdout.contains(emptied), "{}", down.stdout);
    assert!(down.stdout.contains("pr-2: stack destroyed\n"), "{}", down.stdout);
    // Its folders, deepest first, its own folder last.
    let folders: Vec<&str> = down.stdout.lines().filter(|l| l.contains(" Infisical folder ")).collect();
    assert!(folders.len() > 2 && folders.iter().all(|l| l.starts_with("  deleted ")), "{folders:?}");
    assert_eq!(folders.last(), Some(&"  deleted Infisical folder preview:/previews/pr-2"), "{folders:?}");
    assert!(down.stdout.contains("dropped database main_db_pr_2"), "{}", down.stdout);
    // Its logins taken off dev's proxy first, only its: dev's and the others' kept, in order.
    let took = format!("  took {} login secret(s) off the shared proxy {DEV_PROXY}\n", two.len());
    assert!(down.stdout.contains(&took), "{}", down.stdout);
    let kept: Vec<String> = before.iter().filter(|a| !two.contains(a)).cloned().collect();
    assert_eq!(kept.len(), before.len() - two.len(), "{before:?}");
    let (proxy, list) = proxy_lists(world, canned).pop().unwrap();
    assert_eq!((proxy.as_str(), &list), (DEV_PROXY, &kept));
    apply(world, &list);
    let modified = proxy_lists(world, canned).len();
    let sent = drop_sql_sent(world);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert!(sent[0].contains("DROP DATABASE IF EXISTS \"main_db_pr_2\" WITH (FORCE);"), "{}", sent[0]);
    assert_eq!(tagged(world, "pr-2"), Vec::<String>::new());
    assert!(!world.infisical.versions().keys().any(|k| k.starts_with("preview:/previews/pr-2/")));
    assert_eq!(folders_of(world, "pr-2"), Vec::<String>::new());
    assert!(folders_of(world, "pr-1").len() > 1, "the others' folders are untouched");
    let running = services(world);
    assert!(!running.iter().any(|s| s.contains("pr-2")), "{running:?}");
    for pr in ["pr-1", "pr-3"] {
        assert!(running.contains(&format!("acme-shop-{pr}-metabase-service")), "{running:?}");
        own_bucket(world, pr);
    }
    // Run again, it finds nothing to do and succeeds.
    let again = preview(world, &["down", "--pr", "2", "--interval", "1s"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(again.stdout.contains("pr-2: stack absent"), "{}", again.stdout);
    assert!(again.stdout.contains("gone Infisical folder preview:/previews/pr-2\n"), "{}", again.stdout);
    assert_eq!(drop_sql_sent(world).len(), 1, "no stack, no task: nothing more to drop");
    assert_eq!(proxy_lists(world, canned).len(), modified, "its logins are off dev's proxy: nothing sent");

    // The clock past pr-1's 3 days: the sweep removes exactly it (all three pull requests open).
    let dry = preview(world, &["sweep", "--open", "1,2,3", "--now", NOW, "--dry-run", "--format", "json"]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    let dry: Value = serde_json::from_str(&dry.stdout).unwrap();
    assert_eq!(dry["removals"], serde_json::json!([{"name": "pr-1", "pr": 1, "reason": "expired"}]));
    assert!(!tagged(world, "pr-1").is_empty(), "a dry run removes nothing");
    let swept = preview(world, &["sweep", "--open", "1,2,3", "--now", NOW]);
    assert_eq!(swept.code, 0, "{}", swept.stderr);
    assert_eq!(tagged(world, "pr-1"), Vec::<String>::new());
    // pr-1's logins off dev's proxy, only its.
    let (_, list) = proxy_lists(world, canned).pop().unwrap();
    let left: Vec<String> = kept.iter().filter(|a| !one.contains(a)).cloned().collect();
    assert_eq!(list, left);
    assert_eq!(left.len(), kept.len() - one.len(), "{kept:?}");
    apply(world, &list);
    assert_eq!(folders_of(world, "pr-1"), Vec::<String>::new());
    own_bucket(world, "pr-3");
    let running = services(world);
    assert!(running.contains(&"acme-shop-pr-3-metabase-service".to_owned()), "{running:?}");
    assert!(
        running.contains(&"acme-shop-dev-metabase-service".to_owned()),
        "dev is never swept: {running:?}"
    );
    assert_no_secret(&swept.stdout, &world.secrets());
}

/// `down` killed midway and run again finishes; the pool is empty after.
fn killed_down_finishes(world: &World, canned: &CannedAws) {
    let sent = proxy_lists(world, canned).len();
    // `down` killed midway (SIGKILL, Pulumi with it, in its `destroy` once a resource is
    // deleted: the stack's lock stays), then run again: it finishes.
    let mut cmd = Command::new(common::RUNWAY);
    world.env(&mut cmd);
    cmd.args(["preview", "down", "--pr", "3", "--interval", "1s"])
        .arg(world.file())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd.spawn().unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    for line in std::io::BufRead::lines(stdout) {
        if line.unwrap().contains(" deleted") {
            let killed =
                Command::new("kill").args(["-s", "KILL", "--", &format!("-{}", child.id())]).status();
            assert!(killed.unwrap().success());
            break;
        }
    }
    assert!(child.wait().unwrap().code().is_none(), "the down ended before it was killed");
    assert!(!tagged(world, "pr-3").is_empty(), "killed midway, it left part of pr-3");
    // Killed after its first step: pr-3's logins were taken off dev's proxy (AWS applies it).
    let lists = proxy_lists(world, canned);
    assert_eq!(lists.len(), sent + 1, "{lists:?}");
    let dev_alone = apply(world, &lists[sent].1);
    assert_eq!(dev_alone.len(), 1, "dev's admin alone: {dev_alone:?}");
    let again = preview(world, &["down", "--pr", "3", "--interval", "1s"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(tagged(world, "pr-3"), Vec::<String>::new());
    assert_eq!(folders_of(world, "pr-3"), Vec::<String>::new());
    // Run again, it found them gone and went on: nothing more sent.
    assert_eq!(proxy_lists(world, canned).len(), sent + 1);
    leftover_bucket_is_swept(world);
    let list = preview(world, &["list", "--now", NOW, "--format", "json"]);
    let listed: Value = serde_json::from_str(&list.stdout).unwrap();
    assert_eq!(listed["previews"], serde_json::json!([]), "{listed:#}");
    assert_eq!(listed["total"], "0.00");
}

/// A bucket and a queue tagged as preview pr-9's that no stack holds (a `down` stopped after
/// `stack rm`): `list` marks pr-9 a leftover, `sweep` empties and deletes the bucket (one its
/// plan does not name: found by its tag alone) and deletes the queue.
fn leftover_bucket_is_swept(world: &World) {
    let bucket = "acme-shop-pr-9-archive-123456789012-us-east-1-an";
    let script = format!(
        "s3 = boto3.client('s3')\n\
         s3.create_bucket(Bucket='{bucket}')\n\
         s3.put_bucket_versioning(Bucket='{bucket}', VersioningConfiguration={{'Status': 'Enabled'}})\n\
         s3.put_bucket_tagging(Bucket='{bucket}', Tagging={{'TagSet': [{{'Key': 'product', 'Value': 'acme-shop'}}, \
         {{'Key': 'runway-preview', 'Value': 'pr-9'}}]}})\n\
         boto3.client('sqs').create_queue(QueueName='acme-shop-pr-9-jobs', \
         tags={{'product': 'acme-shop', 'runway-preview': 'pr-9'}})"
    );
    python(&world.moto, &script);
    fill_bucket(world, &format!("arn:aws:s3:::{bucket}"));
    let list = preview(world, &["list", "--now", NOW, "--format", "json"]);
    let listed: Value = serde_json::from_str(&list.stdout).unwrap();
    assert_eq!(listed["previews"][0]["name"], "pr-9", "{listed:#}");
    assert_eq!(listed["previews"][0]["leftover"], true, "{listed:#}");
    assert_eq!(listed["previews"][0]["resources"], 2, "{listed:#}");
    let swept = preview(world, &["sweep", "--open", "9", "--now", NOW]);
    assert_eq!(swept.code, 0, "{}", swept.stderr);
    assert!(swept.stdout.contains(&format!("deleted arn:aws:s3:::{bucket}\n")), "{}", swept.stdout);
    let queue = "deleted arn:aws:sqs:us-east-1:123456789012:acme-shop-pr-9-jobs\n";
    assert!(swept.stdout.contains(queue), "{}", swept.stdout);
    assert_eq!(tagged(world, "pr-9"), Vec::<String>::new());
}

/// A preview's Infisical environment is never a declared environment's: a runway that tries
/// (`infisicalEnvironment` set to production's) is refused before any call, and Infisical sees
/// no write.
#[test]
fn a_preview_never_writes_into_productions_infisical_environment() {
    let world = World::new("previews-prod-infisical");
    let file = world.file();
    // The example maps production to Infisical's `prod`.
    common::edit(&file, "environments: { production: prod }", "environments: { production: prod }");
    common::edit(&file, "  max: 5\n", "  max: 5\n  infisicalEnvironment: prod\n");
    let before = world.infisical.requests().len();
    for args in [&["up", "--pr", "5"][..], &["down", "--pr", "5"][..]] {
        let run = preview(&world, args);
        assert_eq!(run.code, 1, "{}", run.stderr);
        assert!(run.stderr.contains("invalid-value"), "{}", run.stderr);
    }
    assert_eq!(world.infisical.requests().len(), before, "Infisical saw a request");
}

//! What moto recorded of the one-off tasks `runway migrate` started, for the `deploy` tests (a
//! module of its own: deploy.rs is long already).

use serde_json::{Value, json};
use test_support::Moto;

/// The task `runway migrate` started for Metabase (issue 39), as moto recorded it: one task of
/// the migrate family, started by runway, with no override of what it runs; its task
/// definition's container hands `"migrate up"`, one argument, to the image's ENTRYPOINT
/// (`run_metabase.sh`: no `entryPoint` replaces it). (That every parameter it reads exists when
/// it starts, the first simulated `up` checks.)
pub fn assert_metabase_migrate_runs_its_documented_form(moto: &Moto) {
    let read = "import boto3, json\n\
                ecs = boto3.client('ecs', region_name='us-east-1')\n\
                arns = ecs.list_tasks(cluster='acme-shop-dev', family='acme-shop-dev-metabase-migrate')['taskArns']\n\
                tasks = ecs.describe_tasks(cluster='acme-shop-dev', tasks=arns)['tasks'] if arns else []\n\
                out = []\n\
                for t in tasks:\n\
                \x20   d = ecs.describe_task_definition(taskDefinition=t['taskDefinitionArn'])['taskDefinition']\n\
                \x20   out.append({'startedBy': t.get('startedBy'), 'overrides': t.get('overrides', {}),\n\
                \x20               'family': d['family'], 'containers': d['containerDefinitions']})\n\
                print(json.dumps(out))";
    let started: Value = serde_json::from_slice(&moto.python(read, &[])).unwrap();
    let started = started.as_array().unwrap();
    assert_eq!(started.len(), 1, "one migrate task: {started:#?}");
    let task = &started[0];
    assert_eq!(
        (task["startedBy"].as_str(), task["family"].as_str()),
        (Some("runway"), Some("acme-shop-dev-metabase-migrate"))
    );
    for o in task["overrides"]["containerOverrides"].as_array().into_iter().flatten() {
        assert!(o.get("command").is_none() && o.get("entryPoint").is_none(), "an override: {o}");
    }
    let container = &task["containers"][0];
    assert_eq!(task["containers"].as_array().unwrap().len(), 1, "{task:#}");
    assert_eq!(container["name"], "metabase");
    assert_eq!(container["command"], json!(["migrate up"]), "{container:#}");
    assert!(container.get("entryPoint").is_none(), "the image's ENTRYPOINT runs: {container:#}");
}

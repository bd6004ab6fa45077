"""A `pulumi up` of an emitted runway program against moto, as far as the SSM parameters a task
reads go: the deploy test's stand-in for `pulumi up`, which cannot run without an AWS account.

    python tools/simulate_up.py PROGRAM_DIR OUTPUTS_JSON [--as-prepared PLAN_JSON] [--ecs] [--exclude-services]

It reads `PROGRAM_DIR/Pulumi.yaml` and the stack outputs a real `up` would give (a
`pulumi stack output --json --show-secrets` file, the test's values), then walks the program's
resources in the order Pulumi would create them (each after everything it references or
`dependsOn`) and models what matters for a task's start:

- a variable read with `aws:ssm:getParameter` must exist when the program runs (after
  `secrets prepare`); `aws:secretsmanager:getSecret` likewise;
- an `aws:ssm/parameter:Parameter` is written to SSM (moto, from `AWS_ENDPOINT_URL`) with its
  value: `${item.attribute}` resolved through the outputs that name the same expression, `${var}`
  through the decrypted look-ups;
- an `aws:ecs/service:Service` starts its tasks as soon as what it waits for exists (Pulumi
  creates everything else in parallel): every `valueFrom` of its task definition must then exist
  in SSM, either from before `up` or written by a parameter resource the service waits for
  (directly or not), or ECS stops the task with `ResourceInitializationError`.

With `--as-prepared`, first does what `secrets prepare` and people do before `up`, with
placeholder values: every parameter the plan (`runway plan --format json`) says `secrets prepare`
or people write, every Secrets Manager copy of a generated credential, and every registry
credentials copy.

With `--ecs`, also declares what `runway rollout` reads: the ECS clusters, a revision of each
task definition family (each container with its name, image, `entryPoint` and `command` as
declared), and each service on it (moto runs the services' tasks when started with
`MOTO_ECS_SERVICE_RUNNING=1`), in the same order; and what `runway migrate` waits for before a
bootstrap: each RDS proxy (in moto's default subnets) with its target registered.

With `--exclude-services`, models the deploy job's first `pulumi up` (`--exclude` of every
`aws:ecs/service:Service` with `--exclude-dependents`, docs/pipeline.md): everything but the
services and what depends on them (their scaling targets and policies) is declared, no service
starts, and each one-off task the program exports (an output object naming a `taskDefinition`)
must be able to start right after it: every `valueFrom` of its task definition exists then. The
one-off tasks' outputs are printed as the stack would give them (`outputs`), for `runway
migrate --outputs`. A later run without the flag is the full `up`: it declares what is missing
(the services) and leaves what exists.

moto 5.2.5 cannot run an `awsvpc` task (`RunTask` fails creating its network interface), so with
`--ecs` a one-off task's family is registered without `FARGATE` compatibility (moto then gives it
the `bridge` mode and ignores the network configuration `RunTask` sends); the services' are as
the program declares them.

With `--ecs` (and not `--exclude-services`), also declares the scaling targets' scheduled
actions (a workload's active hours) in Application Auto Scaling and each EventBridge Scheduler
schedule, whose target must name a task definition the program registered (its family exists in
ECS) and the cluster; a schedule that exists (an earlier `up`) is updated.

With `--ecs`, a preview's own queues, topics, buckets (versioned when the program says so) and
log groups (those tagged `runway-preview`) are declared with their tags, so `runway preview
down` has them to remove; a declared environment's are not (no test of one expects them).

The `from` environment's items a pull request's preview shares are looked up, not declared: an
`aws:ecs:getCluster` variable names a cluster that must exist (else the program cannot run), and
its services run on it. The ECS task definitions and services are registered with the
program's `tags` (the Resource Groups Tagging API then finds them, as a real `up` would).

Prints one JSON object: `written` (parameter names), `started` (services), `failures` (why a
task could not start or the program could not run), `outputs` (the one-off tasks' stack
outputs), `scheduled` (schedules) and `scheduledActions`; exits 1 when there is a failure.
"""

import json
import re
import sys

import boto3
import yaml

REF = re.compile(r"\$\{([^}]+)\}")


def refs(value):
    """Every `${...}` a value holds, anywhere inside it."""
    if isinstance(value, str):
        return REF.findall(value)
    if isinstance(value, dict):
        return [r for v in value.values() for r in refs(v)]
    if isinstance(value, list):
        return [r for v in value for r in refs(v)]
    return []


def dependencies(resources):
    """Each resource's direct dependencies: what its properties reference and its `dependsOn`."""
    deps = {}
    for name, res in resources.items():
        named = {r.split(".")[0] for r in refs(res.get("properties", {}))}
        named |= {r.split(".")[0] for r in refs((res.get("options") or {}).get("dependsOn", []))}
        deps[name] = {d for d in named if d in resources and d != name}
    return deps


def closure(deps, name):
    """Everything a resource waits for, directly or not."""
    seen, todo = set(), [name]
    while todo:
        for d in deps[todo.pop()]:
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


def order(resources, deps):
    """Resource names in an order Pulumi could create them: each after what it references."""
    done, out = set(), []
    while len(out) < len(resources):
        ready = sorted(n for n in resources if n not in done and deps[n] <= done)
        if not ready:
            raise SystemExit(f"a dependency cycle among {sorted(set(resources) - done)}")
        for n in ready:
            done.add(n)
            out.append(n)
    return out


def prepare(plan_file, ssm, secrets):
    """What exists before `up`: the parameters `secrets prepare` writes (the credentials, the
    workloads' own secrets), the proxy copies."""
    with open(plan_file, encoding="utf-8") as f:
        plan = json.load(f)
    layout = plan["secrets"]
    for p in layout["ssmParameters"]:
        if p["writtenBy"] == "secrets-prepare":
            ssm.put_parameter(Name=p["name"], Value="placeholder", Type="SecureString", KeyId=p["kmsKey"])
    for g in layout["generated"]:
        if g.get("secretsManager"):
            secrets.create_secret(Name=g["secretsManager"], SecretString="{}")
    for copy in layout.get("registryCopies") or []:
        secrets.create_secret(Name=copy["secretsManager"], SecretString="{}")


def declare_ecs(resources, names, ecs, one_off, name_of=None):
    """The clusters, task definitions and services, as `up` would create them (in `names` order);
    what exists already (an earlier `up`) is left as it is. Returns each task definition's ARN;
    `name_of` gets each cluster's, family's and service's name by logical id."""
    name_of = {} if name_of is None else name_of
    arns = {}
    for name in names:
        res = resources[name]
        props = res.get("properties", {})
        if res["type"] == "aws:ecs/cluster:Cluster":
            if not ecs.describe_clusters(clusters=[props["name"]])["clusters"]:
                ecs.create_cluster(clusterName=props["name"])
            name_of[name] = props["name"]
        elif res["type"] == "aws:ecs/taskDefinition:TaskDefinition":
            name_of[name] = props["family"]
            try:
                arns[name] = ecs.describe_task_definition(taskDefinition=props["family"])["taskDefinition"]["taskDefinitionArn"]
                continue
            except ecs.exceptions.ClientException:
                pass
            containers = props["containerDefinitions"]["fn::toJSON"]
            fargate = {} if name in one_off else {"requiresCompatibilities": ["FARGATE"], "networkMode": "awsvpc"}
            registered = ecs.register_task_definition(
                family=props["family"],
                containerDefinitions=[container(c, props) for c in containers],
                cpu=props["cpu"], memory=props["memory"], tags=ecs_tags(props), **fargate)
            arns[name] = registered["taskDefinition"]["taskDefinitionArn"]
        elif res["type"] == "aws:rds/proxy:Proxy":
            declare_proxy(props, boto3.client("rds", region_name=ecs.meta.region_name), ecs.meta.region_name)
            name_of[name] = props["name"]
        elif res["type"] == "aws:rds/proxyTarget:ProxyTarget":
            rds = boto3.client("rds", region_name=ecs.meta.region_name)
            proxy = name_of[props["dbProxyName"].strip("${}").split(".")[0]]
            if not rds.describe_db_proxy_targets(DBProxyName=proxy)["Targets"]:
                # The target's database by its logical name: moto registers any identifier.
                rds.register_db_proxy_targets(DBProxyName=proxy, DBInstanceIdentifiers=[name])
        elif res["type"] == "aws:ecs/service:Service":
            ref = lambda v: name_of[v.strip("${}").split(".")[0]]
            # A worker (no port) has neither `loadBalancers` nor `serviceRegistries`.
            ecs.create_service(cluster=ref(props["cluster"]), serviceName=props["name"],
                               taskDefinition=ref(props["taskDefinition"]),
                               desiredCount=props["desiredCount"], launchType="FARGATE", tags=ecs_tags(props))
            name_of[name] = props["name"]
    return arns


PAY_PER_USE = ("aws:sqs/queue:Queue", "aws:sns/topic:Topic", "aws:s3/bucket:Bucket",
               "aws:cloudwatch/logGroup:LogGroup")


def account_of(region):
    """The caller's account id (`${aws-account-id}`, `aws:getCallerIdentity`)."""
    return boto3.client("sts", region_name=region).get_caller_identity()["Account"]


def bucket_name(props, region):
    """A bucket's name as the program composes it: `${aws-account-id}` is the caller's account."""
    return props["bucket"].replace("${aws-account-id}", account_of(region))


def declare_preview_use(resources, names, region):
    """A preview's own queues, topics, buckets (versioned as the program says) and log groups,
    with their tags, so that `preview down` has them to remove and `list` can find them; what
    exists (an earlier `up`) is left as it is. Only a preview's (tagged `runway-preview`): the
    declared environments' tests do not expect them. Returns what was declared."""
    sqs, sns = boto3.client("sqs", region_name=region), boto3.client("sns", region_name=region)
    s3, logs = boto3.client("s3", region_name=region), boto3.client("logs", region_name=region)
    declared, buckets = [], {}
    for name in names:
        res = resources[name]
        props = res.get("properties", {})
        tags = props.get("tags") or {}
        if res["type"] == "aws:s3/bucketVersioning:BucketVersioning":
            owner = props["bucket"].strip("${}").split(".")[0]
            if owner in buckets and props["versioningConfiguration"]["status"] == "Enabled":
                s3.put_bucket_versioning(Bucket=buckets[owner], VersioningConfiguration={"Status": "Enabled"})
            continue
        if res["type"] not in PAY_PER_USE or "runway-preview" not in tags:
            continue
        if res["type"] == "aws:sqs/queue:Queue":
            sqs.create_queue(QueueName=props["name"], tags=tags)
        elif res["type"] == "aws:sns/topic:Topic":
            sns.create_topic(Name=props["name"], Tags=[{"Key": k, "Value": v} for k, v in tags.items()])
        elif res["type"] == "aws:s3/bucket:Bucket":
            buckets[name] = bucket_name(props, region)
            where = {} if region == "us-east-1" else {"CreateBucketConfiguration": {"LocationConstraint": region}}
            try:
                s3.create_bucket(Bucket=buckets[name], **where)
            except s3.exceptions.BucketAlreadyOwnedByYou:
                pass
            s3.put_bucket_tagging(Bucket=buckets[name],
                                  Tagging={"TagSet": [{"Key": k, "Value": v} for k, v in tags.items()]})
        elif res["type"] == "aws:cloudwatch/logGroup:LogGroup":
            try:
                logs.create_log_group(logGroupName=props["name"], tags=tags)
            except logs.exceptions.ResourceAlreadyExistsException:
                pass
        declared.append(name)
    return declared


def ecs_tags(props):
    """A resource's `tags` as ECS takes them."""
    return [{"key": k, "value": v} for k, v in (props.get("tags") or {}).items()]


def looked_up_clusters(program, ecs, failures):
    """The clusters a preview's program looks up (`aws:ecs:getCluster`), by variable name; one
    that does not exist fails the program, as the provider's function does."""
    found = {}
    for name, value in (program.get("variables") or {}).items():
        call = value.get("fn::invoke") if isinstance(value, dict) else None
        if not call or call.get("function") != "aws:ecs:getCluster":
            continue
        cluster = (call.get("arguments") or {}).get("clusterName")
        if not ecs.describe_clusters(clusters=[cluster])["clusters"]:
            failures.append(f"the program cannot run: {name}: cluster {cluster} not found")
            continue
        found[name] = cluster
    return found


def declare_schedules(resources, names, region, name_of, arns):
    """The scaling targets' scheduled actions (Application Auto Scaling) and the schedules
    (EventBridge Scheduler), as `up` would create them. A schedule's target must name a task
    definition the program registered, and its cluster. Returns (schedules, actions, failures)."""
    scheduler = boto3.client("scheduler", region_name=region)
    scaling = boto3.client("application-autoscaling", region_name=region)
    ecs = boto3.client("ecs", region_name=region)
    logical = lambda v: v.strip("${}").split(".")[0] if isinstance(v, str) else None
    schedules, actions, failures, targets = [], [], [], {}
    for name in names:
        res = resources[name]
        props = res.get("properties", {})
        if res["type"] == "aws:appautoscaling/target:Target":
            cluster, service = [logical(p) for p in props["resourceId"].split("/")[1:]]
            resource_id = f"service/{name_of[cluster]}/{name_of[service]}"
            scaling.register_scalable_target(ServiceNamespace="ecs", ResourceId=resource_id,
                                             ScalableDimension="ecs:service:DesiredCount",
                                             MinCapacity=props["minCapacity"], MaxCapacity=props["maxCapacity"])
            targets[name] = resource_id
        elif res["type"] == "aws:appautoscaling/scheduledAction:ScheduledAction":
            action = props["scalableTargetAction"]
            scaling.put_scheduled_action(ServiceNamespace="ecs", ScheduledActionName=props["name"],
                                         ResourceId=targets[logical(props["resourceId"])],
                                         ScalableDimension="ecs:service:DesiredCount",
                                         Schedule=props["schedule"], Timezone=props["timezone"],
                                         ScalableTargetAction={"MinCapacity": action["minCapacity"],
                                                               "MaxCapacity": action["maxCapacity"]})
            actions.append(props["name"])
        elif res["type"] == "aws:scheduler/schedule:Schedule":
            target = props["target"]
            definition = logical(target["ecsParameters"]["taskDefinitionArn"])
            cluster = logical(target["arn"])
            if definition not in arns or cluster not in name_of:
                failures.append(f"{name}: its target names no task definition or cluster the program declares")
                continue
            try:
                ecs.describe_task_definition(taskDefinition=arns[definition])
            except ecs.exceptions.ClientException:
                failures.append(f"{name}: its task definition {arns[definition]} does not exist")
                continue
            cluster_arn = ecs.describe_clusters(clusters=[name_of[cluster]])["clusters"][0]["clusterArn"]
            account = cluster_arn.split(":")[4]
            schedule = dict(
                Name=props["name"], ScheduleExpression=props["scheduleExpression"],
                ScheduleExpressionTimezone=props["scheduleExpressionTimezone"],
                FlexibleTimeWindow={"Mode": props["flexibleTimeWindow"]["mode"]},
                Target={"Arn": cluster_arn, "RoleArn": f"arn:aws:iam::{account}:role/{props['name']}-run",
                        "Input": json.dumps(target["input"]["fn::toJSON"]),
                        "EcsParameters": {"TaskDefinitionArn": arns[definition], "LaunchType": "FARGATE",
                                          "TaskCount": 1, "Group": target["ecsParameters"]["group"]},
                        "RetryPolicy": {"MaximumRetryAttempts": target["retryPolicy"]["maximumRetryAttempts"]}})
            # A schedule an earlier `up` made is updated to the program's, as Pulumi would.
            try:
                scheduler.create_schedule(**schedule)
            except scheduler.exceptions.ConflictException:
                scheduler.update_schedule(**schedule)
            schedules.append(props["name"])
    return schedules, actions, failures


def declare_proxy(props, rds, region):
    """An RDS proxy as `up` would create it (left as it is when it exists); moto asks for subnets
    that exist, so the default VPC's stand in for the private subnets."""
    if any(p["DBProxyName"] == props["name"] for p in rds.describe_db_proxies()["DBProxies"]):
        return
    subnets = [s["SubnetId"] for s in boto3.client("ec2", region_name=region).describe_subnets()["Subnets"][:2]]
    secret = f"arn:aws:secretsmanager:{region}:123456789012:secret:{props['name']}-admin-abcdef"
    rds.create_db_proxy(DBProxyName=props["name"], EngineFamily=props["engineFamily"],
                        Auth=[{"AuthScheme": "SECRETS", "IAMAuth": "DISABLED", "SecretArn": secret}],
                        RoleArn=f"arn:aws:iam::123456789012:role/{props['name']}", VpcSubnetIds=subnets)


def container(declared, props):
    """The container definition registered for one the program declares: its name and image,
    and what it runs (`entryPoint`, `command`) as declared, which `DescribeTaskDefinition` then
    gives back as ECS would."""
    registered = {"name": declared["name"], "image": declared["image"], "memory": int(props["memory"])}
    for key in ("entryPoint", "command"):
        if key in declared:
            registered[key] = declared[key]
    return registered


def excluded(resources, deps):
    """The services and everything that depends on them, directly or not (`--exclude-dependents`)."""
    out = {n for n, r in resources.items() if r["type"] == "aws:ecs/service:Service"}
    grew = True
    while grew:
        grew = False
        for n in resources:
            if n not in out and deps[n] & out:
                out.add(n)
                grew = True
    return out


def task_outputs(program):
    """The one-off tasks' outputs: name -> the output object (with its `taskDefinition`)."""
    return {name: value for name, value in (program.get("outputs") or {}).items()
            if isinstance(value, dict) and "taskDefinition" in value}


def resolve_task_output(value, resources, arns, looked_up=None):
    """A one-off task's output as the stack gives it: the references resolved the way AWS names
    the items (a task definition's ARN as registered, a name as declared, placeholders else)."""
    def one(text):
        m = REF.fullmatch(text)
        if not m:
            return text
        if m.group(1) == "privateSubnetIds":
            return ["subnet-private-a", "subnet-private-b"]
        res, attr = m.group(1).split(".")
        if attr == "arn" and res in arns:
            return arns[res]
        # A looked-up cluster's name is `aws:ecs:getCluster`'s `clusterName` (it has no `name`).
        if attr == "clusterName" and res not in resources and res in (looked_up or {}):
            return looked_up[res]
        if attr == "name":
            return resources[res]["properties"]["name"]
        return f"{attr}-of-{res}"
    return {k: [one(v) for v in val] if isinstance(val, list) else one(val) for k, val in value.items()}


def main():
    program_dir, outputs_file = sys.argv[1], sys.argv[2]
    with open(f"{program_dir}/Pulumi.yaml", encoding="utf-8") as f:
        program = yaml.safe_load(f)
    with open(outputs_file, encoding="utf-8") as f:
        outputs = json.load(f)
    region = program["resources"][next(iter(program["resources"]))]["properties"].get("region", "us-east-1")
    ssm = boto3.client("ssm", region_name=region)
    secrets = boto3.client("secretsmanager", region_name=region)
    if "--as-prepared" in sys.argv:
        prepare(sys.argv[sys.argv.index("--as-prepared") + 1], ssm, secrets)

    # What an expression `${x.y}` evaluates to: the stack output that exports it.
    known = {}
    for name, expr in (program.get("outputs") or {}).items():
        if name in outputs and isinstance(expr, str):
            known[expr.strip("${}")] = outputs[name]
    failures, written, started = [], [], []

    for name, value in (program.get("variables") or {}).items():
        call = (value.get("fn::secret") or value).get("fn::invoke") if isinstance(value, dict) else None
        if not call:
            continue
        args = call.get("arguments") or {}
        try:
            if call["function"] == "aws:ssm:getParameter":
                got = ssm.get_parameter(Name=args["name"], WithDecryption=True)
                field = "Version" if call.get("return") == "version" else "Value"
                known[name] = str(got["Parameter"][field])
            elif call["function"] == "aws:secretsmanager:getSecret":
                secrets.describe_secret(SecretId=args["name"])
        except ssm.exceptions.ParameterNotFound:
            failures.append(f"the program cannot run: parameter {args['name']} does not exist")
        except secrets.exceptions.ResourceNotFoundException:
            failures.append(f"the program cannot run: secret {args['name']} does not exist")

    def evaluate(text):
        def one(m):
            if m.group(1) not in known:
                raise KeyError(m.group(1))
            return known[m.group(1)]

        return REF.sub(one, text)

    resources = program["resources"]
    deps = dependencies(resources)
    tasks = task_outputs(program)
    one_off = {v["taskDefinition"].strip("${}").split(".")[0] for v in tasks.values()}
    first_up = "--exclude-services" in sys.argv
    if first_up:
        resources = {n: r for n, r in resources.items() if n not in excluded(resources, deps)}
        deps = dependencies(resources)

    def current(parameter):
        try:
            return ssm.get_parameter(Name=parameter, WithDecryption=True)["Parameter"]["Value"]
        except ssm.exceptions.ParameterNotFound:
            return None

    def exists(parameter):
        try:
            ssm.get_parameter(Name=parameter)
            return True
        except ssm.exceptions.ParameterNotFound:
            return False

    # What every service's tasks read, and which of it exists before `up` writes anything.
    reads = {}
    for name, res in resources.items():
        if res["type"] == "aws:ecs/service:Service":
            task = res["properties"]["taskDefinition"].strip("${}").split(".")[0]
            containers = resources[task]["properties"]["containerDefinitions"]["fn::toJSON"]
            reads[name] = [s["valueFrom"] for c in containers for s in c.get("secrets") or []]
    before = {p for ps in reads.values() for p in ps if exists(p)}

    # What every one-off task reads: it starts right after the first `up`.
    task_reads = {}
    for task in one_off:
        containers = resources[task]["properties"]["containerDefinitions"]["fn::toJSON"]
        task_reads[task] = [s["valueFrom"] for c in containers for s in c.get("secrets") or []]

    writes = {}
    names = order(resources, deps)
    for name in names:
        res = resources[name]
        props = res.get("properties", {})
        if res["type"] != "aws:ssm/parameter:Parameter":
            continue
        # A write-only value (`valueWo`, a template embedding a credential) is written the same.
        value = props["value"] if "value" in props else props["valueWo"]
        value = value["fn::secret"] if isinstance(value, dict) else value
        try:
            value = evaluate(value)
        except KeyError as missing:
            failures.append(f"{name}: `${{{missing.args[0]}}}` is no stack output or look-up")
            continue
        # Pulumi updates a resource only when its inputs changed: an unchanged value is not
        # written again (its version and LastModifiedDate stay), as `ssm publish`'s restarts expect.
        if current(props["name"]) != value:
            ssm.put_parameter(Name=props["name"], Value=value, Type=props["type"], KeyId=props["keyId"],
                              Overwrite=True)
        tags = [{"Key": k, "Value": v} for k, v in (props.get("tags") or {}).items()]
        if tags:
            ssm.add_tags_to_resource(ResourceType="Parameter", ResourceId=props["name"], Tags=tags)
        written.append(props["name"])
        writes[name] = props["name"]

    # The services after the parameters their tasks read (they depend on them; checked below).
    arns, name_of, scheduled, actions = {}, {}, [], []
    if "--ecs" in sys.argv:
        ecs = boto3.client("ecs", region_name=region)
        missing = []
        name_of.update(looked_up_clusters(program, ecs, missing))
        failures.extend(missing)
        if not missing:
            arns = declare_ecs(resources, names, ecs, one_off, name_of)
            declare_preview_use(resources, names, region)
        if not first_up:
            scheduled, actions, schedule_failures = declare_schedules(resources, names, region, name_of, arns)
            failures.extend(schedule_failures)

    for name, parameters in reads.items():
        waited = {writes[r] for r in closure(deps, name) if r in writes}
        for parameter in parameters:
            if parameter not in before and parameter not in waited:
                failures.append(
                    f"{name}: ResourceInitializationError: parameter {parameter} "
                    "may not exist when the task starts"
                )
        started.append(name)

    if first_up:
        for task, parameters in task_reads.items():
            for parameter in parameters:
                if not exists(parameter):
                    failures.append(f"{task}: ResourceInitializationError: parameter {parameter} "
                                    "does not exist after the first `up`")
    resolved = {name: resolve_task_output(value, resources, arns, name_of) for name, value in tasks.items()}
    print(json.dumps({"written": written, "started": started, "failures": failures, "outputs": resolved,
                      "scheduled": scheduled, "scheduledActions": actions}, indent=1))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

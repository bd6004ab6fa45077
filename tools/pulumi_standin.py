#!/usr/bin/env python3
"""A stand-in for the Pulumi CLI, as far as `runway deploy` uses it, over moto: the tests put it
first on PATH (as `pulumi`) or pass it with `--pulumi`. It keeps Pulumi's contract (flags,
exit codes, where state and locks live) and models what `up` does to the account with
tools/simulate_up.py. Where it and the real CLI could differ: docs/pipeline.md, "The Pulumi
stand-in".

    pulumi_standin.py [--stack S | -s S] [--cwd DIR | -C DIR] [--non-interactive] [--color M] COMMAND

Commands (global flags anywhere, as Pulumi takes them):

- `version`: prints `v3.200.0-standin`.
- `stack init NAME`: creates the stack's state (empty outputs); 255 when it exists.
- `up --yes [--skip-preview] [--exclude GLOB]... [--exclude-dependents]`: takes the stack's
  lock (255 `the stack is currently locked` when a killed `up` left one), then runs
  simulate_up.py `--ecs` over the program in `--cwd`; `--exclude` globs are matched against
  each resource's URN (`urn:pulumi:<stack>::<project>::<type>::<name>`, `*` not crossing `:`,
  `**` crossing it); only excluding exactly the ECS services (and, with
  `--exclude-dependents`, what depends on them) is modelled. Writes the stack's outputs and
  lets the lock go; 255 on any failure.
- `stack output --json [--show-secrets]`: the outputs of the last successful `up`, secret ones
  as `[secret]` without `--show-secrets`.
- `cancel --yes`: removes the stack's lock; 255 when there is none.
- `destroy --yes [--skip-preview] [--exclude URN-GLOB]... [--exclude-dependents]`: takes the
  stack's lock, then deletes every resource of the state that `--exclude` does not leave out
  (with `--exclude-dependents`, nor what depends on an excluded one), dependents first: in moto
  an `aws:ssm/parameter:Parameter` (by `name`), an `aws:ecs/service:Service` and an
  `aws:rds/instance:Instance` (by `identifier`, its final snapshot as the program says; RDS
  refuses one with deletion protection on), a queue, a topic, a log group, and a bucket (S3
  refuses one holding any object version or delete marker, `BucketNotEmpty`, and the destroy
  fails: the program sets no `forceDestroy`); anything else leaves the state only. A resource
  the program `protect`s and the state has not unprotected fails the destroy (255) before
  anything is deleted, as Pulumi does. What is left out stays in the state. Run again, it
  deletes what is left (gone already is no failure).
- `stack ls --json`: the project's stacks in the backend (`[{"name": ..., "current": false}]`).
- `stack rm --yes [--force]`: removes the stack's state; 255 when resources remain (unless
  `--force`) or there is no such stack.
- `state unprotect --all --yes`: marks every resource of the state unprotected (a later `up`
  protects again what the program protects).

State: `$PULUMI_BACKEND_URL` (`file://DIR`) or else `<cwd>/.pulumi-standin`, laid out as the
self-managed backend does: `stacks/<project>/<stack>.json`, `locks/<project>/<stack>/<id>.json`.
Environment: `AWS_ENDPOINT_URL` and test credentials for moto, `RUNWAY_PYTHON`-free (it runs
simulate_up.py with its own interpreter). `PULUMI_STANDIN_LOG=FILE` appends each command line.

- `preview --json [--diff] [--show-sames] [--show-replacement-steps]`: Pulumi's preview
  document (`steps`, `changeSummary`) of the program in `--cwd` against what the last `up`
  applied (`applied` in the state: each resource's type and inputs; nothing for an empty
  stack), computed by tools/pulumi_preview.py; writes nothing, takes no lock. Without `--json`
  it fails (runway only reads the JSON).
"""

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import uuid

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pulumi_preview  # noqa: E402  (beside this file)
import simulate_up  # noqa: E402

FAIL = 255


class Failure(Exception):
    """A command's failure: Pulumi prints `error: ...` and exits 255."""


def glob_re(glob):
    """A URN glob as Pulumi matches it: `**` any characters, `*` any but `:`."""
    out, i = "", 0
    while i < len(glob):
        if glob.startswith("**", i):
            out, i = out + ".*", i + 2
        elif glob[i] == "*":
            out, i = out + "[^:]*", i + 1
        else:
            out, i = out + re.escape(glob[i]), i + 1
    return re.compile(out + r"\Z")


class Context:
    """The global flags and the places they point to."""

    def __init__(self, argv):
        self.stack, self.cwd, self.interactive, rest = None, os.getcwd(), True, []
        i = 0
        while i < len(argv):
            a = argv[i]
            if a in ("--stack", "-s", "--cwd", "-C", "--color"):
                if i + 1 >= len(argv):
                    raise Failure(f"flag needs an argument: {a}")
                if a in ("--stack", "-s"):
                    self.stack = argv[i + 1]
                elif a in ("--cwd", "-C"):
                    self.cwd = argv[i + 1]
                i += 2
                continue
            if a.startswith("--stack="):
                self.stack = a.split("=", 1)[1]
            elif a.startswith("--cwd="):
                self.cwd = a.split("=", 1)[1]
            elif a == "--non-interactive":
                self.interactive = False
            else:
                rest.append(a)
            i += 1
        self.args = rest
        backend = os.environ.get("PULUMI_BACKEND_URL", "")
        self.backend = backend[len("file://"):] if backend.startswith("file://") else os.path.join(self.cwd, ".pulumi-standin")

    def program(self):
        path = os.path.join(self.cwd, "Pulumi.yaml")
        if not os.path.exists(path):
            raise Failure(f"no Pulumi.yaml project file found (searching upwards from {self.cwd})")
        with open(path, encoding="utf-8") as f:
            return yaml.safe_load(f)

    def need_stack(self):
        if not self.stack:
            raise Failure("no stack selected; please use `pulumi stack select` or pass --stack")
        return self.stack

    def state_path(self, project):
        return os.path.join(self.backend, "stacks", project, f"{self.need_stack()}.json")

    def lock_dir(self, project):
        return os.path.join(self.backend, "locks", project, self.need_stack())

    def state(self, project):
        path = self.state_path(project)
        if not os.path.exists(path):
            raise Failure(f"no stack named '{self.stack}' found")
        with open(path, encoding="utf-8") as f:
            return json.load(f)

    def save(self, project, state):
        path = self.state_path(project)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        # Written whole or not at all, as the backend writes a checkpoint.
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path))
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(state, f, indent=1)
        os.replace(tmp, path)


def flags(args, known, repeated=(), valued=()):
    """`args` as {flag: value}: booleans True, `repeated` ones lists; an unknown flag fails."""
    out, i = {r: [] for r in repeated}, 0
    while i < len(args):
        a = args[i]
        if a in valued or a in repeated:
            if i + 1 >= len(args):
                raise Failure(f"flag needs an argument: {a}")
            if a in repeated:
                out[a].append(args[i + 1])
            else:
                out[a] = args[i + 1]
            i += 2
            continue
        if a not in known:
            raise Failure(f"unknown flag: {a}")
        out[a] = True
        i += 1
    return out


def cmd_version(ctx, args):
    print("v3.200.0-standin")


def cmd_stack_init(ctx, args):
    if len(args) != 1:
        raise Failure("`stack init` takes the stack's name")
    ctx.stack = args[0]
    project = ctx.program()["name"]
    if os.path.exists(ctx.state_path(project)):
        raise Failure(f"stack '{ctx.stack}' already exists")
    ctx.save(project, {"outputs": {}, "secrets": [], "resources": []})
    print(f"Created stack '{ctx.stack}'")


def cmd_stack_output(ctx, args):
    opts = flags(args, {"--json", "--show-secrets", "-j"})
    state = ctx.state(ctx.program()["name"])
    outputs = dict(state["outputs"])
    if not opts.get("--show-secrets"):
        outputs = {k: "[secret]" if k in state["secrets"] else v for k, v in outputs.items()}
    if opts.get("--json") or opts.get("-j"):
        print(json.dumps(outputs, indent=2))
    else:
        for k, v in outputs.items():
            print(f"    {k:<30} {v}")


def cmd_cancel(ctx, args):
    opts = flags(args, {"--yes", "-y"})
    if not ctx.interactive and not opts:
        raise Failure("--yes must be passed in to proceed when running in non-interactive mode")
    project = ctx.program()["name"]
    ctx.state(project)
    locks = ctx.lock_dir(project)
    held = os.listdir(locks) if os.path.isdir(locks) else []
    if not held:
        raise Failure("the stack is not being updated")
    for name in held:
        os.remove(os.path.join(locks, name))
    print(f"The currently running update for '{ctx.stack}' has been canceled!")


def urn(stack, project, name, resource):
    return f"urn:pulumi:{stack}::{project}::{resource['type']}::{name}"


def excluded_set(ctx, program, globs, dependents):
    """The resources `--exclude` leaves out; only the services (and their dependents) are modelled."""
    resources, project = program["resources"], program["name"]
    matchers = [glob_re(g) for g in globs]
    out = {n for n, r in resources.items() if any(m.match(urn(ctx.stack, project, n, r)) for m in matchers)}
    deps = simulate_up.dependencies(resources)
    needing = {n for n in resources if n not in out and deps[n] & out}
    if needing and not dependents:
        first = sorted(needing)[0]
        raise Failure(f"resource {urn(ctx.stack, project, first, resources[first])} depends on an excluded "
                      "resource; pass --exclude-dependents to leave it out too")
    if dependents:
        out |= needing
        grew = True
        while grew:
            more = {n for n in resources if n not in out and deps[n] & out}
            out, grew = out | more, bool(more)
    services = simulate_up.excluded(resources, deps)
    if out and out != services:
        raise Failure("pulumi stand-in: only excluding every aws:ecs/service:Service (with its dependents) is modelled")
    return out


def output_values(program):
    """The stack's outputs a real `up` would give, as stable stand-in values: `${res.attr}` is
    `<attr>-of-<res>`; the one-off tasks' come from simulate_up. Returns (values, secret names)."""
    values, secret = {}, []
    for name, expr in (program.get("outputs") or {}).items():
        if isinstance(expr, dict) and "fn::secret" in expr:
            expr = expr["fn::secret"]
            secret.append(name)
        if isinstance(expr, str):
            m = simulate_up.REF.fullmatch(expr)
            values[name] = f"{m.group(1).split('.')[1]}-of-{m.group(1).split('.')[0]}" if m else expr
    return values, secret


def cmd_up(ctx, args):
    opts = flags(args, {"--yes", "-y", "--skip-preview", "-f", "--exclude-dependents"}, repeated=("--exclude",))
    if not ctx.interactive and not (opts.get("--yes") or opts.get("-y")):
        raise Failure("--yes or --skip-preview must be passed in to proceed when running in non-interactive mode")
    program = ctx.program()
    project = program["name"]
    state = ctx.state(project)
    locks = ctx.lock_dir(project)
    if os.path.isdir(locks) and os.listdir(locks):
        held = os.listdir(locks)[0]
        raise Failure(f"the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end "
                      f"or delete the lock file with `pulumi cancel`.\n  {os.path.join(locks, held)}")
    excluded = excluded_set(ctx, program, opts["--exclude"], opts.get("--exclude-dependents"))
    os.makedirs(locks, exist_ok=True)
    lock = os.path.join(locks, f"{uuid.uuid4()}.json")
    with open(lock, "w", encoding="utf-8") as f:
        json.dump({"pid": os.getpid(), "username": os.environ.get("USER", ""), "hostname": socket.gethostname(),
                   "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, f)
    try:
        update(ctx, program, state, excluded)
    finally:
        # A clean end (success or failure) lets the lock go; a killed process leaves it.
        if os.path.exists(lock):
            os.remove(lock)


def update(ctx, program, state, excluded):
    """The update itself, under the lock."""
    project = program["name"]
    print(f"Updating ({ctx.stack}):", flush=True)
    values, secret = output_values(program)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(values, f)
    try:
        cmd = [sys.executable, os.path.join(HERE, "simulate_up.py"), ctx.cwd, f.name, "--ecs"]
        if excluded:
            cmd.append("--exclude-services")
        ran = subprocess.run(cmd, capture_output=True, text=True, check=False)
    finally:
        os.unlink(f.name)
    try:
        report = json.loads(ran.stdout)
    except json.JSONDecodeError:
        raise Failure(f"the program could not run:\n{ran.stderr[-2000:]}") from None
    for name in report["written"]:
        print(f"    + aws:ssm/parameter:Parameter {name} created", flush=True)
    for name in report["started"]:
        print(f"    + aws:ecs/service:Service {name} created", flush=True)
    if report["failures"]:
        for failure in report["failures"]:
            print(f"    error: {failure}", file=sys.stderr)
        raise Failure("update failed")
    values.update(report["outputs"])
    kept = [urn(ctx.stack, project, n, r) for n, r in program["resources"].items() if n not in excluded]
    resources = sorted(set(state.get("resources", [])) | set(kept))
    # What this update applied, for a later `preview`: a resource no longer declared is gone
    # (Pulumi deletes it), an excluded one keeps what an earlier update gave it (or stays absent).
    before = state.get("applied") or {}
    applied = {n: before[n] for n in excluded if n in before}
    applied.update({n: {"type": r["type"], "properties": r.get("properties") or {}}
                    for n, r in program["resources"].items() if n not in excluded})
    ctx.save(project, {"outputs": values, "secrets": secret, "resources": resources, "applied": applied})
    print(f"Resources:\n    {len(kept)} declared, {len(excluded)} excluded\n", flush=True)


def cmd_preview(ctx, args):
    opts = flags(args, {"--json", "-j", "--diff", "--show-sames", "--show-replacement-steps"})
    if not (opts.get("--json") or opts.get("-j")):
        raise Failure("pulumi stand-in: only `preview --json` is modelled")
    program = ctx.program()
    applied = ctx.state(program["name"]).get("applied") or {}
    # Pulumi reads the state and writes nothing; an empty stack previews every resource created.
    previous = {"resources": applied} if applied else None
    doc = pulumi_preview.preview(program, previous, ctx.stack, bool(opts.get("--show-sames")),
                                 bool(opts.get("--show-replacement-steps")))
    print(json.dumps(doc, indent=4))


def take_lock(ctx, project):
    """The stack's lock, or 255 when a killed command left one."""
    locks = ctx.lock_dir(project)
    if os.path.isdir(locks) and os.listdir(locks):
        held = os.listdir(locks)[0]
        raise Failure(f"the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end "
                      f"or delete the lock file with `pulumi cancel`.\n  {os.path.join(locks, held)}")
    os.makedirs(locks, exist_ok=True)
    lock = os.path.join(locks, f"{uuid.uuid4()}.json")
    with open(lock, "w", encoding="utf-8") as f:
        json.dump({"pid": os.getpid(), "username": os.environ.get("USER", ""), "hostname": socket.gethostname(),
                   "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, f)
    return lock


def cmd_state_unprotect(ctx, args):
    opts = flags(args, {"--all", "--yes", "-y"})
    if not opts.get("--all"):
        raise Failure("pulumi stand-in: only `state unprotect --all` is modelled")
    program = ctx.program()
    state = ctx.state(program["name"])
    state["unprotected"] = sorted(set(state.get("resources", [])))
    ctx.save(program["name"], state)
    print(f"{len(state['unprotected'])} resources unprotected")


def delete_in_moto(name, resource):
    """What a real delete of `resource` does in the account, for the modelled types."""
    import boto3  # noqa: PLC0415  (only the destroy needs it)
    region = os.environ.get("AWS_DEFAULT_REGION") or os.environ.get("AWS_REGION") or "us-east-1"
    props = resource.get("properties") or {}
    kind = resource["type"]
    try:
        if kind == "aws:ssm/parameter:Parameter" and isinstance(props.get("name"), str):
            boto3.client("ssm", region_name=region).delete_parameter(Name=props["name"])
        elif kind == "aws:ecs/service:Service" and isinstance(props.get("name"), str):
            cluster = props.get("cluster")
            ecs = boto3.client("ecs", region_name=region)
            for c in [cluster] if isinstance(cluster, str) and not cluster.startswith("${") else \
                    [a.split("/")[-1] for a in ecs.list_clusters()["clusterArns"]]:
                try:
                    ecs.delete_service(cluster=c, service=props["name"], force=True)
                except ecs.exceptions.ClientError:
                    pass
        elif kind == "aws:ecs/taskDefinition:TaskDefinition" and isinstance(props.get("family"), str):
            ecs = boto3.client("ecs", region_name=region)
            arns = ecs.list_task_definitions(familyPrefix=props["family"])["taskDefinitionArns"]
            for arn in arns:
                if arn.split("/")[-1].rsplit(":", 1)[0] == props["family"]:
                    ecs.deregister_task_definition(taskDefinition=arn)
                    ecs.delete_task_definitions(taskDefinitions=[arn])
        elif kind == "aws:sqs/queue:Queue" and isinstance(props.get("name"), str):
            sqs = boto3.client("sqs", region_name=region)
            sqs.delete_queue(QueueUrl=sqs.get_queue_url(QueueName=props["name"])["QueueUrl"])
        elif kind == "aws:sns/topic:Topic" and isinstance(props.get("name"), str):
            sns = boto3.client("sns", region_name=region)
            for topic in sns.list_topics()["Topics"]:
                if topic["TopicArn"].split(":")[-1] == props["name"]:
                    sns.delete_topic(TopicArn=topic["TopicArn"])
        elif kind == "aws:s3/bucket:Bucket" and isinstance(props.get("bucket"), str):
            # Without `forceDestroy` S3 refuses a bucket holding any version: the destroy fails.
            boto3.client("s3", region_name=region).delete_bucket(Bucket=simulate_up.bucket_name(props, region))
        elif kind == "aws:cloudwatch/logGroup:LogGroup" and isinstance(props.get("name"), str):
            boto3.client("logs", region_name=region).delete_log_group(logGroupName=props["name"])
        elif kind == "aws:rds/instance:Instance" and isinstance(props.get("identifier"), str):
            rds = boto3.client("rds", region_name=region)
            final = props.get("finalSnapshotIdentifier")
            if props.get("skipFinalSnapshot", False) or not final:
                rds.delete_db_instance(DBInstanceIdentifier=props["identifier"], SkipFinalSnapshot=True)
            else:
                rds.delete_db_instance(DBInstanceIdentifier=props["identifier"], SkipFinalSnapshot=False,
                                       FinalDBSnapshotIdentifier=final)
    except Exception as e:  # noqa: BLE001  (the service's answer decides)
        code = getattr(e, "response", {}).get("Error", {}).get("Code", "")
        if code in ("ParameterNotFound", "DBInstanceNotFound", "DBInstanceNotFoundFault", "ServiceNotFoundException",
                    "ClusterNotFoundException", "NoSuchBucket", "ResourceNotFoundException",
                    "AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist", "NotFound"):
            return
        raise Failure(f"deleting {kind} {name}: {e}") from None


def cmd_destroy(ctx, args):
    opts = flags(args, {"--yes", "-y", "--skip-preview", "-f", "--exclude-dependents"}, repeated=("--exclude",))
    if not ctx.interactive and not (opts.get("--yes") or opts.get("-y")):
        raise Failure("--yes or --skip-preview must be passed in to proceed when running in non-interactive mode")
    program = ctx.program()
    project, resources = program["name"], program["resources"]
    state = ctx.state(project)
    in_state = set(state.get("resources", []))
    named = {urn(ctx.stack, project, n, r): n for n, r in resources.items()}
    matchers = [glob_re(g) for g in opts["--exclude"]]
    kept = {n for u, n in named.items() if any(m.match(u) for m in matchers)}
    deps = simulate_up.dependencies(resources)
    if opts.get("--exclude-dependents"):
        grew = True
        while grew:
            more = {n for n in resources if n not in kept and deps[n] & kept}
            kept, grew = kept | more, bool(more)
    doomed = [n for u, n in named.items() if u in in_state and n not in kept]
    unprotected = set(state.get("unprotected", []))
    for n in doomed:
        u = urn(ctx.stack, project, n, resources[n])
        if (resources[n].get("options") or {}).get("protect") and u not in unprotected:
            raise Failure(f"unable to delete resource \"{u}\"\nas it is currently marked for protection. To unprotect "
                          "the resource, either remove the `protect` flag from the resource in your Pulumi program "
                          "and run `pulumi up`, or use the command:\n`pulumi state unprotect '" + u + "'`")
    lock = take_lock(ctx, project)
    try:
        print(f"Destroying ({ctx.stack}):", flush=True)
        # Dependents first: the reverse of the order `up` creates them in.
        for n in reversed(simulate_up.order(resources, deps)):
            if n not in doomed:
                continue
            delete_in_moto(n, resources[n])
            u = urn(ctx.stack, project, n, resources[n])
            in_state.discard(u)
            state["resources"] = sorted(in_state)
            (state.get("applied") or {}).pop(n, None)
            ctx.save(project, state)
            print(f"    - {resources[n]['type']} {n} deleted", flush=True)
        print(f"Resources:\n    {len(doomed)} deleted, {len(in_state)} left\n", flush=True)
    finally:
        if os.path.exists(lock):
            os.remove(lock)


def cmd_stack_ls(ctx, args):
    opts = flags(args, {"--json", "-j", "--all", "-a"})
    project = ctx.program()["name"]
    folder = os.path.join(ctx.backend, "stacks", project)
    names = sorted(f[:-len(".json")] for f in os.listdir(folder) if f.endswith(".json")) if os.path.isdir(folder) else []
    if opts.get("--json") or opts.get("-j"):
        print(json.dumps([{"name": n, "current": False} for n in names], indent=2))
    else:
        for n in names:
            print(n)


def cmd_stack_rm(ctx, args):
    opts = flags(args, {"--yes", "-y", "--force", "-f", "--preserve-config"})
    if not ctx.interactive and not (opts.get("--yes") or opts.get("-y")):
        raise Failure("--yes must be passed in to proceed when running in non-interactive mode")
    project = ctx.program()["name"]
    state = ctx.state(project)
    if state.get("resources") and not (opts.get("--force") or opts.get("-f")):
        raise Failure(f"'{ctx.stack}' still has resources; removal rejected. Possible actions:\n"
                      "- Make sure that 'pulumi destroy' has been run\n- To remove the stack while keeping the resources, use --force")
    os.remove(ctx.state_path(project))
    print(f"Stack '{ctx.stack}' has been removed!")


COMMANDS = {
    ("stack", "ls"): cmd_stack_ls,
    ("stack", "rm"): cmd_stack_rm,
    ("preview",): cmd_preview,
    ("version",): cmd_version,
    ("stack", "init"): cmd_stack_init,
    ("stack", "output"): cmd_stack_output,
    ("up",): cmd_up,
    ("update",): cmd_up,
    ("cancel",): cmd_cancel,
    ("destroy",): cmd_destroy,
    ("state", "unprotect"): cmd_state_unprotect,
}


def main(argv):
    log = os.environ.get("PULUMI_STANDIN_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps(argv) + "\n")
    try:
        ctx = Context(argv)
        for words, command in COMMANDS.items():
            if tuple(ctx.args[: len(words)]) == words:
                command(ctx, ctx.args[len(words):])
                return 0
        raise Failure(f"unknown command {' '.join(ctx.args[:2])!r} for \"pulumi\" (the stand-in)")
    except Failure as e:
        print(f"error: {e}", file=sys.stderr)
        return FAIL


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

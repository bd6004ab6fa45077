"""What `pulumi preview --json` would print for an emitted runway program, given the stack's
current state: the test stand-in's preview (the Pulumi CLI cannot run here), in Pulumi's shape.

    python tools/pulumi_preview.py PROGRAM_DIR [--state STATE_DIR] [--stack STACK]
                                   [--show-sames] [--show-replacement-steps]

PROGRAM_DIR holds the `Pulumi.yaml` `runway emit pulumi` wrote (the desired state); STATE_DIR
the program the stack last applied (what `pulumi up` of it recorded: each resource's type and
inputs), or nothing for a new stack. Prints the document `pulumi preview --json` prints
(`PreviewDigest` in pulumi/pulumi's `sdk/go/common/display/json.go`): `steps`, each
`{op, urn, provider, oldState, newState, diffReasons, replaceReasons, detailedDiff}`, and
`changeSummary`, counted per operation.

A resource is matched to the state by its URN (`urn:pulumi:<stack>::<project>::<type>::<name>`),
so a resource whose type changes under the same name is a `create` of the new URN and a `delete`
of the old, as Pulumi does. A resource in both with other inputs is an `update`, or a `replace`
when one of the inputs that differ forces a replacement for its type (`FORCE_NEW`). As in
Pulumi's JSON display: unchanged resources (`same`) are left out unless `--show-sames` (the root
stack's step always shows), and a replacement is one `replace` step unless
`--show-replacement-steps` (then `create-replacement`, `replace`, `delete-replaced`).

Where this differs from the real CLI (docs/review.md, "The test stand-in"): inputs are compared
as the program writes them (`${item.attr}` text, not resolved values), so a change upstream that
alters an output another resource reads is not seen; defaults the provider fills in and drift
are not known; there is no provider step (the real CLI shows the default provider when it is
new or its version changes).
"""

import argparse
import json
import os
import sys

import yaml

# The inputs whose change forces a replacement (`ForceNew` in the Terraform AWS provider that
# pulumi-aws bridges; pulumi/terraform-provider-aws, `internal/service/rds/instance.go`,
# `rds/cluster.go`, `elasticache/replication_group.go`, `sqs/queue.go`, `s3/bucket.go`), for the
# stateful types runway emits: a replacement of those loses data, so the review must see it.
# An RDS instance's `identifier` and `dbSubnetGroupName` are updated in place (ModifyDBInstance
# renames and moves it); a cluster's are not.
FORCE_NEW = {
    "aws:rds/instance:Instance": {
        "availabilityZone", "backupTarget", "characterSetName", "customIamInstanceProfile", "dbName",
        "engine", "kmsKeyId", "ncharCharacterSetName", "restoreToPointInTime", "snapshotIdentifier",
        "storageEncrypted", "timezone", "username",
    },
    "aws:rds/cluster:Cluster": {
        "availabilityZones", "clusterIdentifier", "clusterIdentifierPrefix", "databaseName",
        "dbSubnetGroupName", "engine", "engineMode", "kmsKeyId", "masterUsername",
        "restoreToPointInTime", "sourceRegion", "storageEncrypted",
    },
    "aws:elasticache/replicationGroup:ReplicationGroup": {
        "atRestEncryptionEnabled", "availabilityZones", "dataTieringEnabled", "kmsKeyId", "port",
        "replicationGroupId", "snapshotArns", "snapshotName", "subnetGroupName",
    },
    "aws:sqs/queue:Queue": {"fifoQueue", "name", "namePrefix"},
    "aws:s3/bucket:Bucket": {"bucket", "bucketPrefix"},
}


def load(folder):
    """The program in `folder` (its `Pulumi.yaml`)."""
    with open(os.path.join(folder, "Pulumi.yaml"), encoding="utf-8") as f:
        program = yaml.safe_load(f)
    if not isinstance(program, dict) or not isinstance(program.get("resources"), dict):
        raise SystemExit(f"{folder}/Pulumi.yaml is not a Pulumi YAML program with resources")
    return program


def urn(stack, project, token, name):
    return f"urn:pulumi:{stack}::{project}::{token}::{name}"


def state(stack, project, name, resource):
    """A resource's state as the JSON display writes it (`apitype.ResourceV3`, inputs only)."""
    token = resource["type"]
    return {
        "urn": urn(stack, project, token, name),
        "custom": True,
        "type": token,
        "inputs": resource.get("properties") or {},
        "outputs": {},
        "protect": bool((resource.get("options") or {}).get("protect", False)),
    }


def differences(old, new):
    """The top-level inputs that differ, each with its `detailedDiff` kind before replacement."""
    out = {}
    for key in sorted(set(old) | set(new)):
        if key not in old:
            out[key] = "add"
        elif key not in new:
            out[key] = "delete"
        elif old[key] != new[key]:
            out[key] = "update"
    return out


def preview(program, previous=None, stack="dev", show_sames=False, show_replacement_steps=False):
    """The `pulumi preview --json` document of `program` against the state `previous` left."""
    project = program.get("name", "project")
    wanted = program["resources"]
    had = (previous or {}).get("resources") or {}
    root = urn(stack, project, "pulumi:pulumi:Stack", f"{project}-{stack}")
    steps = [{"op": "same" if previous else "create", "urn": root, "detailedDiff": None}]
    summary = {}

    def add(op, step):
        summary[op] = summary.get(op, 0) + 1
        steps.append({"op": op, **step})

    for name, res in wanted.items():
        token = res["type"]
        new_state = state(stack, project, name, res)
        old = had.get(name)
        if old is None or old.get("type") != token:
            add("create", {"urn": new_state["urn"], "newState": new_state, "detailedDiff": None})
            continue
        old_state = state(stack, project, name, old)
        diff = differences(old_state["inputs"], new_state["inputs"])
        if not diff:
            summary["same"] = summary.get("same", 0) + 1
            if show_sames:
                steps.append({"op": "same", "urn": new_state["urn"], "oldState": old_state,
                              "newState": new_state, "detailedDiff": {}})
            continue
        forcing = sorted(k for k in diff if k in FORCE_NEW.get(token, set()))
        detailed = {k: {"kind": f"{kind}-replace" if k in forcing else kind, "inputDiff": True}
                    for k, kind in diff.items()}
        step = {"urn": new_state["urn"], "oldState": old_state, "newState": new_state,
                "diffReasons": sorted(diff), "detailedDiff": detailed}
        if not forcing:
            add("update", step)
        elif show_replacement_steps:
            for op in ("create-replacement", "replace", "delete-replaced"):
                steps.append({"op": op, **step, "replaceReasons": forcing})
            summary["replace"] = summary.get("replace", 0) + 1
        else:
            add("replace", {**step, "replaceReasons": forcing})
    # Deletions come last, in reverse order of creation, as Pulumi deletes dependents first.
    for name in reversed(list(had)):
        old = had[name]
        if name in wanted and wanted[name].get("type") == old.get("type"):
            continue
        old_state = state(stack, project, name, old)
        add("delete", {"urn": old_state["urn"], "oldState": old_state, "detailedDiff": None})
    return {"config": {}, "steps": steps, "changeSummary": summary}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("program", help="the folder of the emitted Pulumi.yaml (the desired state)")
    parser.add_argument("--state", help="the folder of the program the stack last applied")
    parser.add_argument("--stack", default="dev", help="the stack's name in the URNs (default: dev)")
    parser.add_argument("--show-sames", action="store_true")
    parser.add_argument("--show-replacement-steps", action="store_true")
    args = parser.parse_args(argv)
    previous = load(args.state) if args.state else None
    doc = preview(load(args.program), previous, args.stack, args.show_sames, args.show_replacement_steps)
    # Pulumi indents its JSON by four spaces.
    print(json.dumps(doc, indent=4))


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/env python3
"""Checks Pulumi YAML programs against the real Pulumi AWS provider SDK (`pulumi_aws`).

usage: pulumi_check.py [--require-tags KEY,KEY...] [--require-version] DIR [DIR...]

Each DIR holds a `Pulumi.yaml` with `runtime: yaml`. Under `pulumi.runtime.set_mocks` the
check constructs every resource of every program with the real Python SDK:

- the type token `aws:<module>/<name>:<Class>` must name a resource class of
  `pulumi_aws.<module>` whose own token is exactly that (the short form `aws:<module>:<Class>`
  is accepted);
- every property must be an input of the resource, nested objects are built as the SDK's typed
  `...Args` classes, so a wrong nested property fails too; primitive values must have the
  input's type (string, number, boolean, list, map);
- `${name}` / `${name.property}` must name a declared config key, variable or resource, and the
  property must be an output of that resource's class;
- `fn::invoke` must name a provider function whose arguments and `return` exist;
- an `aws:` key of `config` (a setting of the default provider, `aws:allowedAccountIds`) must be
  an input of `pulumi_aws.ProviderArgs`, written `{value: ...}` with a value of its type;
- resources the SDK reports as deprecated (e.g. `aws:s3/bucketV2:BucketV2`) fail;
- a provider version (`options.version` of a resource or an `fn::invoke`) must be the
  pulumi_aws version the check runs (the program is pinned to what it was checked against);
  with `--require-version`, every resource and `fn::invoke` must name one;
- `containerDefinitions` of an ECS task definition, written with `fn::toJSON`, is checked
  against the ECS API model shipped in botocore (`ContainerDefinition`), when botocore exists.

Config entries get dummy values of their declared type. Every problem is reported (not only the
first) as `FILE: PATH: message`; the exit code is 1 when any program fails, 2 on usage errors.
"""

from __future__ import annotations

import collections.abc
import difflib
import importlib
import importlib.metadata
import inspect
import json
import logging
import re
import sys
import typing
from pathlib import Path

try:
    import yaml
except ImportError:  # pragma: no cover - the venv always has it (pulumi depends on it)
    print("pulumi_check: PyYAML is missing; run `cargo xtask venv`", file=sys.stderr)
    sys.exit(2)

try:
    import pulumi
    import pulumi_aws  # noqa: F401  (imported to fail early with a clear message)
    from pulumi.runtime.mocks import Mocks, set_mocks
    from pulumi.runtime.settings import SETTINGS
    from pulumi.runtime.stack import run_pulumi_func
    from pulumi.runtime.sync_await import _sync_await
    from pulumi.type_token import get_type_token
except ImportError as e:  # pragma: no cover
    print(f"pulumi_check: {e}; run `cargo xtask venv`", file=sys.stderr)
    sys.exit(2)

TOP_LEVEL_KEYS = {"name", "runtime", "description", "config", "configuration", "variables",
                  "resources", "outputs"}
RESOURCE_KEYS = {"type", "properties", "options"}
OPTION_KEYS = {"dependsOn", "protect", "ignoreChanges", "deleteBeforeReplace", "retainOnDelete",
               "additionalSecretOutputs", "customTimeouts", "version"}
INVOKE_OPTION_KEYS = {"version"}
BUILTIN_FUNCTIONS = {"fn::invoke", "fn::secret", "fn::toJSON", "fn::join", "fn::select"}
INTERPOLATION = re.compile(r"\$\$\{|\$\{([^}]*)\}")
ACCESSOR = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[\"([^\"]*)\"\]")

ANY = ("any",)


def sdk_module(module_part):
    """The SDK module of a token's module part: `index` (`aws:index:getCallerIdentity`) is the
    package itself."""
    name = module_part.split("/")[0]
    return "pulumi_aws" if name == "index" else f"pulumi_aws.{name}"


def did_you_mean(word, candidates):
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean `{close[0]}`?)" if close else ""


class CheckError(Exception):
    """A problem already reported; stops evaluating the current value."""


# ---------------------------------------------------------------------------------------------
# What the SDK says about types
# ---------------------------------------------------------------------------------------------

def is_sequence(origin):
    return origin in (collections.abc.Sequence, list, typing.List)


def is_mapping(origin):
    return origin in (collections.abc.Mapping, dict, typing.Dict)


def kind_of(annotation, module):
    """The shape an input annotation asks for: ("prim", types) | ("list", k) | ("map", k) |
    ("obj", ArgsClass) | ("any",)."""
    if annotation is inspect.Parameter.empty or annotation is typing.Any:
        return ANY
    if annotation in (str, int, float, bool):
        return ("prim", (annotation,))
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if is_sequence(origin) and args:
        return ("list", kind_of(args[0], module))
    if is_mapping(origin) and len(args) == 2:
        return ("map", kind_of(args[1], module))
    if origin is typing.Union:
        kinds = []
        for arg in args:
            if arg is type(None):
                continue
            if typing.get_origin(arg) is collections.abc.Awaitable:
                continue
            if isinstance(arg, typing.ForwardRef):
                name = arg.__forward_arg__
                if name.startswith(("Output", "outputs.")) or name.endswith("ArgsDict"):
                    continue
                if name.endswith("Args"):
                    cls = args_class(module, name)
                    kinds.append(("obj", cls) if cls is not None else ANY)
                else:  # an enum of the provider: a string
                    kinds.append(("prim", (str,)))
                continue
            kinds.append(kind_of(arg, module))
        unique = []
        for k in kinds:
            if k not in unique:
                unique.append(k)
        if len(unique) == 1:
            return unique[0]
        if unique and all(k[0] == "prim" for k in unique):
            return ("prim", tuple(t for k in unique for t in k[1]))
        return ANY
    return ANY


def args_class(module, name):
    """The class `name` as seen from the SDK module `module` (which imports its `_inputs`)."""
    package = module.rsplit(".", 1)[0]
    for mod in (module, f"{package}._inputs"):
        try:
            found = getattr(importlib.import_module(mod), name, None)
        except ImportError:
            found = None
        if found is not None:
            return found
    return None


def resource_args_class(cls):
    """The `...Args` class of a resource (`BucketVersioningInitArgs` where names collide)."""
    module = importlib.import_module(cls.__module__)
    declared = [n for n in getattr(module, "__all__", []) if n.endswith("Args")]
    if len(declared) == 1:
        return getattr(module, declared[0])
    return args_class(cls.__module__, f"{cls.__name__}Args")


def input_names(cls):
    """Pulumi (camelCase) name -> Python name of every input of an `...Args` class."""
    names = {}
    for klass in reversed(cls.__mro__):
        for attr, value in vars(klass).items():
            if isinstance(value, property) and not attr.startswith("_"):
                names[getattr(value.fget, "_pulumi_name", attr)] = attr
    return names


def init_kinds(cls):
    """Python name -> kind of every parameter of `cls.__init__`."""
    sig = inspect.signature(cls.__init__)
    return {n: kind_of(p.annotation, cls.__module__) for n, p in sig.parameters.items()
            if n not in ("self", "__self__")}


def output_names(cls):
    """Pulumi (camelCase) name -> Python attribute of every output of a resource class."""
    names = {"id": "id", "urn": "urn"}
    for klass in reversed(cls.__mro__):
        if not klass.__module__.startswith("pulumi_aws"):
            continue
        for attr, value in vars(klass).items():
            if isinstance(value, property) and not attr.startswith("_"):
                names[getattr(value.fget, "_pulumi_name", attr)] = attr
    return names


def resource_class(token):
    """(class, None) or (None, message) for a resource type token."""
    parts = token.split(":")
    if len(parts) != 3 or parts[0] != "aws":
        return None, f"`{token}` is not an AWS resource token (`aws:<module>/<name>:<Class>`)"
    module_part, class_name = parts[1], parts[2]
    module_name = module_part.split("/")[0]
    try:
        module = importlib.import_module(f"pulumi_aws.{module_name}")
    except ImportError:
        return None, f"`{token}`: pulumi_aws has no module `{module_name}`"
    cls = getattr(module, class_name, None)
    if not (inspect.isclass(cls) and issubclass(cls, pulumi.CustomResource)):
        classes = [n for n in dir(module) if n[:1].isupper() and not n.endswith("Args")
                   and not n.endswith("Dict")]
        cls = None
        return None, (f"`{token}`: pulumi_aws.{module_name} has no resource `{class_name}`"
                      + did_you_mean(class_name, classes))
    canonical = get_type_token(cls)
    if "/" in module_part and canonical != token:
        return None, f"`{token}` is not the token of pulumi_aws.{module_name}.{class_name}: `{canonical}`"
    return cls, None


# ---------------------------------------------------------------------------------------------
# One program
# ---------------------------------------------------------------------------------------------

class Recorder(Mocks):
    """Mocks that record every registered resource and answer invokes with their arguments."""

    def __init__(self):
        self.registered = []

    def new_resource(self, args):
        self.registered.append((args.typ, args.name))
        state = dict(args.inputs)
        state.setdefault("arn", f"arn:aws:mock:::{args.name}")
        return [f"{args.name}-id", state]

    def call(self, args):
        return dict(args.args)


class LogCapture(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


class Program:
    def __init__(self, directory: Path, require_tags, require_version=False):
        self.dir = directory
        self.file = directory / "Pulumi.yaml"
        self.require_tags = require_tags
        self.require_version = require_version
        self.errors = []
        self.config = {}
        self.variables = {}
        self.resources = {}
        self.values = {}          # name -> evaluated value (config, variables)
        self.built = {}           # resource name -> pulumi resource, or None when it failed
        self.building = []        # names being evaluated, for cycles
        self.failed = set()       # variables that failed (reported once)
        self.invoke_results = {}  # variable -> result class of its bare fn::invoke

    def error(self, path, message):
        self.errors.append(f"{self.file}: {path}: {message}")

    def check_version(self, options, path):
        """The provider version a resource or invoke pins: the SDK's own, and present when
        required."""
        installed = importlib.metadata.version("pulumi_aws")
        version = (options or {}).get("version")
        if version is None:
            if self.require_version:
                self.error(path, f"no provider version (`options.version: {installed}`)")
        elif str(version) != installed:
            self.error(f"{path}.version", f"pins pulumi-aws {version}, but is checked against {installed}")

    # -- loading ------------------------------------------------------------------------------

    def load(self):
        try:
            doc = yaml.safe_load(self.file.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as e:
            self.error("-", f"cannot read the program: {e}")
            return None
        if not isinstance(doc, dict):
            self.error("-", "the program is not a YAML mapping")
            return None
        for key in doc:
            if key not in TOP_LEVEL_KEYS:
                self.error(key, f"unknown top-level key `{key}`" + did_you_mean(key, TOP_LEVEL_KEYS))
        if doc.get("runtime") != "yaml" and not (
                isinstance(doc.get("runtime"), dict) and doc["runtime"].get("name") == "yaml"):
            self.error("runtime", "`runtime` must be `yaml`")
        if not isinstance(doc.get("name"), str):
            self.error("name", "`name` is required")
        self.config = doc.get("config") or doc.get("configuration") or {}
        self.variables = doc.get("variables") or {}
        self.resources = doc.get("resources") or {}
        seen = {}
        for section in ("config", "variables", "resources"):
            for name in getattr(self, section):
                if name in seen:
                    self.error(f"{section}.{name}", f"`{name}` is also declared in {seen[name]}")
                seen[name] = section
        return doc

    # -- config -------------------------------------------------------------------------------

    def config_value(self, name):
        decl = self.config[name]
        if not isinstance(decl, dict):
            decl = {"default": decl}
        typ = str(decl.get("type", "string"))
        if "default" in decl:
            value = decl["default"]
        elif typ.lower() in ("string",):
            value = f"{name}-value"
        elif typ.lower() in ("integer", "number", "int"):
            value = 1
        elif typ.lower() == "boolean":
            value = True
        elif typ.lower() in ("array", "list<string>", "list<number>") or typ.startswith("List<"):
            value = [f"{name}-0", f"{name}-1"]
        else:
            self.error(f"config.{name}.type", f"unknown config type `{typ}`")
            raise CheckError()
        for key in decl:
            if key not in ("type", "default", "secret", "description", "items"):
                self.error(f"config.{name}", f"unknown config key `{key}`")
        return pulumi.Output.secret(value) if decl.get("secret") else value

    def provider_setting(self, name):
        """A project-level setting of the AWS provider (`aws:allowedAccountIds: {value: [...]}`):
        the key must be an input of `pulumi_aws.Provider` and its `value` of that input's type."""
        path = f"config.{name}"
        decl = self.config[name]
        if not isinstance(decl, dict) or set(decl) != {"value"}:
            self.error(path, "a provider setting is written `{value: ...}` (project-level config)")
            return
        key = name.split(":", 1)[1]
        inputs = input_names(args_class("pulumi_aws.provider", "ProviderArgs"))
        if key not in inputs:
            self.error(path, f"`{key}` is not a setting of the AWS provider{did_you_mean(key, inputs)}")
            return
        kinds = init_kinds(pulumi_aws.ProviderArgs)
        try:
            self.convert(decl["value"], kinds[inputs[key]], path)
        except CheckError:
            pass

    # -- references ---------------------------------------------------------------------------

    def root_value(self, root, path, want_resource=False):
        if root in ("pulumi.stack", "pulumi.project"):
            return "check" if root == "pulumi.stack" else "project"
        if root in self.config:
            if root not in self.values:
                self.values[root] = self.config_value(root)
            return self.values[root]
        if root in self.variables:
            if root in self.failed:
                raise CheckError()
            if root not in self.values:
                if root in self.building:
                    self.error(path, f"reference cycle: {' -> '.join(self.building + [root])}")
                    raise CheckError()
                self.building.append(root)
                decl = self.variables[root]
                if isinstance(decl, dict) and list(decl) == ["fn::invoke"] and \
                        isinstance(decl["fn::invoke"], dict) and "return" not in decl["fn::invoke"]:
                    self.invoke_results[root] = self.result_class(decl["fn::invoke"].get("function"))
                try:
                    self.values[root] = self.evaluate(decl, f"variables.{root}")
                except CheckError:
                    self.failed.add(root)
                    raise
                finally:
                    self.building.pop()
            return self.values[root]
        if root in self.resources:
            res = self.build(root)
            if res is None:
                raise CheckError()
            return res
        declared = list(self.config) + list(self.variables) + list(self.resources)
        self.error(path, f"`${{{root}}}` names no config key, variable or resource"
                   + did_you_mean(root, declared))
        raise CheckError()

    def reference(self, expression, path):
        expression = expression.strip()
        m = re.match(r"(pulumi\.(?:stack|project)|[A-Za-z0-9_:-]+)", expression)
        if not m:
            self.error(path, f"cannot parse `${{{expression}}}`")
            raise CheckError()
        root = m.group(1)
        rest = expression[m.end():]
        accessors = []
        pos = 0
        while pos < len(rest):
            a = ACCESSOR.match(rest, pos)
            if not a:
                self.error(path, f"cannot parse `${{{expression}}}` at `{rest[pos:]}`")
                raise CheckError()
            accessors.append(a.group(1) if a.group(1) is not None else
                             int(a.group(2)) if a.group(2) is not None else a.group(3))
            pos = a.end()
        value = self.root_value(root, path)
        result_cls = self.invoke_results.get(root)
        if result_cls is not None and accessors:
            outputs = output_names(result_cls)
            first = accessors[0]
            if not isinstance(first, str) or first not in outputs:
                self.error(path, f"`${{{expression}}}`: {result_cls.__name__} has no `{first}`"
                           + did_you_mean(str(first), outputs))
                raise CheckError()
            value = pulumi.Output.from_input(value).apply(
                lambda r, attr=outputs[first]: getattr(r, attr, None))
            accessors = accessors[1:]
        if isinstance(value, pulumi.CustomResource):
            cls = type(value)
            if not accessors:
                return value.id
            first = accessors[0]
            outputs = output_names(cls)
            if not isinstance(first, str) or first not in outputs:
                self.error(path, f"`${{{expression}}}`: {get_type_token(cls)} has no output `{first}`"
                           + did_you_mean(str(first), outputs))
                raise CheckError()
            value = getattr(value, outputs[first])
            accessors = accessors[1:]
        for acc in accessors:
            value = pulumi.Output.from_input(value).apply(
                lambda v, acc=acc: (v[acc] if isinstance(v, (list, dict)) and
                                    (isinstance(v, dict) or acc < len(v)) else None))
        return value

    def interpolate(self, text, path):
        parts = []
        last = 0
        for m in INTERPOLATION.finditer(text):
            parts.append(text[last:m.start()])
            if m.group(0) == "$${":
                parts.append("${")
            else:
                parts.append(self.reference(m.group(1), path))
            last = m.end()
        parts.append(text[last:])
        parts = [p for p in parts if not (isinstance(p, str) and p == "")]
        if len(parts) == 1:
            return parts[0]
        if all(isinstance(p, str) for p in parts):
            return "".join(parts)
        return pulumi.Output.concat(*[pulumi.Output.from_input(p).apply(str) for p in parts])

    # -- expressions --------------------------------------------------------------------------

    def evaluate(self, value, path):
        """Evaluates an untyped value: interpolations and functions resolved, nesting kept."""
        if isinstance(value, str):
            return self.interpolate(value, path) if "${" in value else value
        if isinstance(value, list):
            return [self.evaluate(v, f"{path}[{i}]") for i, v in enumerate(value)]
        if isinstance(value, dict):
            fn = self.function(value, path)
            if fn is not None:
                return fn[0]
            return {k: self.evaluate(v, f"{path}.{k}") for k, v in value.items()}
        return value

    def function(self, value, path):
        """(result,) when `value` is a built-in function call, else None."""
        fns = [k for k in value if isinstance(k, str) and k.lower().startswith("fn::")]
        if not fns:
            return None
        if len(value) != 1:
            self.error(path, f"a function call `{fns[0]}` must be the only key of its object")
            raise CheckError()
        name = fns[0]
        arg = value[name]
        canonical = {f.lower(): f for f in BUILTIN_FUNCTIONS}.get(name.lower())
        fpath = f"{path}.{name}"
        if canonical is None:
            self.error(path, f"unsupported function `{name}`" + did_you_mean(name, BUILTIN_FUNCTIONS))
            raise CheckError()
        if canonical == "fn::secret":
            return (pulumi.Output.secret(self.evaluate(arg, fpath)),)
        if canonical == "fn::toJSON":
            resolved = self.evaluate(arg, fpath)
            return (pulumi.Output.from_input(resolved).apply(
                lambda v: json.dumps(v, separators=(",", ":"))), resolved)
        if canonical == "fn::join":
            if not (isinstance(arg, list) and len(arg) == 2):
                self.error(fpath, "`fn::join` takes [separator, [values]]")
                raise CheckError()
            sep, items = self.evaluate(arg[0], fpath), self.evaluate(arg[1], fpath)
            return (pulumi.Output.all(sep, items).apply(lambda a: a[0].join(str(x) for x in a[1])),)
        if canonical == "fn::select":
            if not (isinstance(arg, list) and len(arg) == 2):
                self.error(fpath, "`fn::select` takes [index, [values]]")
                raise CheckError()
            idx, items = self.evaluate(arg[0], fpath), self.evaluate(arg[1], fpath)
            return (pulumi.Output.all(idx, items).apply(lambda a: a[1][a[0]]),)
        return (self.invoke(arg, fpath),)

    @staticmethod
    def result_class(token):
        """The `Get...Result` class of a function token, when it resolves."""
        parts = str(token).split(":")
        if len(parts) != 3:
            return None
        fn_name = re.sub(r"(?<!^)([A-Z])", r"_\1", parts[2]).lower()
        try:
            fn = getattr(importlib.import_module(sdk_module(parts[1])), fn_name)
            return getattr(importlib.import_module(fn.__module__), parts[2][:1].upper() + parts[2][1:] + "Result")
        except (ImportError, AttributeError):
            return None

    def invoke(self, arg, path):
        if not isinstance(arg, dict) or "function" not in arg:
            self.error(path, "`fn::invoke` needs `function`")
            raise CheckError()
        for key in arg:
            if key not in ("function", "arguments", "return", "options"):
                self.error(path, f"unknown `fn::invoke` key `{key}`")
        options = arg.get("options")
        for key in (options or {}):
            if key not in INVOKE_OPTION_KEYS:
                self.error(f"{path}.options.{key}", f"unsupported invoke option `{key}`")
        self.check_version(options, f"{path}.options")
        token = arg["function"]
        parts = str(token).split(":")
        if len(parts) != 3 or parts[0] != "aws":
            self.error(f"{path}.function", f"`{token}` is not an AWS function token")
            raise CheckError()
        module_name = parts[1].split("/")[0]
        fn_name = re.sub(r"(?<!^)([A-Z])", r"_\1", parts[2]).lower()
        try:
            module = importlib.import_module(sdk_module(parts[1]))
        except ImportError:
            self.error(f"{path}.function", f"`{token}`: pulumi_aws has no module `{module_name}`")
            raise CheckError()
        fn = getattr(module, f"{fn_name}_output", None)
        if fn is None or not parts[2].startswith("get"):
            funcs = [n for n in dir(module) if n.startswith("get_") and not n.endswith("_output")]
            self.error(f"{path}.function", f"`{token}`: pulumi_aws.{module_name} has no function "
                       f"`{fn_name}`" + did_you_mean(fn_name, funcs))
            raise CheckError()
        params = inspect.signature(fn).parameters
        kwargs = {}
        for key, value in (arg.get("arguments") or {}).items():
            snake = re.sub(r"(?<!^)([A-Z])", r"_\1", key).lower()
            if snake not in params or snake == "opts":
                self.error(f"{path}.arguments.{key}", f"`{token}` takes no argument `{key}`")
                continue
            kwargs[snake] = self.evaluate(value, f"{path}.arguments.{key}")
        result_cls = getattr(importlib.import_module(fn.__module__), "".join(
            p.capitalize() for p in fn_name.split("_")) + "Result", None)
        ret = arg.get("return")
        if ret is not None and result_cls is not None:
            outs = output_names(result_cls)
            if ret not in outs:
                self.error(f"{path}.return", f"`{token}` returns no `{ret}`" + did_you_mean(ret, outs))
                raise CheckError()
        try:
            out = fn(**kwargs)
        except TypeError as e:
            self.error(path, f"`{token}`: {e}")
            raise CheckError()
        if ret is not None:
            attr = output_names(result_cls)[ret] if result_cls is not None else ret
            return out.apply(lambda r: getattr(r, attr, None))
        return out

    # -- typed values -------------------------------------------------------------------------

    def convert(self, value, kind, path):
        """Builds the SDK value of an input of `kind` from a program value."""
        if isinstance(value, str) and "${" in value:
            return self.interpolate(value, path)
        if isinstance(value, dict):
            fn = self.function(value, path)
            if fn is not None:
                if len(fn) == 2:
                    self.check_json(fn[1], path)
                return fn[0]
        tag = kind[0]
        if tag == "any":
            return self.evaluate(value, path)
        if tag == "prim":
            types = kind[1]
            ok = (isinstance(value, bool) and bool in types) or (
                not isinstance(value, bool) and (
                    (isinstance(value, str) and str in types)
                    or (isinstance(value, int) and (int in types or float in types))
                    or (isinstance(value, float) and float in types)))
            if not ok:
                want = "/".join({str: "string", int: "integer", float: "number",
                                 bool: "boolean"}[t] for t in types)
                self.error(path, f"expects {want}, got {type(value).__name__} `{value!r}`")
                raise CheckError()
            return value
        if tag == "list":
            if not isinstance(value, list):
                self.error(path, f"expects a list, got {type(value).__name__}")
                raise CheckError()
            return [self.convert(v, kind[1], f"{path}[{i}]") for i, v in enumerate(value)]
        if tag == "map":
            if not isinstance(value, dict):
                self.error(path, f"expects a map, got {type(value).__name__}")
                raise CheckError()
            return {k: self.convert(v, kind[1], f"{path}.{k}") for k, v in value.items()}
        if tag == "obj":
            return self.build_args(kind[1], value, path)
        raise AssertionError(kind)

    def build_args(self, cls, value, path, what=None):
        if not isinstance(value, dict):
            self.error(path, f"expects an object ({cls.__name__}), got {type(value).__name__}")
            raise CheckError()
        names = input_names(cls)
        kinds = init_kinds(cls)
        kwargs = {}
        failed = False
        for key, v in value.items():
            kpath = f"{path}.{key}"
            py = names.get(key)
            if py is None or py not in kinds:
                self.error(kpath, f"`{key}` is not an input of {what or cls.__name__}"
                           + did_you_mean(str(key), names))
                failed = True
                continue
            try:
                kwargs[py] = self.convert(v, kinds[py], kpath)
            except CheckError:
                failed = True
        if failed:
            raise CheckError()
        try:
            return cls(**kwargs)
        except TypeError as e:
            self.error(path, f"{what or cls.__name__}: {e}")
            raise CheckError()

    def check_json(self, resolved, path):
        """Checks a known JSON-string input against the AWS API model."""
        if not path.endswith(".properties.containerDefinitions"):
            return
        shape = ecs_container_definition_shape()
        if shape is None:
            return
        if not isinstance(resolved, list):
            self.error(path, "`containerDefinitions` must be a list of container definitions")
            return
        for i, item in enumerate(resolved):
            check_shape(self, shape, item, f"{path}[{i}]")

    # -- resources ----------------------------------------------------------------------------

    def build(self, name):
        if name in self.built:
            return self.built[name]
        if name in self.building:
            self.error(f"resources.{name}", f"reference cycle: {' -> '.join(self.building + [name])}")
            return None
        self.building.append(name)
        try:
            self.built[name] = self.construct(name)
        finally:
            self.building.pop()
        return self.built[name]

    def construct(self, name):
        path = f"resources.{name}"
        decl = self.resources[name]
        if not isinstance(decl, dict):
            self.error(path, "a resource is a mapping with `type` and `properties`")
            return None
        for key in decl:
            if key not in RESOURCE_KEYS:
                self.error(f"{path}.{key}", f"unknown resource key `{key}`" + did_you_mean(key, RESOURCE_KEYS))
        cls, problem = resource_class(str(decl.get("type")))
        if cls is None:
            self.error(f"{path}.type", problem)
            return None
        token = get_type_token(cls)
        args_cls = resource_args_class(cls)
        if args_cls is None:
            self.error(f"{path}.type", f"{token}: no {cls.__name__}Args in the SDK")
            return None
        props = decl.get("properties") or {}
        if self.require_tags and "tags" in input_names(args_cls):
            tags = props.get("tags")
            missing = [t for t in self.require_tags if not isinstance(tags, dict) or t not in tags]
            if missing:
                self.error(f"{path}.properties.tags", f"missing tag(s) {', '.join(missing)}")
        try:
            args = self.build_args(args_cls, props, f"{path}.properties", what=token)
            self.check_version(decl.get("options"), f"{path}.options")
            opts = self.options(decl.get("options") or {}, f"{path}.options")
        except CheckError:
            return None
        try:
            return cls(name, args, opts=opts)
        except Exception as e:  # the SDK's own refusal, whatever its type
            self.error(path, f"{token}: the SDK refused the resource: {e}")
            return None

    def options(self, options, path):
        kwargs = {}
        for key, value in options.items():
            if key not in OPTION_KEYS:
                self.error(f"{path}.{key}", f"unsupported resource option `{key}`"
                           + did_you_mean(key, OPTION_KEYS))
                raise CheckError()
            if key == "dependsOn":
                deps = []
                for i, dep in enumerate(value if isinstance(value, list) else [value]):
                    m = re.fullmatch(r"\$\{([A-Za-z0-9_-]+)\}", str(dep))
                    if not m or m.group(1) not in self.resources:
                        self.error(f"{path}.dependsOn[{i}]", f"`{dep}` is not a resource of the program")
                        raise CheckError()
                    res = self.build(m.group(1))
                    if res is None:
                        raise CheckError()
                    deps.append(res)
                kwargs["depends_on"] = deps
            elif key == "customTimeouts":
                kwargs["custom_timeouts"] = pulumi.CustomTimeouts(**value)
            elif key == "version":
                kwargs["version"] = str(value)
            else:
                kwargs[re.sub(r"(?<!^)([A-Z])", r"_\1", key).lower()] = value
        return pulumi.ResourceOptions(**kwargs)

    # -- the whole program --------------------------------------------------------------------

    def run(self):
        doc = self.load()
        if doc is None:
            return
        mocks = Recorder()
        capture = LogCapture()
        logger = logging.getLogger(f"pulumi_check.{self.dir}")
        logger.addHandler(capture)
        logger.propagate = False
        set_mocks(mocks, project=str(doc.get("name", "program")), stack="check", preview=False,
                  logger=logger)
        SETTINGS.rpc_manager.clear()
        SETTINGS.outputs.clear()

        def program():
            waits = []
            for name in self.config:
                if name.startswith("aws:"):
                    self.provider_setting(name)
                    continue
                try:
                    self.root_value(name, f"config.{name}")
                except CheckError:
                    pass
            for name in self.variables:
                try:
                    waits.append(self.root_value(name, f"variables.{name}"))
                except CheckError:
                    pass
            for name in self.resources:
                res = self.build(name)
                if res is not None:
                    waits.append(res.urn)
            for name, value in (doc.get("outputs") or {}).items():
                try:
                    out = self.evaluate(value, f"outputs.{name}")
                    pulumi.export(name, out)
                    waits.append(out)
                except CheckError:
                    pass
            return pulumi.Output.all(*waits)

        try:
            _sync_await(run_pulumi_func(lambda: _sync_await(
                pulumi.Output.from_input(program()).future())))
        except Exception as e:  # an error raised while the SDK resolved values
            self.error("-", f"the SDK failed while resolving the program: {type(e).__name__}: {e}")
        for message in capture.messages:
            if "deprecated" in message:
                self.error("-", f"deprecated: {message}")
        built = sum(1 for r in self.built.values() if r is not None)
        if not self.errors and built != len(self.resources):
            self.error("-", f"{built} of {len(self.resources)} resources were constructed")
        registered = [n for t, n in mocks.registered if t.startswith("aws:")]
        if not self.errors and len(registered) != built:
            self.error("-", f"{built} resources constructed but {len(registered)} registered")
        return len(registered)


# ---------------------------------------------------------------------------------------------
# The ECS API model (botocore) for containerDefinitions
# ---------------------------------------------------------------------------------------------

_ECS_SHAPE = []


def ecs_container_definition_shape():
    if not _ECS_SHAPE:
        try:
            import botocore.session
            model = botocore.session.get_session().get_service_model("ecs")
            _ECS_SHAPE.append(model.shape_for("ContainerDefinition"))
        except Exception:  # botocore missing: the JSON is then not checked
            _ECS_SHAPE.append(None)
    return _ECS_SHAPE[0]


def check_shape(program, shape, value, path):
    if isinstance(value, pulumi.Output) or (isinstance(value, str) and "${" in value):
        return
    if shape.type_name == "structure":
        if not isinstance(value, dict):
            program.error(path, f"expects an object ({shape.name})")
            return
        for key, v in value.items():
            member = shape.members.get(key)
            if member is None:
                program.error(f"{path}.{key}", f"`{key}` is not a field of ECS {shape.name}"
                              + did_you_mean(key, shape.members))
                continue
            check_shape(program, member, v, f"{path}.{key}")
        for required in shape.required_members:
            if required not in value:
                program.error(path, f"ECS {shape.name} needs `{required}`")
    elif shape.type_name == "list":
        if not isinstance(value, list):
            program.error(path, "expects a list")
            return
        for i, v in enumerate(value):
            check_shape(program, shape.member, v, f"{path}[{i}]")
    elif shape.type_name == "map":
        if not isinstance(value, dict):
            program.error(path, "expects a map")
    elif shape.type_name == "string":
        if not isinstance(value, str):
            program.error(path, f"expects a string, got {type(value).__name__}")
        elif shape.enum and value not in shape.enum:
            program.error(path, f"`{value}` is not one of {', '.join(shape.enum)}")
    elif shape.type_name in ("integer", "long"):
        if isinstance(value, bool) or not isinstance(value, int):
            program.error(path, f"expects an integer, got {type(value).__name__}")
    elif shape.type_name == "boolean":
        if not isinstance(value, bool):
            program.error(path, f"expects a boolean, got {type(value).__name__}")


def main(argv):
    require_tags = []
    require_version = False
    dirs = []
    args = iter(argv)
    for a in args:
        if a == "--require-tags":
            require_tags = [t for t in next(args, "").split(",") if t]
        elif a == "--require-version":
            require_version = True
        elif a.startswith("-"):
            print(__doc__, file=sys.stderr)
            return 2
        else:
            dirs.append(Path(a))
    if not dirs:
        print(__doc__, file=sys.stderr)
        return 2
    failed = 0
    for d in dirs:
        program = Program(d, require_tags, require_version)
        built = program.run()
        if program.errors:
            failed += 1
            for e in program.errors:
                print(f"error: {e}", file=sys.stderr)
            print(f"FAIL {d}: {len(program.errors)} problem(s)")
        else:
            print(f"ok {d}: {built} resources constructed and registered with pulumi_aws "
                  f"{importlib.metadata.version('pulumi_aws')}")
    return 1 if failed else 0


if __name__ == "__main__":
    import importlib.metadata
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Infisical contract server: answers like a real Infisical backend, per shared/spec/infisical-api.md.

Standard library only. Binds 127.0.0.1; `--port 0` picks a free port, and the chosen port is
printed alone on the first line of stdout. Serves, over one in-memory store:

- universal-auth login (`POST /api/v1/auth/universal-auth/login`), incl. 401 on bad credentials and
  a 300 s lock after 3 failures;
- v4 secrets (`/api/v4/secrets`, `/api/v4/secrets/{name}`) and the v3 raw routes the official
  client speaks (`/api/v3/secrets/raw`, `/api/v3/secrets/raw/{name}`);
- v2 folders (`POST|GET /api/v2/folders`, `DELETE /api/v2/folders/{folderIdOrName}`);
- error bodies `{reqId, statusCode, message, error}`; 401 no token; 403 TokenError for a malformed
  or expired token.

Test-only endpoints (not part of Infisical):
- `POST /__contract/faults` JSON, every key optional:
  `{"expire_tokens_now": true, "throttle_next": n, "retry_after": s, "fail_next_500": n,
    "drop_next_connection": n, "after": k}`; with `after`, the counted faults (throttle, 500,
  drop) and the expiry start once k more API requests have been answered.
- `GET /__contract/state` names, versions, folders, login counts and the request log;
  `?values=1` adds values (tests use it only to check canaries and generation rules).
- `POST /__contract/reset` empties the store and the faults.
"""

import argparse
import json
import re
import socket
import sys
import threading
import time
import uuid
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

LOCK = threading.RLock()
FOLDER_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
REFERENCE = re.compile(r"\$\{([^}]+)\}")
HIDDEN = "<hidden-by-infisical>"
LOCK_SECONDS = 300
MAX_FAILURES = 3


def now_iso():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class Store:
    def __init__(self, identities, projects, environments, token_ttl):
        self.identities = identities  # client_id -> client_secret
        self.projects = projects
        self.environments = environments
        self.token_ttl = token_ttl
        self.reset()

    def reset(self):
        self.tokens = {}  # token -> {"identity", "expires_at"}
        self.failures = {}  # client_id -> [count, locked_until]
        self.logins = {"ok": 0, "failed": 0, "locked": 0}
        # (project, env) -> {path: {"id", "name", "createdAt"...}}; "/" always exists
        self.folders = {}
        # (project, env, path, name) -> secret record
        self.secrets = {}
        self.requests = []
        self.faults = {"throttle": 0, "retry_after": 1, "fail500": 0, "drop": 0, "after": 0,
                       "expire_pending": False}

    def env_folders(self, project, env):
        key = (project, env)
        if key not in self.folders:
            self.folders[key] = {"/": {"id": str(uuid.uuid4()), "name": "root",
                                       "createdAt": now_iso(), "updatedAt": now_iso()}}
        return self.folders[key]


class ApiError(Exception):
    def __init__(self, status, message, error):
        super().__init__(message)
        self.status = status
        self.message = message
        self.error = error


def bad_request(message):
    return ApiError(400, message, "BadRequest")


def not_found(message):
    return ApiError(404, message, "NotFound")


def validation(issues):
    return ApiError(422, issues, "ValidationFailure")


def norm_path(path):
    if path is None or path == "":
        return "/"
    if not path.startswith("/"):
        path = "/" + path
    if len(path) > 1:
        path = path.rstrip("/")
    return path or "/"


def truthy(value, default):
    if value is None:
        return default
    return str(value).lower() not in ("false", "0", "no")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "infisical-contract"
    store = None  # set in main

    def log_message(self, fmt, *args):  # quiet: stdout carries only the port
        pass

    # ---- plumbing -------------------------------------------------------------------------

    def send_json(self, status, body, headers=None):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def send_error_body(self, err, headers=None):
        self.send_json(err.status, {"reqId": "req-" + uuid.uuid4().hex[:12],
                                    "statusCode": err.status, "message": err.message,
                                    "error": err.error}, headers)

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        return raw

    def parse_json(self, raw):
        if not raw:
            return {}
        try:
            body = json.loads(raw)
        except ValueError:
            # Infisical answers malformed JSON with a 500.
            raise ApiError(500, "Something went wrong", "InternalServerError")
        if not isinstance(body, dict):
            raise validation([{"code": "invalid_type", "message": "Expected object", "path": []}])
        return body

    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def do_PATCH(self):
        self.dispatch("PATCH")

    def do_DELETE(self):
        self.dispatch("DELETE")

    def dispatch(self, method):
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        raw = self.read_body()
        store = self.store
        if url.path.startswith("/__contract/"):
            return self.contract(method, url.path, query, raw)
        with LOCK:
            store.requests.append({"method": method, "path": url.path})
            fault = self.take_fault()
        if fault == "drop":
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if fault == "throttle":
            after = store.faults["retry_after"]
            return self.send_error_body(ApiError(
                429, f"Rate limit exceeded. Please try again in {after} seconds",
                "RateLimitExceeded"))
        if fault == "fail500":
            return self.send_error_body(ApiError(500, "Something went wrong",
                                                 "InternalServerError"))
        try:
            with LOCK:
                status, body = self.route(method, url.path, query, raw)
        except ApiError as err:
            return self.send_error_body(err)
        self.send_json(status, body)

    def take_fault(self):
        faults = self.store.faults
        if faults["after"] > 0:
            faults["after"] -= 1
            return None
        if faults["expire_pending"]:
            faults["expire_pending"] = False
            self.expire_all()
        for name in ("drop", "throttle", "fail500"):
            if faults[name] > 0:
                faults[name] -= 1
                return name
        return None

    def expire_all(self):
        for token in self.store.tokens.values():
            token["expires_at"] = 0

    # ---- test-only endpoints --------------------------------------------------------------

    def contract(self, method, path, query, raw):
        store = self.store
        with LOCK:
            if method == "POST" and path == "/__contract/faults":
                body = json.loads(raw or b"{}")
                faults = store.faults
                faults["throttle"] = int(body.get("throttle_next", faults["throttle"]))
                faults["retry_after"] = int(body.get("retry_after", faults["retry_after"]))
                faults["fail500"] = int(body.get("fail_next_500", faults["fail500"]))
                faults["drop"] = int(body.get("drop_next_connection", faults["drop"]))
                faults["after"] = int(body.get("after", 0))
                if body.get("expire_tokens_now"):
                    if faults["after"] > 0:
                        faults["expire_pending"] = True
                    else:
                        self.expire_all()
                return self.send_json(200, {"faults": faults})
            if method == "POST" and path == "/__contract/reset":
                store.reset()
                return self.send_json(200, {})
            if method == "GET" and path == "/__contract/state":
                with_values = query.get("values") == "1"
                secrets = []
                for (project, env, fpath, name), rec in sorted(store.secrets.items()):
                    item = {"project": project, "environment": env, "path": fpath,
                            "name": name, "version": rec["version"]}
                    if with_values:
                        item["value"] = rec["value"]
                    secrets.append(item)
                folders = sorted(f"{p}:{e}:{fp}" for (p, e), fs in store.folders.items()
                                 for fp in fs)
                return self.send_json(200, {"secrets": secrets, "folders": folders,
                                            "logins": store.logins,
                                            "requests": store.requests})
        self.send_json(404, {"message": "unknown contract endpoint"})

    # ---- Infisical API --------------------------------------------------------------------

    def route(self, method, path, query, raw):
        if method == "POST" and path == "/api/v1/auth/universal-auth/login":
            return self.login(self.parse_json(raw))
        if path.startswith("/api/"):
            identity = self.authenticate()
        else:
            raise not_found(f"Route {method}:{path} not found")
        body = self.parse_json(raw) if method in ("POST", "PATCH", "DELETE") else {}
        if path == "/api/v2/folders":
            if method == "POST":
                return self.create_folder(body)
            if method == "GET":
                return self.list_folders(query)
        if path.startswith("/api/v2/folders/") and method == "DELETE":
            return self.delete_folder(unquote(path[len("/api/v2/folders/"):]), body)
        for prefix, project_key in (("/api/v4/secrets", "projectId"),
                                    ("/api/v3/secrets/raw", "workspaceId")):
            if path == prefix and method == "GET":
                return self.list_secrets(query, project_key)
            if path.startswith(prefix + "/"):
                name = unquote(path[len(prefix) + 1:])
                args = dict(query)
                args.update(body)
                if method == "GET":
                    return self.get_secret(name, args, project_key)
                if method == "POST":
                    return self.create_secret(name, args, project_key)
                if method == "PATCH":
                    return self.update_secret(name, args, project_key)
                if method == "DELETE":
                    return self.delete_secret(name, args, project_key)
        del identity
        raise not_found(f"Route {method}:{path} not found")

    def login(self, body):
        store = self.store
        client_id = body.get("clientId")
        secret = body.get("clientSecret")
        if not isinstance(client_id, str) or not isinstance(secret, str):
            raise validation([{"code": "invalid_type", "message": "Required",
                               "path": ["clientId" if not isinstance(client_id, str)
                                        else "clientSecret"]}])
        state = store.failures.setdefault(client_id, [0, 0.0])
        if state[1] > time.time():
            store.logins["locked"] += 1
            raise ApiError(401, "This identity auth method is temporarily locked, please try "
                                "again later", "UnauthorizedError")
        if store.identities.get(client_id) != secret:
            store.logins["failed"] += 1
            state[0] += 1
            if state[0] >= MAX_FAILURES:
                state[0] = 0
                state[1] = time.time() + LOCK_SECONDS
            raise ApiError(401, "Invalid credentials", "UnauthorizedError")
        state[0] = 0
        store.logins["ok"] += 1
        token = "ctk." + uuid.uuid4().hex + uuid.uuid4().hex
        store.tokens[token] = {"identity": client_id,
                               "expires_at": time.time() + store.token_ttl}
        return 200, {"accessToken": token, "expiresIn": store.token_ttl,
                     "accessTokenMaxTTL": store.token_ttl * 30, "tokenType": "Bearer"}

    def authenticate(self):
        header = self.headers.get("Authorization") or ""
        if not header.startswith("Bearer ") or not header[7:].strip():
            raise ApiError(401, "Token missing", "UnauthorizedError")
        token = self.store.tokens.get(header[7:].strip())
        if token is None:
            raise ApiError(403, "jwt malformed", "TokenError")
        if token["expires_at"] <= time.time():
            raise ApiError(403, "Your token has expired. Please re-authenticate.", "TokenError")
        return token["identity"]

    def scope(self, args, project_key, path_key):
        project = args.get(project_key)
        if not project:
            raise validation([{"code": "invalid_type", "expected": "string",
                               "received": "undefined", "path": [project_key],
                               "message": "Required"}])
        env = args.get("environment")
        if not env:
            raise bad_request("Missing environment")
        if project not in self.store.projects:
            raise not_found(f"Project with ID '{project}' not found")
        if env not in self.store.environments:
            raise not_found(f"Environment with slug '{env}' in project with ID '{project}' "
                            "not found")
        return project, env, norm_path(args.get(path_key))

    def require_folder(self, project, env, path):
        if path not in self.store.env_folders(project, env):
            raise not_found(f"Folder with path '{path}' in environment with slug '{env}' "
                            "not found")

    # folders

    def create_folder(self, body):
        project_key = "projectId" if "projectId" in body else "workspaceId"
        project, env, parent = self.scope(body, project_key, "path")
        name = body.get("name")
        if not isinstance(name, str) or not FOLDER_NAME.match(name):
            raise validation([{"validation": "regex", "code": "invalid_string",
                               "message": "Folder name can only contain alphanumeric, dash "
                                          "and underscore characters", "path": ["name"]}])
        folders = self.store.env_folders(project, env)
        full = norm_path(parent.rstrip("/") + "/" + name)
        if full in folders:
            raise bad_request(f"Folder with name '{name}' already exists in path '{parent}'")
        # Missing parents are created too.
        segments = [s for s in full.split("/") if s]
        current = ""
        parent_id = folders["/"]["id"]
        for seg in segments:
            current += "/" + seg
            if current not in folders:
                folders[current] = {"id": str(uuid.uuid4()), "name": seg,
                                    "createdAt": now_iso(), "updatedAt": now_iso(),
                                    "parentId": parent_id}
            parent_id = folders[current]["id"]
        rec = folders[full]
        return 200, {"folder": self.folder_view(env, rec, full)}

    def folder_view(self, env, rec, path):
        return {"id": rec["id"], "name": rec["name"], "createdAt": rec["createdAt"],
                "updatedAt": rec["updatedAt"], "envId": "env-" + env, "version": 1,
                "parentId": rec.get("parentId"), "isReserved": False, "description": None,
                "path": path}

    def list_folders(self, query):
        project_key = "projectId" if "projectId" in query else "workspaceId"
        project, env, path = self.scope(query, project_key, "path")
        folders = self.store.env_folders(project, env)
        prefix = path.rstrip("/") + "/"
        children = [self.folder_view(env, rec, fp) for fp, rec in sorted(folders.items())
                    if fp != "/" and fp.startswith(prefix) and "/" not in fp[len(prefix):]]
        return 200, {"folders": children}

    def delete_folder(self, id_or_name, body):
        """As Infisical's `deleteFolder` (backend/src/services/secret-folder/secret-folder-service.ts):
        `path` is the parent's (default `/`); the folder is found by name, else by id, under it;
        404 when the parent or the folder is missing; 400 when it holds secrets or subfolders
        unless `forceDelete`; the answer is the folder without its path."""
        project_key = "projectId" if "projectId" in body else "workspaceId"
        project, env, parent = self.scope(body, project_key, "path")
        folders = self.store.env_folders(project, env)
        if parent not in folders:
            raise not_found(f"Folder with path '{parent}' in environment with slug '{env}' not found")
        prefix = parent.rstrip("/") + "/"
        children = {fp: rec for fp, rec in folders.items()
                    if fp != "/" and fp.startswith(prefix) and "/" not in fp[len(prefix):]}
        full = next((fp for fp, rec in children.items() if rec["name"] == id_or_name), None)
        full = full or next((fp for fp, rec in children.items() if rec["id"] == id_or_name), None)
        if full is None:
            raise not_found(f"Folder with ID '{id_or_name}' not found")
        rec = folders[full]
        inside = [fp for fp in folders if fp.startswith(full + "/")]
        holds = [k for k in self.store.secrets if k[:2] == (project, env)
                 and (k[2] == full or k[2].startswith(full + "/"))]
        if (inside or holds) and body.get("forceDelete") is not True:
            raise bad_request(f'Cannot delete folder "{rec["name"]}" because it contains resources. '
                              "Use forceDelete=true to delete it forcefully.")
        for fp in [full, *inside]:
            del folders[fp]
        for key in holds:
            del self.store.secrets[key]
        view = self.folder_view(env, rec, full)
        del view["path"]
        return 200, {"folder": view}

    # secrets

    def secret_view(self, project, env, path, name, rec, view_value, expand):
        value = rec["value"]
        if view_value:
            if expand:
                value = self.expand(project, env, path, value, depth=0)
        else:
            value = HIDDEN
        return {"id": rec["id"], "_id": rec["id"], "workspace": project, "environment": env,
                "version": rec["version"], "type": "shared", "secretKey": name,
                "secretValue": value, "secretComment": rec["comment"],
                "secretReminderNote": None, "secretReminderRepeatDays": None,
                "skipMultilineEncoding": False, "createdAt": rec["createdAt"],
                "updatedAt": rec["updatedAt"], "secretPath": path,
                "secretValueHidden": not view_value, "tags": [], "secretMetadata": [],
                "isRotatedSecret": False, "rotationId": None}

    def expand(self, project, env, path, value, depth):
        if depth > 5:
            return value

        def sub(match):
            ref = match.group(1)
            if "." in ref:
                parts = ref.split(".")
                r_env, r_path, r_name = parts[0], norm_path("/".join(parts[1:-1])), parts[-1]
            else:
                r_env, r_path, r_name = env, path, ref
            rec = self.store.secrets.get((project, r_env, r_path, r_name))
            if rec is None:
                return ""
            return self.expand(project, r_env, r_path, rec["value"], depth + 1)

        return REFERENCE.sub(sub, value)

    def list_secrets(self, query, project_key):
        project, env, path = self.scope(query, project_key, "secretPath")
        self.require_folder(project, env, path)
        view = truthy(query.get("viewSecretValue"), True)
        expand = truthy(query.get("expandSecretReferences"), True)
        recursive = truthy(query.get("recursive"), False)
        out = []
        for (p, e, fp, name), rec in sorted(self.store.secrets.items()):
            if p != project or e != env:
                continue
            inside = fp == path or (recursive and fp.startswith(path.rstrip("/") + "/"))
            if inside:
                out.append(self.secret_view(p, e, fp, name, rec, view, expand))
        return 200, {"secrets": out, "imports": []}

    def get_secret(self, name, args, project_key):
        project, env, path = self.scope(args, project_key, "secretPath")
        self.require_folder(project, env, path)
        rec = self.store.secrets.get((project, env, path, name))
        if rec is None:
            raise not_found(f"Secret with name '{name}' not found")
        view = truthy(args.get("viewSecretValue"), True)
        expand = truthy(args.get("expandSecretReferences"), True)
        return 200, {"secret": self.secret_view(project, env, path, name, rec, view, expand)}

    def check_value(self, args, required):
        value = args.get("secretValue")
        if value is None and not required:
            return None
        if not isinstance(value, str):
            raise validation([{"code": "invalid_type", "expected": "string",
                               "received": type(value).__name__, "path": ["secretValue"],
                               "message": "Required" if value is None else "Expected string"}])
        return value

    def check_name(self, name):
        if not name or "/" in name or name.strip() != name:
            raise validation([{"code": "custom", "message": "Invalid secret name",
                               "path": ["secretName"]}])

    def create_secret(self, name, args, project_key):
        self.check_name(name)
        project, env, path = self.scope(args, project_key, "secretPath")
        value = self.check_value(args, required=True)
        self.require_folder(project, env, path)
        key = (project, env, path, name)
        if key in self.store.secrets:
            raise bad_request("Secret already exists")
        stamp = now_iso()
        rec = {"id": str(uuid.uuid4()), "version": 1, "value": value,
               "comment": args.get("secretComment") or "", "createdAt": stamp,
               "updatedAt": stamp}
        self.store.secrets[key] = rec
        return 200, {"secret": self.secret_view(project, env, path, name, rec, True, False)}

    def update_secret(self, name, args, project_key):
        project, env, path = self.scope(args, project_key, "secretPath")
        value = self.check_value(args, required=False)
        self.require_folder(project, env, path)
        key = (project, env, path, name)
        rec = self.store.secrets.get(key)
        if rec is None:
            raise not_found(f"Secret with name '{name}' not found")
        if value is not None:
            rec["value"] = value
        if args.get("secretComment") is not None:
            rec["comment"] = args["secretComment"]
        rec["version"] += 1
        rec["updatedAt"] = now_iso()
        new_name = args.get("newSecretName")
        if new_name and new_name != name:
            self.check_name(new_name)
            del self.store.secrets[key]
            self.store.secrets[(project, env, path, new_name)] = rec
            name = new_name
        return 200, {"secret": self.secret_view(project, env, path, name, rec, True, False)}

    def delete_secret(self, name, args, project_key):
        project, env, path = self.scope(args, project_key, "secretPath")
        self.require_folder(project, env, path)
        key = (project, env, path, name)
        rec = self.store.secrets.pop(key, None)
        if rec is None:
            raise not_found(f"Secret with name '{name}' not found")
        return 200, {"secret": self.secret_view(project, env, path, name, rec, True, False)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--client-id", default="contract-client-id")
    parser.add_argument("--client-secret", default="contract-client-secret")
    parser.add_argument("--project", action="append", default=None,
                        help="project id the identity may use (repeatable)")
    parser.add_argument("--environment", action="append", default=None,
                        help="environment slug (repeatable)")
    parser.add_argument("--token-ttl", type=int, default=7200)
    args = parser.parse_args()
    Handler.store = Store({args.client_id: args.client_secret},
                          set(args.project or ["contract-project"]),
                          set(args.environment or ["dev", "staging", "prod"]),
                          args.token_ttl)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())

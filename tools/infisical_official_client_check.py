#!/usr/bin/env python3
"""Referees the Infisical contract server with Infisical's official Python client.

Usage: infisical_official_client_check.py BASE_URL CLIENT_ID CLIENT_SECRET PROJECT_ID [ENV]

Runs universal-auth login, folder create/list, secret create, get (with and without the value),
update, list and delete, then folder delete (refused while it holds a secret or a folder, a 404
once gone) through `infisicalsdk` and exits non-zero with a message on the first
answer that differs from what a real Infisical server gives. Prints `official client: ok` at the
end. The values used are fixed test values, never real secrets.
"""

import sys
import uuid

from infisical_sdk import InfisicalSDKClient
from infisical_sdk.infisical_requests import APIError


def check(cond, what):
    if not cond:
        print(f"official client check failed: {what}", file=sys.stderr)
        sys.exit(1)


def expect_api_error(status, fn, what):
    try:
        fn()
    except APIError as err:
        check(err.status_code == status, f"{what}: status {err.status_code}, expected {status}")
        check(isinstance(err.response, dict) and
              {"reqId", "statusCode", "message", "error"} <= set(err.response),
              f"{what}: error body lacks reqId/statusCode/message/error: {err.response}")
        return
    check(False, f"{what}: no error raised, expected {status}")


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    base, client_id, client_secret, project = sys.argv[1:5]
    env = sys.argv[5] if len(sys.argv) > 5 else "dev"
    run = uuid.uuid4().hex[:8]
    folder = f"official-check-{run}"
    path = f"/{folder}/inner"

    client = InfisicalSDKClient(host=base, cache_ttl=None)
    login = client.auth.universal_auth.login(client_id=client_id, client_secret=client_secret)
    check(login.tokenType == "Bearer" and login.accessToken, "login returned no bearer token")
    check(isinstance(login.expiresIn, int), "login expiresIn is not an int")

    # Folders: creating a nested path creates its parents; the same name again is a 400.
    created = client.folders.create_folder(name="inner", environment_slug=env,
                                           project_id=project, path=f"/{folder}")
    check(created.name == "inner", f"folder create returned {created}")
    listed = client.folders.list_folders(project_id=project, environment_slug=env,
                                         path=f"/{folder}")
    check([f.name for f in listed.folders] == ["inner"], f"folder list gave {listed.folders}")
    expect_api_error(400, lambda: client.folders.create_folder(
        name="inner", environment_slug=env, project_id=project, path=f"/{folder}"),
        "folder created twice")

    # Secrets over the v3 raw routes.
    secret = client.secrets.create_secret_by_name(
        secret_name="CHECK_SECRET", secret_path=path, environment_slug=env,
        project_id=project, secret_value="first-value", secret_comment="official check")
    check(secret.secretKey == "CHECK_SECRET" and secret.version == 1,
          f"create returned key {secret.secretKey} version {secret.version}")
    expect_api_error(400, lambda: client.secrets.create_secret_by_name(
        secret_name="CHECK_SECRET", secret_path=path, environment_slug=env,
        project_id=project, secret_value="again"), "secret created twice")

    got = client.secrets.get_secret_by_name(secret_name="CHECK_SECRET", environment_slug=env,
                                            secret_path=path, project_id=project)
    check(got.secretValue == "first-value", "get with the default viewSecretValue hid the value")
    hidden = client.secrets.get_secret_by_name(secret_name="CHECK_SECRET",
                                               environment_slug=env, secret_path=path,
                                               project_id=project, view_secret_value=False)
    check(hidden.secretValue != "first-value" and hidden.secretValueHidden is True,
          "get with viewSecretValue=false showed the value")

    updated = client.secrets.update_secret_by_name(
        current_secret_name="CHECK_SECRET", secret_path=path, environment_slug=env,
        project_id=project, secret_value="second-value")
    check(updated.version == 2, f"update gave version {updated.version}")
    client.secrets.create_secret_by_name(
        secret_name="CHECK_URL", secret_path=path, environment_slug=env, project_id=project,
        secret_value="scheme://u:${CHECK_SECRET}@host")

    listing = client.secrets.list_secrets(environment_slug=env, secret_path=path,
                                          project_id=project)
    by_name = {s.secretKey: s for s in listing.secrets}
    check(set(by_name) == {"CHECK_SECRET", "CHECK_URL"}, f"list gave {sorted(by_name)}")
    check(by_name["CHECK_SECRET"].secretValue == "second-value", "list did not show the update")
    check(by_name["CHECK_URL"].secretValue == "scheme://u:second-value@host",
          "list did not expand the secret reference")
    raw = client.secrets.list_secrets(environment_slug=env, secret_path=path,
                                      project_id=project, expand_secret_references=False)
    check({s.secretKey: s.secretValue for s in raw.secrets}["CHECK_URL"]
          == "scheme://u:${CHECK_SECRET}@host", "expandSecretReferences=false expanded")
    blind = client.secrets.list_secrets(environment_slug=env, secret_path=path,
                                        project_id=project, view_secret_value=False)
    check(all(s.secretValue not in ("second-value",) for s in blind.secrets),
          "list with viewSecretValue=false showed a value")

    for name in ("CHECK_URL", "CHECK_SECRET"):
        deleted = client.secrets.delete_secret_by_name(secret_name=name, secret_path=path,
                                                       environment_slug=env, project_id=project)
        check(deleted.secretKey == name, f"delete returned {deleted.secretKey}")
    expect_api_error(404, lambda: client.secrets.delete_secret_by_name(
        secret_name="CHECK_SECRET", secret_path=path, environment_slug=env,
        project_id=project), "secret deleted twice")
    expect_api_error(404, lambda: client.secrets.get_secret_by_name(
        secret_name="CHECK_SECRET", environment_slug=env, secret_path=path,
        project_id=project), "deleted secret still readable")
    after = client.secrets.list_secrets(environment_slug=env, secret_path=path,
                                        project_id=project)
    check(after.secrets == [], "list after delete not empty")

    # Folders are deleted by name under their parent's path; not while they hold anything.
    client.secrets.create_secret_by_name(
        secret_name="CHECK_KEPT", secret_path=path, environment_slug=env, project_id=project,
        secret_value="kept")
    expect_api_error(400, lambda: client.folders.delete_folder(
        folder_id_or_name="inner", environment_slug=env, project_id=project, path=f"/{folder}"),
        "a folder holding a secret deleted")
    client.secrets.delete_secret_by_name(secret_name="CHECK_KEPT", secret_path=path,
                                         environment_slug=env, project_id=project)
    expect_api_error(400, lambda: client.folders.delete_folder(
        folder_id_or_name=folder, environment_slug=env, project_id=project, path="/"),
        "a folder holding a folder deleted")
    gone = client.folders.delete_folder(folder_id_or_name="inner", environment_slug=env,
                                        project_id=project, path=f"/{folder}")
    check(gone.name == "inner" and gone.id == created.id, f"folder delete returned {gone}")
    expect_api_error(404, lambda: client.folders.delete_folder(
        folder_id_or_name="inner", environment_slug=env, project_id=project, path=f"/{folder}"),
        "folder deleted twice")
    expect_api_error(404, lambda: client.folders.delete_folder(
        folder_id_or_name="inner", environment_slug=env, project_id=project, path=f"/{folder}/inner"),
        "folder deleted under a missing parent")
    top = client.folders.delete_folder(folder_id_or_name=folder, environment_slug=env,
                                       project_id=project, path="/")
    check(top.name == folder, f"folder delete returned {top}")
    left = client.folders.list_folders(project_id=project, environment_slug=env, path="/").folders
    check(all(f.name != folder for f in left), "a deleted folder is still listed")

    # A wrong secret is refused with 401.
    other = InfisicalSDKClient(host=base, cache_ttl=None)
    expect_api_error(401, lambda: other.auth.universal_auth.login(
        client_id=client_id, client_secret=client_secret + "-wrong"), "login with a wrong secret")
    print("official client: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`runway lsp` driven end to end by a real LSP client (pytest-lsp, over stdio).

Run by `crates/runway-cli/tests/it/lsp.rs` with the workspace venv's Python; `RUNWAY_BIN` is the
built `runway` binary and `RUNWAY_EXAMPLE` the folder of the shipped example. The example is
copied into a scratch folder per test; the server never writes, edits live in the client.
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

RUNWAY = os.environ["RUNWAY_BIN"]
EXAMPLE = Path(os.environ["RUNWAY_EXAMPLE"])
# In the server's environment (it inherits ours) and in every file outside the workspace: it
# must reach no message the server publishes.
CANARY = "canary-lsp-3c9e-do-not-publish"
os.environ["RUNWAY_TEST_CANARY"] = CANARY


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[RUNWAY, "lsp"]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=pytest_lsp.client_capabilities("neovim"))
    )
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """A scratch copy of the example; its root file. Metabase's `uses` is written by name
    (`[main-db]`, the `write` mode): the tests below edit and complete that list in the name
    form; the mapping form has its own test."""
    shutil.copytree(EXAMPLE, tmp_path / "shop")
    root = tmp_path / "shop" / "runway.yaml"
    assert "    uses: [main-db]\n" in root.read_text()
    return root


def uri(path: Path) -> str:
    return path.resolve().as_uri()


def position(text: str, needle: str, skip: int = 0) -> types.Position:
    """The position of the first `needle`, `skip` UTF-16 units into it."""
    offset = text.index(needle)
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    units = len(text[start:offset].encode("utf-16-le")) // 2
    return types.Position(line=line, character=units + skip)


def open_doc(client: LanguageClient, path: Path, text: str | None = None) -> str:
    text = path.read_text() if text is None else text
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri(path), language_id="yaml", version=1, text=text)
        )
    )
    return text


def change_doc(client: LanguageClient, path: Path, text: str, version: int = 2) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri(path), version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def settled(client: LanguageClient, path: Path) -> list[types.Diagnostic]:
    """The diagnostics of `path` once the server has handled everything sent so far: it
    answers in order, so after a request's answer every earlier publish has arrived."""
    await hover(client, path, types.Position(line=0, character=0))
    # The client keeps each file's last publish as lsprotocol structured it (a tuple).
    return list(client.diagnostics.get(uri(path), []))


async def hover_result(client: LanguageClient, path: Path, pos: types.Position) -> types.Hover | None:
    return await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri(path)), position=pos)
    )


async def hover(client: LanguageClient, path: Path, pos: types.Position) -> str | None:
    result = await hover_result(client, path, pos)
    return None if result is None else result.contents.value


async def completion_items(client: LanguageClient, path: Path, pos: types.Position) -> list[types.CompletionItem]:
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=uri(path)), position=pos)
    )
    return list(result.items if isinstance(result, types.CompletionList) else (result or []))


async def completion(client: LanguageClient, path: Path, pos: types.Position) -> list[str]:
    return [i.label for i in await completion_items(client, path, pos)]


def offset(text: str, pos: types.Position) -> int:
    """The string index of an LSP position (its column in UTF-16 units)."""
    start = 0
    for _ in range(pos.line):
        start = text.index("\n", start) + 1
    units = 0
    i = start
    while units < pos.character and i < len(text) and text[i] != "\n":
        units += len(text[i].encode("utf-16-le")) // 2
        i += 1
    return i


def apply(text: str, edit: types.TextEdit) -> str:
    return text[: offset(text, edit.range.start)] + edit.new_text + text[offset(text, edit.range.end) :]


def run_json(*args: str) -> dict:
    out = subprocess.run([RUNWAY, *args, "--format", "json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def codes(diags: list[types.Diagnostic]) -> list[str]:
    return [d.code for d in diags]


def check_json(root: Path) -> list[dict]:
    out = subprocess.run([RUNWAY, "check", "--format", "json", str(root)], capture_output=True, text=True)
    return json.loads(out.stdout)["diagnostics"]


async def test_diagnostics_are_checks_from_the_editors_text(client: LanguageClient, shop: Path):
    text = open_doc(client, shop)
    assert await settled(client, shop) == []
    # Unsaved: the dev cap under the estimate, and a typo in a `uses`.
    edited = text.replace("monthly: 200", "monthly: 1", 1).replace("uses: [jobs, uploads]", "uses: [jobs, uplods]")
    change_doc(client, shop, edited)
    diags = await settled(client, shop)
    assert "unknown-resource" in codes(diags)
    typo = next(d for d in diags if d.code == "unknown-resource")
    assert typo.range.start == position(edited, "uplods")
    assert typo.range.end == position(edited, "uplods", 6)
    assert "did you mean `uploads`?" in typo.message
    # Fixed typo: the runway is valid, and the dev plan is refused by its cap, as `check` says.
    edited = edited.replace("uplods", "uploads")
    change_doc(client, shop, edited, 3)
    diags = await settled(client, shop)
    shop.write_text(edited)
    expected = check_json(shop)
    assert [d["code"] for d in expected] == codes(diags)
    assert "cap-exceeded" in codes(diags)
    for want, got in zip(expected, diags):
        assert (want["line"] - 1, want["column"] - 1) == (got.range.start.line, got.range.start.character)
        assert got.severity == (types.DiagnosticSeverity.Error if want["severity"] == "error" else types.DiagnosticSeverity.Warning)


async def test_member_text_comes_from_the_editor(client: LanguageClient, shop: Path):
    open_doc(client, shop)
    member = shop.parent / "services" / "orders" / "runway.yaml"
    text = open_doc(client, member, member.read_text().replace("uses: [events, sessions]", "uses: [evnts, sessions]"))
    diags = await settled(client, member)
    assert codes(diags) == ["unknown-resource"]
    assert diags[0].range.start == position(text, "evnts")
    # Closing it drops the unsaved text: the file on disk is valid.
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri(member)))
    )
    assert await settled(client, member) == []


async def test_multibyte_text_maps_to_utf16_columns(client: LanguageClient, shop: Path):
    text = open_doc(client, shop)
    reason = "    reason:\n      ground: no-managed-fit\n      detail: No managed BI service fits; Metabase reads main-db directly.\n"
    assert reason in text
    # Multi-byte text (2-, 3- and 4-byte characters; the last is two UTF-16 units) before an
    # unknown key on the same line.
    edited = text.replace(reason, '    reason: { ground: no-managed-fit, detail: "Größe 𝄞 — liest main-db", exträ: 1 }\n')
    change_doc(client, shop, edited)
    diags = await settled(client, shop)
    assert codes(diags) == ["unknown-field"], diags
    assert diags[0].range.start == position(edited, "exträ")
    assert diags[0].range.end == position(edited, "exträ", 5)
    line = edited.splitlines()[diags[0].range.start.line]
    assert len(line[: line.index("exträ")]) != diags[0].range.start.character, "columns count UTF-16 units"
    # Hover after multi-byte text on the line still finds the size under the cursor.
    assert "    size: { production: medium }\n" in edited
    edited = edited.replace("    size: { production: medium }\n", '    size: { "prödüctiön𝄞": small, production: medium }\n', 1)
    change_doc(client, shop, edited, 3)
    found = await hover_result(client, shop, position(edited, "production: medium", 13))
    assert found is not None and found.contents.value.startswith("No estimate: the runway has"), found
    # The range is the word under the cursor, `medium`, in UTF-16 units after the multi-byte key.
    assert found.range == types.Range(
        start=position(edited, "production: medium", 12), end=position(edited, "production: medium", 18)
    ), found.range


async def test_hover_shows_cost_per_environment(client: LanguageClient, shop: Path):
    text = open_doc(client, shop)
    db = await hover(client, shop, position(text, "  main-db:", 4))
    assert db is not None
    assert "**main-db** · postgres (rds 16)" in db
    for env in ("dev", "staging", "production"):
        assert f"| {env} |" in db
    assert "db.t4g.micro" in db and "db.m7g.large" in db
    # Each row's figures are those `runway plan` and `runway cost` give for the environment.
    totals = {e["name"]: e for e in run_json("cost", str(shop))["environments"]}
    for env in ("dev", "staging", "production"):
        plan = run_json("plan", "--env", env, str(shop))
        r = next(r for r in plan["resources"] if r["name"] == "main-db")
        t = totals[env]
        row = f"| {env} | {r['size']} | {r['summary']} | ${r['monthly']} | ${t['monthly']} of ${t['cap']} cap: {t['verdict']} |"
        assert row in db, (row, db)
    # The same hover from a `uses` entry of a member.
    reporting = shop.parent / "tools" / "reporting" / "runway.yaml"
    member_text = open_doc(client, reporting)
    assert "**main-db**" in (await hover(client, reporting, position(member_text, "main-db", 2)) or "")
    work = await hover(client, shop, position(text, "  metabase:", 4))
    assert work is not None and "**metabase** · workload, public" in work
    assert "| production | medium | 1 vCPU, 2 GB | 2–4 |" in work
    size = await hover(client, shop, position(text, "production: large }", 13))
    assert size is not None and "`large` in production" in size and "db.m7g.large" in size
    plan = run_json("plan", "--env", "production", str(shop))
    r = next(r for r in plan["resources"] if r["name"] == "main-db")
    assert f"${r['monthly']} a month · ${plan['cost']['monthly']} of ${plan['cost']['cap']} cap" in size, size


async def test_completion_offers_names_kinds_sizes_and_keys(client: LanguageClient, shop: Path):
    text = open_doc(client, shop)
    resources = {"main-db", "jobs", "events", "sessions", "uploads"}
    in_uses = await completion(client, shop, position(text, "uses: [main-db]", 7))
    assert resources <= set(in_uses)
    # Only resource names in `uses`: no kinds, sizes or keys.
    assert not {"postgres", "queue", "small", "kind", "image"} & set(in_uses), in_uses
    assert set(await completion(client, shop, position(text, "kind: postgres", 6))) >= {"postgres", "queue", "bucket"}
    assert set(await completion(client, shop, position(text, "engine: rds", 8))) == {"rds", "aurora"}
    assert set(await completion(client, shop, position(text, "staging: medium", 9))) >= {"small", "medium", "large"}
    envs = await completion(client, shop, position(text, "size: { staging", 8))
    assert set(envs) >= {"dev", "staging", "production"}
    keys = await completion(client, shop, position(text, "    engine: rds", 4))
    assert {"kind", "engine", "version", "size"} <= set(keys)
    # While the root is being typed and is not YAML, the names are still offered.
    typing = text.replace("    uses: [main-db]\n", "    uses: [ma\n")
    change_doc(client, shop, typing)
    assert resources <= set(await completion(client, shop, position(typing, "uses: [ma", 9)))
    member = shop.parent / "services" / "orders" / "runway.yaml"
    member_text = open_doc(client, member, "runway: 3\nruntime: encore\nuses: [\n")
    assert resources <= set(await completion(client, member, position(member_text, "uses: [", 7)))
    # Right after `kind:` or an item's `-` (both trigger characters), the edit applied gives
    # the example's text back: a space comes first, and the dash stays.
    block_uses = text.replace("    uses: [main-db]\n", "    uses:\n      - main-db\n", 1)
    for version, (written, needle, label, want) in enumerate(
        [
            (text.replace("    kind: postgres\n", "    kind:\n", 1), "kind:\n", "postgres", text),
            (block_uses.replace("      - main-db\n", "      -\n", 1), "      -\n", "main-db", block_uses),
        ],
        start=3,
    ):
        change_doc(client, shop, written, version)
        items = await completion_items(client, shop, position(written, needle, len(needle) - 1))
        item = next(i for i in items if i.label == label)
        assert apply(written, item.text_edit) == want, item.text_edit


async def test_definition_and_references(client: LanguageClient, shop: Path):
    text = open_doc(client, shop)
    orders = shop.parent / "services" / "orders" / "runway.yaml"
    orders_text = open_doc(client, orders)
    found = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri(orders)),
            position=position(orders_text, "sessions", 3),
        )
    )
    assert isinstance(found, types.Location)
    assert found.uri == uri(shop)
    assert found.range.start == position(text, "  sessions:", 2)
    refs = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=uri(shop)),
            position=position(text, "  main-db:", 4),
            context=types.ReferenceContext(include_declaration=False),
        )
    )
    where = sorted((r.uri, r.range.start.line) for r in refs)
    reporting = shop.parent / "tools" / "reporting" / "runway.yaml"
    assert where == sorted(
        [(uri(shop), position(text, "uses: [main-db]").line), (uri(reporting), 5)]
    )


async def test_the_mode_form_of_uses_completes_modes_and_names_its_resource(client: LanguageClient, shop: Path):
    text = shop.read_text().replace("    uses: [main-db]\n", "    uses: [{ main-db: read }]\n")
    open_doc(client, shop, text)
    assert await settled(client, shop) == []
    modes = await completion(client, shop, position(text, "{ main-db: read", 11))
    assert set(modes) == {"read", "write"}, modes
    found = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri(shop)),
            position=position(text, "{ main-db: read", 3),
        )
    )
    assert isinstance(found, types.Location)
    assert found.range.start == position(text, "  main-db:", 2)


async def test_code_actions_fix_names_and_add_a_reason(client: LanguageClient, shop: Path):
    text = open_doc(client, shop)
    edited = text.replace("uses: [main-db]", "uses: [main-bd]")
    change_doc(client, shop, edited)
    await settled(client, shop)
    start = position(edited, "main-bd]")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri(shop)),
            range=types.Range(start=start, end=start),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert [a.title for a in actions] == ["Replace `main-bd` with `main-db`"]
    [edit] = actions[0].edit.changes[uri(shop)]
    assert edit.new_text == "main-db"
    assert edit.range == types.Range(start=start, end=position(edited, "main-bd]", 7))
    # Applied, the runway is the example again: no diagnostic left.
    assert apply(edited, edit) == text
    change_doc(client, shop, apply(edited, edit), 3)
    assert await settled(client, shop) == []
    # No reason: a skeleton to fill in.
    reason = "    reason:\n      ground: no-managed-fit\n      detail: Renders invoices with a pinned headless browser; no managed service renders our templates.\n"
    assert reason in text
    edited = text.replace(reason, "")
    change_doc(client, shop, edited, 4)
    diags = await settled(client, shop)
    missing = next(d for d in diags if d.code == "missing-reason")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri(shop)),
            range=missing.range,
            context=types.CodeActionContext(diagnostics=[missing]),
        )
    )
    assert [a.title for a in actions] == ["Add a `reason` to `pdf-render`"]
    [edit] = actions[0].edit.changes[uri(shop)]
    assert "ground: no-managed-fit" in edit.new_text
    # Applied, the workload has a reason: the diagnostic is gone and nothing else appears.
    fixed = apply(edited, edit)
    change_doc(client, shop, fixed, 5)
    assert codes(await settled(client, shop)) == [], fixed


BAD_INPUTS = [
    "",
    "\t\t:\n- [\n",
    "[" * 100_000,
    "a: &a [x,x,x,x,x,x,x,x,x,x]\n" + "".join(f"b{i}: &b{i} [*{'a' if i == 0 else f'b{i-1}'}]\n" for i in range(50)),
    "runway: 3\nproduct: x\nenvironments: 7\nresources: [1, 2]\nworkloads: { w: [] }\n",
    "runway: 3\nproduct: 𝄞𝄞\nenvironments:\n  dev: { region: ü }\nresources:\n  r: { kind: kafka }\n",
    "\x00\x01 binary \ufffd\n",
    # An unpaired surrogate: JSON carries it as the escape `\ud800`, which is no Unicode scalar.
    "runway: 3\nproduct: \ud800\n",
]


async def test_bad_input_never_crashes_it(client: LanguageClient, shop: Path):
    text = open_doc(client, shop)
    for version, bad in enumerate(BAD_INPUTS, start=2):
        change_doc(client, shop, bad, version)
        # Every bad text is an invalid runway: it gets diagnostics, as `check` gives them.
        diags = await settled(client, shop)
        assert any(d.severity == types.DiagnosticSeverity.Error for d in diags), (bad[:40], diags)
        for pos in (types.Position(line=0, character=0), types.Position(line=3, character=999), types.Position(line=99, character=5)):
            await hover(client, shop, pos)
            await completion(client, shop, pos)
            await client.text_document_definition_async(
                types.DefinitionParams(text_document=types.TextDocumentIdentifier(uri=uri(shop)), position=pos)
            )
    # Still serving: the example again, and its hover.
    change_doc(client, shop, text, 99)
    assert await settled(client, shop) == []
    assert "**jobs**" in (await hover(client, shop, position(text, "  jobs:", 3)) or "")


async def test_paths_outside_the_workspace_are_never_read(client: LanguageClient, shop: Path):
    outside = shop.parent.parent / "outside"
    (outside / "member").mkdir(parents=True)
    (outside / "prices.yaml").write_text(f"regions: {{}}\n# {CANARY}\n")
    (outside / "member" / "runway.yaml").write_text(f"runway: 3\nmember: {CANARY}\n")
    (shop.parent / "etc-link").symlink_to(outside)
    text = open_doc(client, shop)

    def published() -> str:
        return repr(dict(client.diagnostics))

    attacks = [
        ("product: acme-shop\n", "product: acme-shop\ncatalogue: /proc/self/environ\n"),
        ("product: acme-shop\n", "product: acme-shop\ncatalogue: ../../../../etc/passwd\n"),
        ("product: acme-shop\n", "product: acme-shop\ncatalogue: etc-link/prices.yaml\n"),
        ('members: ["services/*", "tools/*"]', 'members: ["services/*", "../outside/*"]'),
    ]
    for version, (old, new) in enumerate(attacks, start=2):
        edited = text.replace(old, new, 1)
        change_doc(client, shop, edited, version)
        diags = await settled(client, shop)
        assert "outside-root" in codes(diags), (new, codes(diags))
        assert CANARY not in published() and "root:x:0:0" not in published()
    # A member folder linked outside: refused at the glob, its runway never read.
    (shop.parent / "services" / "evil").symlink_to(outside / "member")
    change_doc(client, shop, text, len(attacks) + 2)
    diags = await settled(client, shop)
    assert "outside-root" in codes(diags), codes(diags)
    assert CANARY not in published()

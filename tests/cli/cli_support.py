"""Shared helpers for the CLI suite: a ``CliRunner`` wrapper with the one error-shape assertion.

The runner clears ``REVERIE_DB`` / ``REVERIE_SCOPE`` / ``REVERIE_EMBEDDER`` so a developer's own
environment can never leak into a test (tests that are *about* those variables set them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from reverie import Limits, Memory
from reverie.cli import cli
from reverie.cli.state import State

CLEAN_ENV: dict[str, str | None] = {"REVERIE_DB": None, "REVERIE_SCOPE": None, "REVERIE_EMBEDDER": None}
SCOPE = "user:alice"


class Cli:
    """Runs ``reverie --db <tmp file or postgresql:// URL> --embedder hash --scope user:alice <args>`` in-process."""

    def __init__(self, db: Path | str, limits: Limits | None = None) -> None:
        self.db = db
        self.limits = limits
        self.runner = CliRunner()

    def raw(self, *args: str, env: dict[str, str | None] | None = None, input: str | None = None) -> Result:
        """No global options added: for tests about the options themselves. ``limits`` (if set) reach
        the ``Memory`` the way a program embedding the CLI gives them: ``obj=State(limits=...)``."""
        obj = State(limits=self.limits) if self.limits is not None else None
        return self.runner.invoke(cli, list(args), env={**CLEAN_ENV, **(env or {})}, input=input, obj=obj)

    def __call__(self, *args: str, scope: str | None = SCOPE, input: str | None = None) -> Result:
        head = ["--db", str(self.db), "--embedder", "hash"] + (["--scope", scope] if scope else [])
        return self.raw(*head, *args, input=input)

    def ok(self, *args: str, scope: str | None = SCOPE, input: str | None = None) -> Result:
        result = self(*args, scope=scope, input=input)
        assert result.exit_code == 0, (result.exit_code, result.stdout, result.stderr, result.exception)
        assert "Traceback" not in result.output
        return result

    def json(self, *args: str, scope: str | None = SCOPE, input: str | None = None) -> Any:
        return json.loads(self.ok("--json", *args, scope=scope, input=input).stdout)

    def remember(self, text: str, *options: str, scope: str = SCOPE) -> str:
        return str(self.json("remember", text, *options, scope=scope)["item"]["id"])

    def fails(self, exit_code: int, code: str, *args: str, scope: str | None = SCOPE) -> Result:
        """Assert the one error shape: exit code, ``error[code]`` on stderr, no traceback."""
        result = self(*args, scope=scope)
        assert result.exit_code == exit_code, (result.exit_code, result.stdout, result.stderr, result.exception)
        assert f"error[{code}]: " in result.stderr, result.stderr
        assert "Traceback" not in result.output
        return result


def build_rich_scope(run: Cli) -> None:
    """Every kind of event the replay handles: corroboration, revision, uses, closing, tombstones, scores, edges."""
    allergy = run.remember(
        "Alice is allergic to peanuts",
        "--kind=assertion",
        "--source=user_stated",
        "--key=alice.allergy",
        "--value=peanuts",
        "--author=alice",
        "--importance=0.9",
        "--confidence=0.8",
        "--durability=0.9",
        "--tag=health",
        '--meta={"turn": 3, "nested": {"a": [1, 2]}}',
        "--valid-from=2024-01-01T00:00:00Z",
    )
    run.remember("alice is allergic to peanuts", "--source=observed")  # corroborates
    satay = run.remember("Alice avoids satay", "--kind=derivation", "--source=inferred", f"--parent={allergy}")
    tea = run.remember("Alice likes green tea", "--kind=episodic", "--tag=food")
    cat = run.remember("Alice owns a cat")
    dog = run.remember("Alice owns a dog", "--key=alice.pet", "--value=dog")
    run.ok("revise", allergy, "Alice is allergic to tree nuts", "--value=tree nuts", "--reason=doctor")
    for _ in range(3):
        run.ok("recall", "green tea")  # uses: value grows, episodic graduates to semantic
    run.ok("link", satay, tea, "about", "--authority=0.7", '--meta={"why": "test"}')
    run.ok("forget", cat, "--reason=moved out")
    run.ok("dismiss", dog)
    run.ok("undismiss", "--key=alice.pet", "--value=dog")  # lifts the key/value tombstone only
    hamster = run.remember("Alice owns a hamster")
    run.ok("dismiss", hamster)
    run.ok("undismiss", "Alice owns a hamster")  # lifts the text tombstone
    run.remember("Alice owns a hamster")
    office9 = run.remember("The office opens at 9", "--source=user_stated")
    office10 = run.remember("The office opens at 10")
    with Memory(run.db, embedder="hash") as mem:
        mem.set_scores(satay, scope=SCOPE, importance=0.2, reason="less relevant")
        mem.set_tier(tea, "durable", scope=SCOPE)
        mem.set_tiers({satay: "subconscious", office10: "durable"}, scope=SCOPE, reasons={satay: "bulk, own reason"})
        mem.flag(satay, scope=SCOPE, add=["reviewed"])
        mem.promote(office9, scope=SCOPE)
        mem.remember_system("Alice's profile was reviewed", scope=SCOPE, importance=0.4)
        if hasattr(Memory, "resolve"):
            edge = mem.link(office9, office10, "contradicts", scope=SCOPE)
            mem.resolve(edge.id, keep=office9, scope=SCOPE)
    run.ok("pause")
    run.ok("resume")


_COMPARED = ("text", "kind", "source", "status", "tier", "key", "value", "author", "tags", "meta", "flags")
_MORE = ("scores", "evidence_count", "use_count", "valid_from", "valid_to", "last_used_query")


def beliefs(run: Cli, scope: str, *, trust: bool = True) -> tuple[list[str], list[str]]:
    """Items and edges of a scope with ids replaced by texts, so two scopes can be compared.

    ``trust=False`` leaves out what an import deliberately does not carry over: the source (a copy
    says ``imported``) and authority (capped for claims read from a file).
    """
    items = run.json("list", "--include-closed", "--limit=1000", scope=scope)["items"]
    text = {i["id"]: i["text"] for i in items}
    rows = []
    for i in items:
        row = {k: i[k] for k in (*_COMPARED, *_MORE)}
        row["parents"] = sorted(text[p] for p in i["parents"])
        row["provenance"] = {k: i["provenance"][k] for k in ("origin", "ref", "locator")}
        if i["status"] == "forgotten":
            del row["valid_to"]  # forget closes validity "now": at import time in the copy (no API to back-date)
        if not trust:
            del row["source"]
            row["scores"] = {k: v for k, v in row["scores"].items() if k != "authority"}
        rows.append(json.dumps(row, sort_keys=True))
    edges = []
    for i in items:
        for e in run.json("show", i["id"], scope=scope)["edges"]:
            state = "open" if e["closed_at"] is None else "closed"
            authority = [e["authority"]] if trust else []
            edges.append(json.dumps([text[e["src"]], e["type"], text[e["dst"]], *authority, e["meta"], state]))
    return sorted(rows), sorted(set(edges))

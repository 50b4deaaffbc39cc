"""The reading commands: recall, context, show, list, summary, scopes, contradictions, resolve."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from cli_support import Cli

from reverie import Memory

Seed = Callable[[], dict[str, str]]


def test_recall_human_table_ranks_the_best_match_first(run: Cli, seeded: Seed) -> None:
    ids = seeded()
    lines = run.ok("recall", "allergic peanuts", "--k=2").stdout.splitlines()
    assert lines[0].split() == ["#", "SCORE", "ID", "KIND", "SOURCE", "TEXT"]
    assert lines[1].split()[:3] == ["1", lines[1].split()[1], ids["allergy"]]
    assert len(lines) == 3


def test_recall_json_and_why(run: Cli, seeded: Seed) -> None:
    ids = seeded()
    hits = run.json("recall", "allergic peanuts", "--mode=lexical")["hits"]
    assert hits[0]["item"]["id"] == ids["allergy"]
    assert hits[0]["why"]["lexical_rank"] == 1
    assert hits[0]["asserted"] is True
    out = run.ok("recall", "allergic peanuts", "--why").stdout
    assert "\nwhy\n" in out and "lexical_rank: 1" in out


def test_recall_as_of_sees_what_was_believed_then(run: Cli) -> None:
    old = run.json("remember", "Alice is allergic to peanuts")["item"]
    run.ok("revise", old["id"], "Alice is allergic to cashews")
    now = [h["item"]["text"] for h in run.json("recall", "allergic")["hits"]]
    then = [h["item"]["text"] for h in run.json("recall", "allergic", "--as-of", old["recorded_at"])["hits"]]
    both = [h["item"]["text"] for h in run.json("recall", "allergic", "--include-history")["hits"]]
    assert now == ["Alice is allergic to cashews"]
    assert then == ["Alice is allergic to peanuts"]
    assert sorted(both) == ["Alice is allergic to cashews", "Alice is allergic to peanuts"]


def test_recall_with_nothing_stored_says_so(run: Cli) -> None:
    run.remember("Alice likes tea", scope="user:other")
    assert run.ok("recall", "tea").stdout.strip() == "no memories match"


def test_context_packs_a_marked_block(run: Cli, seeded: Seed) -> None:
    seeded()
    out = run.ok("context", "what is Alice allergic to", "--budget=200").stdout
    assert "stored data, not instructions" in out
    assert "Alice is allergic to peanuts" in out
    doc = run.json("context", "allergic", "--budget=50")
    assert doc["budget_tokens"] == 50 and "peanuts" in doc["context"]
    run.fails(2, "invalid_input", "context", "allergic", "--budget=0")


def test_show_human_lists_fields_history_tree_and_edges(run: Cli, seeded: Seed) -> None:
    ids = seeded()
    out = run.ok("show", ids["allergy"]).stdout
    for expected in ("Alice is allergic to peanuts", "alice.allergy = peanuts", '{"lang": "en", "turn": 3}'):
        assert expected in out
    assert "history (1 version)" in out
    derived = out.split("derived into\n")[1].split("\n\n")[0]
    assert ids["satay"] in derived and "Alice avoids satay" in derived
    edges = out.split("\nedges\n")[1]
    assert "about" in edges and "Alice likes green tea" in edges  # the other end's text


def test_show_json_has_versions_events_provenance_and_edges(run: Cli, seeded: Seed) -> None:
    ids = seeded()
    new = run.json("revise", ids["allergy"], "Alice is allergic to tree nuts")["item"]["id"]
    grandchild = run.remember("Alice skips the peanut sauce", f"--parent={ids['satay']}")
    doc = run.json("show", ids["allergy"])
    assert [v["id"] for v in doc["history"]["versions"]] == [ids["allergy"], new]
    assert [e["type"] for e in doc["history"]["events"]][:1] == ["memory.remembered"]
    assert doc["derived"][0]["id"] == ids["satay"]
    assert doc["derived"][0]["children"][0]["id"] == grandchild
    assert {e["type"] for e in doc["edges"]} == {"about", "supersedes"}
    up = run.json("show", grandchild)["parents"]
    assert up[0]["id"] == ids["satay"] and up[0]["children"][0]["id"] == ids["allergy"]
    assert run.json("show", grandchild, "--depth=1")["parents"][0]["children"] == []


def test_show_follows_derived_from_edges_as_provenance(run: Cli) -> None:
    source = run.remember("The menu lists satay")
    gist = run.remember("Satay is on offer")
    run.ok("link", gist, source, "derived_from")
    assert [n["id"] for n in run.json("show", gist)["parents"]] == [source]
    assert [n["id"] for n in run.json("show", source)["derived"]] == [gist]


def test_show_as_of_gives_the_item_as_it_stood(run: Cli) -> None:
    item = run.json("remember", "Alice likes tea")["item"]
    run.ok("forget", item["id"])
    assert run.json("show", item["id"])["item"]["status"] == "forgotten"
    assert run.json("show", item["id"], "--as-of", item["recorded_at"])["item"]["status"] == "live"


def test_list_human_and_json_filters(run: Cli, seeded: Seed) -> None:
    ids = seeded()
    out = run.ok("list", "--kind=assertion").stdout.splitlines()
    assert out[0].split()[:4] == ["ID", "KIND", "SOURCE", "TIER"]
    assert [line.split()[0] for line in out[1:]] == [ids["allergy"]]

    def listed(*options: str) -> list[str]:
        return [i["id"] for i in run.json("list", *options)["items"]]

    assert listed("--tag=health") == [ids["allergy"]]
    assert listed("--kind=assertion", "--kind=derivation") == [ids["allergy"], ids["satay"]]
    assert listed("--meta=turn=3") == [ids["allergy"]]
    assert listed('--meta=turn="3"') == []  # a JSON string never equals the number 3
    assert listed("--meta=lang=en") == [ids["allergy"]]
    assert listed("--meta-has=lang") == [ids["allergy"]]
    assert listed("--min-importance=0.5", "--sort=-importance") == [ids["allergy"], ids["satay"]]
    assert listed("--max-importance=0.3") == [ids["tea"]]
    assert listed("--source=inferred", f"--parent={ids['allergy']}") == [ids["satay"]]
    assert listed("--key=alice.allergy") == [ids["allergy"]]
    assert listed("--since=2000-01-01", "--until=2000-01-02") == []


def test_list_pages_with_a_cursor(run: Cli, seeded: Seed) -> None:
    seeded()
    first = run.json("list", "--limit=2")
    assert len(first["items"]) == 2 and first["next_cursor"]
    assert "more: --cursor" in run.ok("list", "--limit=2").stdout
    second = run.json("list", "--limit=2", "--cursor", first["next_cursor"])
    assert len(second["items"]) == 1 and second["next_cursor"] is None


def test_list_hides_closed_items_unless_asked(run: Cli, seeded: Seed) -> None:
    ids = seeded()
    run.ok("forget", ids["tea"])
    assert ids["tea"] not in [i["id"] for i in run.json("list")["items"]]
    assert ids["tea"] in [i["id"] for i in run.json("list", "--include-closed")["items"]]
    assert [i["id"] for i in run.json("list", "--status=forgotten")["items"]] == [ids["tea"]]
    assert "STATUS" in run.ok("list", "--include-closed").stdout


def test_list_of_an_empty_scope(run: Cli) -> None:
    run.remember("Alice likes tea")
    assert run.ok("list", scope="user:nobody").stdout.strip() == "no items"


def test_summary_and_scopes(run: Cli, seeded: Seed) -> None:
    seeded()
    run.remember("Bob likes coffee", scope="team:acme/x")
    doc = run.json("summary")
    assert doc["current"] == 3 and doc["by_kind"] == {"assertion": 1, "derivation": 1, "observation": 1}
    out = run.ok("summary").stdout
    assert "by_kind" in out and "assertion 1" in out
    assert run.json("scopes", scope=None) == {"scopes": ["team:acme/x", "user:alice"]}
    assert run.ok("scopes", scope=None).stdout.splitlines() == ["team:acme/x", "user:alice"]


@pytest.mark.skipif(not hasattr(Memory, "contradictions"), reason="this build has no Memory.contradictions")
def test_contradictions_lists_open_conflicts_and_resolve_settles_one(run: Cli) -> None:
    a = run.remember("The office opens at 9", "--source=user_stated")
    b = run.remember("The office opens at 10", "--source=inferred")
    alerts = run.json("contradictions")["contradictions"]
    if not alerts:  # conflict detection may be off in this build: link the conflict by hand
        run.ok("link", a, b, "contradicts")
        alerts = run.json("contradictions")["contradictions"]
    assert len(alerts) == 1 and {alerts[0]["a"]["id"], alerts[0]["b"]["id"]} == {a, b}
    edge = alerts[0]["edge_id"]
    out = run.ok("contradictions").stdout
    assert edge in out and "The office opens at 9" in out and "The office opens at 10" in out
    assert run.ok("resolve", edge, f"--keep={a}").stdout.strip() == f"resolved {edge}: kept {a}"
    assert run.json("show", b)["item"]["status"] == "superseded"
    assert run.json("contradictions")["contradictions"] == []
    assert run.ok("contradictions").stdout.strip() == "no open conflicts"


def test_list_cursor_survives_forgets_between_pages(run: Cli) -> None:
    """Probe 5 #4: forgetting each handled item used to hide one unseen item per forget (offset cursor)."""
    ids = {run.remember(f"todo number {n}") for n in range(7)}
    seen: list[str] = []
    page = run.json("list", "--limit=2", "--sort=-recorded_at")
    while True:
        for item in page["items"]:
            seen.append(item["id"])
            run.ok("forget", item["id"])
        if page["next_cursor"] is None:
            break
        page = run.json("list", "--limit=2", "--sort=-recorded_at", "--cursor", page["next_cursor"])
    assert sorted(seen) == sorted(ids)


def test_list_refuses_a_cursor_from_another_listing(run: Cli, seeded: Seed) -> None:
    seeded()
    cursor = run.json("list", "--limit=1")["next_cursor"]
    r = run.fails(2, "invalid_input", "list", "--limit=1", "--sort=-importance", "--cursor", cursor)
    assert "another listing" in r.stderr

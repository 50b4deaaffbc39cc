"""Issue #16.3 ("conflicts where they are born") and #14.14's origin, for Python, MCP and HTTP.

Regressions: ``remember`` / ``revise`` returned only the item, so an agent learned that its
claim contradicted another only by polling ``contradictions``; a claim written through MCP
recorded ``provenance.origin`` ``api``, as if from Python; and nothing served a store read-only.
The CLI side is in ``test_faces_cli.py``.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))

from http_sec_helpers import assert_error, open_client

from reverie import Contradiction, ManualClock, Memory, WriteResult
from reverie.mcp.serialize import DATA_NOTE
from reverie.mcp.server import call_tool

SCOPE = "user:alice"
V1 = f"/v1/scopes/{SCOPE}"


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with Memory(tmp_path / "w.db", embedder="hash", clock=ManualClock(), seed=3) as m:
        yield m


def tool(mem: Memory, name: str, **arguments: Any) -> dict[str, Any]:
    result = call_tool(mem, name, arguments)
    payload: dict[str, Any] = json.loads(result.content[0].text)
    assert payload == result.structured_content
    if result.is_error:
        return {"is_error": True, **payload}
    return payload


# -- Python ---------------------------------------------------------------------------------


def test_remember_checked_names_the_contradiction_the_write_created(mem: Memory) -> None:
    paris = mem.remember("Alice lives in Paris", scope=SCOPE, key="alice.city", value="Paris")
    result = mem.remember_checked("Alice lives in Lyon", scope=SCOPE, key="alice.city", value="Lyon")
    assert isinstance(result, WriteResult) and result.checked
    [conflict] = result.conflicts
    [alert] = mem.contradictions(scope=SCOPE)
    assert conflict == Contradiction(alert.edge_id, paris.id, alert.axis, alert.reason, conflict.confidence)
    assert result.item == mem.get(result.item.id, scope=SCOPE)  # the stored row, nothing added to it


def test_remember_many_checked_names_each_writes_contradictions(mem: Memory) -> None:
    """Regression: ``remember_many`` returned items only, so a batch never learnt what it contradicted."""
    paris = mem.remember("Alice lives in Paris", scope=SCOPE, key="alice.city", value="Paris")
    tea, lyon, again = mem.remember_many_checked(
        [
            {"text": "Bob drinks green tea"},
            {"text": "Alice lives in Lyon", "key": "alice.city", "value": "Lyon"},
            {"text": "Bob drinks green tea"},
        ],
        scope=SCOPE,
    )
    assert (tea.conflicts, tea.checked) == ((), True)
    assert [c.other_id for c in lyon.conflicts] == [paris.id] and lyon.item.text == "Alice lives in Lyon"
    assert again.item.id == tea.item.id and again.item.evidence_count == 2 and again.conflicts == ()
    [carol] = mem.remember_many([{"text": "Carol plays go"}], scope=SCOPE)  # still items, as callers know it
    assert carol == mem.get(carol.id, scope=SCOPE)


def test_remember_keeps_returning_the_item(mem: Memory) -> None:
    mem.remember("Alice lives in Paris", scope=SCOPE, key="alice.city", value="Paris")
    item = mem.remember("Alice lives in Lyon", scope=SCOPE, key="alice.city", value="Lyon")
    assert item == mem.get(item.id, scope=SCOPE) and not hasattr(item, "conflicts")


def test_a_corroboration_creates_no_contradiction(mem: Memory) -> None:
    mem.remember("Alice lives in Paris", scope=SCOPE, key="alice.city", value="Paris")
    mem.remember("Alice lives in Lyon", scope=SCOPE, key="alice.city", value="Lyon")
    again = mem.remember_checked("Alice lives in Lyon", scope=SCOPE, key="alice.city", value="Lyon")
    assert again.item.evidence_count == 2 and again.conflicts == () and again.checked


def test_revise_checked_names_what_the_new_version_contradicts(mem: Memory) -> None:
    paris = mem.remember("Alice lives in Paris", scope=SCOPE, key="alice.city", value="Paris")
    other = mem.remember("Bob plays chess", scope=SCOPE)
    result = mem.revise_checked(other.id, "Alice lives in Lyon", scope=SCOPE, key="alice.city", value="Lyon")
    assert [c.other_id for c in result.conflicts] == [paris.id]
    assert result.item.id != other.id and result.item.text == "Alice lives in Lyon"


def test_without_write_time_detection_the_result_says_unchecked(tmp_path: Path) -> None:
    with Memory(tmp_path / "off.db", embedder="hash", detect_conflicts=False) as m:
        m.remember("Alice lives in Paris", scope=SCOPE, key="alice.city", value="Paris")
        result = m.remember_checked("Alice lives in Lyon", scope=SCOPE, key="alice.city", value="Lyon")
    assert (result.conflicts, result.checked) == ((), False)
    assert result.to_dict()["conflicts_checked"] is False


def test_concurrent_writers_each_get_their_own_conflicts(mem: Memory) -> None:
    """A result returned by the call (no shared ``last_conflicts``) cannot be read by another thread."""
    paris = mem.remember("Alice lives in Paris", scope=SCOPE, key="alice.city", value="Paris")
    results: dict[str, WriteResult] = {}

    def write(name: str, text: str, **kw: Any) -> None:
        for i in range(5):
            results[f"{name}{i}"] = mem.remember_checked(f"{text} {i}", scope=SCOPE, **kw)

    threads = [
        threading.Thread(target=write, args=("lyon", "Alice lives in Lyon"), kwargs={"key": "alice.city"}),
        threading.Thread(target=write, args=("tea", "Bob drinks green tea number")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(paris.id in {c.other_id for c in r.conflicts} for k, r in results.items() if k.startswith("lyon"))
    assert all(r.conflicts == () for k, r in results.items() if k.startswith("tea"))


# -- MCP ------------------------------------------------------------------------------------


def test_mcp_remember_records_origin_mcp_unless_the_caller_names_one(mem: Memory) -> None:
    plain = tool(mem, "remember", text="Alice likes tea", scope=SCOPE)
    assert plain["item"]["provenance"]["origin"] == "mcp"
    assert mem.get(plain["item"]["id"], scope=SCOPE).provenance.origin == "mcp"
    given = tool(mem, "remember", text="Alice likes jazz", scope=SCOPE, provenance={"origin": "document", "ref": "x"})
    assert given["item"]["provenance"]["origin"] == "document" and given["item"]["provenance"]["ref"] == "x"
    ref_only = tool(mem, "remember", text="Alice likes chess", scope=SCOPE, provenance={"ref": "turn 4"})
    assert ref_only["item"]["provenance"] == {**ref_only["item"]["provenance"], "origin": "mcp", "ref": "turn 4"}


def test_mcp_remember_and_revise_carry_the_conflicts_they_created(mem: Memory) -> None:
    paris = tool(mem, "remember", text="Alice lives in Paris", scope=SCOPE, key="alice.city", value="Paris")
    assert (paris["conflicts"], paris["conflicts_checked"]) == ([], True)
    lyon = tool(mem, "remember", text="Alice lives in Lyon", scope=SCOPE, key="alice.city", value="Lyon")
    [conflict] = lyon["conflicts"]
    assert conflict["note"] == DATA_NOTE  # the reason may quote stored text: marked as data
    assert conflict["other_id"] == paris["item"]["id"] and conflict["axis"] and conflict["reason"]
    chess = tool(mem, "remember", text="Bob plays chess", scope=SCOPE)
    revised = tool(mem, "revise", id=chess["item"]["id"], new_text="Alice lives in Rome", scope=SCOPE, key="alice.city")
    assert {c["other_id"] for c in revised["conflicts"]} >= {paris["item"]["id"]}


def test_mcp_on_a_read_only_store_refuses_writes_and_serves_reads(tmp_path: Path) -> None:
    db = tmp_path / "ro.db"
    with Memory(db, embedder="hash") as m:
        tea = m.remember("Alice likes green tea", scope=SCOPE)
    with Memory(db, embedder="hash", read_only=True) as ro:
        refused = tool(ro, "remember", text="x", scope=SCOPE)
        assert refused["is_error"] and refused["code"] == "read_only"
        assert tool(ro, "forget", id=tea.id, scope=SCOPE)["code"] == "read_only"
        assert tool(ro, "recall", query="green tea", scope=SCOPE)["hits"][0]["id"] == tea.id
    with Memory(db, embedder="hash") as m:
        assert m.get(tea.id, scope=SCOPE).use_count == 0


# -- HTTP -----------------------------------------------------------------------------------


@pytest.fixture
def client(mem: Memory) -> Iterator[TestClient]:
    with open_client(mem) as c:
        yield c


def test_http_remember_and_revise_answer_with_the_conflicts_they_created(client: TestClient) -> None:
    paris = client.post(f"{V1}/items", json={"text": "Alice lives in Paris", "key": "alice.city", "value": "Paris"})
    assert paris.status_code == 201 and paris.json()["conflicts"] == []
    lyon = client.post(f"{V1}/items", json={"text": "Alice lives in Lyon", "key": "alice.city", "value": "Lyon"})
    body = lyon.json()
    assert body["text"] == "Alice lives in Lyon" and body["provenance"]["origin"] == "http"  # the item, as before
    [conflict] = body["conflicts"]
    assert conflict["other_id"] == paris.json()["id"] and conflict["axis"] and conflict["reason"]
    alerts = client.get(f"{V1}/contradictions").json()["contradictions"]
    assert [a["edge_id"] for a in alerts] == [conflict["edge_id"]]
    chess = client.post(f"{V1}/items", json={"text": "Bob plays chess"}).json()
    revised = client.post(f"{V1}/items/{chess['id']}/revise", json={"text": "Alice lives in Rome", "key": "alice.city"})
    assert revised.status_code == 200
    assert paris.json()["id"] in {c["other_id"] for c in revised.json()["conflicts"]}


def test_the_openapi_document_describes_the_conflicts_field(client: TestClient) -> None:
    doc = client.get("/openapi.json").json()
    written = doc["components"]["schemas"]["WrittenOut"]["properties"]
    assert {"conflicts", "conflicts_checked", "id", "text"} <= set(written)


def test_http_on_a_read_only_store_answers_403_read_only_and_changes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "ro.db"
    with Memory(db, embedder="hash") as m:
        tea = m.remember("Alice likes green tea", scope=SCOPE)
    with Memory(db, embedder="hash", read_only=True) as ro, open_client(ro) as c:
        assert_error(c.post(f"{V1}/items", json={"text": "x"}), 403, "read_only")
        assert_error(c.post(f"{V1}/items/{tea.id}/forget", json={}), 403, "read_only")
        assert_error(c.post(f"{V1}/learning/pause", json={}), 403, "read_only")
        assert c.post(f"{V1}/recall", json={"query": "green tea"}).json()["hits"][0]["item"]["id"] == tea.id
        assert c.get(f"{V1}/summary").json()["current"] == 1
    with Memory(db, embedder="hash") as m:
        assert m.get(tea.id, scope=SCOPE).use_count == 0 and m.summary(scope=SCOPE)["current"] == 1


# -- property ---------------------------------------------------------------------------------

CITIES = ("Paris", "Lyon", "Rome", "Oslo")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(("alice", "bob")), st.sampled_from(CITIES)), min_size=1, max_size=6))
def test_a_write_result_names_exactly_the_contradicts_edges_the_write_added(claims: list[tuple[str, str]]) -> None:
    """Invariant: ``conflicts`` == the ``contradicts`` edges on the new item that did not exist before."""
    with Memory(":memory:", embedder="hash", clock=ManualClock(), seed=5) as m:
        for who, city in claims:
            before = {e.id for e in m.edges(scope=SCOPE) if e.type == "contradicts"}
            result = m.remember_checked(f"{who.title()} lives in {city}", scope=SCOPE, key=f"{who}.city", value=city)
            after = [e for e in m.edges(scope=SCOPE) if e.type == "contradicts" and e.id not in before]
            assert {c.edge_id for c in result.conflicts} == {e.id for e in after}
            for c in result.conflicts:
                edge = next(e for e in after if e.id == c.edge_id)
                assert result.item.id in (edge.src, edge.dst) and c.other_id in (edge.src, edge.dst)
                assert c.other_id != result.item.id and c.axis == edge.meta["axis"]

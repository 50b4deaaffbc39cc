"""The sandbox pattern end to end (export → a sub-agent works in its own store file → export its
new claims → import back), and crews: who wrote what, queried by agent / session / crew, and
the review pattern (agent B links supports / contradicts to agent A's claims, A sees them)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from reverie import InvalidQueryError, Memory, Q
from reverie.model.query_json import parse_filter
from reverie.slice import ORIGIN_META

MAIN, TASK = "team:acme", "task:rate-limit"


def test_sandbox_a_sub_agent_works_on_its_own_store_and_its_results_come_back(
    open_mem: Callable[..., Memory], tmp_path: Path
) -> None:
    main = open_mem(tmp_path / "main.db")
    limit = main.remember_manual("The API rate limit is 100 requests per minute", scope=MAIN, key="api.rate_limit")
    retry = main.remember("Clients retry on HTTP 429", scope=MAIN, source="observed")
    unrelated = main.remember("The office closes at 6pm", scope=MAIN)
    before = {i.id: i.to_dict() for i in main.list(scope=MAIN).items}
    handed = main.export_slice(scope=MAIN, memory_ids=[limit.id, retry.id]).to_json()

    # The sub-agent: its own store file, its own scope, the slice as its starting knowledge.
    with Memory(tmp_path / "sandbox.db", embedder="hash", clock=main.clock, seed=7) as sandbox:
        got = sandbox.import_slice(handed, scope=TASK)
        crew = {"agent_id": "sub-1", "session_id": "s-42", "crew_id": "crew-7"}
        idea = sandbox.remember(
            "Raising the limit to 200 per minute would halve the retries",
            scope=TASK,
            kind="hypothesis",
            source="inferred",
            parents=[got.ids[limit.id], got.ids[retry.id]],
            meta=crew,
        )
        measured = sandbox.remember(
            "The API rate limit is 150 requests per minute", scope=TASK, key="api.rate_limit", meta=crew
        )
        sandbox.link(measured.id, got.ids[limit.id], "contradicts", scope=TASK, author="sub-1")
        mine = [i.id for i in sandbox.list(scope=TASK, where=Q.agent("sub-1")).items]
        assert sorted(mine) == sorted([idea.id, measured.id])
        results = sandbox.export_slice(scope=TASK, memory_ids=mine).to_json()

    back = main.import_slice(results, scope=MAIN)
    # The copies of main's own claims are recognised: skipped, not corroborated or duplicated.
    assert sorted(s["target"] for s in back.skipped) == sorted([limit.id, retry.id])
    assert len(back.created) == 2 and not back.corroborated and not back.conflicts
    new_idea = main.get(back.ids[idea.id], scope=MAIN)
    assert new_idea.parents == (limit.id, retry.id)
    assert new_idea.source == "imported" and new_idea.provenance.source == "inferred"
    assert new_idea.meta == {**crew, ORIGIN_META: idea.id}
    # What the sub-agent found against main's claim is an open contradiction here now.
    pairs = [{c.a.id, c.b.id} for c in main.contradictions(scope=MAIN)]
    assert {back.ids[measured.id], limit.id} in pairs
    # Append-only: every item main had is exactly as it was (no evidence added, nothing closed).
    after = {i.id: i.to_dict() for i in main.list(scope=MAIN, where=Q.ids(*before)).items}
    assert after == before and unrelated.id in after
    assert [i.id for i in main.list(scope=MAIN, where=Q.crew("crew-7")).items] == sorted(
        [back.ids[idea.id], back.ids[measured.id]]
    )


def test_review_pattern_agent_b_links_to_agent_a_claims_and_a_sees_them(mem: Memory) -> None:
    scope = "team:review"
    a1 = mem.remember("The cache hit rate is 92%", scope=scope, author="agent-a", meta={"agent_id": "agent-a"})
    a2 = mem.remember("Latency p99 is 40ms", scope=scope, author="agent-a", meta={"agent_id": "agent-a"})
    mem.remember("Unrelated note", scope=scope, author="agent-c", meta={"agent_id": "agent-c"})
    # B reviews exactly A's claims, found by the crew query.
    for_review = mem.list(scope=scope, where=Q.agent("agent-a")).items
    assert {i.id for i in for_review} == {a1.id, a2.id}
    b = {"agent_id": "agent-b", "session_id": "review-1", "crew_id": "crew-x"}
    check = mem.remember("Dashboards show a 91.8% hit rate", scope=scope, author="agent-b", meta=b)
    doubt = mem.remember("Latency p99 is 400ms under load", scope=scope, author="agent-b", meta=b)
    mem.link(check.id, a1.id, "supports", scope=scope, author="agent-b", meta=b)
    mem.link(doubt.id, a2.id, "contradicts", scope=scope, author="agent-b", meta=b)
    # A sees, on its own claims, who supports and who contradicts them.
    seen = {(e.type, e.author) for claim in (a1, a2) for e in mem.edges(claim.id, scope=scope)}
    assert {("supports", "agent-b"), ("contradicts", "agent-b")} <= seen
    assert all(e.meta == b for claim in (a1, a2) for e in mem.edges(claim.id, scope=scope) if e.author == "agent-b")
    assert {doubt.id, a2.id} in [{c.a.id, c.b.id} for c in mem.contradictions(scope=scope)]
    assert {i.id for i in mem.list(scope=scope, where=Q.session("review-1")).items} == {check.id, doubt.id}
    assert {i.id for i in mem.list(scope=scope, where=Q.crew("crew-x") & Q.agent("agent-b", "agent-a")).items} == {
        check.id,
        doubt.id,
    }


def test_crew_queries_in_json_match_the_python_builders(mem: Memory) -> None:
    scope = "team:json"
    x = mem.remember("x claim", scope=scope, meta={"agent_id": "a", "session_id": "s", "crew_id": "c"})
    y = mem.remember("y claim", scope=scope, meta={"agent_id": "b"})
    for doc, expected in (
        ({"agent": "a"}, {x.id}),
        ({"agent": ["a", "b"], "session": "s"}, {x.id}),
        ({"agent": ["a", "b"]}, {x.id, y.id}),
        ({"crew": "c"}, {x.id}),
        ({"not": {"agent": "a"}}, {y.id}),
    ):
        assert {i.id for i in mem.list(scope=scope, where=parse_filter(doc)).items} == expected, doc


@pytest.mark.parametrize("bad", [(), (3,), (None,)])
def test_crew_queries_refuse_no_ids_and_non_strings(bad: tuple[object, ...]) -> None:
    with pytest.raises(InvalidQueryError):
        Q.agent(*bad)  # type: ignore[arg-type]


def test_sandbox_the_conversation_it_carried_on_comes_home_appended(
    open_mem: Callable[..., Memory], tmp_path: Path
) -> None:
    """Issue #15: the sub-agent gets the conversation, not only its messages' memories, carries it
    on in its own store, and only what it added comes back — after main's entries, which stay as they were."""
    main = open_mem(tmp_path / "main.db")
    chat = main.conversation("support-42", scope=MAIN)
    chat.add("Our client gets HTTP 429 every morning.", speaker="Dana")
    chat.tool_call("logs", args={"since": "08:00"}, status="ok", detail="430 hits")
    before = [(e.id, e.text, e.meta) for e in chat.entries()]
    handed = main.export_slice(scope=MAIN, include_conversations=True).to_json()

    with Memory(tmp_path / "sandbox.db", embedder="hash", clock=main.clock, seed=7) as sandbox:
        sandbox.import_slice(handed, scope=TASK)
        work = sandbox.conversation("support-42", scope=TASK, create=False)
        assert [e.text for e in work.entries()] == [text for _, text, _ in before]
        work.tool_call("raise_limit", args={"to": 200}, status="ok")
        said = work.add("I raised the limit to 200 per minute for this client.", speaker="sub-1", role="assistant")
        results = sandbox.export_slice(scope=TASK, memory_ids=[said.item_id or ""], include_conversations=True)

    back = main.import_slice(results.to_json(), scope=MAIN)
    after = chat.entries()
    assert [(e.id, e.text, e.meta) for e in after[:2]] == before  # append-only
    assert [(e.kind, e.text) for e in after[2:]] == [
        ("tool_call", "raise_limit"),
        ("message", "I raised the limit to 200 per minute for this client."),
    ]
    memory = main.get(back.ids[said.item_id or ""], scope=MAIN)
    assert memory.meta["message"] == after[-1].id and memory.source == "imported"
    assert [h.message_id for h in main.archive_search("raised the limit", scope=MAIN)] == [after[-1].id]

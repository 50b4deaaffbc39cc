"""The MCP ``recall`` and ``context`` tools take every option ``Memory.recall`` / ``Memory.context`` take.

Regression (outside probe 5, finding 9): ``context``'s schema was only ``query``, ``budget_tokens`` and
``k`` ("unknown field(s)" for ``where`` or ``as_of``), and ``recall`` had no ``tiers``, ``diversity`` or
``weights``. Answers are compared to the Python call's; a bad value gets the Python API's message.
"""

from __future__ import annotations

import pytest
from mcp import Client
from mcp_support import SCOPE, call, fail

from recall_seed import seed_deploys
from reverie import Memory, Q, Weights
from reverie.mcp import build_server

pytestmark = pytest.mark.anyio


def _seed(mem: Memory) -> str:
    return seed_deploys(mem, SCOPE)


async def test_context_takes_where_as_of_and_tiers(mem: Memory) -> None:
    before = _seed(mem)
    python = mem.context("deploys Fridays", scope=SCOPE, where=Q.kind("policy"), record_use=False)
    async with Client(build_server(mem), mode="legacy", raise_exceptions=True) as client:
        where = await call(client, "context", query="deploys Fridays", scope=SCOPE, where={"kind": "policy"})
        then = await call(client, "context", query="deploys", scope=SCOPE, as_of=before, mode="lexical")
        tiers = await call(client, "context", query="deploys", scope=SCOPE, kinds=["observation"], tiers=["active"])
    assert where["context"] == python and "broke" not in python
    assert "Mondays" not in then["context"] and "Fridays" in then["context"]
    assert "broke" in tiers["context"] and "Mondays" not in tiers["context"]


async def test_recall_takes_tiers_diversity_weights_and_record_use(mem: Memory) -> None:
    _seed(mem)
    python = mem.recall(
        "deploys", scope=SCOPE, diversity={"author": 0.9}, weights=Weights(trust=0.0, sharpness=2), record_use=False
    )
    async with Client(build_server(mem), mode="legacy", raise_exceptions=True) as client:
        got = await call(
            client,
            "recall",
            query="deploys",
            scope=SCOPE,
            tiers=["active", "durable", "subconscious"],
            diversity={"author": 0.9},
            weights={"trust": 0.0, "sharpness": 2},
            record_use=False,
        )
    assert [h["id"] for h in got["hits"]] == [h.item.id for h in python]
    assert all(i.use_count == 0 for i in mem.list(scope=SCOPE).items)


async def test_bad_options_get_the_python_message(mem: Memory) -> None:
    _seed(mem)
    cases = [
        ({"weights": {"trust": 100}}, "weights.trust must be a number within ±64"),
        ({"weights": {"trst": 0.1}}, "weights takes trust, importance"),
        ({"diversity": {"topic": 0.5}}, "diversity takes 'author' and 'parent' penalties"),
        ({"diversity": {"author": 2}}, "diversity author"),
        ({"tiers": []}, "tiers must be a non-empty list"),
        ({"min_authority": 2}, "min_authority"),
    ]
    async with Client(build_server(mem), mode="legacy", raise_exceptions=True) as client:
        for verb in ("recall", "context"):
            for extra, words in cases:
                body = await fail(client, verb, query="deploys", scope=SCOPE, **extra)
                assert body["code"] == "invalid_input" and words in body["error"], (verb, extra, body)

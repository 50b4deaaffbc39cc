"""``POST …/recall`` and ``…/context`` take every option ``Memory.recall`` / ``Memory.context`` take.

Regression (outside probe 5, finding 9): ``context`` with ``where`` or ``as_of`` was refused (400 "Extra
inputs are not permitted"), and so was ``recall`` with ``diversity`` or ``weights``. Each answer is
compared to the Python call's; a bad value gets the Python API's message.
"""

from __future__ import annotations

from fastapi.testclient import TestClient
from http_helpers import SCOPE, assert_error

from recall_seed import seed_deploys
from reverie import Memory, Q, Weights

V1 = f"/v1/scopes/{SCOPE}"


def _seed(mem: Memory) -> str:
    return seed_deploys(mem, SCOPE)


def test_context_takes_where_and_as_of_as_python_does(mem: Memory, client: TestClient) -> None:
    before = _seed(mem)
    where = client.post(V1 + "/context", json={"query": "deploys Fridays", "where": {"kind": "policy"}})
    assert where.status_code == 200, where.text
    python = mem.context("deploys Fridays", scope=SCOPE, where=Q.kind("policy"), record_use=False)
    assert where.json()["context"] == python and "broke" not in python and "on Fridays" in python
    then = client.post(V1 + "/context", json={"query": "deploys", "as_of": before, "mode": "lexical"})
    assert then.status_code == 200, then.text
    assert "Mondays" not in then.json()["context"] and "Fridays" in then.json()["context"]
    only = client.post(V1 + "/context", json={"query": "deploys", "kind": ["observation"], "tiers": ["active"]})
    assert "broke" in only.json()["context"] and "Mondays" not in only.json()["context"]


def test_recall_takes_diversity_and_weights(mem: Memory, client: TestClient) -> None:
    _seed(mem)
    body = {"query": "deploys", "diversity": {"author": 0.9}, "weights": {"trust": 0.0, "sharpness": 2}}
    got = client.post(V1 + "/recall", json={**body, "record_use": False})
    assert got.status_code == 200, got.text
    python = mem.recall(
        "deploys", scope=SCOPE, diversity={"author": 0.9}, weights=Weights(trust=0.0, sharpness=2), record_use=False
    )
    assert [h["item"]["id"] for h in got.json()["hits"]] == [h.item.id for h in python]


def test_bad_options_get_the_python_message(mem: Memory, client: TestClient) -> None:
    _seed(mem)
    cases = [
        ({"weights": {"trust": 100}}, "weights.trust must be a number within ±64"),
        ({"weights": {"trst": 0.1}}, "weights takes trust, importance"),
        ({"diversity": {"topic": 0.5}}, "diversity takes 'author' and 'parent' penalties"),
        ({"diversity": {"author": 2}}, "diversity author"),
        ({"tiers": []}, "tiers must be a non-empty list"),
    ]
    for verb in ("recall", "context"):
        for extra, words in cases:
            body = assert_error(client.post(f"{V1}/{verb}", json={"query": "deploys", **extra}), 400, "invalid_input")
            assert words in body["error"], (verb, extra, body)

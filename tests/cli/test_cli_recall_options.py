"""``reverie recall`` and ``reverie context`` take every option ``Memory.recall`` / ``Memory.context`` take.

Regression (outside probe 5, finding 9, "check the CLI too"): ``context`` took only ``--budget`` and
``--k`` and ``recall`` had no ``--where``, ``--contradictions``, ``--min-authority``, ``--weights``,
``--diversity`` or ``--no-record-use``. Answers are compared to the Python call's; a bad value gets
the Python API's message.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import SCOPE, Cli

from recall_seed import seed_deploys
from reverie import Memory, Q, Weights


def _seed(mem: Memory) -> str:
    return seed_deploys(mem, SCOPE)


def test_context_takes_where_as_of_and_tiers(mem: Memory, db_path: Path) -> None:
    before = _seed(mem)
    run = Cli(db_path)
    python = mem.context("deploys Fridays", scope=SCOPE, where=Q.kind("policy"), record_use=False)
    where = run.json("context", "deploys Fridays", "--where", '{"kind": "policy"}', "--no-record-use")
    assert where["context"] == python and "broke" not in python
    then = run.json("context", "deploys", "--as-of", before, "--mode", "lexical")["context"]
    assert "Mondays" not in then and "Fridays" in then
    tiers = run.json("context", "deploys", "--where", '{"kind": "observation"}', "--tier", "active")["context"]
    assert "broke" in tiers and "Mondays" not in tiers


def test_recall_takes_diversity_weights_and_no_record_use(mem: Memory, db_path: Path) -> None:
    _seed(mem)
    python = mem.recall(
        "deploys", scope=SCOPE, diversity={"author": 0.9}, weights=Weights(trust=0.0, sharpness=2), record_use=False
    )
    got = Cli(db_path).json(
        "recall",
        "deploys",
        "--diversity",
        '{"author": 0.9}',
        "--weights",
        json.dumps({"trust": 0.0, "sharpness": 2}),
        "--contradictions",
        "filter",
        "--min-authority",
        "0",
        "--no-record-use",
    )
    assert [h["item"]["id"] for h in got["hits"]] == [h.item.id for h in python]
    assert all(i.use_count == 0 for i in mem.list(scope=SCOPE).items)


def test_bad_options_get_the_python_message(mem: Memory, db_path: Path) -> None:
    _seed(mem)
    run = Cli(db_path)
    cases = [
        (["--weights", '{"trust": 100}'], "weights.trust must be a number within ±64"),
        (["--weights", '{"trst": 0.1}'], "weights takes trust, importance"),
        (["--diversity", '{"topic": 0.5}'], "diversity takes 'author' and 'parent' penalties"),
        (["--diversity", "[1]"], "--diversity must be a JSON object"),
        (["--where", "{kind"], "--where is not valid JSON"),
    ]
    for verb in ("recall", "context"):
        for extra, words in cases:
            code = "invalid_query" if extra[0] == "--where" else "invalid_input"
            result = run.fails(2, code, verb, "deploys", *extra)
            assert words in result.stderr, (verb, extra, result.stderr)

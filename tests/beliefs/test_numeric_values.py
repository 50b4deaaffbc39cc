"""A structured ``value`` keeps the type given and is compared as the number it is (outside tester, finding 7).

Reproduced on main: ``remember(key="disk.quota", value=1024)`` came back as the string ``'1024'``;
``value=1024.0`` for the same slot was a *contradiction* at 0.95 ("different amounts: '1024.0' vs
'1024'"), and so were ``"10"`` / ``"10.00"`` — though JSON clients (HTTP, MCP) often send
``1024.0`` for 1024. Now a number is returned as the ``int`` or ``float`` given (the event log
carries it, a rebuild and a reopen keep it), and two values that are the same number — ``1024``,
``1024.0``, ``"1024"``, ``"1024.00"`` — corroborate, never contradict, on every face: the CLI
and any text channel can only send the digits, so a numeral string is the number it spells.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from reverie import DismissedValueError, ManualClock, Memory
from reverie.cli import cli
from reverie.conflict import Claim, detect
from reverie.http import create_app
from reverie.model.values import amount

S = "team:v"
KEY = "disk.quota"
CLEAN_ENV: dict[str, str | None] = {"REVERIE_DB": None, "REVERIE_SCOPE": None, "REVERIE_EMBEDDER": None}

SAME = [
    (1024, 1024.0),
    (1024.0, 1024),
    ("10", "10.00"),
    (10, "10.00"),
    ("1024", 1024),
    (1024, "1024"),
    (0.5, "0.50"),
    (-3, "-3.0"),
    (1e21, 10**21),
    (0.1, "0.1"),
]


def _typed(value: Any) -> tuple[type, Any]:
    return type(value), value


@pytest.mark.parametrize("value", [1024, 1024.0, 1024.5, -7, 10**40, 1e308, "1024", "peanuts"])
def test_a_value_comes_back_as_the_type_given(any_mem: Memory, value: Any) -> None:
    item = any_mem.remember("Disk quota", scope=S, key=KEY, value=value)
    assert _typed(item.value) == _typed(value)
    assert _typed(any_mem.get(item.id, scope=S).value) == _typed(value)
    assert _typed(any_mem.list(scope=S).items[0].value) == _typed(value)
    assert _typed(any_mem.recall("disk quota", scope=S)[0].item.value) == _typed(value)
    remembered = any_mem.events(scope=S)[0]
    assert _typed(remembered.payload["item"]["value"]) == _typed(value)
    any_mem.rebuild()
    assert _typed(any_mem.get(item.id, scope=S).value) == _typed(value)


def test_a_reopened_file_keeps_the_type(open_mem: Callable[..., Memory], db_path: Path) -> None:
    mem = open_mem(db_path)
    ids = [mem.remember(f"Quota {n}", scope=S, key=f"q.{n}", value=v).id for n, v in enumerate((3, 3.0, "3"))]
    mem.close()
    again = open_mem(db_path)
    assert [_typed(again.get(i, scope=S).value) for i in ids] == [(int, 3), (float, 3.0), (str, "3")]


@pytest.mark.parametrize(("first", "second"), SAME)
def test_the_same_number_corroborates_and_never_contradicts(any_mem: Memory, first: Any, second: Any) -> None:
    a = any_mem.remember("Disk quota", scope=S, key=KEY, value=first)
    checked = any_mem.remember_checked("Disk quota restated", scope=S, key=KEY, value=second)
    assert list(checked.conflicts) == []
    assert checked.item.id == a.id and checked.item.evidence_count == 2
    assert _typed(checked.item.value) == _typed(first)  # the claim keeps the value it was stated with
    assert any_mem.contradictions(scope=S) == []


def test_different_numbers_still_contradict(any_mem: Memory) -> None:
    any_mem.remember("Disk quota", scope=S, key=KEY, value=1024)
    checked = any_mem.remember_checked("Disk quota restated", scope=S, key=KEY, value=2048.0)
    assert [(c.axis, c.reason) for c in checked.conflicts] == [
        ("numeric", f"Same slot '{KEY}' holds different amounts: '2048.0' vs '1024'.")
    ]


@pytest.mark.parametrize(("a", "b"), SAME)
def test_the_detector_reads_equal_amounts_as_one_value(a: Any, b: Any) -> None:
    one, two = Claim("Disk quota", key=KEY, value=str(a)), Claim("Disk quota", key=KEY, value=str(b))
    assert detect(one, two) is None and detect(two, one) is None


def test_text_values_compare_as_text() -> None:
    assert detect(Claim("Runtime", key="rt", value="v3.10"), Claim("Runtime", key="rt", value="v3.1")) is not None
    assert amount("02134") is None and amount("1,024") is None and amount("+5") is None  # codes, not numbers
    assert amount("1e3") == amount(1000) == amount(1000.0) == amount("1000.00")
    assert amount("3.10") == amount("3.1")  # the documented price of numerals: versions need text


def test_a_dismissed_number_is_refused_in_any_spelling_and_lifted_by_any(any_mem: Memory) -> None:
    a = any_mem.remember("Disk quota", scope=S, key=KEY, value=1024)
    any_mem.dismiss(a.id, scope=S)
    for spelling in (1024.0, "1024", "1024.00", 1024):
        with pytest.raises(DismissedValueError):
            any_mem.remember("Quota said again", scope=S, key=KEY, value=spelling)
    any_mem.undismiss(scope=S, key=KEY, value="1024.0")
    for spelling in (1024, 1024.0):
        assert any_mem.remember("Quota said again", scope=S, key=KEY, value=spelling).is_current


def test_an_echo_of_a_corrected_number_lands_on_the_old_version(any_mem: Memory, clock: ManualClock) -> None:
    old = any_mem.remember("Disk quota is 1024", scope=S, key=KEY, value=1024, source="inferred")
    clock.advance(minutes=1)
    any_mem.revise(old.id, "Disk quota is 2048", scope=S, value=2048)
    echo = any_mem.remember("Disk quota restated", scope=S, key=KEY, value=1024.0, source="inferred")
    assert echo.id == old.id and echo.status == "superseded" and "echoed" in echo.flags


def test_a_revise_keeps_a_number_its_text_still_states(any_mem: Memory) -> None:
    a = any_mem.remember("Carol is 30", scope=S, key="carol.age", value=30)
    b = any_mem.revise(a.id, "Carol is 30 years old", scope=S)
    assert _typed(b.value) == (int, 30)


def test_a_slice_carries_the_type(any_mem: Memory) -> None:
    for n, v in enumerate((3, 3.5, "3")):
        any_mem.remember(f"Quota {n}", scope=S, key=f"q.{n}", value=v)
    text = any_mem.export_slice(scope=S).to_json()
    assert [i["value"] for i in json.loads(text)["items"]] == [3, 3.5, "3"]
    report = any_mem.import_slice(text, scope="team:copy")
    copies = sorted(any_mem.list(scope="team:copy").items, key=lambda i: i.text)
    assert len(report.created) == 3 and [_typed(c.value) for c in copies] == [(int, 3), (float, 3.5), (str, "3")]


def test_http_mcp_and_cli_agree_on_one_number(mem: Memory, db_path: Path) -> None:
    with TestClient(create_app(mem), base_url="http://127.0.0.1") as client:
        first = client.post(f"/v1/scopes/{S}/items", json={"text": "Disk quota", "key": KEY, "value": 1024})
        body = '{"text": "Disk quota", "key": "disk.quota", "value": 1024.0}'  # a float, as JSON clients send
        again = client.post(f"/v1/scopes/{S}/items", content=body, headers={"content-type": "application/json"})
    assert first.status_code == 201 and again.status_code == 201, (first.text, again.text)
    sent = first.json()
    assert sent["value"] == 1024 and isinstance(sent["value"], int)
    assert again.json()["id"] == sent["id"] and again.json()["conflicts"] == []
    result = CliRunner().invoke(
        cli,
        ["--db", str(db_path), "--embedder", "hash", "--scope", S, "--json", "remember", "Quota", "--key", KEY,
         "--value", "1024.00"],
        env=CLEAN_ENV,
    )  # fmt: skip
    assert result.exit_code == 0, (result.output, result.exception)
    assert json.loads(result.stdout)["item"]["id"] == sent["id"]
    assert mem.get(sent["id"], scope=S).evidence_count == 3


def test_mcp_sends_a_float_for_an_int(mem: Memory) -> None:
    import anyio
    from mcp import Client

    from reverie.mcp import build_server

    first = mem.remember("Disk quota", scope=S, key=KEY, value=1024)

    async def go() -> dict[str, Any]:
        async with Client(build_server(mem), mode="legacy", raise_exceptions=True) as client:
            result = await client.call_tool("remember", {"text": "Quota", "scope": S, "key": KEY, "value": 1024.0})
        out: dict[str, Any] = json.loads(result.content[0].text)
        return out

    out = anyio.run(go)
    assert out["item"]["id"] == first.id and out["conflicts"] == [], out


def test_a_schema_5_file_upgrades_and_reads_its_values_as_text(tmp_path: Path) -> None:
    db = tmp_path / "v5.db"
    with Memory(db, embedder="hash", clock=ManualClock()) as old:
        a = old.remember("Disk quota", scope=S, key=KEY, value="1024")
    raw = sqlite3.connect(db)
    with raw:
        raw.execute("ALTER TABLE items DROP COLUMN value_type")
        raw.execute("UPDATE settings SET v = '5' WHERE k = 'schema_version'")
    raw.close()
    with Memory(db, embedder="hash", clock=ManualClock()) as mem:
        assert _typed(mem.get(a.id, scope=S).value) == (str, "1024")
        b = mem.remember("Disk quota", scope=S, key=KEY, value=1024)  # same spelling: corroborates at once
        assert b.id == a.id
        assert mem.doctor().ok

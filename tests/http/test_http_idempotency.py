"""The ``Idempotency-Key`` header: a retried write is applied once and answered with its first response.

Run over every backend (a SQLite file, the reference store, PostgreSQL): every write route, the
refusals (another request, a malformed key), expiry under the manual clock, purge and rebuild,
the crash window between the commit and recording the answer, and a transaction killed at any
statement (the key and the write together or neither). Real uvicorn servers in other processes
race one key (``test_processes_racing_one_key_write_once``) on SQLite and PostgreSQL.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from http_helpers import BASE, assert_error, running
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie import ManualClock, Memory
from reverie.http import create_app
from reverie.http import idempotency as idem

S = "team/idem"
V1 = "/v1/scopes/team%2Fidem"
SRC = str(Path(__file__).resolve().parents[2] / "src")


@pytest.fixture
def mem(any_mem: Memory) -> Memory:
    """Every test here runs on SQLite, the reference store and PostgreSQL."""
    return any_mem


def events(mem: Memory) -> int:
    return len(mem.store.events(S, limit=1_000_000))


def post(client: Any, path: str, body: Any = None, key: str | None = "k-1", **headers: str) -> Any:
    if key is not None:
        headers["Idempotency-Key"] = key
    kwargs: dict[str, Any] = {"json": body} if body is not None else {}
    return client.post(V1 + path, headers=headers, **kwargs)


# -- every write route ------------------------------------------------------------------------------
Setup = Callable[[Memory], tuple[str, Any]]


def _item(mem: Memory, text: str = "The boiler is serviced every May") -> str:
    return mem.remember(text, scope=S).id


def _conflict(mem: Memory) -> tuple[str, Any]:
    a = mem.remember("Alice lives in Lisbon", scope=S, key="alice.city", value="Lisbon")
    b = mem.remember("Alice lives in Porto", scope=S, key="alice.city", value="Porto")
    edge = mem.link(a.id, b.id, "contradicts", scope=S)
    return f"/contradictions/{edge.id}/resolve", {"keep": a.id}


def _not_a_conflict(mem: Memory) -> tuple[str, Any]:
    path, _ = _conflict(mem)
    return path.removesuffix("/resolve") + "/dismiss", {"reason": "both true"}


def _talk(mem: Memory, conversation: str) -> None:
    mem.conversation(conversation, scope=S, open_on_add=True).add("I moved to Lisbon last spring", speaker="ana")


def _slice(mem: Memory) -> tuple[str, Any]:
    mem.remember("The office moved to Porto", scope="elsewhere")
    return "/slices/import", {"slice": mem.export_slice(scope="elsewhere").to_dict()}


ROUTES: dict[str, Setup] = {
    "remember": lambda m: ("/items", {"text": "The boiler is serviced every May", "tags": ["house"]}),
    "revise": lambda m: (f"/items/{_item(m)}/revise", {"text": "The boiler is serviced every June"}),
    "forget": lambda m: (f"/items/{_item(m)}/forget", {"reason": "sold the house"}),
    "purge": lambda m: (f"/items/{_item(m)}/forget", {"reason": "leaked", "purge": True}),
    "dismiss": lambda m: (f"/items/{_item(m)}/dismiss", {"reason": "wrong"}),
    "undismiss": lambda m: (
        m.dismiss(_item(m), scope=S) and "/undismiss",
        {"text": "The boiler is serviced every May"},
    ),
    "link": lambda m: ("/edges", {"src": _item(m), "dst": _item(m, "The boiler is gas"), "type": "supports"}),
    "pause": lambda m: ("/learning/pause", {"reason": "review"}),
    "resume": lambda m: (m.pause_learning(S) or "/learning/resume", {}),
    "resolve": _conflict,
    "dismiss_contradiction": _not_a_conflict,
    "dream": lambda m: (_item(m) and "/dream", None),
    "intent": lambda m: ("/intents", {"label": "Service the boiler", "priority": 0.7}),
    "task": lambda m: ("/tasks", {"action": "Call the plumber"}),
    "message": lambda m: ("/conversations/c1/messages", {"text": "I moved to Lisbon last spring", "speaker": "ana"}),
    "tool_call": lambda m: (_talk(m, "c2") or "/conversations/c2/tool-calls", {"name": "search", "args": {"q": "x"}}),
    "close": lambda m: (_talk(m, "c3") or "/conversations/c3/close", None),
    "intent_move": lambda m: (f"/intents/{m.intents.create('Service the boiler', scope=S).id}/pause", {}),
    "task_move": lambda m: (f"/tasks/{m.tasks.create('Call the plumber', scope=S).id}/start", {}),
    "slice_import": _slice,
}


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_every_write_route_applies_a_retry_once(mem: Memory, client: TestClient, route: str) -> None:
    path, body = ROUTES[route](mem)
    first = post(client, path, body)
    assert 200 <= first.status_code < 300, first.text
    assert "idempotent-replayed" not in first.headers
    written = events(mem)
    for _ in range(2):
        again = post(client, path, body)
        assert again.status_code == first.status_code
        assert again.content == first.content  # byte for byte the first answer
        assert again.headers["idempotent-replayed"] == "true"
        assert again.headers["content-type"] == "application/json"
    assert events(mem) == written  # the retries wrote nothing


def test_a_retry_gets_the_first_answer_even_after_the_state_moved_on(mem: Memory, client: TestClient) -> None:
    """A retried revise with ``expected_version`` is answered from the record, not refused as stale."""
    item = mem.remember("The gate code is 1234", scope=S)
    body = {"text": "The gate code is 5678", "expected_version": item.version}
    first = post(client, f"/items/{item.id}/revise", body)
    assert first.status_code == 200, first.text
    mem.revise(first.json()["id"], "The gate code is 9999", scope=S)
    again = post(client, f"/items/{item.id}/revise", body)
    assert (again.status_code, again.content) == (200, first.content)


def test_json_spelling_does_not_matter_but_the_content_does(mem: Memory, client: TestClient) -> None:
    first = client.post(
        V1 + "/items",
        content=b'{"text": "Tea at five", "tags": ["t"]}',
        headers={"Idempotency-Key": "k", "content-type": "application/json"},
    )
    same = client.post(
        V1 + "/items",
        content=b'{"tags":["t"],"text":"Tea at five"}',
        headers={"Idempotency-Key": '"k"', "content-type": "application/json"},  # an RFC 8941 string
    )
    assert same.status_code == 201 and same.content == first.content
    assert same.headers["idempotent-replayed"] == "true"


def _send(client: TestClient, raw: bytes, key: str = "k-num") -> Any:
    return client.post(V1 + "/items", content=raw, headers={"Idempotency-Key": key, "content-type": "application/json"})


@pytest.mark.parametrize(
    "retry",
    [
        b'{"text": "quota is 1024", "key": "quota", "value": 1024.0, "importance": 1.0}',
        b'{"text": "quota is 1024", "key": "quota", "value": 1.024e3, "importance": 10E-1}',
        b'{"text": "quota is 1024", "key": "quota", "value": 1024.000, "importance": 1}',
    ],
)
def test_a_retry_spelling_a_number_otherwise_is_the_same_request(mem: Memory, client: TestClient, retry: bytes) -> None:
    """Probe 5 #10: ``1`` and ``1.0`` (or ``1e0``) are one JSON number, so a retry whose client re-serialised
    the body is replayed, not refused as key reuse (reverie itself reads ``1024.0`` as the value 1024)."""
    first = _send(client, b'{"text": "quota is 1024", "key": "quota", "value": 1024, "importance": 1}')
    assert first.status_code == 201
    written = events(mem)
    again = _send(client, retry)
    assert again.status_code == 201, again.text
    assert again.headers["idempotent-replayed"] == "true" and again.content == first.content
    assert events(mem) == written


@pytest.mark.parametrize(
    "other",
    [
        b'{"text": "quota is 1024", "key": "quota", "value": 1024.5, "importance": 1}',
        b'{"text": "quota is 1024", "key": "quota", "value": "1024", "importance": 1}',
        b'{"text": "quota is 1024", "key": "quota", "value": 1024, "importance": true}',
        b'{"text": "quota is 1024", "key": "quota", "value": 1024.0000000000000000000001, "importance": 1}',
    ],
)
def test_a_different_number_or_a_number_as_a_string_is_another_request(
    mem: Memory, client: TestClient, other: bytes
) -> None:
    """Numbers are compared by their exact decimal value: 1024.0000000000000000000001 (which a float would
    round to 1024), the string "1024" and ``true`` are not the number 1024 or 1."""
    first = _send(client, b'{"text": "quota is 1024", "key": "quota", "value": 1024, "importance": 1}')
    assert first.status_code == 201
    written = events(mem)
    assert_error(_send(client, other), 409, "idempotency_key_reused")
    assert events(mem) == written


def test_a_key_recorded_before_the_canonical_number_form_still_replays_its_retry(
    mem: Memory, client: TestClient
) -> None:
    """A key whose first request was fingerprinted by the previous form (``json:``, floats and ints apart),
    e.g. just before an upgrade, still replays its retry instead of refusing it as another request."""
    raw = b'{"text": "The meter reads 4711", "importance": 0.5}'
    scope = {"method": "POST", "path": V1 + "/items", "query_string": b""}
    with mem.idempotency.claim("k-old", scope=S, request=idem.earlier_fingerprint(scope, None, raw)) as pending:
        mem.remember("The meter reads 4711", scope=S, importance=0.5)
    assert pending.written
    mem.idempotency.record(pending.claim, status=201, body='{"recorded": true}')
    written = events(mem)
    again = _send(client, raw, key="k-old")
    assert (again.status_code, again.json(), again.headers["idempotent-replayed"]) == (201, {"recorded": True}, "true")
    assert events(mem) == written
    assert idem.fingerprint(scope, None, raw) != idem.earlier_fingerprint(scope, None, raw)


# -- refusals -------------------------------------------------------------------------------------
def test_the_same_key_for_another_request_is_refused_and_stores_nothing(mem: Memory, client: TestClient) -> None:
    item_id = post(client, "/items", {"text": "The dog is called Rex"}).json()["id"]
    written = events(mem)
    body = assert_error(post(client, "/items", {"text": "The dog is called Max"}), 409, "idempotency_key_reused")
    assert "new key" in body["error"]
    assert_error(post(client, f"/items/{item_id}/forget", {}), 409, "idempotency_key_reused")  # another route
    assert events(mem) == written
    assert [i.text for i in mem.list(scope=S).items] == ["The dog is called Rex"]


def test_another_principal_reusing_a_key_is_not_shown_the_first_answer(mem: Memory) -> None:
    app = create_app(mem, token="operator-token", principals={"ana-token": "ana", "bo-token": "bo"})
    with TestClient(app, base_url=BASE) as client:
        body = {"text": "Ana's door code is 4321", "visibility": ["ana"]}
        first = post(client, "/items", body, authorization="Bearer ana-token")
        assert first.status_code == 201, first.text
        other = post(client, "/items", body, authorization="Bearer bo-token")
        assert_error(other, 409, "idempotency_key_reused")
        assert "4321" not in other.text


@pytest.mark.parametrize(
    ("value", "why"),
    [
        (b"", "empty"),
        (b'""', "empty"),
        (b"x" * 256, "256 characters"),
        (b"a b", "' '"),
        (b"a\tb", "'\\t'"),
        ("caf\u00e9".encode("latin-1"), "printable ASCII"),
    ],
)
def test_a_malformed_key_is_refused_before_anything_is_written(
    mem: Memory, client: TestClient, value: bytes, why: str
) -> None:
    response = client.post(
        V1 + "/items",
        content=b'{"text": "Never stored"}',
        headers=[(b"idempotency-key", value), (b"content-type", b"application/json")],
    )
    body = assert_error(response, 400, "invalid_idempotency_key")
    assert why in body["error"]
    assert events(mem) == 0


def test_two_key_headers_are_refused(mem: Memory, client: TestClient) -> None:
    response = client.post(
        V1 + "/items",
        content=b'{"text": "Never stored"}',
        headers=[(b"idempotency-key", b"a"), (b"idempotency-key", b"b"), (b"content-type", b"application/json")],
    )
    assert_error(response, 400, "invalid_idempotency_key")
    assert events(mem) == 0


def test_a_refused_first_request_leaves_the_key_free(mem: Memory, client: TestClient) -> None:
    """Nothing was written, so nothing is recorded: the corrected request may use the key."""
    assert_error(post(client, "/items", {"text": ""}), 400)
    mem.pause_learning(S)
    assert_error(post(client, "/items", {"text": "The bins go out on Tuesday"}), 409, "learning_paused")
    mem.resume_learning(S)
    done = post(client, "/items", {"text": "The bins go out on Tuesday"})
    assert done.status_code == 201, done.text
    assert mem.idempotency.recorded("k-1", scope=S) is not None


def test_read_routes_ignore_the_header(mem: Memory, client: TestClient) -> None:
    mem.remember("The boiler is serviced every May", scope=S)
    for _ in range(2):
        r = post(client, "/recall", {"query": "boiler", "record_use": False})
        assert r.status_code == 200 and "idempotent-replayed" not in r.headers
    assert mem.idempotency.recorded("k-1", scope=S) is None


# -- expiry, purge, rebuild -----------------------------------------------------------------------
def test_a_key_expires_after_the_window_by_the_memorys_clock(mem: Memory) -> None:
    clock = mem.clock
    assert isinstance(clock, ManualClock)
    with TestClient(create_app(mem, idempotency_window=3600), base_url=BASE) as client:
        post(client, "/items", {"text": "Water the plants"})
        clock.advance(timedelta(minutes=59))
        assert post(client, "/items", {"text": "Water the plants"}).headers.get("idempotent-replayed") == "true"
        assert post(client, "/items", {"text": "Feed the cat"}).status_code == 409
        clock.advance(timedelta(minutes=1))  # exactly the window: expired
        fresh = post(client, "/items", {"text": "Feed the cat"})
        assert fresh.status_code == 201 and "idempotent-replayed" not in fresh.headers
    assert sorted(i.text for i in mem.list(scope=S).items) == ["Feed the cat", "Water the plants"]


def test_expired_keys_are_deleted_when_a_later_answer_is_recorded(mem: Memory, client: TestClient) -> None:
    clock = mem.clock
    assert isinstance(clock, ManualClock)
    post(client, "/items", {"text": "Old"}, key="old")
    clock.advance(timedelta(hours=25))
    post(client, "/items", {"text": "New"}, key="new")
    clock.advance(timedelta(hours=-25))  # the clock going back shows whether the row is gone or only hidden
    assert mem.idempotency.recorded("old", scope=S) is None
    assert mem.idempotency.recorded("new", scope=S) is not None


def test_a_purge_erases_recorded_answers_of_its_scope_but_a_retry_still_writes_nothing(
    mem: Memory, client: TestClient
) -> None:
    secret = "The vault password is hunter2"
    first = post(client, "/items", {"text": secret}, key="remember-secret")
    item_id = first.json()["id"]
    purge = post(client, f"/items/{item_id}/forget", {"reason": "leaked", "purge": True}, key="purge-it")
    assert purge.status_code == 200, purge.text
    written = events(mem)
    retry = post(client, "/items", {"text": secret}, key="remember-secret")
    body = assert_error(retry, 409, "idempotency_unavailable")
    assert "purge" in body["error"] and "hunter2" not in body["error"]
    assert events(mem) == written and not mem.list(scope=S).items
    row = mem.idempotency.recorded("remember-secret", scope=S)
    assert row is not None and row.erased and row.body is None and row.request == ""
    assert (
        post(client, f"/items/{item_id}/forget", {"reason": "leaked", "purge": True}, key="purge-it").headers[
            "idempotent-replayed"
        ]
        == "true"
    )  # the purge's own answer (already redacted) is kept
    path = Path(str(getattr(mem.store, "path", "")))
    if path.is_file():  # SQLite: not in the file's pages either (the purge scrubs the file)
        for part in (path, Path(f"{path}-wal")):
            assert not part.exists() or b"hunter2" not in part.read_bytes()


def test_rebuild_keeps_the_keys(mem: Memory, client: TestClient) -> None:
    first = post(client, "/items", {"text": "The car is blue"})
    mem.rebuild()
    again = post(client, "/items", {"text": "The car is blue"})
    assert again.content == first.content and again.headers["idempotent-replayed"] == "true"
    assert len(mem.list(scope=S).items) == 1


# -- the window between the commit and the recorded answer ----------------------------------------
def test_a_key_whose_answer_was_never_recorded_is_in_progress_then_unavailable(
    mem: Memory, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first request's server stopped after its commit: its key is held, its answer is not known."""
    monkeypatch.setattr(idem, "WAIT_POLLS", 2)  # do not wait 5 s for an answer that will never come
    body = {"text": "The meter reads 4711"}
    request = _request_of(client, "/items", body)
    with mem.idempotency.claim("k-1", scope=S, request=request) as pending:
        mem.remember("The meter reads 4711", scope=S)  # committed; the "server" dies before recording
    assert pending.written
    written = events(mem)
    busy = post(client, "/items", body)
    assert_error(busy, 409, "idempotency_in_progress")
    assert busy.headers["retry-after"] == "1"
    clock = mem.clock
    assert isinstance(clock, ManualClock)
    clock.advance(idem.IN_FLIGHT)
    assert_error(post(client, "/items", body), 409, "idempotency_unavailable")
    assert events(mem) == written


def test_a_retry_waits_for_the_first_answer_while_it_is_being_recorded(mem: Memory, client: TestClient) -> None:
    body = {"text": "The meter reads 4712"}
    request = _request_of(client, "/items", body)
    with mem.idempotency.claim("k-1", scope=S, request=request) as pending:
        item = mem.remember("The meter reads 4712", scope=S)
    answer = json.dumps({"id": item.id, "note": "recorded late"})
    timer = threading.Timer(0.3, lambda: mem.idempotency.record(pending.claim, status=201, body=answer))
    timer.start()
    try:
        late = post(client, "/items", body)
    finally:
        timer.join()
    assert (late.status_code, late.text) == (201, answer)


def _request_of(client: TestClient, path: str, body: Any) -> str:
    """The fingerprint the middleware gives this request (no principal): what a claim must carry."""
    scope = {"method": "POST", "path": "/v1/scopes/team%2Fidem" + path, "query_string": b""}
    return idem.fingerprint(scope, None, json.dumps(body).encode())


# -- a transaction killed at any statement: the key and the write together or neither -------------
def test_a_write_killed_at_any_statement_leaves_both_or_neither(memories: Any, db_path: Path) -> None:
    mem = memories.open(db_path)
    store = mem.store
    request = hashlib.sha256(b"r").hexdigest()
    statements: list[str] = []
    store._crash_hook = statements.append
    with mem.idempotency.claim("probe", scope=S, request=request):
        mem.remember("Probe claim", scope=S)
    store._crash_hook = None
    n = len(statements)
    assert n >= 3 and "idempotency" in statements[0]
    for at in range(n):
        seen = 0

        def crash(sql: str, at: int = at) -> None:
            nonlocal seen
            seen += 1
            if seen == at + 1:
                raise KeyboardInterrupt("killed")  # not a ReverieError: the whole transaction rolls back

        before = events(mem)
        store._crash_hook = crash
        with pytest.raises(KeyboardInterrupt), mem.idempotency.claim(f"k{at}", scope=S, request=request):
            mem.remember(f"Claim number {at}", scope=S)
        store._crash_hook = None
        assert events(mem) == before
        assert mem.idempotency.recorded(f"k{at}", scope=S) is None


# -- a property: any sequence of requests over a few keys ------------------------------------------
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from(["Tea", "Coffee", "Juice"])), max_size=8))
def test_each_key_writes_once_and_answers_its_first_body_only(steps: list[tuple[str, str]]) -> None:
    with Memory(":memory:", embedder="hash") as mem, TestClient(create_app(mem), base_url=BASE) as client:
        first: dict[str, tuple[str, bytes]] = {}
        for key, drink in steps:
            r = post(client, "/items", {"text": f"Ana drinks {drink}"}, key=key)
            if key not in first:
                assert r.status_code == 201 and "idempotent-replayed" not in r.headers
                first[key] = (drink, r.content)
            elif first[key][0] == drink:
                assert (r.status_code, r.content) == (201, first[key][1])
            else:
                assert r.status_code == 409
        # one event per key: its first request writes one (a remember, or the corroboration of an equal
        # claim another key wrote); retries and refused reuses write none
        assert len(mem.store.events(S, limit=1000)) == len(first)


# -- real servers in other processes racing one key ------------------------------------------------
_SERVER = """
import sys
import uvicorn
from reverie import Memory
from reverie.http import create_app
with Memory(sys.argv[1], embedder="hash") as mem:
    uvicorn.run(create_app(mem), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
"""


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def servers(url: str, n: int) -> Iterator[list[str]]:
    """``n`` ``reverie`` HTTP servers, each its own process, on one store; yields their base URLs."""
    env = {**os.environ, "PYTHONPATH": SRC, "OPENBLAS_NUM_THREADS": "1"}
    ports = [_free_port() for _ in range(n)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(_SERVER), url, str(p)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for p in ports
    ]
    bases = [f"http://127.0.0.1:{p}" for p in ports]
    try:
        deadline = time.monotonic() + 60
        for proc, base in zip(procs, bases, strict=True):
            while True:
                assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else "server died"
                assert time.monotonic() < deadline, "a server did not start"
                try:
                    httpx.get(base + "/v1/scopes", timeout=2)
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
        yield bases
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=30)
            if proc.stderr:
                proc.stderr.close()


def test_processes_racing_one_key_write_once(store_url: str, memories: Any) -> None:
    """Three server processes get the same request with the same key at the same moment, twice over
    (6 requests): one write, and every answer is the first one's body."""
    with Memory(store_url, embedder="hash") as setup:
        setup.remember("seed so the scope exists", scope=S)
    with servers(store_url, 3) as bases:
        gate = threading.Barrier(6)
        answers: list[httpx.Response] = []
        lock = threading.Lock()

        def send(base: str) -> None:
            with httpx.Client(base_url=base, timeout=60) as c:
                gate.wait()
                r = post(c, "/items", {"text": "The fire alarm is tested on Fridays"}, key="race")
            with lock:
                answers.append(r)

        threads = [threading.Thread(target=send, args=(b,)) for b in bases * 2]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        statuses = sorted(r.status_code for r in answers)
        assert statuses == [201] * 6, [r.text for r in answers]
        assert len({r.content for r in answers}) == 1
        assert sum(r.headers.get("idempotent-replayed") == "true" for r in answers) == 5
    with Memory(store_url, embedder="hash") as after:
        texts = [i.text for i in after.list(scope=S).items]
        assert texts.count("The fire alarm is tested on Fridays") == 1
        assert len(after.store.events(S, limit=100)) == 2  # the seed and one remember: no corroboration


_RETRYING_WRITER = """
import sys, httpx
base, n, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with httpx.Client(base_url=base, timeout=60) as c:
    for k in range(count):
        body = {"text": f"writer {n} fact {k} about topic {k % 7}"}
        key = f"w{n}-{k}"
        ids = set()
        for attempt in range(2):  # every write sent twice, as a client whose answer was lost would
            r = c.post("/v1/scopes/team%2Fidem/items", json=body, headers={"Idempotency-Key": key})
            assert r.status_code == 201, r.text
            ids.add(r.json()["id"])
        assert len(ids) == 1, ids
        print(ids.pop(), flush=True)
"""


def test_four_retrying_writers_lose_nothing_and_duplicate_nothing(store_url: str, memories: Any) -> None:
    """4 writer processes, each through its own server process, each write retried: every
    acknowledged write is there exactly once."""
    with Memory(store_url, embedder="hash") as setup:
        setup.remember("seed so the scope exists", scope=S)
    count = 12
    env = {**os.environ, "PYTHONPATH": SRC}
    with servers(store_url, 2) as bases:
        writers = [
            subprocess.Popen(
                [sys.executable, "-c", textwrap.dedent(_RETRYING_WRITER), bases[n % 2], str(n), str(count)],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for n in range(4)
        ]
        acked: list[str] = []
        for w in writers:
            out, err = w.communicate(timeout=240)
            assert w.returncode == 0, err[-2000:]
            acked += out.split()
    assert len(acked) == len(set(acked)) == 4 * count
    with Memory(store_url, embedder="hash") as after:
        found = after.store.get_many(S, acked)
        assert sorted(found) == sorted(acked)
        texts = [i.text for i in after.list(scope=S, limit=1000).items]
        assert len(texts) == len(set(texts)) == 4 * count + 1
        assert after.doctor().ok


def test_over_a_real_server_retry_reuse_and_expiry(store_url: str, memories: Any) -> None:
    """The same contract through uvicorn and a socket, on SQLite and PostgreSQL, under the manual clock."""
    mem: Memory = memories.open(store_url)
    clock = mem.clock
    assert isinstance(clock, ManualClock)
    with running(create_app(mem, idempotency_window=600)) as base, httpx.Client(base_url=base, timeout=30) as c:
        first = post(c, "/items", {"text": "The spare key is under the mat"}, key="u-1")
        assert first.status_code == 201, first.text
        written = events(mem)
        again = post(c, "/items", {"text": "The spare key is under the mat"}, key="u-1")
        assert (again.status_code, again.content) == (201, first.content)
        assert again.headers["idempotent-replayed"] == "true"
        reused = post(c, "/items", {"text": "The spare key is in the shed"}, key="u-1")
        assert_error(reused, 409, "idempotency_key_reused")
        assert events(mem) == written
        clock.advance(timedelta(seconds=600))
        later = post(c, "/items", {"text": "The spare key is in the shed"}, key="u-1")
        assert later.status_code == 201 and "idempotent-replayed" not in later.headers
    assert sorted(i.text for i in mem.list(scope=S).items) == [
        "The spare key is in the shed",
        "The spare key is under the mat",
    ]


def test_openapi_documents_the_header_on_writes_only(client: TestClient) -> None:
    doc = client.get("/openapi.json").json()
    paths = doc["paths"]

    def names(path: str) -> list[str]:
        return [p["name"] for p in paths[path]["post"].get("parameters", [])]

    assert "Idempotency-Key" in names("/v1/scopes/{scope}/items")
    assert "Idempotency-Key" in names("/v1/scopes/{scope}/conversations/{conversation}/messages")
    assert "Idempotency-Key" not in names("/v1/scopes/{scope}/recall")
    post_items = paths["/v1/scopes/{scope}/items"]["post"]
    assert "422" not in post_items["responses"]  # a reused key is a 409 conflict, like every other
    assert "Idempotent-Replayed" in post_items["responses"]["201"]["headers"]
    assert "Idempotency-Key" not in [p["name"] for p in paths["/v1/scopes/{scope}/items"]["get"].get("parameters", [])]

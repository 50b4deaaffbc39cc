"""Code that runs in the child processes of the reliability suite (``spawn`` / ``forkserver``).

Kept in its own module, importing only ``reverie`` and the standard library, so a spawned child
can import it by name and starts quickly. Workers report through files (acknowledgement logs,
JSON results) because a child killed with SIGKILL cannot report anything else.
"""

from __future__ import annotations

import json
import os
import random
import signal
import traceback
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
    "uniform",
    "victor",
    "whiskey",
    "xray",
    "yankee",
    "zulu",
    "tea",
    "coffee",
    "rain",
    "cats",
    "jazz",
    "chess",
]
SUBJECTS = ["alice", "bob", "carol", "dave", "erin"]
VERBS = ["likes", "owns", "avoids", "prefers"]
OBJECTS = ["green tea", "coffee", "cats", "rain", "jazz", "python", "rust", "chess"]


def _words(rng: random.Random, n_max: int = 10) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, n_max)))


def _ack(fd: int, record: dict[str, Any]) -> None:
    """Append one acknowledgement line and make it durable before the next call starts."""
    os.write(fd, (json.dumps(record) + "\n").encode())
    os.fsync(fd)


def read_acks(path: Path) -> list[dict[str, Any]]:
    """Complete acknowledgement lines only: a line cut short by SIGKILL was never acknowledged."""
    if not path.exists():
        return []
    data = path.read_bytes()
    lines = data.split(b"\n")[:-1]  # the part after the last newline is incomplete (or empty)
    return [json.loads(line) for line in lines]


# -- crash test: write until killed ---------------------------------------------------------------


def crash_writer(
    path: str, ack_path: str, worker: int, round_no: int, durability: str, max_ops: int, seed: int
) -> None:
    """Remember / remember_many / revise in a loop; acknowledge each call only after it returned.

    Every stored text starts with ``w{worker} r{round} op{j}`` so the parent can tell which
    operation a row came from, including one that committed but was never acknowledged.
    """
    from reverie import Memory

    rng = random.Random(seed)
    mem = Memory(path, embedder="hash", durability=durability)
    fd = os.open(ack_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    current: list[str] = []
    prefix = f"w{worker} r{round_no}"
    for j in range(max_ops):
        meta = {"w": worker, "r": round_no, "op": j}
        roll = rng.random()
        if roll < 0.1 and current:
            old = current.pop(rng.randrange(len(current)))
            new = mem.revise(old, f"{prefix} op{j} revised {_words(rng)}", scope="soak", reason="soak")
            current.append(new.id)
            _ack(fd, {"op": "revise", "j": j, "old": old, "new": new.id})
        elif roll < 0.25:
            batch = [
                {"text": f"{prefix} op{j} b{b} {_words(rng)}", "meta": meta, "tags": [f"w{worker}"]}
                for b in range(rng.randint(2, 8))
            ]
            items = mem.remember_many(batch, scope="soak")
            current += [i.id for i in items]
            _ack(fd, {"op": "batch", "j": j, "ids": [i.id for i in items]})
        else:
            item = mem.remember(f"{prefix} op{j} {_words(rng)}", scope="soak", meta=meta, tags=[f"w{worker}"])
            current.append(item.id)
            _ack(fd, {"op": "remember", "j": j, "ids": [item.id]})
    os.close(fd)
    mem.close()


def revise_killed_at(path: str, scope: str, item_id: str, statement: int) -> None:
    """Revise ``item_id``, SIGKILL-ing this process just before write statement number ``statement``."""
    from reverie import Memory

    mem = Memory(path, embedder="hash")
    seen = [0]

    def hook(sql: str) -> None:
        if seen[0] == statement:
            os.kill(os.getpid(), signal.SIGKILL)
        seen[0] += 1

    mem.store._crash_hook = hook  # type: ignore[attr-defined]
    mem.revise(item_id, "a revision that crashed mid-transaction", scope=scope, reason="crash test")
    mem.close()


def remember_distinct_tags(n: int) -> None:
    """Exit 0 if remembering ``n`` distinct tags is refused with LimitExceededError, else 1."""
    from reverie import LimitExceededError, Memory

    with Memory(":memory:", embedder="hash") as mem:
        try:
            mem.remember("many tags", scope="big", tags=[f"t{i}" for i in range(n)])
        except LimitExceededError:
            raise SystemExit(0) from None
    raise SystemExit(1)


# -- concurrency test: mixed writers and readers ------------------------------------------------------


def _write_result(result_path: str, result: dict[str, Any]) -> None:
    tmp = result_path + ".tmp"
    Path(tmp).write_text(json.dumps(result))
    os.replace(tmp, result_path)


def mixed_writer(path: str, result_path: str, worker: int, n_ops: int, seed: int, scopes: list[str], go: Any) -> None:
    """Run ``n_ops`` random remember / remember_many / revise / forget / link calls on shared scopes.

    Refusals that are the point of the state model (an item another writer already closed, a
    stale ``expected_version``) are counted; every other exception is recorded as unexpected.
    ``log`` lists each acknowledged call in the order this process made it.
    """
    from reverie import ConflictError, Memory

    rng = random.Random(seed)
    result: dict[str, Any] = {"worker": worker, "ok": {}, "refused": {}, "unexpected": [], "log": []}
    try:
        mem = Memory(path, embedder="hash")
    except Exception:
        result["unexpected"].append(traceback.format_exc())
        _write_result(result_path, result)
        return
    known: dict[str, list[str]] = {s: [] for s in scopes}
    go.wait(60)
    try:
        for j in range(n_ops):
            scope = rng.choice(scopes)
            if j % 20 == 0:  # learn what the other writers created, so they contend on the same items
                listed = [i.id for i in mem.list(scope=scope, limit=100).items]
                known[scope] = list(dict.fromkeys(known[scope] + listed))
            op = rng.choices(["remember", "shared", "batch", "revise", "forget", "link"], [30, 10, 5, 25, 10, 20])[0]
            if op in ("revise", "forget", "link") and len(set(known[scope])) < 2:
                op = "remember"
            try:
                entry = _mixed_op(mem, rng, op, scope, known[scope], worker, j)
            except ConflictError as exc:
                result["refused"][type(exc).__name__] = result["refused"].get(type(exc).__name__, 0) + 1
                continue
            except Exception as exc:
                result["unexpected"].append(f"{op}: {type(exc).__name__}: {exc}")
                continue
            result["ok"][op] = result["ok"].get(op, 0) + 1
            result["log"].append(entry)
    finally:
        mem.close()
        _write_result(result_path, result)


def _mixed_op(mem: Any, rng: random.Random, op: str, scope: str, known: list[str], worker: int, j: int) -> list[Any]:
    if op == "remember":
        item = mem.remember(f"w{worker} op{j} {_words(rng)}", scope=scope, tags=[f"w{worker}"])
        known.append(item.id)
        return ["remember", scope, item.id]
    if op == "shared":  # the same text from several processes: corroborated, never duplicated
        text = f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)}"
        item = mem.remember(text, scope=scope)
        known.append(item.id)
        return ["shared", scope, item.id, text]
    if op == "batch":
        items = mem.remember_many([f"w{worker} op{j} b{b} {_words(rng)}" for b in range(3)], scope=scope)
        known += [i.id for i in items]
        return ["batch", scope, [i.id for i in items]]
    target = rng.choice(known)
    if op == "revise":
        expected = mem.get(target, scope=scope).version if rng.random() < 0.5 else None
        new = mem.revise(target, f"w{worker} op{j} revised {_words(rng)}", scope=scope, expected_version=expected)
        known.append(new.id)
        return ["revise", scope, target, new.id]
    if op == "forget":
        mem.forget(target, scope=scope, reason=f"w{worker} op{j}")
        return ["forget", scope, target]
    other = rng.choice([i for i in known if i != target])
    kind = rng.choice(["supports", "about", "derived_from"])
    if kind == "derived_from":  # newer from older (uuid7 ids sort by time): a loop would be refused
        target, other = max(target, other), min(target, other)
    started = datetime.now(UTC)
    edge = mem.link(target, other, kind, scope=scope)
    # link is idempotent: an edge recorded before this call started is an existing one returned
    fresh = edge.recorded_at >= started
    return ["link", scope, edge.id, target, other, fresh]


def reader(path: str, result_path: str, seed: int, scopes: list[str], go: Any, stop: Any) -> None:
    """Loop recall (all three modes) / list / get until ``stop`` is set; every exception is unexpected."""
    from reverie import Memory

    rng = random.Random(seed)
    result: dict[str, Any] = {"loops": 0, "attempts": 0, "hits": 0, "foreign": 0, "unexpected": []}
    try:
        mem = Memory(path, embedder="hash")
    except Exception:
        result["unexpected"].append(traceback.format_exc())
        _write_result(result_path, result)
        return
    go.wait(60)
    try:
        while not (stop.is_set() and result["attempts"] > 0):
            result["attempts"] += 1
            scope = rng.choice(scopes)
            query = f"{rng.choice(SUBJECTS)} {rng.choice(OBJECTS)} {rng.choice(WORDS)}"
            try:
                hits = mem.recall(query, scope=scope, k=10, mode=rng.choice(["hybrid", "lexical", "dense"]))
                page = mem.list(scope=scope, limit=20, include_closed=rng.random() < 0.5)
                for item in page.items[:3]:
                    mem.get(item.id, scope=scope)
            except Exception as exc:
                result["unexpected"].append(f"{type(exc).__name__}: {exc}")
                continue
            result["hits"] += len(hits)
            result["foreign"] += sum(h.item.scope != scope for h in hits)
            result["foreign"] += sum(i.scope != scope for i in page.items)
            result["loops"] += 1
    finally:
        mem.close()
        _write_result(result_path, result)


def racer(path: str, worker: int, tasks: Any, results: Any, barrier: Any) -> None:
    """For each task (scope, id, version): wait at the barrier with the other racers, then revise."""
    from reverie import AlreadyClosedError, Memory, VersionConflictError

    mem = Memory(path, embedder="hash")
    try:
        while True:
            task = tasks.get(timeout=120)
            if task is None:
                break
            scope, target, version = task
            barrier.wait(60)
            try:
                new = mem.revise(target, f"v{version + 1} by racer {worker}", scope=scope, expected_version=version)
            except VersionConflictError:
                results.put((worker, "version_conflict", None, None))
            except AlreadyClosedError:
                results.put((worker, "already_closed", None, None))
            except Exception as exc:
                results.put((worker, "error", f"{type(exc).__name__}: {exc}", None))
            else:
                results.put((worker, "won", new.id, new.version))
    finally:
        mem.close()

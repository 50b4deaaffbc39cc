"""Many processes on one database: a crashed holder does not keep the dream lease, and 4 writers plus a
dream pass lose no acknowledged write."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from datetime import timedelta
from pathlib import Path

from reverie import ManualClock, Memory
from reverie.dream.lease import scope_lease
from reverie.store.postgres import PostgresStore
from strategies import START, state_of

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _python(code: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": SRC, "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_lease_of_a_live_holder_is_refused_and_a_closed_holders_waits_for_its_expiry(pg_url: str) -> None:
    """The lease is its row alone (nothing on the server session, so a transaction pooler cannot
    break it: ``test_pg_lease_pooler.py``): a holder that closed without releasing holds the scope
    until the row expires, as on SQLite. A dead holder on this host is freed sooner by the dream
    pass (next test)."""
    a, b = PostgresStore(pg_url), PostgresStore(pg_url)
    try:
        until = START + timedelta(hours=1)
        assert a.take_lease("s", "pass-a", now=START, expires_at=until).owner == "pass-a"
        assert b.take_lease("s", "pass-b", now=START, expires_at=until).owner == "pass-a"
        assert a.take_lease("s", "pass-a", now=START, expires_at=until).owner == "pass-a"  # renewal
        a.close()  # the holder's session ends without releasing
        assert b.take_lease("s", "pass-b", now=START, expires_at=until).owner == "pass-a"
        assert b.take_lease("s", "pass-b", now=until, expires_at=until + timedelta(hours=1)).owner == "pass-b"
        assert b.release_lease("s", "pass-b")
    finally:
        a.close()
        b.close()


def test_lease_of_a_killed_process_is_taken_over_before_it_expires(pg_url: str) -> None:
    """A pass killed holding the lease (SIGKILL) does not block the scope until its row expires:
    the next pass on this host finds its process gone and takes the lease over, saying so."""
    holder = _python(
        """
        import sys, time
        from datetime import datetime, timedelta, UTC
        from reverie.dream.lease import new_owner
        from reverie.store.postgres import PostgresStore
        s = PostgresStore(sys.argv[1])
        now = datetime(2025, 1, 1, tzinfo=UTC)
        print(s.take_lease("s", new_owner(), now=now, expires_at=now + timedelta(days=1)).owner, flush=True)
        time.sleep(60)
        """,
        pg_url,
    )
    assert holder.stdout is not None
    doomed = holder.stdout.readline().strip()
    assert f"pid {holder.pid} " in doomed
    try:
        with Memory(pg_url, embedder="hash", clock=ManualClock(START)) as mem:
            with scope_lease(mem, "s") as refused:
                assert not refused and refused.row.owner == doomed  # alive: refused
            holder.send_signal(signal.SIGKILL)
            holder.wait(timeout=30)
            with scope_lease(mem, "s") as lease:
                assert lease and lease.took_over is not None and doomed in lease.took_over
            with scope_lease(mem, "s") as again:  # released at the end of the pass: free
                assert again and again.took_over is None
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(timeout=30)
        holder.stdout.close()
        assert holder.stderr is not None
        holder.stderr.close()


_WRITER = """
import sys
from reverie import Memory
url, n, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with Memory(url, embedder="hash") as mem:
    for k in range(count):
        item = mem.remember(f"writer {n} fact {k} about topic {k % 7}", scope="team")
        print(item.id, flush=True)  # acknowledged: the write has committed
"""

_DREAMER = """
import sys
from reverie import Memory
with Memory(sys.argv[1], embedder="hash") as mem:
    for _ in range(int(sys.argv[2])):
        mem.dream(scope="team")
    print("dreamt", flush=True)
"""


def test_four_writers_and_a_dream_pass_lose_no_acknowledged_write(pg_url: str) -> None:
    with Memory(pg_url, embedder="hash", clock=ManualClock(START)) as mem:
        mem.remember("seed fact so the scope exists", scope="team")
    count = 25
    procs = [_python(_WRITER, pg_url, str(n), str(count)) for n in range(4)]
    procs.append(_python(_DREAMER, pg_url, "3"))
    acked: list[str] = []
    for p in procs:
        out, err = p.communicate(timeout=240)
        assert p.returncode == 0, err[-2000:]
        acked += [line for line in out.split() if line != "dreamt"]
    assert len(acked) == 4 * count
    with Memory(pg_url, embedder="hash") as mem:
        found = mem.store.get_many("team", acked)
        assert sorted(found) == sorted(acked)  # 0 lost acknowledged writes
        report = mem.doctor()
        assert report.ok, report.problems
        before = state_of(mem, "team")
        mem.rebuild()  # projections equal a serial replay of the log
        assert state_of(mem, "team") == before

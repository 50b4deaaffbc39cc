"""Wait (bounded) until no other apt/dpkg process holds apt's locks; exit 1 saying what to do if one still does.

Why: at a machine's first boot unattended-upgrades often holds the dpkg lock for minutes, and
``apt-get`` then fails at once ("Could not get lock"). ``scripts/bootstrap`` runs this before
each ``apt-get`` (which also gets ``-o DPkg::Lock::Timeout`` for the moment in between).

apt takes POSIX (fcntl) write locks on these files, so taking and at once releasing the same
kind of lock tells whether one is held; ``/proc/locks`` names the holder.

Environment (for tests and impatient people): ``REVERIE_APT_LOCK_WAIT`` seconds to wait
(default 300), ``REVERIE_APT_LOCKS`` the lock files, separated by ``:``.
Standard library only: it runs on the system Python before any venv exists.
"""

from __future__ import annotations

import fcntl
import os
import sys
import time

DEFAULT_LOCKS = "/var/lib/dpkg/lock-frontend:/var/lib/dpkg/lock:/var/lib/apt/lists/lock:/var/cache/apt/archives/lock"
DEFAULT_WAIT = 300.0
POLL = 0.5
REPORT_EVERY = 30.0


def held(path: str) -> bool:
    """Whether another process holds a write lock on ``path`` (a missing or unreadable file is not held)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.lockf(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def holder(path: str) -> str:
    """``pid 1234 (unattended-upgr)`` for the process holding ``path``'s lock, if /proc says."""
    try:
        st = os.stat(path)
        with open("/proc/locks", encoding="ascii") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return "another process"
    for line in lines:
        fields = line.split()
        if len(fields) < 6 or fields[1] == "->":
            continue
        pid, dev_inode = fields[4], fields[5]
        if dev_inode.rsplit(":", 1)[-1] == str(st.st_ino):
            try:
                with open(f"/proc/{pid}/comm", encoding="utf-8") as fh:
                    return f"pid {pid} ({fh.read().strip()})"
            except OSError:
                return f"pid {pid}"
    return "another process"


def main() -> int:
    locks = [p for p in os.environ.get("REVERIE_APT_LOCKS", DEFAULT_LOCKS).split(":") if p]
    try:
        limit = float(os.environ.get("REVERIE_APT_LOCK_WAIT", DEFAULT_WAIT))
    except ValueError:
        print("bootstrap: REVERIE_APT_LOCK_WAIT must be a number of seconds", file=sys.stderr)
        return 2
    start = time.monotonic()
    last_report = None
    while True:
        busy = next((p for p in locks if held(p)), None)
        if busy is None:
            return 0
        waited = time.monotonic() - start
        if waited >= limit:
            print(
                f"bootstrap: gave up after {waited:.0f} s: {busy} is still held by {holder(busy)}.\n"
                "  Another apt/dpkg run (often unattended-upgrades at first boot) is installing packages.\n"
                "  Let it finish (see `ps -e | grep -E 'apt|dpkg|unattended'`), then run scripts/bootstrap again;\n"
                "  or wait longer: REVERIE_APT_LOCK_WAIT=900 bash scripts/bootstrap",
                file=sys.stderr,
            )
            return 1
        if last_report is None or waited - last_report >= REPORT_EVERY:
            print(
                f"bootstrap: waiting for {holder(busy)} to release {busy} "
                f"({waited:.0f} of at most {limit:.0f} s; another apt/dpkg run is installing packages)",
                file=sys.stderr,
            )
            last_report = waited
        time.sleep(POLL)


if __name__ == "__main__":
    sys.exit(main())

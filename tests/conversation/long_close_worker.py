"""A child process of ``test_long_message_mining``: close a conversation, or write another scope meanwhile.

Run as a script (``python long_close_worker.py MODE DB DIR``) so it imports only ``reverie`` and
the standard library. Both modes wait for ``DIR/go`` (a start line, so both run at once); the
result is a JSON file in ``DIR``:

- ``close``: closes conversation ``c`` of ``user:alice``, writes ``close.json`` (claims written,
  skipped), then touches ``DIR/done``;
- ``write``: until ``DIR/done`` exists (and at least once), opens the store and remembers a note
  in another scope; writes ``write.json``: the notes written and every error it saw.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from reverie import Memory, ReverieError


def main(mode: str, db: str, folder: str) -> None:
    here = Path(folder)
    (here / f"ready-{mode}").touch()
    while not (here / "go").exists():  # a start line, not a timing assumption
        time.sleep(0.005)
    if mode == "close":
        with Memory(db, embedder="hash") as mem:
            report = mem.conversation("c", scope="user:alice", create=False).close().extraction
        assert report is not None
        out: dict[str, Any] = {"claims": len(report.claims), "skipped": [s.reason for s in report.skipped]}
        (here / "close.json").write_text(json.dumps(out))
        (here / "done").touch()
        return
    written, errors = 0, []
    while True:
        finished = (here / "done").exists()
        try:
            with Memory(db, embedder="hash") as mem:  # opening takes the write lock too
                mem.remember(f"unrelated note {written}", scope="user:bob")
            written += 1
        except ReverieError as exc:
            errors.append(f"{exc.code}: {exc}")
            break
        if finished:
            break
    (here / "write.json").write_text(json.dumps({"written": written, "errors": errors}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])

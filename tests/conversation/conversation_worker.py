"""A child process of the conversation concurrency tests: open one store file, wait, then act on it.

Run as a script (``python conversation_worker.py SPEC.json``) so it imports only ``reverie`` and
the standard library. ``SPEC`` names the store, the conversation, what to do and where to write
the result. The worker says it is ready (``ready`` file), waits for the ``go`` file so that every
worker starts at once, and reports through a JSON file: what was acknowledged and every error
a caller saw, by its stable code.
"""

from __future__ import annotations

import json
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from reverie import ManualClock, Memory, ReverieError


def main(spec_path: str) -> None:
    spec = json.loads(Path(spec_path).read_text())
    result: dict[str, Any] = {"added": [], "closed": [], "recaps": [], "histories": [], "errors": []}
    # "manual": every worker's clock stands at the same instant (deterministic message times);
    # "system": each reads the wall clock, as separate processes in production do.
    manual = spec["clock"] == "manual"
    clock = ManualClock(datetime.fromisoformat(spec["start"])) if manual else None
    with Memory(spec["db"], embedder="hash", clock=clock, seed=spec["seed"] if manual else None) as mem:
        conv = mem.conversation(spec["conversation"], scope=spec["scope"])
        Path(spec["ready"]).touch()
        go = Path(spec["go"])
        while not go.exists():  # a start line, not a timing assumption: every worker is ready first
            time.sleep(0.005)
        for step in spec["steps"]:
            try:
                if step["op"] == "add":
                    m = conv.add(step["text"], speaker=step["speaker"])
                    result["added"].append({"id": m.id, "position": m.position, "turn": m.turn, "text": m.text})
                elif step["op"] == "add_purge":  # say something, then take it back
                    m = conv.add(step["text"], speaker=step["speaker"])
                    conv.purge(m.id, reason="taken back")
                    result["added"].append({"id": m.id, "position": m.position, "turn": m.turn, "text": m.text})
                elif step["op"] == "recap":
                    recap = mem.recap(scope=spec["scope"])
                    result["recaps"].append(recap.text if recap is not None else None)
                elif step["op"] == "history":
                    result["histories"].append(len(conv.history()))
                else:
                    closed = conv.close()
                    report = closed.extraction
                    result["closed"].append(
                        {
                            "recap": closed.recap.id if closed.recap is not None else None,
                            "mined": report.messages_mined,
                            "already": report.messages_already_mined,
                            "claims": report.claims,
                            "stopped": report.stopped,
                        }
                    )
            except ReverieError as exc:
                result["errors"].append([type(exc).__name__, exc.code, exc.message])
    Path(spec["out"]).write_text(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1])

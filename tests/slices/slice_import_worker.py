"""One process of ``test_slice_import_guards``: waits for the ``go`` file, imports a slice, prints its report."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from reverie import Memory
from reverie.errors import ReverieError


def main() -> None:
    db, slice_path, scope, ready, go = sys.argv[1:6]
    with Memory(db, embedder="hash") as mem:
        Path(ready).touch()
        deadline = time.monotonic() + 60
        while not Path(go).exists() and time.monotonic() < deadline:
            time.sleep(0.005)
        try:
            rep = mem.import_slice(Path(slice_path).read_text(), scope=scope)
            out = {"created": len(rep.created), "skipped": len(rep.skipped), "records": len(rep.records_created)}
        except ReverieError as exc:
            out = {"error": exc.code, "message": exc.message}
    print(json.dumps(out))


if __name__ == "__main__":
    main()

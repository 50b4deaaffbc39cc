"""Audit every package installed in .venv against PyPI's vulnerability data (run by scripts/test).

Why a wrapper around ``pip-audit`` rather than calling it bare: its exit status is 1 both for "a
vulnerable package is installed" and for "PyPI could not be reached" (a traceback), and it
reports packages it could not look up only in a table. This script tells the three apart and
says which one happened, with the fix:

- a known vulnerability → exit 1, listing package, version, advisory id and fixed versions;
- the vulnerability service unreachable → exit 2, naming the host and the network error;
- packages PyPI does not know (builds served by a local mirror, the editable project itself)
  cannot be audited: they are counted and named, and fail the run only with
  ``REVERIE_AUDIT_STRICT=1`` (set it where the index is PyPI itself, e.g. public CI).

``REVERIE_SKIP_PIP_AUDIT=1`` skips the audit, saying so, for working offline.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PIP_AUDIT = ROOT / ".venv" / "bin" / "pip-audit"
TIMEOUT_S = 600
NETWORK_ERRORS = ("ConnectionError", "ProxyError", "NewConnectionError", "NameResolutionError", "Timeout", "SSLError")


def main() -> int:
    if os.environ.get("REVERIE_SKIP_PIP_AUDIT") == "1":
        print("pip-audit: SKIPPED (REVERIE_SKIP_PIP_AUDIT=1): dependencies were not checked for known vulnerabilities")
        return 0
    t0 = time.perf_counter()
    try:
        run = subprocess.run(
            [str(PIP_AUDIT), "--skip-editable", "--progress-spinner", "off", "--format", "json"],
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        print(f"pip-audit: FAILED: no answer from the vulnerability service within {TIMEOUT_S} s", file=sys.stderr)
        return 2
    seconds = time.perf_counter() - t0
    try:
        deps = json.loads(run.stdout)["dependencies"]
    except (ValueError, KeyError, TypeError):
        last = (run.stderr.strip().splitlines() or ["(no output)"])[-1]
        if any(name in run.stderr for name in NETWORK_ERRORS):
            print(
                "pip-audit: FAILED: could not reach PyPI's vulnerability API (https://pypi.org/pypi/<name>/<version>"
                f"/json), so no package was audited.\n  {last}\n  Check the network or proxy and rerun; to run the "
                "other checks offline, set REVERIE_SKIP_PIP_AUDIT=1.",
                file=sys.stderr,
            )
        else:
            print(f"pip-audit: FAILED (exit {run.returncode}) without a report:\n{run.stderr[-2000:]}", file=sys.stderr)
        return 2
    vulnerable = [d for d in deps if d.get("vulns")]
    skipped = [d for d in deps if "skip_reason" in d]
    audited = len(deps) - len(skipped)
    unknown = [d["name"] for d in skipped if "not found on PyPI" in d["skip_reason"]]
    print(
        f"pip-audit: {len(deps)} installed packages, {audited} audited, {len(vulnerable)} vulnerable, "
        f"{len(skipped)} not auditable ({len(unknown)} unknown to PyPI), {seconds:.1f} s"
    )
    if unknown:
        more = f" and {len(unknown) - 12} more" if len(unknown) > 12 else ""
        print(f"  not on PyPI at the installed version (served by a local mirror): {', '.join(unknown[:12])}{more}")
    if audited == 0 and deps:
        print("  WARNING: no package could be audited here; this run proves nothing about known vulnerabilities")
    for d in vulnerable:
        for v in d["vulns"]:
            fixed = ", ".join(v.get("fix_versions") or []) or "no fixed version yet"
            print(f"  VULNERABLE {d['name']} {d['version']}: {v['id']} (fixed in: {fixed})", file=sys.stderr)
    if vulnerable:
        print("pip-audit: FAILED: upgrade the packages above (pyproject.toml bounds) and rerun", file=sys.stderr)
        return 1
    if skipped and os.environ.get("REVERIE_AUDIT_STRICT") == "1":
        print(f"pip-audit: FAILED (REVERIE_AUDIT_STRICT=1): {len(skipped)} packages not audited", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

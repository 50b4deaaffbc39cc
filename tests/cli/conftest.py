"""Fixtures for the CLI suite: a ``CliRunner`` on a real SQLite file in ``tmp_path``, hash embedder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from cli_support import Cli


@pytest.fixture
def run(tmp_path: Path) -> Cli:
    return Cli(tmp_path / "reverie.db")


@pytest.fixture
def seeded(run: Cli) -> Callable[[], dict[str, str]]:
    """Three items (one derived from another) and a link; returns their ids by name."""

    def seed() -> dict[str, str]:
        allergy = run.remember(
            "Alice is allergic to peanuts",
            "--kind=assertion",
            "--source=user_stated",
            "--key=alice.allergy",
            "--value=peanuts",
            "--importance=0.9",
            "--tag=health",
            '--meta={"turn": 3, "lang": "en"}',
        )
        tea = run.remember("Alice likes green tea", "--tag=food", "--importance=0.3")
        satay = run.remember("Alice avoids satay", "--kind=derivation", "--source=inferred", f"--parent={allergy}")
        run.ok("link", tea, allergy, "about")
        return {"allergy": allergy, "tea": tea, "satay": satay}

    return seed

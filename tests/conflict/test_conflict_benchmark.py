"""The committed contradiction set: well-formed, honestly split, and a regression guard."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

_BENCH = Path(__file__).resolve().parents[2] / "bench" / "contradictions.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_contradictions", _BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_dataset_is_large_balanced_and_covers_every_axis(bench: ModuleType) -> None:
    pairs = bench.load()
    assert len(pairs) >= 320
    assert len({p.id for p in pairs}) == len(pairs)
    labels = Counter(p.label for p in pairs)
    assert set(labels) == {"contradiction", "compatible"}
    assert 0.35 <= labels["contradiction"] / len(pairs) <= 0.55
    axes = Counter(p.axis for p in pairs if p.label == "contradiction")
    assert all(axes[axis] >= 30 for axis in ("polarity", "numeric", "entity", "temporal"))
    assert all(p.axis is None for p in pairs if p.label == "compatible")
    kinds = {p.kind for p in pairs if p.label == "compatible"}
    assert {"paraphrase", "refinement", "different_subject", "different_time", "change_over_time"} <= kinds


def test_dataset_has_templated_observations_and_lookalike_real_conflicts(bench: ModuleType) -> None:
    """Issue #13: label numbers and log times in one template are compatible; the same
    identified thing given two quantities is not. Both sides are measured, on both splits."""
    templated = [p for p in bench.load() if p.kind == "templated"]
    compatible = [p for p in templated if p.label == "compatible"]
    conflicts = [p for p in templated if p.label == "contradiction"]
    assert len(compatible) >= 100 and len(conflicts) >= 20
    assert len({p.a.text.split()[0] for p in compatible}) >= 40  # written with variety, not one template
    for group in (compatible, conflicts):
        assert {p.split for p in group} == {"dev", "test"}


def test_split_is_the_id_hash_fixed_before_tuning(bench: ModuleType) -> None:
    pairs = bench.load()
    assert all(p.split == bench.split_of(p.id) for p in pairs)
    dev = sum(p.split == "dev" for p in pairs)
    assert 0.4 <= dev / len(pairs) <= 0.6


def test_dev_split_meets_the_targets(bench: ModuleType) -> None:
    dev = [p for p in bench.load() if p.split == "dev"]
    overall = bench.evaluate(dev, bench.predict_reverie)["scores"]["overall"]
    assert overall.f1 >= 0.85
    assert overall.precision >= 0.9


def test_rules_beat_the_negation_baseline_on_dev(bench: ModuleType) -> None:
    dev = [p for p in bench.load() if p.split == "dev"]
    ours = bench.evaluate(dev, bench.predict_reverie)["scores"]["overall"]
    base = bench.evaluate(dev, bench.predict_baseline)["scores"]["overall"]
    assert ours.f1 > base.f1


def test_cli_writes_json(bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "scores.json"
    assert bench.main(["--split", "dev", "--json", str(out)]) == 0
    assert "overall" in capsys.readouterr().out
    assert '"reverie"' in out.read_text(encoding="utf-8")


def test_fresh_set_loads_with_its_frozen_split(bench: ModuleType) -> None:
    pairs = bench.load(bench.FRESH)
    assert len(pairs) >= 1000
    assert {p.split for p in pairs} == {"dev", "test"}
    assert {p.axis for p in pairs if p.label == "contradiction"} == {"polarity", "numeric", "entity", "temporal"}


def test_errors_of_the_fresh_test_split_are_never_listed(bench: ModuleType) -> None:
    assert bench.main(["--data", "fresh", "--split", "test", "--errors"]) == 2
    assert bench.main(["--data", "both", "--split", "all", "--errors"]) == 2


def test_meaning_reading_holds_its_gain_on_the_fresh_dev_split(bench: ModuleType) -> None:
    """Issue #16: paraphrased conflicts are found (recall was 0.29 before) without losing precision."""
    dev = [p for p in bench.load(bench.FRESH) if p.split == "dev"]
    overall = bench.evaluate(dev, bench.predict_reverie)["scores"]["overall"]
    assert overall.precision >= 0.95
    assert overall.recall >= 0.55

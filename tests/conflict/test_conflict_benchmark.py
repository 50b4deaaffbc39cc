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


def _write_pairs(path: Path, rows: list[dict[str, object]]) -> Path:
    import json

    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


_OUTSIDE = [
    {"id": "zz-secret-1", "a": "Quillon Vetch lives in Tromsø.", "b": "Quillon Vetch lives in Bodø.",
     "label": "contradiction", "axis": "entity", "kind": "verbatim"},
    {"id": "zz-secret-2", "a": "The Marrow kiln reaches 1200 °C.", "b": "The Marrow kiln reaches 900 °C.",
     "label": "contradiction", "axis": "numeric", "kind": "verbatim"},
    {"id": "zz-secret-3", "a": "The Marrow kiln is in shed 4.", "b": "The Marrow kiln is in shed 4.",
     "label": "compatible", "axis": None, "kind": "same"},
]  # fmt: skip


def test_data_file_scores_an_outside_set_and_never_prints_a_pair(
    bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    data = _write_pairs(tmp_path / "outside.jsonl", _OUTSIDE)
    out = tmp_path / "scores.json"
    assert bench.main(["--data-file", str(data), "--json", str(out)]) == 0
    printed = capsys.readouterr().out + out.read_text(encoding="utf-8")
    for row in _OUTSIDE:
        for field in ("id", "a", "b"):
            assert str(row[field]) not in printed
    scores = json.loads(out.read_text(encoding="utf-8"))["external"]["reverie"]
    assert scores["pairs"] == 3 and "errors" not in scores
    assert scores["scores"]["overall"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0, "support": 2}
    assert scores["scores"]["entity"]["support"] == 1 and scores["scores"]["numeric"]["recall"] == 1.0


def test_data_file_refuses_to_list_errors(bench: ModuleType, tmp_path: Path) -> None:
    data = _write_pairs(tmp_path / "outside.jsonl", _OUTSIDE)
    assert bench.main(["--data-file", str(data), "--errors"]) == 2
    assert bench.main(["--data-file", str(tmp_path / "missing.jsonl")]) == 2


def test_data_file_names_a_bad_line_by_number_and_never_by_its_text(bench: ModuleType, tmp_path: Path) -> None:
    bad = {**_OUTSIDE[0], "label": "contradicts"}
    data = _write_pairs(tmp_path / "outside.jsonl", [_OUTSIDE[1], bad])
    with pytest.raises(SystemExit) as caught:
        bench.main(["--data-file", str(data)])
    message = str(caught.value)
    assert message.startswith("line 2: label must be one of") and "Quillon" not in message

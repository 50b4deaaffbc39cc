"""LoCoMo loading, evidence clean-up, indexed-text formats and metrics, exactly as
``shared/bench/README.md`` defines them (section 1). No reverie import: the baselines use it too.

Definitions (per question, gold evidence set G, ranked de-duplicated turn ids R cut at 20):
recall@k = |G ∩ R[:k]| / |G|; hit@k = [G ∩ R[:k] ≠ ∅]; all@k = [G ⊆ R[:k]];
mrr = 1 / rank of the first gold turn in R[:20] (0 if none). Every metric is a micro average
over questions (each question weighs the same), per split and per category.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

SHA256 = "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4"
DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared/bench/locomo10.json"
KS = (1, 5, 10, 20)
MAX_K = max(KS)
CATEGORIES = (1, 2, 3, 4)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
SPLITS = {"dev": range(0, 5), "heldout": range(5, 10)}
TEXT_FORMATS = ("plain", "caption", "date")


@dataclass(frozen=True, slots=True)
class Turn:
    dia_id: str
    session: int
    index: int  # 1-based position in its session (the number after ':' in dia_id)
    speaker: str
    text: str
    caption: str | None
    date_text: str
    date: datetime


@dataclass(frozen=True, slots=True)
class Question:
    question: str
    category: int
    evidence: tuple[str, ...]


@dataclass(slots=True)
class Conversation:
    index: int
    sample_id: str
    speakers: tuple[str, str]
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    @property
    def split(self) -> str:
        return next(name for name, idx in SPLITS.items() if self.index in idx)


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def parse_date(text: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` → an aware UTC datetime (the data has no time zone; UTC is our choice)."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


_DIA = re.compile(r"^D:?(\d+):0*(\d+)$")


def clean_evidence(raw: Iterable[str], known: set[str]) -> tuple[str, ...]:
    """Split on ``;``/``,``/whitespace, fix ``D:11:26`` → ``D11:26`` and ``D30:05`` → ``D30:5``,
    de-duplicate (first-seen order) and drop ids that are not turns of the conversation."""
    out: dict[str, None] = {}
    for entry in raw:
        for part in re.split(r"[;,\s]+", str(entry)):
            m = _DIA.match(part.strip())
            if m is None:
                continue
            dia = f"D{int(m.group(1))}:{int(m.group(2))}"
            if dia in known:
                out.setdefault(dia)
    return tuple(out)


def load(path: Path, categories: Sequence[int] = CATEGORIES) -> list[Conversation]:
    data = json.loads(path.read_text(encoding="utf-8"))
    convs: list[Conversation] = []
    for i, sample in enumerate(data):
        c = sample["conversation"]
        conv = Conversation(i, sample["sample_id"], (c["speaker_a"], c["speaker_b"]))
        sessions = sorted(int(m.group(1)) for k in c if (m := re.fullmatch(r"session_(\d+)", k)))
        for s in sessions:
            turns = c[f"session_{s}"]
            if not turns:
                continue
            date_text = c[f"session_{s}_date_time"]
            for t in turns:
                conv.turns.append(
                    Turn(
                        dia_id=t["dia_id"],
                        session=s,
                        index=int(t["dia_id"].split(":")[1]),
                        speaker=t["speaker"],
                        text=t["text"],
                        caption=t.get("blip_caption"),
                        date_text=date_text,
                        date=parse_date(date_text),
                    )
                )
        known = {t.dia_id for t in conv.turns}
        for q in sample["qa"]:
            if q["category"] not in categories:
                continue
            ev = clean_evidence(q.get("evidence") or (), known)
            if ev:
                conv.questions.append(Question(q["question"], int(q["category"]), ev))
        convs.append(conv)
    return convs


def turn_text(turn: Turn, fmt: str) -> str:
    """The README's formats: ``plain`` = ``"<speaker>: <text>"``; ``caption`` adds
    ``" [shares an image: <caption>]"``; ``date`` prefixes the caption format with ``"[<date_time>] "``."""
    text = f"{turn.speaker}: {turn.text}"
    if fmt == "plain":
        return text
    if turn.caption:
        text += f" [shares an image: {turn.caption}]"
    if fmt == "caption":
        return text
    if fmt == "date":
        return f"[{turn.date_text}] {text}"
    raise ValueError(f"unknown text format {fmt!r}; use one of {TEXT_FORMATS}")


def dedupe(ranked: Iterable[str], k: int = MAX_K) -> list[str]:
    return list(dict.fromkeys(ranked))[:k]


def question_metrics(gold: Sequence[str], ranked: Sequence[str]) -> dict[str, float]:
    g = set(gold)
    r = dedupe(ranked)
    out: dict[str, float] = {}
    for k in KS:
        found = g.intersection(r[:k])
        out[f"recall@{k}"] = len(found) / len(g)
        out[f"hit@{k}"] = float(bool(found))
        out[f"all@{k}"] = float(found == g)
    out["mrr"] = next((1.0 / (i + 1) for i, d in enumerate(r) if d in g), 0.0)
    return out


def average(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    """Micro average: every question weighs the same."""
    if not rows:
        return {}
    return {key: sum(r[key] for r in rows) / len(rows) for key in rows[0]} | {"n": float(len(rows))}


def summarise(per_question: Sequence[tuple[str, int, dict[str, float]]]) -> dict[str, dict[str, dict[str, float]]]:
    """``(split, category, metrics)`` rows → ``{split|"all": {"all"|"cat<N>": averages}}``."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for split in (*SPLITS, "all"):
        rows = [(c, m) for s, c, m in per_question if split in ("all", s)]
        if not rows:
            continue
        block = {"all": average([m for _, m in rows])}
        for cat in CATEGORIES:
            cat_rows = [m for c, m in rows if c == cat]
            if cat_rows:
                block[f"cat{cat}"] = average(cat_rows)
        out[split] = block
    return out

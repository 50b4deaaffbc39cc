"""The default summariser: extractive and rule-based (no model), so it is deterministic and offline.

Why extractive: a summary replaces what the model no longer sees, so it must not invent; picking
the sentences that carry the span's most distinctive words (and saying who said them) keeps
every word traceable to a message in the archive, which stays whole. An LLM summariser can plug
in later behind the same function shape.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from reverie.model.conversation import Entry
from reverie.model.redact import REDACTED
from reverie.recall.normalize import STOPWORDS, tokenize

_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")


def _sentences(entries: Sequence[Entry]) -> list[tuple[int, str, str]]:
    """(order, who, sentence) for every sentence of the messages; tool calls become one line each."""
    out: list[tuple[int, str, str]] = []
    for e in entries:
        if e.text == REDACTED:
            continue
        if e.kind == "tool_call":
            out.append((len(out), "tool", f"{e.text} ({e.meta.get('status', 'ok')})"))
            continue
        who = "summary" if e.kind in ("summary", "recap") else (e.speaker or e.role or "someone")
        for s in _SENTENCE.findall(e.text):
            if s.strip():
                out.append((len(out), who, s.strip()))
    return out


def extractive_summary(entries: Sequence[Entry], budget_chars: int) -> str:
    """The most informative sentences of ``entries`` in their original order, within ``budget_chars``.

    A sentence's weight is the sum of its distinct content words' log-frequencies in the span
    (words said often are the topic), divided by the square root of its length; ties break by
    position. Each line reads ``who: sentence``.
    """
    sentences = _sentences(entries)
    words = [[t for t in set(tokenize(s)) if t not in STOPWORDS] for _, _, s in sentences]
    freq = Counter(t for ws in words for t in ws)

    def weight(i: int) -> float:
        ws = words[i]
        return sum(math.log1p(freq[t]) for t in ws) / math.sqrt(len(ws) + 1)

    ranked = sorted(range(len(sentences)), key=lambda i: (-weight(i), i))
    chosen: list[int] = []
    used = 0
    for i in ranked:
        line = f"{sentences[i][1]}: {sentences[i][2]}"
        if used + len(line) + 1 > budget_chars:
            continue
        chosen.append(i)
        used += len(line) + 1
    return "\n".join(f"{sentences[i][1]}: {sentences[i][2]}" for i in sorted(chosen))

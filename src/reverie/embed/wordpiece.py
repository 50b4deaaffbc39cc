"""MiniLM's WordPiece tokenizer, built in code from the vocabulary reverie ships.

Why in code: the only PyPI package that ships all-MiniLM-L6-v2's ``tokenizer.json`` declares
sentence-transformers (and so torch) as a dependency, which a plain ``pip install reverie``
must not pull in. The tokenizer is fully described by its vocabulary plus a handful of
settings, so reverie ships the vocabulary (``data/minilm_vocab.txt``, Apache-2.0, see
``data/NOTICE``) and rebuilds the rest here, setting for setting as that ``tokenizer.json``
has them:

- model: WordPiece, ``[UNK]`` for unknown words, ``##`` continuation prefix, words longer
  than 100 characters become ``[UNK]``;
- normaliser: BERT's (clean control characters, space out CJK ideographs, lowercase; accents
  are stripped because lowercasing is on and ``strip_accents`` is unset);
- pre-tokeniser: BERT's (split on whitespace and punctuation);
- post-processor: ``[CLS] A [SEP]`` (and ``[CLS] A [SEP] B [SEP]`` for pairs);
- added tokens: the five specials, matched verbatim in raw text as the file does.

``tests/embed/test_embed_wordpiece.py`` checks the result against golden token ids taken from
the original file, and ``tests/embed/tokenizer_golden.py`` re-runs the full comparison.
Truncation and padding are left to the caller (``MiniLMEmbedder`` sets them).
"""

from __future__ import annotations

import importlib
from importlib import resources
from typing import Any

from reverie.errors import EmbedderError

VOCAB_RESOURCE = "data/minilm_vocab.txt"
VOCAB_SIZE = 30522
#: The specials and their ids in the BERT uncased vocabulary.
SPECIAL_TOKENS = {"[PAD]": 0, "[UNK]": 100, "[CLS]": 101, "[SEP]": 102, "[MASK]": 103}
_MAX_CHARS_PER_WORD = 100


def load_vocab() -> dict[str, int]:
    """The shipped vocabulary: token -> id, the id being the token's line number from 0."""
    try:
        text = resources.files("reverie.embed").joinpath(VOCAB_RESOURCE).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError) as exc:
        raise EmbedderError(
            f"reverie's MiniLM vocabulary ({VOCAB_RESOURCE}) is missing: reinstall reverie ({exc})"
        ) from exc
    # Split on "\n" only: str.splitlines would also split on rare separators (U+0085, U+2028…).
    tokens = text.split("\n")
    if tokens and tokens[-1] == "":
        tokens.pop()
    vocab = {token: i for i, token in enumerate(tokens)}
    if (
        len(tokens) != VOCAB_SIZE
        or len(vocab) != VOCAB_SIZE
        or any(vocab.get(t) != i for t, i in SPECIAL_TOKENS.items())
    ):
        raise EmbedderError(f"reverie's MiniLM vocabulary ({VOCAB_RESOURCE}) is damaged: reinstall reverie")
    return vocab


def build_tokenizer(tokenizers: Any, vocab: dict[str, int] | None = None) -> Any:
    """A ``tokenizers.Tokenizer`` equal to all-MiniLM-L6-v2's, without truncation or padding.

    ``tokenizers`` is the imported module (the caller imports it lazily and reports its absence).
    """
    vocab = load_vocab() if vocab is None else vocab
    model = tokenizers.models.WordPiece(
        vocab, unk_token="[UNK]", continuing_subword_prefix="##", max_input_chars_per_word=_MAX_CHARS_PER_WORD
    )
    tokenizer = tokenizers.Tokenizer(model)
    tokenizer.normalizer = tokenizers.normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True
    )
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = tokenizers.processors.TemplateProcessing(
        single="[CLS] $A:0 [SEP]:0",
        pair="[CLS] $A:0 [SEP]:0 $B:1 [SEP]:1",
        special_tokens=[("[CLS]", SPECIAL_TOKENS["[CLS]"]), ("[SEP]", SPECIAL_TOKENS["[SEP]"])],
    )
    tokenizer.decoder = tokenizers.decoders.WordPiece(prefix="##", cleanup=True)
    # Registered in id order, as in tokenizer.json: they already exist in the vocabulary, so
    # this only makes them special (matched whole in raw text, skipped when decoding).
    specials = sorted(SPECIAL_TOKENS, key=SPECIAL_TOKENS.__getitem__)
    tokenizer.add_special_tokens([tokenizers.AddedToken(t, normalized=False, special=True) for t in specials])
    return tokenizer


def minilm_tokenizer() -> Any:
    """Build the tokenizer, importing ``tokenizers`` on first use; its absence is an ``EmbedderError``."""
    try:
        tokenizers = importlib.import_module("tokenizers")
        for sub in ("models", "normalizers", "pre_tokenizers", "processors", "decoders"):
            importlib.import_module(f"tokenizers.{sub}")
    except ImportError as exc:
        raise EmbedderError("MiniLMEmbedder needs the 'tokenizers' package: pip install tokenizers") from exc
    return build_tokenizer(tokenizers)


__all__ = ["SPECIAL_TOKENS", "VOCAB_SIZE", "build_tokenizer", "load_vocab", "minilm_tokenizer"]

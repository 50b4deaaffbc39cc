"""MiniLMEmbedder: the packaged all-MiniLM-L6-v2 int8 model, loaded once for this module."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from reverie.embed import Embedder, MiniLMEmbedder
from reverie.errors import EmbedderError, InvalidInputError


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    embedder = MiniLMEmbedder()
    embedder.load()
    return embedder


PARAPHRASES = [
    ("The cat sat on the mat.", "A kitten was sitting on the rug."),
    ("I prefer tea over coffee in the morning.", "In the mornings I'd rather drink tea than coffee."),
    ("The meeting was moved to Friday afternoon.", "We rescheduled the meeting for Friday after lunch."),
    ("Alice lives in Paris.", "Alice's home is in Paris, France."),
]


def test_identity_shape_and_unit_rows(minilm: MiniLMEmbedder) -> None:
    out = minilm.embed(["hello world", "a second sentence"])
    assert (minilm.name, minilm.dim) == ("minilm-l6-int8/1", 384)
    assert out.shape == (2, 384) and out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    assert isinstance(minilm, Embedder)


def test_paraphrases_are_clearly_closer_than_unrelated_pairs(minilm: MiniLMEmbedder) -> None:
    left = minilm.embed([a for a, _ in PARAPHRASES])
    right = minilm.embed([b for _, b in PARAPHRASES])
    sims = left @ right.T
    paraphrase = np.diag(sims)
    unrelated = sims[~np.eye(len(PARAPHRASES), dtype=bool)]
    assert paraphrase.min() > 0.5
    assert paraphrase.min() > unrelated.max() + 0.2


def test_same_input_gives_identical_output(minilm: MiniLMEmbedder) -> None:
    texts = ["determinism matters for stored vectors", "twice"]
    np.testing.assert_array_equal(minilm.embed(texts), minilm.embed(texts))


def test_batched_equals_one_by_one_in_input_order(minilm: MiniLMEmbedder) -> None:
    # Mixed lengths so that length-sorting reorders them and batches pad differently.
    texts = [("word " * (i % 23)) + f"sentence number {i} about {'cats' if i % 2 else 'stocks'}" for i in range(70)]
    batched = minilm.embed(texts)
    single = np.stack([minilm.embed([t])[0] for t in texts])
    np.testing.assert_allclose(batched, single, atol=1e-5)


def test_thread_count_does_not_change_vectors(minilm: MiniLMEmbedder) -> None:
    texts = ["thread counts change speed", "not the vectors"]
    one_thread = MiniLMEmbedder(threads=1, batch_size=1)
    assert one_thread.threads == 1
    np.testing.assert_allclose(one_thread.embed(texts), minilm.embed(texts), atol=1e-5)


def test_truncates_at_256_tokens_not_the_tokenizer_files_128(minilm: MiniLMEmbedder) -> None:
    base = "alpha beta gamma delta " * 50  # 200 words, one token each
    a, b = minilm.embed([base + "the end is about cooking", base + "the end is about astronomy"])
    assert float(a @ b) < 0.9999  # words 201+ (tokens < 256) still count
    long = "alpha beta gamma delta " * 80  # 320 tokens: the rest is cut off
    c, d = minilm.embed([long + "cooking recipes", long + "galaxies and stars"])
    np.testing.assert_array_equal(c, d)


def test_empty_and_blank_inputs(minilm: MiniLMEmbedder) -> None:
    assert minilm.embed([]).shape == (0, 384)
    out = minilm.embed(["", "real words", "  "])
    assert not out[0].any() and not out[2].any()
    assert float(np.linalg.norm(out[1])) == pytest.approx(1.0, abs=1e-5)
    assert minilm.embed([""]).shape == (1, 384)


def test_bad_arguments_are_refused(minilm: MiniLMEmbedder) -> None:
    with pytest.raises(InvalidInputError, match="not a single string"):
        minilm.embed("hello")
    with pytest.raises(InvalidInputError):
        MiniLMEmbedder(threads=0)
    with pytest.raises(InvalidInputError):
        MiniLMEmbedder(batch_size=0)


def test_missing_model_file_is_an_embedder_error(tmp_path: Path) -> None:
    with pytest.raises(EmbedderError, match="not found"):
        MiniLMEmbedder(model_path=tmp_path / "absent.onnx")


def test_corrupt_model_file_is_an_embedder_error_on_load(tmp_path: Path) -> None:
    corrupt = tmp_path / "model.onnx"
    corrupt.write_bytes(b"this is not an onnx protobuf")
    embedder = MiniLMEmbedder(model_path=corrupt)  # construction only checks the file exists
    with pytest.raises(EmbedderError, match="could not load MiniLM"):
        embedder.embed(["hello"])

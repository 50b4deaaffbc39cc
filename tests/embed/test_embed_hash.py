"""HashEmbedder: deterministic lexical vectors without a model."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from reverie.embed import Embedder, HashEmbedder
from reverie.errors import InvalidInputError


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b))


def test_rows_are_unit_float32_of_the_configured_width() -> None:
    embedder = HashEmbedder(dim=64)
    out = embedder.embed(["alpha beta", "gamma", "x" * 5000])
    assert out.shape == (3, 64) and out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-6)
    assert embedder.dim == 64 and embedder.name == "hash-64/1"
    assert isinstance(embedder, Embedder)


def test_texts_sharing_words_are_closer_than_unrelated_texts() -> None:
    a, b, c = HashEmbedder().embed(
        [
            "the user prefers green tea in the morning",
            "user prefers tea",
            "quarterly revenue grew by ten percent",
        ]
    )
    assert cosine(a, b) > 0.5
    assert abs(cosine(a, c)) < 0.2
    assert cosine(a, b) > cosine(a, c) + 0.3


def test_shared_trigrams_pull_word_forms_together() -> None:
    remember, remembered, banana = HashEmbedder().embed(["remember", "remembered", "banana"])
    assert cosine(remember, remembered) > 0.3
    assert cosine(remember, remembered) > abs(cosine(remember, banana)) + 0.2


def test_case_and_punctuation_do_not_matter() -> None:
    a, b = HashEmbedder().embed(["Hello, World!", "hello world"])
    np.testing.assert_array_equal(a, b)


def test_blank_text_is_zero_and_symbol_only_text_is_not() -> None:
    out = HashEmbedder().embed(["", "   \n", "?!", "🙂", "_"])
    assert not out[0].any() and not out[1].any()
    np.testing.assert_allclose(np.linalg.norm(out[2:], axis=1), 1.0, atol=1e-6)
    assert cosine(out[2], out[3]) < 0.99  # different symbols, different vectors


def test_empty_input_gives_zero_rows() -> None:
    assert HashEmbedder(dim=32).embed([]).shape == (0, 32)


def test_golden_vector_pins_the_hash_function() -> None:
    # If this changes, stored vectors no longer match: bump the name's /1 suffix.
    v = HashEmbedder().embed(["Hello world"])[0]
    nonzero = np.flatnonzero(v)
    assert nonzero.tolist()[:6] == [4, 123, 137, 149, 155, 180]
    assert v[4] == pytest.approx(0.5256, abs=1e-4)
    assert v[137] == pytest.approx(-0.2115, abs=1e-4)


def test_vectors_do_not_depend_on_python_hash_randomisation() -> None:
    code = "from reverie.embed import HashEmbedder\nprint(HashEmbedder().embed(['stable words']).tobytes().hex())"
    outputs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        outputs.add(result.stdout)
    assert outputs == {HashEmbedder().embed(["stable words"]).tobytes().hex() + "\n"}


def test_seed_gives_a_different_space_and_name() -> None:
    a = HashEmbedder(seed=0).embed(["same text"])[0]
    b = HashEmbedder(seed=1).embed(["same text"])[0]
    assert abs(cosine(a, b)) < 0.5
    assert HashEmbedder(seed=1).name == "hash-384-seed1/1"
    assert HashEmbedder().name == "hash-384/1"


def test_large_batches_equal_one_by_one_and_caching_changes_nothing() -> None:
    texts = [f"item {i} about topic {i % 17} and word{i % 101}" for i in range(5000)]  # > one block
    cached = HashEmbedder().embed(texts)
    uncached = HashEmbedder(cache_size=0).embed(texts)
    tiny_cache = HashEmbedder(cache_size=3)
    np.testing.assert_array_equal(cached, uncached)
    np.testing.assert_array_equal(cached, tiny_cache.embed(texts))
    for i in (0, 2047, 2048, 4999):
        np.testing.assert_array_equal(cached[i], HashEmbedder().embed([texts[i]])[0])


@pytest.mark.parametrize("kwargs", [{"dim": 0}, {"dim": 1}, {"dim": True}, {"seed": -1}, {"seed": 2**64}])
def test_invalid_parameters_are_refused(kwargs: dict[str, int]) -> None:
    with pytest.raises(InvalidInputError):
        HashEmbedder(**kwargs)


def test_a_single_string_or_non_string_item_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="not a single string"):
        HashEmbedder().embed("hello")
    with pytest.raises(InvalidInputError, match=r"texts\[1\] must be str"):
        HashEmbedder().embed(["ok", 3])  # type: ignore[list-item]

"""OpenAICompatibleEmbedder against a real HTTP server on 127.0.0.1 (no mocks, no other hosts)."""

from __future__ import annotations

import socket
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from embed_fake_server import FakeServer, Reply, Request, embeddings_reply, json_reply, toy_vector

from reverie.embed import Embedder, OpenAICompatibleEmbedder
from reverie.errors import EmbedderError, InvalidInputError


def unit(vector: list[float]) -> np.ndarray:
    v = np.asarray(vector, dtype=np.float64)
    return (v / np.linalg.norm(v)).astype(np.float32)


def test_happy_path_orders_rows_by_index_and_sends_the_openai_request(fake_server: FakeServer) -> None:
    embedder = OpenAICompatibleEmbedder(fake_server.url(), "toy-model", api_key="sk-test")
    texts = ["alpha", "beta gamma", "delta delta", "a"]

    out = embedder.embed(texts)

    assert out.shape == (4, 4) and out.dtype == np.float32
    np.testing.assert_allclose(out, np.stack([unit(toy_vector(t)) for t in texts]), atol=1e-6)
    (request,) = fake_server.requests
    assert request.body == {"model": "toy-model", "input": texts}
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.headers["content-type"] == "application/json"
    assert embedder.name == "openai:toy-model@127.0.0.1"
    assert isinstance(embedder, Embedder)


def test_rows_without_index_keep_response_order(fake_server: FakeServer) -> None:
    def no_index(request: Request) -> Reply:
        return json_reply({"data": [{"embedding": toy_vector(t)} for t in request.body["input"]]})

    fake_server.routes["/v1/embeddings"] = no_index
    out = OpenAICompatibleEmbedder(fake_server.url(), "m").embed(["x", "yy"])
    np.testing.assert_allclose(out, np.stack([unit(toy_vector("x")), unit(toy_vector("yy"))]), atol=1e-6)


def test_blank_texts_are_not_sent_and_get_zero_rows(fake_server: FakeServer) -> None:
    embedder = OpenAICompatibleEmbedder(fake_server.url(), "m", dim=4)

    out = embedder.embed(["", "real text", "   "])

    assert fake_server.requests[0].body["input"] == ["real text"]
    assert not out[0].any() and not out[2].any()
    assert np.linalg.norm(out[1]) == pytest.approx(1.0, abs=1e-6)
    assert embedder.embed([]).shape == (0, 4)
    assert len(fake_server.requests) == 1


def test_large_inputs_are_split_into_batches_in_order(fake_server: FakeServer) -> None:
    embedder = OpenAICompatibleEmbedder(fake_server.url(), "m", batch_size=2)
    texts = [f"text number {'a' * i}" for i in range(5)]

    out = embedder.embed(texts)

    assert [r.body["input"] for r in fake_server.requests] == [texts[0:2], texts[2:4], texts[4:5]]
    np.testing.assert_allclose(out, np.stack([unit(toy_vector(t)) for t in texts]), atol=1e-6)


def test_dim_is_learned_with_one_probe_request_when_not_given(fake_server: FakeServer) -> None:
    embedder = OpenAICompatibleEmbedder(fake_server.url(), "m")
    assert embedder.dim == 4
    assert embedder.dim == 4
    assert len(fake_server.requests) == 1


def test_server_error_becomes_embedder_error_with_status_and_body(fake_server: FakeServer) -> None:
    fake_server.routes["/v1/embeddings"] = lambda r: json_reply({"error": {"message": "model not loaded"}}, 500)
    with pytest.raises(EmbedderError, match=r"HTTP 500.*model not loaded"):
        OpenAICompatibleEmbedder(fake_server.url(), "m").embed(["hello"])


def test_api_key_never_appears_in_errors_or_repr(fake_server: FakeServer) -> None:
    fake_server.routes["/v1/embeddings"] = lambda r: Reply(401, b"unauthorized")
    embedder = OpenAICompatibleEmbedder(fake_server.url(), "m", api_key="sk-very-secret")
    with pytest.raises(EmbedderError) as info:
        embedder.embed(["hello"])
    assert "sk-very-secret" not in str(info.value)
    assert "sk-very-secret" not in repr(embedder)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", "malformed JSON"),
        (b'{"object": "list"}', "no 'data' list"),
        (b'{"data": [{"index": 0, "embedding": "abc"}]}', "numeric 'embedding'"),
        (b'{"data": [{"index": 0, "embedding": [1, true]}]}', "numeric 'embedding'"),
        (b'{"data": [{"index": 5, "embedding": [1, 2]}]}', "invalid indices"),
        (b'{"data": [{"index": 0, "embedding": [NaN, 1]}]}', "NaN"),
        (b'{"data": [{"index": 0, "embedding": [0, 0]}]}', "zero vector"),
        (b'{"data": [{"index": 0, "embedding": []}]}', "inconsistent widths"),
    ],
)
def test_malformed_responses_become_embedder_errors(fake_server: FakeServer, body: bytes, message: str) -> None:
    fake_server.routes["/v1/embeddings"] = lambda r: Reply(200, body)
    with pytest.raises(EmbedderError, match=message):
        OpenAICompatibleEmbedder(fake_server.url(), "m").embed(["hello"])


def test_wrong_number_of_embeddings_is_an_error(fake_server: FakeServer) -> None:
    fake_server.routes["/v1/embeddings"] = lambda r: json_reply({"data": [{"index": 0, "embedding": [1.0, 2.0]}]})
    with pytest.raises(EmbedderError, match="returned 1 embeddings for 2 inputs"):
        OpenAICompatibleEmbedder(fake_server.url(), "m").embed(["one", "two"])


def test_inconsistent_widths_within_a_response_are_an_error(fake_server: FakeServer) -> None:
    def ragged(request: Request) -> Reply:
        return json_reply({"data": [{"index": 0, "embedding": [1.0, 2.0]}, {"index": 1, "embedding": [1.0]}]})

    fake_server.routes["/v1/embeddings"] = ragged
    with pytest.raises(EmbedderError, match="inconsistent widths"):
        OpenAICompatibleEmbedder(fake_server.url(), "m").embed(["one", "two"])


def test_width_different_from_configured_dim_is_an_error(fake_server: FakeServer) -> None:
    with pytest.raises(EmbedderError, match="returned 4-d vectors, expected 8"):
        OpenAICompatibleEmbedder(fake_server.url(), "m", dim=8).embed(["hello"])


def test_width_change_between_calls_is_an_error(fake_server: FakeServer) -> None:
    embedder = OpenAICompatibleEmbedder(fake_server.url(), "m")
    embedder.embed(["first"])
    fake_server.routes["/v1/embeddings"] = lambda r: embeddings_reply(r, vector=lambda t: [1.0, 2.0, 3.0])
    with pytest.raises(EmbedderError, match="returned 3-d vectors, expected 4"):
        embedder.embed(["second"])


def test_redirect_to_another_loopback_path_is_followed(fake_server: FakeServer) -> None:
    fake_server.routes["/v1/embeddings"] = lambda r: Reply(307, headers={"Location": "/moved/v1/embeddings"})
    fake_server.routes["/moved/v1/embeddings"] = embeddings_reply
    embedder = OpenAICompatibleEmbedder(fake_server.url(), "m", api_key="k")

    out = embedder.embed(["hello"])

    np.testing.assert_allclose(out[0], unit(toy_vector("hello")), atol=1e-6)
    assert [r.path for r in fake_server.requests] == ["/v1/embeddings", "/moved/v1/embeddings"]
    assert fake_server.requests[1].body == {"model": "m", "input": ["hello"]}  # still a POST with the body
    assert fake_server.requests[1].headers["authorization"] == "Bearer k"  # same origin keeps the key


def test_cross_origin_redirect_drops_the_api_key(fake_server: FakeServer, second_server: FakeServer) -> None:
    fake_server.routes["/v1/embeddings"] = lambda r: Reply(308, headers={"Location": second_server.url()})
    embedder = OpenAICompatibleEmbedder(fake_server.url(), "m", api_key="sk-secret")

    embedder.embed(["hello"])

    assert fake_server.requests[0].headers["authorization"] == "Bearer sk-secret"
    (forwarded,) = second_server.requests
    assert "authorization" not in forwarded.headers


@pytest.mark.parametrize(
    "target",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/latest/meta-data/",
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://169.254.10.10/",
        "http://[::ffff:169.254.169.254]/",
        "http://10.0.0.1/v1/embeddings",
        "https://0.0.0.0/",
        "file:///etc/passwd",
        "http://user:pw@127.0.0.1/v1/embeddings",
    ],
)
def test_redirect_to_a_forbidden_address_is_refused_without_following(fake_server: FakeServer, target: str) -> None:
    fake_server.routes["/v1/embeddings"] = lambda r: Reply(307, headers={"Location": target})
    with pytest.raises(EmbedderError, match=r"refused|scheme|credentials"):
        OpenAICompatibleEmbedder(fake_server.url(), "m").embed(["hello"])
    assert len(fake_server.requests) == 1


def test_redirect_loop_stops_after_three_hops(fake_server: FakeServer) -> None:
    fake_server.routes["/v1/embeddings"] = lambda r: Reply(307, headers={"Location": "/v1/embeddings"})
    with pytest.raises(EmbedderError, match="redirected more than 3 times"):
        OpenAICompatibleEmbedder(fake_server.url(), "m").embed(["hello"])
    assert len(fake_server.requests) == 4


@pytest.mark.parametrize("status", [301, 302, 303])
def test_redirects_that_would_turn_post_into_get_are_refused(fake_server: FakeServer, status: int) -> None:
    fake_server.routes["/v1/embeddings"] = lambda r: Reply(status, headers={"Location": "/elsewhere"})
    with pytest.raises(EmbedderError, match=f"HTTP {status}.*configure the final URL"):
        OpenAICompatibleEmbedder(fake_server.url(), "m").embed(["hello"])
    assert len(fake_server.requests) == 1


def test_timeout_becomes_embedder_error() -> None:
    # A listening socket that never accepts: the kernel completes the handshake, nobody answers.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        port = silent.getsockname()[1]
        embedder = OpenAICompatibleEmbedder(f"http://127.0.0.1:{port}", "m", timeout=0.2)
        with pytest.raises(EmbedderError, match=r"timed out after 0\.2 s"):
            embedder.embed(["hello"])


def test_connection_refused_becomes_embedder_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # bound but not listening: connections are refused
        embedder = OpenAICompatibleEmbedder(f"http://127.0.0.1:{port}", "m", timeout=2)
        with pytest.raises(EmbedderError, match="failed: ConnectionRefusedError"):
            embedder.embed(["hello"])


class SwitchingResolver:
    """A DNS seam whose answer can change between calls, as a rebinding attacker's would."""

    def __init__(self, answer: Sequence[str]) -> None:
        self.answer = list(answer)
        self.calls = 0

    def __call__(self, host: str, port: int) -> Sequence[str]:
        self.calls += 1
        return self.answer


def test_host_is_re_resolved_and_pinned_before_each_request(fake_server: FakeServer) -> None:
    resolver = SwitchingResolver(["127.0.0.1"])
    embedder = OpenAICompatibleEmbedder(f"http://embeddings.test:{fake_server.port}/v1", "m", resolver=resolver, dim=4)
    embedder.embed(["first"])  # connects to the checked 127.0.0.1, with the name in the Host header
    assert fake_server.requests[0].headers["host"] == f"embeddings.test:{fake_server.port}"
    assert embedder.name == "openai:m@embeddings.test"

    resolver.answer = ["169.254.169.254"]
    with pytest.raises(EmbedderError, match="cloud metadata"):
        embedder.embed(["second"])
    assert len(fake_server.requests) == 1
    assert resolver.calls == 3  # construction, first request, second request


@pytest.mark.parametrize(
    ("given", "expected_path"),
    [
        ("", "/v1/embeddings"),
        ("/", "/v1/embeddings"),
        ("/v1", "/v1/embeddings"),
        ("/v1/", "/v1/embeddings"),
        ("/v1/embeddings", "/v1/embeddings"),
        ("/proxy/openai/v1", "/proxy/openai/v1/embeddings"),
    ],
)
def test_url_may_be_root_api_base_or_full_endpoint(given: str, expected_path: str) -> None:
    embedder = OpenAICompatibleEmbedder(f"http://127.0.0.1:9{given}", "m", dim=3)
    assert embedder.url == f"http://127.0.0.1:9{expected_path}"


def test_construction_validates_the_url_and_arguments() -> None:
    with pytest.raises(InvalidInputError, match="plain http is only allowed to loopback"):
        OpenAICompatibleEmbedder("http://8.8.8.8/v1", "m")
    with pytest.raises(InvalidInputError, match="private address"):
        OpenAICompatibleEmbedder("https://10.0.0.1/v1", "m")
    assert OpenAICompatibleEmbedder("https://10.0.0.1/v1", "m", allow_private=True).name == "openai:m@10.0.0.1"
    bad_arguments: list[dict[str, Any]] = [
        {"model": ""},
        {"dim": 0},
        {"timeout": 0},
        {"batch_size": 0},
        {"api_key": "a\nb"},  # would inject a header line
    ]
    for bad in bad_arguments:
        kwargs: dict[str, Any] = {"url": "http://127.0.0.1:1", "model": "m", **bad}
        with pytest.raises(InvalidInputError):
            OpenAICompatibleEmbedder(**kwargs)


def test_single_string_is_refused(fake_server: FakeServer) -> None:
    with pytest.raises(InvalidInputError, match="not a single string"):
        OpenAICompatibleEmbedder(fake_server.url(), "m").embed("hello")
    assert fake_server.requests == []


def test_redirect_without_location_is_an_error(fake_server: FakeServer) -> None:
    fake_server.routes["/v1/embeddings"] = lambda r: Reply(307)
    with pytest.raises(EmbedderError, match="HTTP 307 without a Location"):
        OpenAICompatibleEmbedder(fake_server.url(), "m").embed(["hello"])

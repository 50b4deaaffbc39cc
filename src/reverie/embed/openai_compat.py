"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, Ollama, vLLM, …).

Stdlib only (``http.client``), deliberately, because the guard in ``netguard`` must hold for
every byte sent:

- each request re-resolves and re-checks the host, then connects to exactly the addresses
  that passed (a DNS answer cannot change in between: no rebinding window);
- redirects are never followed blindly: a 307/308 target is checked by the same rules (at
  most 3 hops) and the API key is dropped when the origin changes; 301/302/303 are refused
  because they would turn the POST into a GET;
- proxy environment variables are ignored (urllib would honour them and connect elsewhere);
- every failure becomes ``EmbedderError`` naming the endpoint, never the API key.
"""

from __future__ import annotations

import http.client
import json
import ssl
import threading
from collections.abc import Sequence
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

import numpy as np
import numpy.typing as npt

from reverie.embed.base import Matrix, as_text_list, empty_matrix, is_blank, l2_normalise_rows
from reverie.embed.netguard import Endpoint, Resolver, check_endpoint, pinned_connection
from reverie.errors import EmbedderError, InvalidInputError

MAX_REDIRECTS = 3
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
_FOLLOWED = frozenset({307, 308})
_REFUSED_REDIRECTS = frozenset({301, 302, 303})
_DIM_PROBE_TEXT = "dimension probe"


class OpenAICompatibleEmbedder:
    """POSTs ``{"model", "input": [...]}`` batches and returns unit rows in input order.

    ``url`` may be the full endpoint (``…/v1/embeddings``), the API base (``…/v1``) or the
    server root (``http://127.0.0.1:11434``). ``dim`` is checked against every response when
    given; otherwise it is learned from the first response (reading ``.dim`` first sends one
    probe request). Blank texts are not sent; they get zero rows.
    """

    def __init__(
        self,
        url: str,
        model: str,
        api_key: str | None = None,
        dim: int | None = None,
        timeout: float = 30,
        allow_private: bool = False,
        *,
        batch_size: int = 64,
        allow_loopback_http: bool = True,
        resolver: Resolver | None = None,
    ) -> None:
        self._model = _check_model(model)
        self._api_key = _check_api_key(api_key)
        self._dim = _check_optional_dim(dim)
        self._timeout = _check_positive_number("timeout", timeout)
        self._batch_size = int(_check_positive_number("batch_size", batch_size))
        self._allow_loopback_http = allow_loopback_http
        self._allow_private = allow_private
        self._resolver = resolver
        endpoint = self._check(_embeddings_url(url))
        self._url = endpoint.url
        self._host = endpoint.host
        self._tls = ssl.create_default_context() if endpoint.scheme == "https" else None
        self._dim_lock = threading.Lock()

    @property
    def name(self) -> str:
        return f"openai:{self._model}@{self._host}"

    @property
    def url(self) -> str:
        return self._url

    @property
    def dim(self) -> int:
        """The vector width; if neither given nor yet seen, one probe request learns it."""
        if self._dim is None:
            self._embed_batch([_DIM_PROBE_TEXT])  # sets self._dim, or raises
        if self._dim is None:  # pragma: no cover - _embed_batch always sets it
            raise EmbedderError(f"could not learn the vector width of {self._url}")
        return self._dim

    def __repr__(self) -> str:  # never show the API key
        return f"OpenAICompatibleEmbedder(name={self.name!r}, url={self._url!r})"

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Unit rows in input order; blank texts get zero rows and are not sent."""
        items = as_text_list(texts)
        live = [i for i, text in enumerate(items) if not is_blank(text)]
        if not live:
            return np.zeros((len(items), self.dim), dtype=np.float32) if items else empty_matrix(self.dim)
        blocks = [
            self._embed_batch([items[i] for i in live[start : start + self._batch_size]])
            for start in range(0, len(live), self._batch_size)
        ]
        out = np.zeros((len(items), self.dim), dtype=np.float32)
        out[live] = np.concatenate(blocks)
        return out

    def _embed_batch(self, texts: list[str]) -> Matrix:
        body = json.dumps({"model": self._model, "input": texts}).encode("utf-8")
        payload = self._post(body)
        vectors = _parse_vectors(payload, len(texts), self._url)
        self._check_dim(vectors.shape[1])
        return l2_normalise_rows(vectors, allow_zero=False)

    def _check_dim(self, width: int) -> None:
        with self._dim_lock:
            if self._dim is None:
                self._dim = width
        if width != self._dim:
            raise EmbedderError(f"embedding endpoint {self._url} returned {width}-d vectors, expected {self._dim}")

    def _post(self, body: bytes) -> bytes:
        """POST, following only checked 307/308 redirects; the response body of a 2xx."""
        url = self._url
        headers = self._headers()
        for _hop in range(MAX_REDIRECTS + 1):
            endpoint = self._recheck(url)
            status, location, payload = _send(endpoint, body, headers, self._timeout, self._tls)
            if status in _FOLLOWED and not location:
                raise EmbedderError(f"embedding endpoint {endpoint.url} sent HTTP {status} without a Location")
            if status in _FOLLOWED and location:
                next_url = urljoin(endpoint.url, location)
                if _origin(next_url) != _origin(endpoint.url):
                    headers.pop("Authorization", None)  # never hand the key to another host
                url = next_url
                continue
            if status in _REFUSED_REDIRECTS:
                raise EmbedderError(
                    f"embedding endpoint {endpoint.url} redirected (HTTP {status}) to {location!r}; "
                    "a POST cannot follow it safely: configure the final URL instead"
                )
            if not 200 <= status < 300:
                raise EmbedderError(f"embedding endpoint {endpoint.url} answered HTTP {status}: {_snippet(payload)}")
            return payload
        raise EmbedderError(f"embedding endpoint {self._url} redirected more than {MAX_REDIRECTS} times")

    def _recheck(self, url: str) -> Endpoint:
        """Resolve and check again now: the answer at construction may be stale or rebound."""
        try:
            return self._check(url)
        except InvalidInputError as exc:
            raise EmbedderError(exc.message) from exc

    def _check(self, url: str) -> Endpoint:
        return check_endpoint(
            url,
            allow_loopback_http=self._allow_loopback_http,
            allow_private=self._allow_private,
            resolver=self._resolver,
        )

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "reverie"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers


def _send(
    endpoint: Endpoint, body: bytes, headers: dict[str, str], timeout: float, tls: ssl.SSLContext | None
) -> tuple[int, str | None, bytes]:
    """One request on a fresh connection: (status, Location header, body)."""
    conn = pinned_connection(endpoint, timeout, tls)
    try:
        conn.request("POST", endpoint.target, body=body, headers=headers)
        response = conn.getresponse()
        payload = response.read(MAX_RESPONSE_BYTES + 1)
    except TimeoutError as exc:
        raise EmbedderError(f"embedding endpoint {endpoint.url} timed out after {timeout:g} s") from exc
    except (OSError, http.client.HTTPException, ValueError) as exc:
        raise EmbedderError(f"request to embedding endpoint {endpoint.url} failed: {exc!r}") from exc
    finally:
        conn.close()
    if len(payload) > MAX_RESPONSE_BYTES:
        raise EmbedderError(f"embedding endpoint {endpoint.url} sent more than {MAX_RESPONSE_BYTES} bytes")
    return response.status, response.getheader("Location"), payload


def _parse_vectors(payload: bytes, expected: int, url: str) -> npt.NDArray[np.float64]:
    """The ``data[*].embedding`` rows of an OpenAI response, ordered by ``index``."""
    try:
        doc = json.loads(payload)
    except (ValueError, UnicodeDecodeError) as exc:
        raise EmbedderError(f"embedding endpoint {url} returned malformed JSON: {_snippet(payload)}") from exc
    data = doc.get("data") if isinstance(doc, dict) else None
    if not isinstance(data, list):
        raise EmbedderError(f"embedding endpoint {url} response has no 'data' list: {_snippet(payload)}")
    if len(data) != expected:
        raise EmbedderError(f"embedding endpoint {url} returned {len(data)} embeddings for {expected} inputs")
    rows = [_embedding_of(item, url) for item in _in_index_order(data, url)]
    widths = {len(row) for row in rows}
    if len(widths) != 1 or 0 in widths:
        raise EmbedderError(f"embedding endpoint {url} returned vectors of inconsistent widths {sorted(widths)}")
    return np.asarray(rows, dtype=np.float64)


def _in_index_order(data: list[Any], url: str) -> list[Any]:
    """Items sorted by ``index``, which must be a permutation of 0..n-1 (or absent on all)."""
    if not all(isinstance(item, dict) for item in data):
        raise EmbedderError(f"embedding endpoint {url} returned a non-object item in 'data'")
    indices = [item.get("index") for item in data]
    if all(index is None for index in indices):
        return data
    if not all(type(index) is int for index in indices) or sorted(indices) != list(range(len(data))):
        raise EmbedderError(f"embedding endpoint {url} returned invalid indices {indices[:10]}")
    return [item for _, item in sorted(zip(indices, data, strict=True), key=lambda pair: pair[0])]


def _embedding_of(item: dict[str, Any], url: str) -> list[float]:
    vector = item.get("embedding")
    if not isinstance(vector, list) or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in vector):
        raise EmbedderError(f"embedding endpoint {url} returned an item without a numeric 'embedding' list")
    return vector


def _snippet(payload: bytes) -> str:
    """A short, single-line excerpt of a response body for error messages."""
    text = payload[:300].decode("utf-8", errors="replace")
    return " ".join(text.split())[:200] or "(empty body)"


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    return parts.scheme.lower(), (parts.hostname or "").lower(), parts.port


def _embeddings_url(url: str) -> str:
    """Accept the endpoint, the ``/v1`` base or the server root; return the endpoint URL."""
    if not isinstance(url, str):
        raise InvalidInputError(f"endpoint URL must be a string, got {type(url).__name__}")
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    if not path.endswith("/embeddings"):
        path += "/embeddings" if path.endswith("/v1") else "/v1/embeddings"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, parts.fragment))


def _check_model(model: str) -> str:
    if not isinstance(model, str) or not model.strip():
        raise InvalidInputError("OpenAICompatibleEmbedder model must be a non-empty string")
    return model


def _check_api_key(api_key: str | None) -> str | None:
    if api_key is None:
        return None
    if not isinstance(api_key, str) or any(ord(ch) < 32 or ord(ch) == 127 for ch in api_key):
        raise InvalidInputError("api_key must be a string without control characters")
    return api_key or None


def _check_optional_dim(dim: int | None) -> int | None:
    if dim is None:
        return None
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
        raise InvalidInputError(f"dim must be a positive int, got {dim!r}")
    return dim


def _check_positive_number(label: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise InvalidInputError(f"{label} must be a positive number, got {value!r}")
    return float(value)


__all__ = ["MAX_REDIRECTS", "OpenAICompatibleEmbedder"]

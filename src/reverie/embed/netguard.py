"""Which URLs an embedding endpoint may live at — the guard against server-side request forgery.

An endpoint URL often comes from configuration a less trusted party can influence (a shared
config file, an admin form of a hosted deployment). Unchecked, it turns "embed this text" into
"POST to the cloud metadata service" or "probe the office network". The rules:

- ``https`` to public addresses; plain ``http`` only to loopback (local Ollama / vLLM), or to a
  private address when the caller has opted into private addresses (a LAN Ollama box rarely
  has a certificate; refusing it outright would only push people to disable the guard);
- never link-local (169.254/16, fe80::/10), cloud metadata (169.254.169.254, fd00:ec2::254,
  100.100.100.200, metadata.google.internal), unspecified (0.0.0.0, ::), multicast or reserved;
- private ranges (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7 …) only with
  ``allow_private``;
- no credentials in the URL (``user:pass@`` ends up in logs; pass ``api_key``).

Hostnames are resolved and *every* address must pass, because a name can carry one public and
one internal address. The embedder re-checks before each request and connects to exactly the
addresses it checked (see ``openai_compat``), so a DNS answer that changes between the check
and the connection (rebinding) cannot slip through. Literal IPs never touch DNS.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from reverie.errors import EmbedderError, InvalidInputError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Sequence[str]]

_METADATA_HOSTS = frozenset({"metadata.google.internal", "metadata.goog", "instance-data.ec2.internal"})
_METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200")
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A URL that passed the guard, with the exact addresses that passed it."""

    url: str
    scheme: str
    host: str
    port: int
    target: str  # path and query: what goes on the HTTP request line
    addresses: tuple[str, ...]


def validate_endpoint_url(url: str, *, allow_loopback_http: bool = True, allow_private: bool = False) -> str:
    """Return ``url`` (normalised) if an embedder may POST to it, else raise.

    Raises ``InvalidInputError`` for a URL the rules refuse and ``EmbedderError`` when the
    hostname cannot be resolved.
    """
    return check_endpoint(url, allow_loopback_http=allow_loopback_http, allow_private=allow_private).url


def check_endpoint(
    url: str,
    *,
    allow_loopback_http: bool = True,
    allow_private: bool = False,
    resolver: Resolver | None = None,
) -> Endpoint:
    """Parse, resolve and check ``url``; ``resolver`` (host, port) -> addresses is the DNS seam."""
    scheme, host, port, target, normalised = _parse(url)
    if host in _METADATA_HOSTS:
        raise InvalidInputError(f"endpoint {normalised} refused: {host} is a cloud metadata service")
    addresses = _addresses(host, port, resolver or _getaddrinfo)
    for address in addresses:
        reason = _refusal(address, scheme, allow_loopback_http=allow_loopback_http, allow_private=allow_private)
        if reason:
            shown = host if host == str(address) else f"{host} ({address})"
            raise InvalidInputError(f"endpoint {normalised} refused: {shown} {reason}")
    return Endpoint(normalised, scheme, host, port, target, tuple(str(a) for a in addresses))


def _parse(url: str) -> tuple[str, str, int, str, str]:
    """Split and sanity-check the URL: scheme, host, port, request target, normalised form."""
    if not isinstance(url, str) or not url:
        raise InvalidInputError("endpoint URL must be a non-empty string")
    if any(ord(ch) < 33 or ord(ch) == 127 for ch in url):
        raise InvalidInputError("endpoint URL must not contain whitespace or control characters")
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise InvalidInputError(f"endpoint URL scheme must be https or http, got {parts.scheme or 'none'!r}")
    if "@" in parts.netloc:
        raise InvalidInputError("endpoint URL must not contain credentials (user:pass@); pass api_key")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise InvalidInputError(f"endpoint URL has no host: {url!r}")
    try:
        explicit_port = parts.port
    except ValueError as exc:
        raise InvalidInputError(f"endpoint URL has an invalid port: {url!r}") from exc
    port = explicit_port or _DEFAULT_PORTS[scheme]
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    normalised = urlunsplit((scheme, parts.netloc.lower(), parts.path, parts.query, ""))
    return scheme, host, port, target, normalised


def _addresses(host: str, port: int, resolver: Resolver) -> list[IPAddress]:
    """The literal address, or every address the resolver returns for the name."""
    literal = _literal_ip(host)
    if literal is not None:
        return [literal]
    try:
        resolved = list(resolver(host, port))
    except (OSError, UnicodeError) as exc:
        raise EmbedderError(f"cannot resolve embedding endpoint host {host!r}: {exc}") from exc
    if not resolved:
        raise EmbedderError(f"embedding endpoint host {host!r} resolved to no address")
    out: list[IPAddress] = []
    for text in resolved:
        address = _literal_ip(text)
        if address is None:
            raise EmbedderError(f"resolver returned a non-address {text!r} for {host!r}")
        out.append(address)
    return out


def _literal_ip(text: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _getaddrinfo(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _refusal(address: IPAddress, scheme: str, *, allow_loopback_http: bool, allow_private: bool) -> str | None:
    """Why this address is refused under these rules, or None if it is allowed."""
    kind = _classify(_unwrap(address))
    if kind in _ALWAYS_REFUSED:
        return _ALWAYS_REFUSED[kind]
    if kind == "private" and not allow_private:
        return "is a private address (pass allow_private=True to allow private networks)"
    if scheme == "https":
        return None
    if kind == "loopback" and allow_loopback_http:
        return None
    if kind == "private":
        return None  # allow_private is set: plain http inside a trusted private network
    return "needs https: plain http is only allowed to loopback"


_ALWAYS_REFUSED = {
    "metadata": "is a cloud metadata address",
    "unspecified": "is an unspecified / this-network address",
    "link-local": "is a link-local address",
    "multicast": "is a multicast address",
    "reserved": "is a reserved address",
}


def _classify(address: IPAddress) -> str:
    """One word for the kind of address; the order matters (metadata is also link-local)."""
    if address in _METADATA_ADDRESSES:
        return "metadata"
    if address.is_unspecified or (address.version == 4 and address.packed[0] == 0):
        return "unspecified"
    if address.is_loopback:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if address.is_multicast:
        return "multicast"
    if address.is_reserved:
        return "reserved"
    return "public" if address.is_global else "private"


def _unwrap(address: IPAddress) -> IPAddress:
    """The IPv4 address hidden in an IPv4-mapped (::ffff:a.b.c.d) or NAT64 IPv6 address.

    Both reach the IPv4 host, so ``::ffff:169.254.169.254`` must be judged as the metadata
    address it is.
    """
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address in _NAT64:
            return ipaddress.IPv4Address(address.packed[-4:])
    return address


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """Connects to pre-checked addresses instead of resolving the host name again."""

    def __init__(self, host: str, port: int, addresses: Sequence[str], timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._pinned = tuple(addresses)

    def connect(self) -> None:
        self.sock = _connect_first(self._pinned, self.port, self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """As above, with TLS verified against the URL's host name (SNI and certificate)."""

    def __init__(self, host: str, port: int, addresses: Sequence[str], timeout: float, tls: ssl.SSLContext) -> None:
        super().__init__(host, port, timeout=timeout, context=tls)
        self._pinned = tuple(addresses)
        self._tls = tls

    def connect(self) -> None:
        raw = _connect_first(self._pinned, self.port, self.timeout)
        try:
            self.sock = self._tls.wrap_socket(raw, server_hostname=self.host)
        except BaseException:
            raw.close()
            raise


def _connect_first(addresses: Sequence[str], port: int, timeout: float | None) -> socket.socket:
    last: OSError | None = None
    for address in addresses:
        try:
            return socket.create_connection((address, port), timeout)
        except OSError as exc:
            last = exc
    raise last or OSError("no address to connect to")


def pinned_connection(
    endpoint: Endpoint, timeout: float, tls: ssl.SSLContext | None = None
) -> http.client.HTTPConnection:
    """A connection to exactly the addresses ``check_endpoint`` approved (no second DNS answer can
    redirect it); https verifies the certificate against the URL's host. Shared by every client of
    a checked endpoint (embeddings, the optional chat model)."""
    if endpoint.scheme == "https":
        return _PinnedHTTPSConnection(
            endpoint.host, endpoint.port, endpoint.addresses, timeout, tls or ssl.create_default_context()
        )
    return _PinnedHTTPConnection(endpoint.host, endpoint.port, endpoint.addresses, timeout)


__all__ = ["Endpoint", "Resolver", "check_endpoint", "pinned_connection", "validate_endpoint_url"]

"""validate_endpoint_url: the SSRF rules, as a table. Literal IPs and localhost only: no DNS, no traffic."""

from __future__ import annotations

import socket

import pytest

from reverie.embed import validate_endpoint_url
from reverie.embed.netguard import check_endpoint
from reverie.errors import EmbedderError, InvalidInputError

ALLOWED = [
    "https://8.8.8.8/v1/embeddings",
    "https://[2606:4700:4700::1111]:8443/v1",
    "https://127.0.0.1/v1/embeddings",
    "http://127.0.0.1:11434/v1/embeddings",
    "http://127.8.9.10:8000/",
    "http://[::1]:8000/v1",
    "http://localhost:11434/v1/embeddings",
    "HTTP://LOCALHOST:11434/v1/embeddings",
]

REFUSED = {
    "http://8.8.8.8/v1/embeddings": "needs https",
    "http://169.254.169.254/latest/meta-data/": "cloud metadata",
    "https://169.254.169.254/": "cloud metadata",
    "https://[fd00:ec2::254]/": "cloud metadata",
    "https://metadata.google.internal/computeMetadata/v1/": "cloud metadata",
    "https://100.100.100.200/": "cloud metadata",
    "https://[::ffff:169.254.169.254]/": "cloud metadata",
    "https://[64:ff9b::a9fe:a9fe]/": "cloud metadata",
    "https://169.254.1.1/": "link-local",
    "https://[fe80::1]/": "link-local",
    "https://10.0.0.1/": "private address",
    "https://172.16.5.4/": "private address",
    "https://192.168.1.1/": "private address",
    "https://[fc00::1]/": "private address",
    "https://[fd12:3456::1]/": "private address",
    "https://0.0.0.0/": "unspecified",
    "https://0.1.2.3/": "unspecified",
    "https://[::]/": "unspecified",
    "https://224.0.0.1/": "multicast",
    "https://240.0.0.1/": "reserved",
    "file:///etc/passwd": "scheme must be https or http",
    "ftp://8.8.8.8/": "scheme must be https or http",
    "8.8.8.8/v1": "scheme must be https or http",
    "https://user:pass@8.8.8.8/": "credentials",
    "https://user@8.8.8.8/": "credentials",
    "https:///v1/embeddings": "no host",
    "https://8.8.8.8:99999/": "invalid port",
    "http://127.0.0.1/v1\r\nX-Injected: 1": "control characters",
    "http://127.0.0.1/a b": "whitespace",
    "": "non-empty",
}


@pytest.mark.parametrize("url", ALLOWED)
def test_allowed_urls_pass(url: str) -> None:
    assert validate_endpoint_url(url) == url.replace("HTTP://LOCALHOST", "http://localhost")


@pytest.mark.parametrize(("url", "reason"), REFUSED.items())
def test_refused_urls_say_why(url: str, reason: str) -> None:
    with pytest.raises(InvalidInputError, match=reason):
        validate_endpoint_url(url)


def test_allow_private_admits_private_ranges_but_never_metadata_or_link_local() -> None:
    assert validate_endpoint_url("https://10.0.0.1/v1", allow_private=True) == "https://10.0.0.1/v1"
    assert validate_endpoint_url("https://[fc00::1]/v1", allow_private=True)
    # A LAN Ollama box speaks plain http; opting into private networks admits it.
    assert validate_endpoint_url("http://192.168.1.5:11434/v1", allow_private=True)
    for url in ["https://169.254.169.254/", "https://169.254.1.1/", "https://0.0.0.0/"]:
        with pytest.raises(InvalidInputError):
            validate_endpoint_url(url, allow_private=True)
    with pytest.raises(InvalidInputError, match="needs https"):
        validate_endpoint_url("http://8.8.8.8/", allow_private=True)


def test_loopback_http_can_be_switched_off() -> None:
    with pytest.raises(InvalidInputError, match="needs https"):
        validate_endpoint_url("http://127.0.0.1:8000/", allow_loopback_http=False)
    assert validate_endpoint_url("https://127.0.0.1:8000/", allow_loopback_http=False)


def test_every_resolved_address_must_pass() -> None:
    def mixed(host: str, port: int) -> list[str]:
        return ["8.8.8.8", "10.1.2.3"]

    with pytest.raises(InvalidInputError, match=r"mixed\.test \(10\.1\.2\.3\) is a private address"):
        check_endpoint("https://mixed.test/v1", resolver=mixed)
    endpoint = check_endpoint("https://public.test:8443/v1?x=1", resolver=lambda h, p: ["8.8.8.8", "8.8.4.4"])
    assert (endpoint.host, endpoint.port, endpoint.target) == ("public.test", 8443, "/v1?x=1")
    assert endpoint.addresses == ("8.8.8.8", "8.8.4.4")


def test_unresolvable_host_is_an_embedder_error() -> None:
    def nxdomain(host: str, port: int) -> list[str]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    with pytest.raises(EmbedderError, match="cannot resolve"):
        check_endpoint("https://nowhere.test/", resolver=nxdomain)
    with pytest.raises(EmbedderError, match="no address"):
        check_endpoint("https://empty.test/", resolver=lambda h, p: [])


def test_localhost_resolves_to_loopback_only() -> None:
    endpoint = check_endpoint("http://localhost:11434/v1")
    assert endpoint.addresses
    assert all(a.startswith("127.") or a == "::1" for a in endpoint.addresses)

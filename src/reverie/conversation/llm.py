"""An optional extractor (and summariser) over any OpenAI-compatible ``/v1/chat/completions`` endpoint.

The model only *proposes*: every proposal passes the same rules as the rule extractor's and a
few of its own before anything is written (``ChatExtractor._checked``) — it must cite a
person's message of the session, name only people that message names (or its speaker), say
nothing the message does not (most of its words are the message's), and be a statement; and it
is read against the part of the message it rests on (``conversation.vetting``): hearsay or a
hedge there makes it a hypothesis, as the rules make theirs, and a denial there drops it. A
reply that is not the JSON asked for, an HTTP error or a timeout skips the model's proposals
with a reason (``skipped``); the rules' claims are written regardless, and nothing crashes.

The URL is checked like the embedding endpoint's (``reverie.embed.netguard``: https, or http
to loopback; never link-local, metadata or — unless allowed — private addresses; no
credentials in the URL), re-checked before each request, and the connection goes to exactly the
addresses that passed. Redirects are not followed. Stdlib only; no proxy variables honoured.
"""

from __future__ import annotations

import http.client
import json
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from reverie.conversation.extract import minable
from reverie.conversation.people.anonymous import anonymous_speaker
from reverie.conversation.people.lexicon import RELATIONS
from reverie.conversation.people.names import check_person_name, tokens
from reverie.conversation.proposal import CATEGORIES, Proposal
from reverie.conversation.vetting import vet
from reverie.embed.netguard import Endpoint, Resolver, check_endpoint, pinned_connection
from reverie.errors import EmbedderError, InvalidInputError, ReverieError
from reverie.model.conversation import Entry
from reverie.recall.normalize import STOPWORDS

MAX_RESPONSE_BYTES = 2 * 1024 * 1024
#: At most this many messages (and characters) go into one request; a longer session is sent in parts.
MESSAGES_PER_REQUEST = 40
CHARS_PER_REQUEST = 12_000
MAX_PROPOSAL_CHARS = 300
#: A reply proposing more than this many claims per message is cut (a runaway model).
PROPOSALS_PER_MESSAGE = 4
#: A proposal must take at least this share of its content words from the message it cites.
MIN_GROUNDING = 0.6
LLM_CONFIDENCE = 0.6

_SYSTEM = (
    "You extract durable facts from a chat. Reply with one JSON object and nothing else: "
    '{"claims": [{"message": <number of the message>, "text": <the fact as a short sentence in the third '
    'person, naming people>, "about": <name of the person it is about>, "category": one of '
    + ", ".join(CATEGORIES)
    + ', "relation": {"person": <name>, "type": <noun such as sister or manager>, "of": <name>} or null}]}. '
    "Only facts, preferences, plans, decisions and relations people stated; no questions, greetings or "
    'moods. "I" and "my" mean the speaker of the message. Use only words from the messages.'
)


class EndpointFailure(Exception):
    """A request that did not produce a usable answer; the message is the reason (never raised out)."""


class ChatEndpoint:
    """POSTs chat completions to one checked URL; ``complete`` returns the reply text or raises ``EndpointFailure``.

    ``url`` may be the full endpoint (``…/v1/chat/completions``), the ``/v1`` base or the server root.
    """

    def __init__(
        self,
        url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        allow_private: bool = False,
        allow_loopback_http: bool = True,
        resolver: Resolver | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise InvalidInputError("the chat model must be a non-empty string (e.g. 'llama3.1')")
        if api_key is not None and (not isinstance(api_key, str) or any(ord(c) < 32 or ord(c) == 127 for c in api_key)):
            raise InvalidInputError("api_key must be a string without control characters")
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 600:
            raise InvalidInputError(f"timeout must be a number of seconds in (0, 600], got {timeout!r}")
        self.model = model
        self._api_key = api_key or None
        self.timeout = float(timeout)
        self._rules = {"allow_private": allow_private, "allow_loopback_http": allow_loopback_http}
        self._resolver = resolver
        try:
            endpoint = self._check(_chat_url(url))
        except EmbedderError as exc:  # the guard's name lookup failed: the URL cannot be used
            raise InvalidInputError(f"chat endpoint {url!r} cannot be used: {exc.message}") from exc
        self.url = endpoint.url

    def __repr__(self) -> str:  # never the key
        return f"ChatEndpoint(url={self.url!r}, model={self.model!r})"

    def _check(self, url: str) -> Endpoint:
        return check_endpoint(
            url,
            allow_loopback_http=bool(self._rules["allow_loopback_http"]),
            allow_private=bool(self._rules["allow_private"]),
            resolver=self._resolver,
        )

    def complete(self, messages: Sequence[dict[str, str]]) -> str:
        """The reply text of one chat completion (temperature 0, JSON asked for)."""
        body = {"model": self.model, "messages": list(messages), "temperature": 0}
        body["response_format"] = {"type": "json_object"}
        try:
            endpoint = self._check(self.url)
        except ReverieError as exc:
            raise EndpointFailure(f"chat endpoint {self.url} refused on re-check: {exc.message}") from exc
        status, payload = _post(endpoint, json.dumps(body).encode(), self._headers(), self.timeout)
        if not 200 <= status < 300:
            raise EndpointFailure(f"chat endpoint {self.url} answered HTTP {status}: {_snippet(payload)}")
        try:
            doc = json.loads(payload)
            content = doc["choices"][0]["message"]["content"]
        except (ValueError, UnicodeDecodeError, KeyError, IndexError, TypeError) as exc:
            raise EndpointFailure(f"chat endpoint {self.url} sent no chat completion: {_snippet(payload)}") from exc
        if not isinstance(content, str):
            raise EndpointFailure(f"chat endpoint {self.url} sent a non-text message content")
        return content

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "reverie"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers


class ChatExtractor:
    """Proposals from a chat model, checked by rules; ``skipped`` says what was dropped and why (last call)."""

    name = "llm"

    def __init__(self, endpoint: ChatEndpoint) -> None:
        if not isinstance(endpoint, ChatEndpoint):
            raise InvalidInputError("ChatExtractor needs a ChatEndpoint(url, model)")
        self.endpoint = endpoint
        self.skipped: list[str] = []

    def propose(self, messages: Sequence[Entry]) -> list[tuple[Entry, list[Proposal]]]:
        self.skipped = []
        mined = [m for m in messages if minable(m)]
        out: dict[str, list[Proposal]] = {}
        for part in _parts(mined):
            for entry, proposal in self._ask(part):
                out.setdefault(entry.id, []).append(proposal)
        return [(m, out[m.id]) for m in mined if m.id in out]

    def _ask(self, part: Sequence[Entry]) -> list[tuple[Entry, Proposal]]:
        lines = [f"{i}. {m.speaker or anonymous_speaker(m.conversation)}: {m.text}" for i, m in enumerate(part, 1)]
        prompt = [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": "\n".join(lines)}]
        try:
            reply = self.endpoint.complete(prompt)
        except EndpointFailure as exc:
            self.skipped.append(str(exc))
            return []
        try:
            doc = json.loads(_strip_fence(reply))
        except ValueError:
            self.skipped.append(f"the model's reply is not JSON: {_snippet(reply.encode())}")
            return []
        claims = doc.get("claims") if isinstance(doc, dict) else None
        if not isinstance(claims, list):
            self.skipped.append("the model's reply has no 'claims' list")
            return []
        found: list[tuple[Entry, Proposal]] = []
        cap = PROPOSALS_PER_MESSAGE * len(part)
        if len(claims) > cap:
            self.skipped.append(
                f"the model proposed {len(claims)} claims for {len(part)} message(s); kept the first {cap}"
            )
        for raw in claims[:cap]:
            checked = self._checked(raw, part)
            if isinstance(checked, str):
                self.skipped.append(checked)
            else:
                found.append(checked)
        return found

    def _checked(self, raw: Any, part: Sequence[Entry]) -> tuple[Entry, Proposal] | str:
        """A proposal the rules accept, or the reason it is dropped."""
        if not isinstance(raw, dict):
            return "a proposal is not a JSON object"
        index = raw.get("message")
        if isinstance(index, bool) or not isinstance(index, int) or not 1 <= index <= len(part):
            return f"a proposal cites no message of the session ({index!r})"
        m = part[index - 1]
        text = raw.get("text")
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_PROPOSAL_CHARS:
            return f"a proposal for message {index} has no text, or more than {MAX_PROPOSAL_CHARS} characters"
        text = " ".join(text.split())
        if text.endswith("?") or any(ord(c) < 32 for c in text):
            return f"a proposal for message {index} is a question or holds control characters"
        who = m.speaker or anonymous_speaker(m.conversation)  # the claim names them: their words are grounded
        said = set(tokens(m.text)) | set(tokens(who)) | set(re.findall(r"[a-z0-9']+", who.lower()))
        words = [w for w in re.findall(r"[a-z0-9']+", text.lower()) if w not in STOPWORDS and len(w) > 2]
        grounded = sum(1 for w in words if w.strip("'") in said or w.removesuffix("'s") in said)
        if not words or grounded < MIN_GROUNDING * len(words):
            return f"a proposal for message {index} says what the message does not ({text[:60]!r})"
        about = self._person(raw.get("about"), m, said)
        if about is None:
            return f"a proposal for message {index} is about someone the message does not name"
        relation = self._relation(raw.get("relation"), m, said)
        category = raw.get("category") if raw.get("category") in CATEGORIES else "fact"
        if relation is not None:
            category = "relation"
        mentions = tuple(n for n in (relation[0], relation[2]) if n != about) if relation else ()
        first = about == (m.speaker or anonymous_speaker(m.conversation))
        proposal = Proposal(
            _sentence(text), about, str(category), first, mentions, relation, origin="llm", confidence=LLM_CONFIDENCE
        )
        vetted = vet(proposal, m.text, who)  # the rules' hedge and denial checks: the model only proposes
        if vetted is None:
            return f"a proposal for message {index} says what its speaker denies ({text[:60]!r})"
        return m, vetted

    def _person(self, value: object, m: Entry, said: set[str]) -> str | None:
        try:
            name = check_person_name(value)
        except ReverieError:
            return None
        if name.lower() in ("i", "me", "the user"):
            return m.speaker or anonymous_speaker(m.conversation)
        if not m.speaker and name == anonymous_speaker(m.conversation):
            return name
        return name if tokens(name) and set(tokens(name)) <= said else None

    def _relation(self, value: object, m: Entry, said: set[str]) -> tuple[str, str, str] | None:
        if not isinstance(value, dict):
            return None
        noun = str(value.get("type", "")).lower().split()[-1:] or [""]
        person, of = self._person(value.get("person"), m, said), self._person(value.get("of"), m, said)
        if noun[0] not in RELATIONS or person is None or of is None or person == of:
            return None
        return person, noun[0], of


_SUMMARY_SYSTEM = (
    "Summarise this part of a chat for the assistant that will continue it: who said, asked and decided "
    "what, in plain sentences, using only facts from the chat. Reply with the summary text only."
)
#: A model summary must take at least this share of its content words from the entries it sums up.
SUMMARY_GROUNDING = 0.7


class ChatSummariser:
    """Summaries from a chat model, used only when they pass the checks; else the extractive one is kept.

    Checks: fits the budget (cut at a sentence end), no control characters, and grounded — most
    of its content words occur in the entries it stands for (a summary replaces what the model
    no longer sees, so it must not invent). ``skipped`` holds the last reason one was refused.
    """

    name = "llm"

    def __init__(self, endpoint: ChatEndpoint) -> None:
        if not isinstance(endpoint, ChatEndpoint):
            raise InvalidInputError("ChatSummariser needs a ChatEndpoint(url, model)")
        self.endpoint = endpoint
        self.skipped: str | None = None

    def summarise(self, entries: Sequence[Entry], budget_chars: int) -> str | None:
        """The model's summary of ``entries`` within ``budget_chars``, or None (``skipped`` says why)."""
        self.skipped = None
        lines = [_line(e) for e in entries]
        text = "\n".join(line for line in lines if line)[: 4 * CHARS_PER_REQUEST]
        if not text:
            return None
        ask = f"Summarise in at most {budget_chars} characters:\n{text}"
        try:
            reply = self.endpoint.complete(
                [{"role": "system", "content": _SUMMARY_SYSTEM}, {"role": "user", "content": ask}]
            )
        except EndpointFailure as exc:
            self.skipped = str(exc)
            return None
        summary = " ".join(reply.split())
        if len(summary) > budget_chars:
            cut = summary[:budget_chars]
            summary = cut[: cut.rfind(". ") + 1] if ". " in cut else cut
        if not summary or any(ord(c) < 32 for c in summary):
            self.skipped = "the model's summary is empty or holds control characters"
            return None
        said = set(tokens(text))
        words = [w for w in re.findall(r"[a-z0-9']+", summary.lower()) if w not in STOPWORDS and len(w) > 2]
        grounded = sum(1 for w in words if w.strip("'") in said or w.removesuffix("'s") in said)
        if words and grounded < SUMMARY_GROUNDING * len(words):
            self.skipped = f"the model's summary says what the chat does not ({grounded}/{len(words)} words grounded)"
            return None
        return summary


def _line(e: Entry) -> str:
    if e.kind == "tool_call":
        return f"tool {e.text} ({e.meta.get('status', 'ok')})"  # that it ran, never what it returned
    who = "summary" if e.kind in ("summary", "recap") else (e.speaker or e.role or "someone")
    return f"{who}: {e.text}"


def _parts(messages: Sequence[Entry]) -> list[list[Entry]]:
    parts: list[list[Entry]] = [[]]
    size = 0
    for m in messages:
        if parts[-1] and (len(parts[-1]) >= MESSAGES_PER_REQUEST or size + len(m.text) > CHARS_PER_REQUEST):
            parts.append([])
            size = 0
        parts[-1].append(m)
        size += len(m.text)
    return [p for p in parts if p]


def _sentence(text: str) -> str:
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!")) else text + "."


def _strip_fence(reply: str) -> str:
    """Models often wrap JSON in a Markdown code fence despite being asked not to."""
    m = re.fullmatch(r"\s*```(?:json)?\s*(.*?)\s*```\s*", reply, re.S)
    return m.group(1) if m else reply


def _chat_url(url: object) -> str:
    if not isinstance(url, str):
        raise InvalidInputError(f"chat endpoint URL must be a string, got {type(url).__name__}")
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    if not path.endswith("/chat/completions"):
        path += "/chat/completions" if path.endswith("/v1") else "/v1/chat/completions"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, parts.fragment))


def _snippet(payload: bytes) -> str:
    text = payload[:300].decode("utf-8", errors="replace")
    return " ".join(text.split())[:200] or "(empty body)"


def _post(endpoint: Endpoint, body: bytes, headers: dict[str, str], timeout: float) -> tuple[int, bytes]:
    conn = pinned_connection(endpoint, timeout)
    try:
        conn.request("POST", endpoint.target, body=body, headers=headers)
        response = conn.getresponse()
        payload = response.read(MAX_RESPONSE_BYTES + 1)
    except TimeoutError as exc:
        raise EndpointFailure(f"chat endpoint {endpoint.url} timed out after {timeout:g} s") from exc
    except (OSError, http.client.HTTPException, ValueError) as exc:
        raise EndpointFailure(f"request to chat endpoint {endpoint.url} failed: {exc!r}") from exc
    finally:
        conn.close()
    if len(payload) > MAX_RESPONSE_BYTES:
        raise EndpointFailure(f"chat endpoint {endpoint.url} sent more than {MAX_RESPONSE_BYTES} bytes")
    if 300 <= response.status < 400:
        raise EndpointFailure(
            f"chat endpoint {endpoint.url} redirected (HTTP {response.status}); redirects are not followed: "
            "configure the final URL"
        )
    return response.status, payload


__all__ = ["ChatEndpoint", "ChatExtractor", "ChatSummariser", "EndpointFailure"]

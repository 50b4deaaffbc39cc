"""From a closed conversation into long-term memory: proposals → people → claims through ``remember``.

Run when a session is released (``conv.close()`` or the idle timeout). For each person's message
of the session, in order:

1. the extractor proposes claims (``extract.RuleExtractor``; an ``llm.ChatExtractor`` may add
   proposals, which pass the same checks — it proposes, these rules decide);
2. the people each proposal names are found or enrolled (``people.enroll``);
3. each claim is written through ``remember`` — so learning pause, tombstones, corroboration and
   conflict detection apply — with the message as its parent, ``meta.message_id``, and a
   provenance pointing at the conversation and message;
4. one transaction links each claim to the people it is about (``about``) and to the message's
   memory (``derived_from``, ``meta.extracted``).

That last edge is the mark that a message was mined: closing twice, or a later ``extract()``,
skips marked messages, so nothing is written twice (a claim said again in another message is
corroborated, as ``remember`` does for any repeated claim). A refusal skips that claim with its
reason; a paused scope stops the pass; no failure here ever fails the release that ran it.

Closes racing each other (several processes closing one conversation, or a close and an idle
release) must not both mine a message: the check for the mark and the writes it guards are one
step. So steps 2-4 of a session run inside ``store.atomic(scope)``, which holds the write lock:
the mark is read under it, and the people are looked up under it too (a fresh ``Enroller``), so
a racer that enrolled "Zorvina" a moment ago is found, not enrolled twice. Step 1 (an LLM
extractor may take seconds) runs before, with no lock held.

How long the lock is held is bounded, since every other writer of the file waits meanwhile
(outside probe 2, finding 11: one 32,000-character message gave ~1,700 claims, ~40 s under the
lock, and other processes failed "database is locked"). A message gives at most
``Limits.max_claims_per_message`` claims; the proposals past it are reported in ``skipped``
(``limit_exceeded``, with their text), not written. And a session's messages are written in
chunks of about that many claims, each chunk under its own lock: the mark is per message, so a
chunk boundary between two messages loses no check (a racer mines the other messages or skips
them, never half of one).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from reverie.conversation.audience import quotable
from reverie.conversation.checks import RESERVED_META
from reverie.conversation.extract import RuleExtractor, minable
from reverie.conversation.host import ConversationHost
from reverie.conversation.moves import PlaceCheck
from reverie.conversation.people.anonymous import anonymous_speaker
from reverie.conversation.people.enroll import AUTHOR, Enroller
from reverie.conversation.people.evidence import tie_index
from reverie.conversation.people.names import tokens
from reverie.conversation.proposal import Proposal
from reverie.errors import ConflictError, InvalidInputError, LearningPausedError, ReverieError
from reverie.model import commands as cmd
from reverie.model.conversation import ENTRY_ORIGIN_META, Entry
from reverie.model.item import Item
from reverie.model.query import Q, parse_sort

_log = logging.getLogger("reverie")

#: The kind each category of claim is remembered as (it sets how fast it decays: a plan is
#: episodic, a preference a trait, the rest assertions).
KIND_OF = {
    "fact": "assertion",
    "preference": "trait",
    "plan": "episodic",
    "decision": "assertion",
    "relation": "assertion",
}
#: Meta the extraction sets on a claim (the message's own meta is copied except these).
EXTRACTION_META = frozenset({"message_id", "conversation", "extracted", "category", "relation", "about", "speaker"})
MAX_CLAIM_CHARS = 1_000


#: ``Memory.remember``'s shape (text, then keyword fields), as far as extraction uses it.
Remember = Callable[..., Item]
#: Write-time conflict detection for the claims a held ``remember`` created (``Writes.detect_held``).
DetectHeld = Callable[[str, Sequence[str]], None]


class Proposer(Protocol):
    """An extractor: the proposals for each message of a session (messages in order)."""

    name: str

    def propose(self, messages: Sequence[Entry]) -> list[tuple[Entry, list[Proposal]]]: ...


@dataclass(slots=True)
class Skip:
    message_id: str
    reason: str
    text: str = ""


@dataclass(slots=True)
class ExtractionReport:
    """What one extraction pass did: claims written (new or corroborated), persons, what it skipped and why."""

    conversation: str
    claims: list[str] = field(default_factory=list)
    messages_mined: int = 0
    messages_already_mined: int = 0
    persons: list[str] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    stopped: str | None = None


class Learner:
    """Extraction for the conversations of one host, writing through ``remember``."""

    def __init__(
        self,
        host: ConversationHost,
        remember: Remember,
        detect_held: DetectHeld | None = None,
        is_place: PlaceCheck | None = None,
    ) -> None:
        """``detect_held``: ``remember`` takes ``held=`` (a list the created claims' ids join) and
        detects nothing; each message's claims are checked for conflicts by ``detect_held`` once
        their ``about`` links are written, so claims about two different persons are not compared
        (``people.apart``). Without it, ``remember`` detects as it writes. ``is_place``: handed to
        the rules, so a move to a place also says where one lives (``moves``)."""
        self._host = host
        self._remember = remember
        self._detect_held = detect_held
        self._is_place = is_place

    def extract(
        self,
        scope: str,
        conversation: str,
        sessions: Sequence[Sequence[Entry]],
        *,
        extra: Sequence[Proposer] = (),
    ) -> ExtractionReport:
        """Mine ``sessions`` (each a session's entries in order) of ``conversation``; see the module doc."""
        report = ExtractionReport(conversation)
        enroller = Enroller(self._host, scope)
        cap = self._host.limits.max_claims_per_message
        for entries in sessions:
            messages = [e for e in entries if minable(e)]
            if not messages:
                continue
            proposals = self._proposals(entries, messages, enroller, extra, report)
            recent: list[str] = []  # the session's persons, most recent first (across chunks)
            if not any(proposals.values()):  # nothing to write: only the counts
                self._session(scope, conversation, messages, proposals, enroller, recent, report)
                continue
            for chunk in _chunks(messages, proposals, cap):
                with self._host.store.atomic(scope):  # check the marks and write, with no racer in between
                    enroller = Enroller(self._host, scope)
                    try:
                        self._session(scope, conversation, chunk, proposals, enroller, recent, report)
                    except LearningPausedError as exc:  # what was written before it stays, as without the lock
                        report.stopped = f"learning is paused in scope {scope!r}: {exc.message}"
                if report.stopped is not None:
                    break
            if report.stopped is not None:
                break
        return report

    def _proposals(
        self,
        entries: Sequence[Entry],
        messages: Sequence[Entry],
        enroller: Enroller,
        extra: Sequence[Proposer],
        report: ExtractionReport,
    ) -> dict[str, list[Proposal]]:
        """Each message's proposals (message id -> proposals), read with no lock held."""
        # The rules read the assistant's messages too (who it names is who a "he" in the reply may
        # mean; nothing it says is mined) and know the names the scope's person records hold.
        known = [n.text for g in enroller.book.groups for n in g.names]
        spoken = [e for e in entries if e.kind == "message"]
        proposals: dict[str, list[Proposal]] = {}
        # Per audience: a message's claims are proposed from the turns its whole audience may see,
        # so a pronoun never resolves to a name only a narrower message gave (``audience``).
        for audience in sorted({m.visibility for m in messages}):
            mine = {m.id for m in messages if m.visibility == audience}
            offered = RuleExtractor(known=known, is_place=self._is_place).propose(quotable(audience, spoken))
            proposals |= {m.id: list(ps) for m, ps in offered if m.id in mine}
            for proposer in extra:
                for m, ps in proposer.propose(quotable(audience, messages)):
                    if m.id in mine:
                        proposals.setdefault(m.id, []).extend(p for p in ps if _new_text(p, proposals.get(m.id, [])))
                skipped = getattr(proposer, "skipped", ())
                report.skipped.extend(Skip("", f"{proposer.name}: {why}") for why in skipped)
        return proposals

    def _session(
        self,
        scope: str,
        conversation: str,
        messages: Sequence[Entry],
        proposals: dict[str, list[Proposal]],
        enroller: Enroller,
        recent: list[str],
        report: ExtractionReport,
    ) -> None:
        """Write the claims of each message (of a session, or a chunk of one) not mined yet (see the module doc)."""
        memories = self._message_items(scope, [m.id for m in messages])
        for m in messages:
            if ENTRY_ORIGIN_META in m.meta:  # trust does not travel: see ``memory.slice_conversations``
                report.skipped.append(Skip(m.id, "imported in a slice: the claims it gave travel as the slice's items"))
                continue
            found = proposals.get(m.id, [])
            memory = memories.get(m.id)
            if memory is None:
                report.skipped.append(Skip(m.id, "the message's memory is gone (purged)"))
                continue
            if self._mined(scope, memory):
                report.messages_already_mined += 1
                continue
            if found:
                cap = self._host.limits.max_claims_per_message
                self._message(scope, conversation, m, memory, found[:cap], enroller, recent, report)
                _report_over(m.id, found, cap, report)

    def _message(
        self,
        scope: str,
        conversation: str,
        m: Entry,
        memory: str,
        proposals: list[Proposal],
        enroller: Enroller,
        recent: list[str],
        report: ExtractionReport,
    ) -> None:
        links: list[cmd.Command] = []
        held: list[str] = []  # the claims written, checked for conflicts once linked (``detect_held``)
        # Who the message ties each name to, whichever proposal says it: "My friend Dana works at
        # Acme." gives Carl's friend Dana in the relation and Dana in the fact, one person.
        ties = tie_index(p.relation for p in proposals if p.relation is not None)
        try:
            for p in proposals:
                try:
                    claim, people = self._claim(scope, conversation, m, memory, p, enroller, recent, ties, held)
                except LearningPausedError:
                    raise
                except (ConflictError, InvalidInputError) as exc:
                    report.skipped.append(Skip(m.id, f"{exc.code}: {exc.message}", p.text))
                    continue
                report.claims.append(claim.id)
                report.persons.extend(x for x in people if x not in report.persons)
                meta = {"extracted": p.origin}
                links.append(cmd.Link(scope, "derived_from", claim.id, memory, AUTHOR, 1.0, meta))
                links += [cmd.Link(scope, "about", claim.id, person, AUTHOR, 0.7, meta) for person in people]
            if links:
                self._host.run(links)
                report.messages_mined += 1
        finally:  # the claims written are checked even if a later one stopped the message
            if held and self._detect_held is not None:
                self._detect_held(scope, held)

    def _claim(
        self,
        scope: str,
        conversation: str,
        m: Entry,
        memory: str,
        p: Proposal,
        enroller: Enroller,
        recent: list[str],
        ties: Mapping[tuple[str, ...], tuple[str, ...]] | None = None,
        held: list[str] | None = None,
    ) -> tuple[Item, list[str]]:
        """Enroll the proposal's people, then remember the claim; (the item, the name items it is about)."""
        # A message without a speaker: its speaker is that conversation's own user, no person record.
        anonymous = None if m.speaker else anonymous_speaker(conversation)
        names = [n for n in (p.subject, *p.mentions) if n and n != anonymous]
        people: list[str] = []
        for name in dict.fromkeys(names):
            is_speaker = name == m.speaker
            name_id = enroller.ensure(
                name,
                conversation=conversation,
                speaker=is_speaker,
                prefer=recent,
                visibility=m.visibility,
                said_by=m.speaker,
                ties=(ties or {}).get(tokens(name), ()),
            )
            person = enroller.person_of(name_id)
            if person in recent:
                recent.remove(person)
            recent.insert(0, person)
            people.append(name_id)
        fields = self._fields(conversation, m, memory, p)
        if self._detect_held is not None:
            fields["held"] = held if held is not None else []
        claim = self._remember(p.text[:MAX_CLAIM_CHARS], scope=scope, **fields)
        return claim, people

    def _fields(self, conversation: str, m: Entry, memory: str, p: Proposal) -> dict[str, Any]:
        own = {k: v for k, v in m.meta.items() if k not in RESERVED_META and k not in EXTRACTION_META}
        meta: dict[str, Any] = {
            **own,
            "message_id": m.id,
            "conversation": conversation,
            "extracted": p.origin,
            "category": p.category,
            "about": [n for n in (p.subject, *p.mentions) if n],
        }
        if m.speaker:
            meta["speaker"] = m.speaker
        if p.relation is not None:
            meta["relation"] = {"person": p.relation[0], "type": p.relation[1], "of": p.relation[2]}
        return {
            "kind": "hypothesis" if p.hedged else KIND_OF.get(p.category, "assertion"),
            "source": "user_stated" if p.first_person else "observed",
            "author": m.speaker,
            "meta": meta,
            "parents": (memory,),
            "provenance": {"origin": "conversation", "ref": conversation, "locator": m.id},
            "confidence": p.confidence,
            "valid_from": m.at,
            # At most the message's audience (``audience``): a claim restates the message.
            "visibility": list(m.visibility) or None,
        }

    def _message_items(self, scope: str, message_ids: Sequence[str]) -> dict[str, str]:
        """Each message's recallable memory (message id → item id), read in a few queries, not one each."""
        out: dict[str, str] = {}
        for start in range(0, len(message_ids), 100):
            chunk = message_ids[start : start + 100]
            where = Q.meta("message", chunk[0])
            for mid in chunk[1:]:
                where = where | Q.meta("message", mid)
            for item in self._host.store.query(scope, where & Q.status("live"), parse_sort(None), limit=2 * len(chunk)):
                out.setdefault(str(item.meta["message"]), item.id)
        return out

    def _mined(self, scope: str, memory: str) -> bool:
        return any(
            e.type == "derived_from" and e.dst == memory and "extracted" in e.meta
            for e in self._host.store.edges(scope, memory)
        )


def _report_over(message_id: str, found: Sequence[Proposal], cap: int, report: ExtractionReport) -> None:
    """Report the proposals of a message past ``cap`` (not written), each with its text."""
    if len(found) <= cap:
        return
    why = (
        f"limit_exceeded: the message gave {len(found)} claims and Limits.max_claims_per_message is {cap}; "
        "the first ones were mined and this one was not (split such text into several messages)"
    )
    report.skipped.extend(Skip(message_id, why, p.text) for p in found[cap:])


def _chunks(messages: Sequence[Entry], proposals: dict[str, list[Proposal]], cap: int) -> list[list[Entry]]:
    """``messages`` in order, cut so that each run writes at most ``cap`` claims (a message writes
    at most ``cap``): each run is written under one hold of the lock."""
    out: list[list[Entry]] = [[]]
    held = 0
    for m in messages:
        n = min(cap, len(proposals.get(m.id, [])))
        if out[-1] and held + n > cap:
            out.append([])
            held = 0
        out[-1].append(m)
        held += n
    return out


def _new_text(p: Proposal, have: Sequence[Proposal]) -> bool:
    return all(p.text.casefold() != q.text.casefold() for q in have)


def sessions_of(entries: Sequence[Entry]) -> list[list[Entry]]:
    """A conversation's entries cut into sessions at each recap."""
    out: list[list[Entry]] = [[]]
    for e in entries:
        if e.kind == "recap":
            out.append([])
        else:
            out[-1].append(e)
    return [s for s in out if s]


def safely(run: Callable[[], ExtractionReport], conversation: str) -> ExtractionReport | None:
    """Run an extraction from a release the caller did not ask to extract (the idle timeout):
    a failure is logged, never raised, so a message that arrives after an idle gap is still added."""
    try:
        return run()
    except ReverieError as exc:
        _log.warning("extraction of conversation %r failed (%s); its messages stay unmined", conversation, exc)
    except Exception:  # a bug in a rule must not lose the user's message
        _log.exception("extraction of conversation %r failed; its messages stay unmined", conversation)
    return None


__all__ = ["ExtractionReport", "Learner", "Proposer", "Remember", "Skip", "safely", "sessions_of"]

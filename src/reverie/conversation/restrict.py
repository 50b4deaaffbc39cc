"""``Conversation.set_visibility``: give one message a new audience, and everything quoting it follows.

A message is quoted in five places besides its archive entry: its own memory, the context of the
next turns' memories, the recaps and history summaries of its stretch, the claims extracted from
it, and claims of later turns that borrowed a name from it (``conversation.borrowed``); the people
only it named are records of it too. All of it changes in one transaction with one
``conversation.visibility_set`` event (the entries' new audiences; the items change through their
own events), so a crash leaves either the old audience everywhere or the new one everywhere, and a
rebuild from the log reproduces it.

What each becomes, for a message now visible to ``audience``:

- its memory gets ``audience`` (and, as for any claim, the system's copies narrow with it); widened,
  it is re-written when its context quoted a turn the new audience may not see;
- a later memory is re-written (purged and remembered again, keeping its own audience) when its
  context must now leave the message out — or may now take it in;
- a recap or summary made for an audience that could see the message and no longer may is
  narrowed to the principals of both (``audience.narrowed_to``: only the owner when none);
- a claim extracted from it, or borrowing from it, keeps only the principals of both audiences; a
  claim sharing none with it is purged (there is no "nobody" audience, and it restates the message);
- a name only it spoke for (``forget_people``) is narrowed like a claim.

Widening a message back within its conversation widens none of these (as a claim's copies): only
the later contexts are re-derived. Nothing widens what a principal could not see before.

The owner's reason is kept on the ``conversation.visibility_set`` event only, which a principal
outside the message's new audience never sees. The items that follow carry reverie's own reason
(``FOLLOWED``): their events are shown to whoever could see the item, and the purge of a public
memory that quoted the message is shown to everyone — copying the owner's reason there told every
principal why the message was taken from them ("contains Bob's salary").
"""

from __future__ import annotations

from dataclasses import replace

from reverie.conversation.audience import narrowed_to
from reverie.conversation.borrowed import borrowers, claims_of, later_in_session
from reverie.conversation.forget_people import people_commands
from reverie.conversation.host import conversation_store
from reverie.conversation.rewindow import context_window, rewrite_memory
from reverie.conversation.writer import Writer
from reverie.errors import NotFoundError
from reverie.model import commands as cmd
from reverie.model.conversation import ConversationState, Entry, SetMessageVisibility, releases
from reverie.model.item import Item
from reverie.model.query import Q, parse_sort
from reverie.model.redact import REDACTED
from reverie.model.visibility import covers

#: The reason on every item change a message's new audience makes (reverie's words, never the owner's).
FOLLOWED = "follows a new audience of a conversation message"


def _item_audience(current: tuple[str, ...], source: tuple[str, ...]) -> tuple[str, ...] | None:
    """A claim's audience once the message it restates is visible to ``source`` only: the principals
    of both, never one it lacked; None when they share none (the claim must go)."""
    if covers(current, source):
        return current
    if not current:
        return source
    both = tuple(sorted(set(current) & set(source)))
    return both or None


def _follow(scope: str, item: Item, audience: tuple[str, ...], reason: str) -> list[cmd.Command]:
    """The command that keeps ``item`` (a claim or name restating the message) within ``audience``."""
    new = _item_audience(item.audience, audience)
    if new is None:
        return [cmd.Purge(scope, item.id, reason)]
    return [] if new == item.audience else [cmd.SetVisibility(scope, item.id, new, reason)]


def _memories(writer: Writer, scope: str, message_id: str) -> list[Item]:
    found = writer.host.store.query(scope, Q.meta("message", message_id), parse_sort(None), limit=100)
    return [i for i in found if i.is_current]


def _contexts(
    writer: Writer, scope: str, entries: list[Entry], target: Entry, reason: str
) -> tuple[list[cmd.Command], list[str]]:
    """The message's memory and the next turns' whose context changes with its new audience: re-written
    (purged and remembered again) when the text changes, else the message's own given its audience."""
    out: list[cmd.Command] = []
    texts: list[str] = []
    # The message itself first: widened, its old context may quote a turn its new audience may not see.
    moved = next(e for e in entries if e.id == target.id)  # with its new audience
    # Every later turn of the session, not only the next two: a context skips the turns its audience
    # may not see, so it can reach further back; only the texts that change are re-written.
    for later in [moved, *later_in_session(entries, target)]:
        window = context_window(later, _session_before(entries, later), writer.host.limits.max_text_chars)
        for item in _memories(writer, scope, later.id):
            audience = later.visibility if later.id == target.id else item.audience
            if item.text == window:
                if item.audience != audience:
                    out.append(cmd.SetVisibility(scope, item.id, audience, reason))
                continue
            out += rewrite_memory(scope, item, window, audience, reason)
            texts.append(window)
    return out, texts


def _session_before(entries: list[Entry], later: Entry) -> list[Entry]:
    """The messages of ``later``'s session before it, in order."""
    out: list[Entry] = []
    for e in entries:
        if e.position >= later.position:
            break
        if releases(e):
            out = []
        elif e.kind == "message":
            out.append(e)
    return out


def restrict_message(
    writer: Writer, state: ConversationState, message_id: str, audience: tuple[str, ...], reason: str
) -> Entry:
    """Give message ``message_id`` the audience ``audience`` (checked to be within its conversation's)."""
    host, scope = writer.host, state.scope
    store = conversation_store(host)
    target = store.conversation_entry(scope, message_id)
    if target is None or target.conversation != state.id or target.kind != "message":
        raise NotFoundError(f"no message {message_id} in conversation {state.id!r} of scope {scope!r}")
    entries = [
        replace(e, visibility=audience) if e.id == target.id else e for e in store.conversation_entries(scope, state.id)
    ]
    pairs = []
    for e in entries:
        span = e.covers
        if span is None or not span[0] <= target.position <= span[1]:
            continue
        if covers(e.visibility, target.visibility) and not covers(e.visibility, audience):
            pairs.append((e.id, narrowed_to(e.visibility, audience)))
    # Checked against what was read (position and revision): a turn appended since quotes the
    # message in a context ``_contexts`` below does not re-write.
    change = SetMessageVisibility(
        scope, state.id, message_id, audience, tuple(pairs), reason, state.position, state.revision
    )
    commands: list[cmd.Command] = [change]
    memories = _memories(writer, scope, message_id)  # re-written or narrowed by ``_contexts``
    restating = [*claims_of(host.store, scope, message_id), *borrowers(host.store, scope, entries, target)]
    for claim in {c.id: c for c in restating}.values():
        commands += _follow(scope, claim, audience, FOLLOWED)
    gone = {m.id for m in memories} | {c.id for c in restating}
    for name in people_commands(host.store, scope, target, gone, entries, FOLLOWED):
        # A name only the message spoke for follows its new audience; one narrowed to the readers
        # of its other evidence keeps the message's new readers too (the restating claims stay).
        if isinstance(name, cmd.Purge):
            name_id, wider = name.id, audience
        elif isinstance(name, cmd.SetVisibility):
            name_id, wider = name.id, () if not audience else tuple(sorted({*name.visibility, *audience}))
        else:
            continue  # an alias unlink: the name it joins stays (narrowed at most)
        item = host.store.get(scope, name_id)
        if item is not None:
            commands += _follow(scope, item, wider, FOLLOWED)
    rewrites, texts = _contexts(writer, scope, entries, target, FOLLOWED)
    batch = [*commands, *rewrites]
    # A purged item's vector is replaced by the redaction's (as ``Writer.purge_message`` embeds it).
    purged = [REDACTED] if any(isinstance(c, cmd.Purge) for c in batch) else []
    host.run(batch, [*purged, *texts])
    found = store.conversation_entry(scope, message_id)
    if found is None:  # pragma: no cover - written in the transaction above
        raise NotFoundError(f"no message {message_id} in conversation {state.id!r} of scope {scope!r}")
    return found


__all__ = ["restrict_message"]

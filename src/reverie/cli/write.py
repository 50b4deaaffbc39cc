"""Commands that change what a scope believes: remember, revise, forget, dismiss, undismiss, link, pause, resume.

Each is one ``Memory`` call; the CLI adds no rule of its own, so what the API refuses the CLI
refuses with the same code and message.
"""

from __future__ import annotations

import click

from reverie import Item, WriteResult
from reverie.cli.crew import crew_options, with_crew
from reverie.cli.parse import FLOAT, iso_time, meta_object
from reverie.cli.render import clean, fields, score
from reverie.cli.state import creates_store, json_option, scoped, state

#: Where a claim written through the CLI says it came from (``provenance.origin``).
CLI_ORIGIN = "cli"


def _item_doc(action: str, item: Item) -> dict[str, object]:
    return {"action": action, "item": item.to_dict()}


def _written_doc(action: str, result: WriteResult, **extra: object) -> dict[str, object]:
    """The ``--json`` of remember / revise: the item, and the contradictions the write created."""
    doc = result.to_dict()
    return {"action": action, **extra, "item": doc["item"], **{k: v for k, v in doc.items() if k != "item"}}


def _conflict_lines(result: WriteResult) -> str:
    """``  contradicts <id> (<axis>): <reason>`` per contradiction the write created (#16.3).

    Said at once because a person (or a script) writing a claim should learn it clashes with
    another now, not at the next ``reverie contradictions``.
    """
    lines = [f"  contradicts {c.other_id} ({clean(c.axis)}): {clean(c.reason)}" for c in result.conflicts]
    if not result.checked:
        lines.append("  contradictions not checked yet (the next `reverie dream` checks this claim)")
    return "".join("\n" + line for line in lines)


@click.command()
@creates_store()
@click.argument("text")
@click.option("--kind", default="observation", show_default=True, help="Open vocabulary: assertion, policy, trait…")
@click.option(
    "--source",
    default="observed",
    show_default=True,
    help="user_stated, observed or inferred (manual and system are not for the learning path).",
)
@click.option("--key", help="Structured key, e.g. alice.allergy (with --value).")
@click.option("--value", help="Structured value for --key.")
@click.option("--author", help="Who stated it.")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@click.option("--meta", help="A JSON object stored with the item, e.g. '{\"turn\": 3}'.")
@click.option("--parent", "parents", multiple=True, metavar="ID", help="An item this one derives from (repeatable).")
@click.option("--importance", type=FLOAT, help="Salience in [0, 1].")
@click.option("--authority", type=FLOAT, help="Trust in [0, 1] (default by source).")
@click.option("--confidence", type=FLOAT, help="The author's conviction in [0, 1].")
@click.option("--durability", type=FLOAT, help="How long it stays true, in [0, 1].")
@click.option("--valid-from", help="ISO-8601 time it became true (UTC if no offset).")
@click.option("--valid-to", help="ISO-8601 time it stops being true (UTC if no offset).")
@crew_options
@click.option(
    "--visible-to",
    "visible_to",
    multiple=True,
    metavar="PRINCIPAL",
    help="Only this principal may see it (repeatable; default: everyone in the scope).",
)
@scoped
@json_option
def remember(
    text: str,
    kind: str,
    source: str,
    key: str | None,
    value: str | None,
    author: str | None,
    tags: tuple[str, ...],
    meta: str | None,
    parents: tuple[str, ...],
    importance: float | None,
    authority: float | None,
    confidence: float | None,
    durability: float | None,
    valid_from: str | None,
    valid_to: str | None,
    agent: str | None,
    session: str | None,
    crew: str | None,
    visible_to: tuple[str, ...],
) -> None:
    """Remember a claim (an equivalent current one is corroborated instead)."""
    st = state()
    scope = st.require_scope()
    mem = st.memory()
    result = mem.remember_checked(
        text,
        scope=scope,
        kind=kind,
        source=source,
        key=key,
        value=value,
        author=author,
        tags=tags,
        meta=with_crew(meta_object(meta), agent=agent, session=session, crew=crew),
        parents=parents,
        importance=importance,
        authority=authority,
        confidence=confidence,
        durability=durability,
        valid_from=iso_time(valid_from, "--valid-from"),
        valid_to=iso_time(valid_to, "--valid-to"),
        provenance={"origin": CLI_ORIGIN},
        visibility=list(visible_to) or None,
    )
    item = result.item
    action = remembered_action(item)
    st.emit(_written_doc(action, result), lambda: _remembered_line(action, item) + _conflict_lines(result))


def _remembered_line(action: str, item: Item) -> str:
    """``remembered <id>``, ``corroborated <id> (evidence N)`` or ``echoed <id> (superseded, …): …``."""
    if action == "echoed":
        return (
            f"echoed {item.id} ({item.status}, evidence {item.evidence_count}): a corrected claim said again,"
            " kept as evidence on the old version; the correction stays current"
        )
    detail = f" (evidence {item.evidence_count})" if action == "corroborated" else ""
    return f"{action} {item.id}{detail}"


def remembered_action(item: Item) -> str:
    """What ``remember`` did, from the item it returned: ``remembered``, ``corroborated`` or ``echoed``.

    ``remember`` returns a closed (superseded) version only for an echo — a corrected claim said
    again lands on its superseded copy. Calling that "corroborated" would tell a person the wrong
    value was reinforced, when the correction stands. A fresh item has one piece of evidence; more
    means an existing current claim was corroborated.
    """
    if not item.is_current:
        return "echoed"
    return "corroborated" if item.evidence_count > 1 else "remembered"


@click.command()
@click.argument("id")
@click.argument("text")
@click.option("--reason", default="", help="Why it changed (kept in history).")
@click.option("--key", help="New structured key.")
@click.option("--value", help="New structured value.")
@click.option("--expected-version", type=int, help="Refuse (version_conflict) unless the item is at this version.")
@click.option("--valid-from", help="The world changed at this ISO-8601 time (else: a correction).")
@click.option("--valid-to", help="The new version stops being true at this ISO-8601 time (else: open-ended).")
@scoped
@json_option
def revise(
    id: str,
    text: str,
    reason: str,
    key: str | None,
    value: str | None,
    expected_version: int | None,
    valid_from: str | None,
    valid_to: str | None,
) -> None:
    """Replace a claim by a new version linked by `supersedes`: a correction closes the old one;
    with --valid-from (a change in the world) the old one stays true until then."""
    st = state()
    scope = st.require_scope()
    result = st.memory().revise_checked(
        id,
        text,
        scope=scope,
        reason=reason,
        key=key,
        value=value,
        expected_version=expected_version,
        valid_from=iso_time(valid_from, "--valid-from"),
        valid_to=iso_time(valid_to, "--valid-to"),
    )
    new = result.item
    doc = _written_doc("revised", result, old_id=id)
    st.emit(doc, lambda: f"revised {id} -> {new.id} (version {new.version})" + _conflict_lines(result))


@click.command()
@click.argument("id")
@click.option("--reason", default="", help="Why (kept in history).")
@click.option("--expected-version", type=int, help="Refuse (version_conflict) unless the item is at this version.")
@click.option(
    "--purge",
    is_flag=True,
    help="Also erase its content from every version, the log and the file (GDPR erasure, leaked secret).",
)
@scoped
@json_option
def forget(id: str, reason: str, expected_version: int | None, purge: bool) -> None:
    """Close a claim's validity now; nothing is deleted (history and --as-of still see it).

    With --purge its content is erased for good (see Memory.forget): history keeps only "[purged]".
    """
    st = state()
    scope = st.require_scope()
    item = st.memory().forget(id, scope=scope, reason=reason, expected_version=expected_version, purge=purge)
    action = "purged" if purge else "forgotten"
    st.emit(_item_doc(action, item), lambda: f"{'purged' if purge else 'forgot'} {item.id}")


@click.command()
@click.argument("id")
@click.option("--reason", default="", help="Why (kept in history).")
@scoped
@json_option
def dismiss(id: str, reason: str) -> None:
    """Tombstone a claim's value: it leaves current truth and is refused if learned again."""
    st = state()
    scope = st.require_scope()
    item = st.memory().dismiss(id, scope=scope, reason=reason)
    st.emit(_item_doc("dismissed", item), lambda: f"dismissed {item.id}")


@click.command()
@click.argument("text", required=False)
@click.option("--key", help="Key of a dismissed key/value (with --value).")
@click.option("--value", help="Value of a dismissed key/value (with --key).")
@click.option("--reason", default="", help="Why (kept in history).")
@scoped
@json_option
def undismiss(text: str | None, key: str | None, value: str | None, reason: str) -> None:
    """Lift a tombstone (by the dismissed TEXT, or --key and --value) so the value may be learned again."""
    st = state()
    scope = st.require_scope()
    st.memory().undismiss(text, scope=scope, key=key, value=value, reason=reason)
    st.emit({"action": "undismissed"}, lambda: "undismissed")


@click.command()
@click.argument("src")
@click.argument("dst")
@click.argument("type")
@click.option("--author", help="Who asserts the relation.")
@click.option("--authority", type=FLOAT, default=0.5, show_default=True, help="Trust in the edge, in [0, 1].")
@click.option("--meta", help="A JSON object stored with the edge.")
@crew_options
@scoped
@json_option
def link(
    src: str,
    dst: str,
    type: str,
    author: str | None,
    authority: float,
    meta: str | None,
    agent: str | None,
    session: str | None,
    crew: str | None,
) -> None:
    """Add a typed edge SRC -> DST: supports, contradicts, supersedes, alias, derived_from, about."""
    st = state()
    scope = st.require_scope()
    edge_meta = with_crew(meta_object(meta), agent=agent, session=session, crew=crew)
    edge = st.memory().link(src, dst, type, scope=scope, author=author, authority=authority, meta=edge_meta)
    human = f"linked {edge.src} --{edge.type}--> {edge.dst} (edge {edge.id}, authority {score(edge.authority)})"
    st.emit({"action": "linked", "edge": edge.to_dict()}, lambda: human)


@click.command()
@creates_store()
@click.option("--reason", default="", help="Why (kept in history).")
@scoped
@json_option
def pause(reason: str) -> None:
    """Pause learning in the scope: learning writes are refused (learning_paused), reads work."""
    st = state()
    scope = st.require_scope()
    st.memory().pause_learning(scope, reason=reason)
    st.emit({"scope": scope, "learning_paused": True}, lambda: fields([("scope", scope), ("learning", "paused")]))


@click.command()
@creates_store()
@click.option("--reason", default="", help="Why (kept in history).")
@scoped
@json_option
def resume(reason: str) -> None:
    """Resume learning in the scope."""
    st = state()
    scope = st.require_scope()
    st.memory().resume_learning(scope, reason=reason)
    st.emit({"scope": scope, "learning_paused": False}, lambda: fields([("scope", scope), ("learning", "resumed")]))


COMMANDS = (remember, revise, forget, dismiss, undismiss, link, pause, resume)

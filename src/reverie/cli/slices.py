"""``reverie slice export|import``: hand a piece of a scope to another agent's store and merge it back.

Thin over ``Memory.export_slice`` / ``Memory.import_slice`` (``reverie.memory.slices``): the
slice is one JSON document (``reverie.slice.format``), written atomically with ``--out``.
"""

from __future__ import annotations

from pathlib import Path

import click

from reverie.cli.ops import _read_text
from reverie.cli.outfile import check_out, write_out
from reverie.cli.state import creates_store, json_option, scoped, state
from reverie.limits import CLOCK_SKEW_HELP
from reverie.slice import ON_CONFLICT, SliceReport


@click.group("slice")
def slice_group() -> None:
    """Export a slice of a scope (items, parents, aliases, contradictions, edges, intents, tasks) or import one."""


@slice_group.command("export")
@click.option(
    "--id", "ids", multiple=True, metavar="ID", help="An item to export (repeatable; default: every current item)."
)
@click.option("--no-parents", is_flag=True, help="Leave out the items' parents.")
@click.option("--no-aliases", is_flag=True, help="Leave out the items' aliases.")
@click.option("--no-contradictions", is_flag=True, help="Leave out the items that contradict them.")
@click.option(
    "--intents", "with_intents", is_flag=True, help="Add the intents about the items (all open ones without --id)."
)
@click.option(
    "--tasks", "with_tasks", is_flag=True, help="Add the tasks that took or produced the items, with their intents."
)
@click.option(
    "--conversations",
    "with_conversations",
    is_flag=True,
    help="Add the conversations of the items (all without --id), whole: entries, tool calls, recaps.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write to FILE (atomically) instead of stdout.",
)
@scoped
@json_option
def slice_export(
    ids: tuple[str, ...],
    no_parents: bool,
    no_aliases: bool,
    no_contradictions: bool,
    with_intents: bool,
    with_tasks: bool,
    with_conversations: bool,
    out: Path | None,
) -> None:
    """Write a slice of the scope as one JSON document (`reverie slice import` reads it)."""
    st = state()
    scope = st.require_scope()
    check_out(st, out, "a slice")  # before the store is opened: a refused call touches nothing
    sl = st.memory().export_slice(
        scope=scope,
        memory_ids=list(ids) or None,
        include_parents=not no_parents,
        include_aliases=not no_aliases,
        include_contradictions=not no_contradictions,
        include_intents=with_intents,
        include_tasks=with_tasks,
        include_conversations=with_conversations,
    )
    text = sl.to_json(indent=2) + "\n"
    if out is None:
        click.echo(text, nl=False)
        return
    write_out(st, out, lambda fh: fh.write(text))
    doc = {"scope": scope, "items": len(sl.items), "edges": len(sl.edges), "out": str(out)}
    doc.update({name: len(rows) for name, rows in (("intents", sl.intents), ("tasks", sl.tasks)) if rows is not None})
    st.emit(
        doc, lambda: f"exported a slice of {len(sl.items)} items and {len(sl.edges)} edges of scope {scope} to {out}"
    )


def _report_text(report: SliceReport) -> str:
    lines = [
        f"imported a slice into scope {report.scope}: {len(report.created)} created, "
        f"{len(report.corroborated)} corroborated, {len(report.skipped)} skipped, {len(report.conflicts)} conflicts, "
        f"{len(report.edges)} edges; {len(report.records_created)} intents/tasks created, "
        f"{len(report.records_advanced)} advanced, {len(report.records_skipped)} already here",
        "claims are stored as source 'imported' (their source is kept in provenance); --json prints the id map",
    ]
    lines += [f"  skipped {s['id']}: {s['reason']}" for s in report.skipped if s["reason"] != "already here"]
    lines += [f"  conflict {c['id']} (here {c['target']}): {c['reason']}" for c in report.conflicts]
    lines += [f"  dropped memory {d['memory']} from {d['field']} of {d['record']}" for d in report.dropped_refs]
    return "\n".join(lines)


@slice_group.command("import")
@creates_store()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option(
    "--on-conflict",
    type=click.Choice(ON_CONFLICT),
    default="report",
    show_default=True,
    help="A claim held here in other words: report (refuse, write nothing), skip (keep ours), reid (import theirs).",
)
@click.option(
    "--allow-future",
    is_flag=True,
    help=f"Import conversation messages dated later than now plus {CLOCK_SKEW_HELP} as dated "
    "(default: refused, nothing written; such a conversation takes new messages once the clock passes "
    "them or they are purged).",
)
@scoped
@json_option
def slice_import(file: str, on_conflict: str, allow_future: bool) -> None:
    """Import a slice FILE (`-` for stdin) into the scope: all of it in one transaction, or nothing."""
    st = state()
    scope = st.require_scope()
    mem = st.memory()
    report = mem.import_slice(_read_text(file), scope=scope, on_conflict=on_conflict, allow_future=allow_future)
    st.emit(report.to_dict(), lambda: _report_text(report))


COMMANDS = (slice_group,)

"""``reverie vault …``: the vault's tools on the command line (``reverie.vault``).

Every command takes ``--vault PATH`` (or ``REVERIE_VAULT``) on the group and the global
``--scope``; with ``--json`` each prints the library call's result as one JSON document.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from reverie import ManualClock, Memory
from reverie.cli.state import CliUsageError, creates_store, json_option, scoped, state

if TYPE_CHECKING:  # imported when a vault command runs: other commands start without it
    from reverie.vault import Vault

_KEY = "reverie.vault"


def _vault() -> Vault:
    """The vault the group's options name, over the invocation's memory and scope."""
    from reverie.vault import Vault

    st = state()
    path, name = click.get_current_context().meta.get(_KEY, (None, None))
    if not path:
        raise CliUsageError(
            "invalid_input", "this command needs a vault: pass --vault PATH or set REVERIE_VAULT", st.json
        )
    return Vault(path, memory=st.memory(), scope=st.require_scope(), name=name)


def _emit(doc: Any, human: Callable[[], str]) -> None:
    from reverie.vault import as_dict

    state().emit(as_dict(doc), human)


@click.group()
@click.option(
    "--vault", "path", envvar="REVERIE_VAULT", metavar="PATH", help="The vault folder (kept as a git repository)."
)
@click.option(
    "--name",
    default=None,
    help="The vault's name in the store [default: the folder's name, with its parents' (home/wiki) when "
    "another vault folder's notes hold that name in the scope].",
)
@click.pass_context
def vault(ctx: click.Context, path: str | None, name: str | None) -> None:
    """A git-backed Markdown vault: index its notes, think over them, keep it healthy."""
    ctx.meta[_KEY] = (path, name)  # meta is shared with the subcommand's context


@vault.command("index")
@creates_store()
@scoped
@json_option
def index_cmd() -> None:
    """Index the notes into the store (only notes that changed are written)."""
    v = _vault()
    r = v.index()
    _emit(
        r.to_dict(),
        lambda: (
            f"added {len(r.added)}, updated {len(r.updated)}, removed {len(r.removed)}, unchanged {r.unchanged}, "
            f"corrected {len(r.corrected)}, kept out {len(r.kept_out)}, skipped {len(r.skipped)}"
            + (f" (vault name {r.vault!r})" if r.vault != v.root.name else "")
            + "".join(f"\n  skipped {s.path}: {s.reason}" for s in r.skipped)
            + "".join(f"\n  kept out {s.path}: {s.reason}" for s in r.kept_out)
            + "".join(f"\n  corrected {p}: its item's correction is kept (the file is unchanged)" for p in r.corrected)
            + "".join(f"\n  conflict {p}: {why}" for p, why in r.conflicts.items())
            + "".join(f"\n  problem {p}: {why}" for p, whys in r.problems.items() for why in whys)
        ),
    )


@vault.command("status")
@scoped
@json_option
def status_cmd() -> None:
    """What a re-index would add, update and remove; which files are skipped and why."""
    s = _vault().index_status()
    _emit(
        s,
        lambda: (
            f"{s.notes} notes, {s.indexed} indexed; to add {len(s.to_add)}, update {len(s.to_update)}, "
            f"remove {len(s.to_remove)}; corrected {len(s.corrected)}, conflicts {len(s.conflicts)}, "
            f"kept out {len(s.kept_out)}; skipped {len(s.skipped)}"
        ),
    )


@vault.command("relevant")
@click.argument("query")
@click.option("-k", default=5, show_default=True, help="How many notes.")
@scoped
@json_option
def relevant_cmd(query: str, k: int) -> None:
    """Notes for QUERY (relevance × accrued value), each with its best line."""
    hits = _vault().relevant_notes(query, k)
    _emit(hits, lambda: "\n".join(f"{h.score:.3f}  {h.path}:{h.line}  {h.excerpt}" for h in hits) or "no notes")


@vault.command("coverage")
@click.argument("question")
@click.option("-k", default=5, show_default=True, help="How many top notes.")
@scoped
@json_option
def coverage_cmd(question: str, k: int) -> None:
    """How completely the notes answer QUESTION, and which of its terms no note supports."""
    c = _vault().coverage_gap(question, k)
    _emit(
        c,
        lambda: (
            f"completeness {c.completeness:.0%}; missing: {', '.join(c.missing) or '-'}\n"
            + "\n".join(f"  {h.path}" for h in c.notes)
        ),
    )


@vault.command("gaps")
@scoped
@json_option
def gaps_cmd() -> None:
    """Isolated and under-linked notes, and thin folders."""
    g = _vault().find_gaps()
    _emit(
        g,
        lambda: (
            f"isolated: {', '.join(g.isolated) or '-'}\nunder-linked: {', '.join(g.under_linked) or '-'}\n"
            f"thin folders: {g.thin_folders or '-'}"
        ),
    )


@vault.command("bridges")
@click.argument("note")
@click.option("-k", default=5, show_default=True, help="How many candidates.")
@scoped
@json_option
def bridges_cmd(note: str, k: int) -> None:
    """Notes in other folders close in meaning to NOTE, with no link between them."""
    bs = _vault().bridge_candidates(note, k)
    _emit(bs, lambda: "\n".join(f"{b.score:.3f}  {b.path}" for b in bs) or "no candidates")


@vault.command("claims")
@creates_store(when="remember")
@click.argument("note")
@click.option("--remember", is_flag=True, help="Also remember them as claims (and show what they contradict).")
@scoped
@json_option
def claims_cmd(note: str, remember: bool) -> None:
    """Claim-like sentences of NOTE with line numbers."""
    cs = _vault().extract_claims(note, remember=remember)
    _emit(
        cs,
        lambda: (
            "\n".join(
                f"{c.line}: {c.text}"
                + (f"\n    skipped: {c.skipped}" if c.skipped else "")
                + "".join(f"\n    contradicts {x.other_id} ({x.axis}): {x.reason}" for x in c.conflicts)
                for c in cs
            )
            or "no claims"
        ),
    )


@vault.command("ideas")
@scoped
@json_option
def ideas_cmd() -> None:
    """Named idea-generation recipes over the vault."""
    ms = _vault().idea_methods()
    _emit(ms, lambda: "\n".join(f"{m.name}: {m.purpose} (uses {', '.join(m.tools)})" for m in ms))


@vault.command("report")
@click.option("--stale-days", default=365, show_default=True, help="Notes dated before this many days are stale.")
@scoped
@json_option
def report_cmd(stale_days: int) -> None:
    """Dead links, orphans, stale notes, near-duplicates, archive candidates, health."""
    r = _vault().maintenance_report(stale_days=stale_days)
    _emit(
        r,
        lambda: "\n".join(
            [
                f"health {r.health:.2f} ({r.notes} notes)",
                *(f"dead link: {d.source}:{d.line} -> [[{d.target}]]" for d in r.dead_links),
                *(f"orphan: {o}" for o in r.orphans),
                *(f"stale: {s}" for s in r.stale),
                *(f"near-duplicates: {', '.join(c)}" for c in r.near_duplicates),
                *(f"archive candidate: {a}" for a in r.archive_candidates),
                *(f"skipped: {p}: {why}" for p, why in r.skipped),
            ]
        ),
    )


@vault.command("suggest")
@click.option("--apply", "apply_", is_flag=True, help="Write the blocks and commit them (default: a dry run).")
@scoped
@json_option
def suggest_cmd(apply_: bool) -> None:
    """Append a marked "Related (suggested)" link block to each orphan (dry run unless --apply)."""
    r = _vault().apply_suggestions(dry_run=not apply_)
    verb = "would link" if r.dry_run else "linked"
    _emit(
        r,
        lambda: (
            "\n".join(
                [
                    *(f"{verb} {p} -> [[{t}]]" for p, t in r.changes.items()),
                    *(f"skipped {p}: {why}" for p, why in r.skipped.items()),
                ]
            )
            or "nothing to suggest"
        ),
    )


@vault.command("write")
@click.argument("note")
@click.option("--person", required=True, help="Whose area (people/PERSON/) the note is in.")
@click.option("--why", required=True, help="Why the agent writes it (the commit message says so).")
@scoped
@json_option
def write_cmd(note: str, person: str, why: str) -> None:
    """Write NOTE (Markdown from stdin) in a person's area, as one commit."""
    commit = _vault().write_note(note, sys.stdin.read(), person=person, why=why)
    _emit({"note": note, "commit": commit}, lambda: f"committed {commit}" if commit else "unchanged")


@vault.command("request-promotion")
@click.argument("note")
@click.option("--person", required=True, help="The person confirming the move.")
@scoped
@json_option
def request_cmd(note: str, person: str) -> None:
    """Issue the single-use token that confirms moving NOTE into curated/."""
    token = _vault().request_promotion(note, person)
    _emit({"note": note, "person": person, "token": token}, lambda: token)


@vault.command("promote")
@click.argument("note")
@click.argument("token")
@scoped
@json_option
def promote_cmd(note: str, token: str) -> None:
    """Move NOTE into curated/ with its confirmation TOKEN (one commit)."""
    dst = _vault().promote(note, token)
    _emit({"note": note, "promoted_to": dst}, lambda: f"promoted to {dst}")


@vault.command("tour")
@click.option(
    "--sample",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The sample vault to copy [default: examples/sample-vault of this checkout].",
)
@click.option(
    "--into",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where to put the copy [default: a new temporary folder].",
)
def tour_cmd(sample: Path | None, into: Path | None) -> None:
    """A tour of every vault tool on a copy of the sample vault (in-memory store, hash embedder)."""
    from reverie.vault.tour import default_sample, tour

    src = sample or default_sample()
    if src is None:
        raise CliUsageError("invalid_input", "no sample vault found; pass --sample DIR", state().json)
    dest = into or Path(tempfile.mkdtemp(prefix="reverie-vault-tour-")) / "sample-vault"
    clock = ManualClock(datetime(2026, 1, 15, tzinfo=UTC))  # the sample's MANIFEST date: the same tour every run
    with Memory(":memory:", embedder=state().embedder or "hash", clock=clock, seed=0) as mem:
        tour(mem, src, dest, click.echo)
    click.echo(f"\nthe vault copy is in {dest}")


COMMANDS = (vault,)

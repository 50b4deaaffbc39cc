"""A tour of the vault's tools on a copy of the sample vault (``reverie vault tour``).

It copies the sample vault to a fresh folder (the original is never touched, never made a git
repository), opens it over the memory it is given, and walks through each tool once, writing
what it finds as plain text. Everything runs offline; with the hash embedder and a fixed
clock, it prints the same tour every time.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.vault.vault import Vault
from reverie.vault.wiki import PERSON_EMAIL_DOMAIN

if TYPE_CHECKING:
    from reverie.memory import Memory

TOUR_SCOPE = "team:lantern"


def tour(mem: Memory, sample: Path, into: Path, say: Callable[[str], None]) -> Vault:
    """Copy ``sample`` to ``into`` and show every tool on it through ``say``; returns the vault."""
    if into.exists() and any(into.iterdir()):
        raise FileExistsError(f"{into} is not empty; give a new folder")
    shutil.copytree(sample, into, dirs_exist_ok=True)
    v = Vault(into, memory=mem, scope=TOUR_SCOPE)
    # The copy stands for a vault its people keep in git: committed under their name, not the agent's
    # (the agent never commits a note nobody committed, so suggestions would skip every note).
    people = ("sample vault people", f"people@{PERSON_EMAIL_DOMAIN}")
    v.repo.commit(["."], "the sample vault, as its people wrote it", mem.clock.now(), author=people[0], email=people[1])
    r = v.index()
    say(f"== index: {len(r.added)} notes indexed into scope {TOUR_SCOPE}; a second run touches {v.index().touched}")
    for path, problems in r.problems.items():
        say(f"   problem in {path}: {problems[0]}")
    say("\n== relevant_notes('how long are backups kept')")
    for h in v.relevant_notes("how long are backups kept", k=3):
        say(f"   {h.score:.3f}  {h.path}:{h.line}  {h.excerpt[:90]}")
    cov = v.coverage_gap("does spaced repetition lower churn for students on kubernetes")
    say(f"\n== coverage_gap: completeness {cov.completeness:.0%}; no note supports: {', '.join(cov.missing) or '-'}")
    gaps = v.find_gaps()
    say(f"\n== find_gaps: isolated {gaps.isolated}")
    say(f"   under-linked {len(gaps.under_linked)}, thin folders {gaps.thin_folders}")
    say("\n== bridge_candidates('research/spaced-repetition.md')")
    for b in v.bridge_candidates("research/spaced-repetition.md", k=3):
        say(f"   {b.score:.3f}  {b.path}")
    mem.remember_manual("The on-call engineer this week is Carol.", scope=TOUR_SCOPE)
    say("\n== extract_claims('people/bob/on-call-swap.md', remember=True) against memory saying Carol is on call")
    for c in v.extract_claims("people/bob/on-call-swap.md", remember=True):
        clash = "; ".join(f"{x.axis}: {x.reason}" for x in c.conflicts) or "no conflict"
        say(f"   line {c.line}: {c.text}  -> {clash}")
    say(f"\n== idea_methods: {', '.join(m.name for m in v.idea_methods())}")
    rep = v.maintenance_report()
    say(f"\n== maintenance_report: health {rep.health:.2f} (largest linked share of {rep.notes} notes)")
    say(f"   dead links: {[f'{d.source} -> [[{d.target}]]' for d in rep.dead_links]}")
    say(f"   orphans: {rep.orphans}\n   stale: {rep.stale}")
    say(f"   near-duplicates: {rep.near_duplicates}\n   archive candidates: {rep.archive_candidates}")
    plan = v.apply_suggestions()
    say(f"\n== apply_suggestions (dry run): would link {plan.changes}")
    done = v.apply_suggestions(dry_run=False)
    again = v.apply_suggestions(dry_run=False)
    say(f"   applied as commit {str(done.commit)[:10]}; a second run changes {len(again.changes)} notes")
    say(f"   health now {v.maintenance_report().health:.2f}")
    token = v.request_promotion("people/alice/ideas.md", "alice")
    say(f"\n== promote: people/alice/ideas.md -> {v.promote('people/alice/ideas.md', token)} with Alice's token")
    say(f"   git log: {[s for _, s in v.log(4)]}")
    return v


def default_sample() -> Path | None:
    """The repository's ``examples/sample-vault`` when running from a checkout, else None."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "examples" / "sample-vault"
        if (candidate / "MANIFEST.json").is_file():
            return candidate
    return None

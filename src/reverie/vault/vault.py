"""``Vault``: a git-backed Markdown folder the agent reads, writes, indexes and thinks over.

It sits above the facade (it is given a ``Memory`` and uses only its public methods), so the
core never learns about notes: a note is one more item, of kind ``note``.
"""

from __future__ import annotations

import builtins
import unicodedata
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reverie.errors import InvalidInputError, NotFoundError, ReadOnlyError
from reverie.model.validate import check_count, check_scope
from reverie.vault import claims as claims_mod
from reverie.vault import maintain, naming, tools
from reverie.vault.claims import ExtractedClaim
from reverie.vault.corpus import Cache, Corpus, read_cached, read_corpus
from reverie.vault.errors import VaultConflictError, VaultPathError
from reverie.vault.files import DEFAULT_MAX_NOTE_BYTES, Skip, note_path, through_symlink
from reverie.vault.gitrepo import GitRepo
from reverie.vault.ideas import IDEA_METHODS, IdeaMethod
from reverie.vault.index import IndexReport, indexed, notes_filter, plan, sync
from reverie.vault.maintain import MaintenanceReport
from reverie.vault.parse import Note
from reverie.vault.pending import conflict_message, hold_back
from reverie.vault.tokens import DEFAULT_TTL
from reverie.vault.wiki import Promotions, atomic_write, check_person, check_text, check_why, check_writable

if TYPE_CHECKING:
    from reverie.memory import Memory


@dataclass(frozen=True, slots=True)
class IndexStatus:
    """Notes on disk vs items in memory: what a re-index would add, update, remove."""

    notes: int
    indexed: int
    to_add: list[str]
    to_update: list[str]
    to_remove: list[str]
    skipped: list[tuple[str, str]]
    corrected: list[str] = field(default_factory=list)  # item corrected through the API, file unchanged: kept
    conflicts: list[str] = field(default_factory=list)  # file edited after such a correction (in to_update too)
    kept_out: list[Skip] = field(default_factory=list)  # forgotten by a dream pass or the API, file unchanged


@dataclass(frozen=True, slots=True)
class SuggestionResult:
    """What ``apply_suggestions`` changed (or would change, with ``dry_run``)."""

    dry_run: bool
    changes: dict[str, str]  # orphan path → the link it gets
    skipped: dict[str, str]  # path → why it was left alone
    commit: str | None


class Vault:
    """The vault at ``path`` (created, with its git repository, if missing), indexed into ``scope``.

    ``name`` (default: the folder's name, see ``name``) tells this vault's notes apart in the store
    (``meta.vault``). ``max_note_bytes``: notes over it are skipped and reported.

    Over a memory opened read-only the vault is read-only too: nothing is created on disk, and
    every write (a note, a promotion or its token, suggested links, an index, remembered
    claims) raises ``ReadOnlyError`` before touching the folder or its git repository.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        memory: Memory,
        scope: str,
        name: str | None = None,
        max_note_bytes: int = DEFAULT_MAX_NOTE_BYTES,
        token_ttl: timedelta = DEFAULT_TTL,
    ) -> None:
        if isinstance(max_note_bytes, bool) or not isinstance(max_note_bytes, int) or max_note_bytes < 1:
            raise InvalidInputError("max_note_bytes must be a positive int")
        self.root = Path(path).resolve()
        self.memory = memory
        self.scope = check_scope(scope, memory.limits)
        self._given = None if name is None else _check_name(name)
        self._name: str | None = self._given
        _check_name(self.root.name)
        self.max_note_bytes = max_note_bytes
        self.token_ttl = token_ttl
        self.repo = GitRepo(self.root)
        self.read_only = bool(getattr(memory.store, "read_only", False))
        if not self.read_only:
            self.repo.init()
        self._promotions = Promotions(self.repo, token_ttl)
        self._cache: Cache = {}

    @property
    def name(self) -> str:
        """The vault's name in the store (``meta.vault``): the one given, else the folder's name —
        or, when another vault folder that still exists already holds that name in the scope, the
        folder's name with its parents' (``home/wiki``), as ``naming.default_name`` finds it."""
        if self._name is None:
            self._name = naming.default_name(self.memory, self.scope, self.root)
        return self._name

    def _own_name(self) -> str:
        """The name, checked again before an index (another folder may have indexed meanwhile)."""
        if self._given is not None:
            naming.check_given(self.memory, self.scope, self._given, self.root)
            return self._given
        self._name = naming.default_name(self.memory, self.scope, self.root)
        return self._name

    # -- reading ---------------------------------------------------------------------------
    def read(self) -> Corpus:
        """Every note, parsed now (files skipped for a reason are in ``.skipped``)."""
        return read_corpus(self.root, self.max_note_bytes, self._cache)

    def _note_of(self, path: str) -> Note | None:
        """One note, read (through the cache) without walking the vault; None if unreadable."""
        rel = self.note(path)
        got = read_cached(self.root, rel, self.root / rel, self.max_note_bytes, self._cache)
        return None if isinstance(got, Skip) or not (self.root / rel).is_file() else got[1]

    def note(self, path: str) -> str:
        """The note's path checked against the vault (``VaultPathError`` if it could leave it)."""
        return note_path(self.root, path)

    # -- the wiki --------------------------------------------------------------------------
    def write_note(self, path: str, text: str, *, person: str, why: str) -> str | None:
        """Write (create or replace) a note in ``people/<person>/``: one commit saying what and why.

        Returns the commit id (None when the note already had exactly this text).
        Every argument is checked before anything is written; the write is atomic (a temporary
        file renamed over the note), and if the commit then fails the old text is put back and
        git's index restored, so a refused or failed call leaves the vault as it was.

        A note that differs from its last commit (edited, created or deleted and not committed,
        on disk or staged) is refused with ``VaultConflictError``: that change is someone's work
        in progress, and writing would destroy it or commit it under the agent's name.
        """
        self._writable()
        who = check_person(person)
        rel = self.note(path)
        check_writable(rel, who)
        body = check_text(text, self.max_note_bytes)
        reason = check_why(why)
        with self.repo.lock():
            self._no_symlink(rel)
            busy = self.repo.pending([rel])
            if busy:
                raise VaultConflictError(conflict_message(rel, busy[rel], self.root))
            full = self.root / rel
            old = full.read_bytes() if full.is_file() else None
            made = _missing_dirs(self.root, full.parent)
            try:
                atomic_write(full, body)
                msg = f"agent: {'add' if old is None else 'update'} {rel} for {who}\n\nWhy: {reason}"
                return self.repo.commit([rel], msg, self._now())
            except BaseException:
                _undo_write(full, old, made)
                self.repo.unstage([rel])
                raise

    def request_promotion(self, note: str, person: str) -> str:
        """A single-use token (expiring after ``token_ttl``) confirming ``note``'s move to curated/."""
        self._writable()
        rel = self._no_symlink(self.note(note))
        return self._promotions.request(rel, check_person(person), self._now())

    def promote(self, note: str, token: str) -> str:
        """Move ``note`` to ``curated/`` with its token; returns the new path. A wrong, reused,
        expired or stale token raises ``PromotionTokenError`` and changes nothing."""
        self._writable()
        return self._promotions.promote(self._no_symlink(self.note(note)), token, self._now())

    def log(self, limit: int = 20) -> builtins.list[tuple[str, str]]:
        """The vault's last commits as (id, subject)."""
        return self.repo.log(limit)

    # -- indexing --------------------------------------------------------------------------
    def index(self) -> IndexReport:
        """Bring the memory in line with the notes; only changed notes are written.

        An unchanged file never undoes what was done to its item through the API or by a dream
        pass (kept corrected, kept out, a dismissed text skipped); a file edited after its item was
        corrected is revised and reported in ``conflicts`` (``reverie.vault.index.plan``)."""
        self._writable()
        with self.repo.lock():  # two indexers take turns: neither revises what the other just did
            return sync(self.memory, self.scope, self._own_name(), self.read(), str(self.root))

    def index_status(self) -> IndexStatus:
        corpus = self.read()
        name = self._own_name()
        todo = plan(self.memory, self.scope, name, corpus)
        return IndexStatus(
            notes=len(corpus.notes),
            indexed=len(indexed(self.memory, self.scope, name)),
            to_add=todo.add,
            to_update=[p for p, _ in todo.update],
            to_remove=[p for p, _ in todo.remove],
            skipped=[(s.path, s.reason) for s in [*corpus.skipped, *todo.dismissed]],
            corrected=todo.corrected,
            conflicts=list(todo.conflicts),
            kept_out=todo.kept_out,
        )

    # -- thinking tools --------------------------------------------------------------------
    def relevant_notes(self, query: str, k: int = 5) -> builtins.list[tools.NoteHit]:
        """Notes for ``query``: relevance × accrued value, each with its best matching line."""
        return tools.relevant_notes(self.memory, self.scope, self.name, self._note_of, query, self._k(k))

    def coverage_gap(self, question: str, k: int = 5) -> tools.Coverage:
        """The top notes, a completeness score, and the question's sub-terms no note supports."""
        return tools.coverage_gap(self.memory, self.scope, self.name, self.read(), question, self._k(k))

    def find_gaps(self, *, thin: int = 3) -> tools.Gaps:
        """Isolated notes, under-linked ones, and folders with fewer than ``thin`` notes."""
        return tools.find_gaps(self.read(), thin=thin)

    def bridge_candidates(self, note: str, k: int = 5) -> builtins.list[tools.Bridge]:
        """Notes in other folders close in meaning to ``note`` with no link between them."""
        corpus = self.read()
        rel = self._known(note, corpus)
        return tools.bridge_candidates(self.memory, self.scope, self.name, corpus, rel, self._k(k))

    def extract_claims(self, note: str, *, remember: bool = False) -> builtins.list[ExtractedClaim]:
        """Claim-like sentences of ``note`` with line numbers; ``remember=True`` stores them as
        claims (provenance: the note and line) and reports what each contradicts in memory."""
        if remember:
            self._writable()
        corpus = self.read()
        found = claims_mod.extract(corpus.notes[self._known(note, corpus)])
        return claims_mod.remember(self.memory, self.scope, self.name, found) if remember else found

    def idea_methods(self) -> builtins.list[IdeaMethod]:
        """Named idea-generation recipes, each naming the vault calls it uses."""
        return list(IDEA_METHODS)

    def context(self, query: str, *, budget_tokens: int = 800, notes: bool = True, claims: bool = True) -> str:
        """``Memory.context`` packing notes, claims, or both (the default) into one prompt block."""
        if not notes and not claims:
            raise InvalidInputError("context needs notes, claims or both")
        where = None if notes and claims else (notes_filter(self.name) if notes else ~notes_filter(self.name))
        return self.memory.context(query, scope=self.scope, budget_tokens=budget_tokens, where=where)

    # -- maintenance -----------------------------------------------------------------------
    def maintenance_report(self, *, stale_days: int = 365) -> MaintenanceReport:
        return maintain.report(self.read(), self._now(), stale_days=stale_days)

    def apply_suggestions(self, *, dry_run: bool = True) -> SuggestionResult:
        """Append a marked "Related (suggested)" block to each orphan (replacing its own earlier
        block); additive only, idempotent, dry-run by default; applied, it is one commit.
        Notes in ``curated/`` are left alone (people write there)."""
        if not dry_run:
            self._writable()
        with self.repo.lock():
            corpus = self.read()
            plan = maintain.plan_suggestions(corpus)
            skipped = {p: "in curated/, which only people write" for p in plan if p.startswith("curated/")}
            held = hold_back({p: t for p, t in plan.items() if p not in skipped}, _block_path, self.repo.pending)
            skipped.update(held)
            todo = {p: t for p, t in sorted(plan.items()) if p not in skipped}
            links = {p: _block_target(t) for p, t in todo.items()}
            if dry_run or not todo:
                return SuggestionResult(dry_run, links, skipped, None)
            msg = f"maintenance: suggested links for {len(todo)} orphan note(s)\n\nAdditive only: " + (
                "a marked 'Related (suggested)' block per orphan."
            )
            old = {p: (self.root / p).read_bytes() for p in todo}
            try:
                for p, text in todo.items():
                    atomic_write(self.root / p, text)
                return SuggestionResult(False, links, skipped, self.repo.commit(sorted(todo), msg, self._now()))
            except BaseException:  # no block left behind uncommitted, where it would pass for a person's edit
                for p, before in old.items():
                    _undo_write(self.root / p, before, [])
                self.repo.unstage(sorted(todo))
                raise

    # -- helpers ---------------------------------------------------------------------------
    def _writable(self) -> None:
        """Refuse a write before it touches the folder when the memory was opened read-only."""
        if self.read_only:
            raise ReadOnlyError(
                f"the vault {self.name!r} is served read-only (its store is open for inspection), so nothing "
                "was written; open the store without read-only mode to change the vault"
            )

    def _no_symlink(self, rel: str) -> str:
        """``rel`` if no part of it is a symlink on disk (a write never follows one)."""
        link = through_symlink(self.root, rel)
        if link is not None:
            raise VaultPathError(
                f"note path {rel!r} goes through the symlink {link!r}; the agent writes only real paths "
                f"(a symlink could lead into curated/ or another person's area)"
            )
        return rel

    def _now(self) -> Any:
        return self.memory.clock.now()

    def _k(self, k: int) -> int:
        return check_count(k, "k", default=5, limits=self.memory.limits)

    def _known(self, note: str, corpus: Corpus) -> str:
        rel = self.note(note)
        if rel not in corpus.notes:  # typed composed, stored decomposed (macOS) or the other way round
            nfc = unicodedata.normalize("NFC", rel)
            rel = next((p for p in corpus.notes if unicodedata.normalize("NFC", p) == nfc), rel)
        if rel not in corpus.notes:
            why = next((s.reason for s in corpus.skipped if s.path == rel), "no such note")
            raise NotFoundError(f"note {rel!r} is not readable in the vault: {why}")
        return rel


def _check_name(name: object) -> str:
    """The vault's name: it is written into every note item's text and ``meta.vault``."""
    if not isinstance(name, str) or not 0 < len(name) <= 100 or not name.isprintable() or ":" in name:
        raise InvalidInputError(f"vault name {name!r} must be 1-100 printable characters without ':'; pass name=")
    return name


def _missing_dirs(root: Path, folder: Path) -> builtins.list[Path]:
    """The folders between ``root`` and ``folder`` a write would create, deepest first."""
    out = []
    while folder != root and not folder.exists():
        out.append(folder)
        folder = folder.parent
    return out


def _undo_write(full: Path, old: bytes | None, made: builtins.list[Path]) -> None:
    """Put ``full`` back as it was (``old`` bytes, or absent) and remove the folders the write made."""
    if old is None:
        full.unlink(missing_ok=True)
    else:
        atomic_write(full, old)
    for folder in made:
        try:
            folder.rmdir()
        except OSError:
            break


def _block_path(text: str) -> str:
    """The note path a planned block links to."""
    return _block_target(text) + ".md"


def _block_target(text: str) -> str:
    start = text.rfind(maintain.BLOCK_START)
    seg = text[start:]
    return seg[seg.find("[[") + 2 : seg.find("]]")].split("|")[0]

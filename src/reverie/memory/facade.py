"""``Memory``: the facade every face (Python, CLI, MCP, HTTP) uses, and the only thing they import.

It holds no logic of its own: ``__init__`` builds the shared ``Core`` (store, clock, limits,
ids, embedder) and one object per capability, each given exactly what it needs, and the class
body says which capability answers each method (``delegate``). A new wing (conversations,
people, the vault, intents and tasks) plugs in the same way: a module with a class built from
``Core`` and the capabilities it calls, constructed here, and either its methods delegated
below or the object itself exposed as an attribute (``mem.intents``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from reverie.conflict.places import is_place
from reverie.conversation import Conversations
from reverie.conversation.learn import Learner
from reverie.conversation.people import People
from reverie.embed import Embedder
from reverie.errors import ClosedError, InvalidInputError
from reverie.limits import DEFAULT_LIMITS, Limits
from reverie.memory.alerts import Alerts
from reverie.memory.contradictions import Contradictions
from reverie.memory.core import Core
from reverie.memory.dreaming import Dreaming
from reverie.memory.idempotency import Idempotency
from reverie.memory.imports import Imports
from reverie.memory.intents import Intents
from reverie.memory.maintenance import Maintenance
from reverie.memory.reads import Reads
from reverie.memory.retraction import Retraction
from reverie.memory.retrieval import Retrieval
from reverie.memory.slice_export import export_slice
from reverie.memory.slices import Slices
from reverie.memory.tasks import Tasks
from reverie.memory.usage import Usage
from reverie.memory.wiring import delegate
from reverie.memory.writes import Writes
from reverie.model.clock import Clock, SystemClock
from reverie.store.blocks import refused_in_block
from reverie.store.protocol import Store
from reverie.store.visible import VisibleStore, principal_of, unwrapped

if TYPE_CHECKING:
    from reverie.conflict.second import SecondReader
    from reverie.dream import DreamReport


class Memory:
    """A belief-state memory in one embedded SQLite file (or ``":memory:"``).

    >>> from reverie import Memory
    >>> mem = Memory(":memory:", embedder="hash")
    >>> item = mem.remember("Alice is allergic to peanuts", scope="user:alice", kind="assertion",
    ...                     source="user_stated")
    >>> mem.get(item.id, scope="user:alice").text
    'Alice is allergic to peanuts'

    Every read and write takes ``scope=`` (the isolation boundary). Writes are atomic and
    acknowledged only after they commit; reads see only their own scope.
    """

    def __init__(
        self,
        path: str | Path = ":memory:",
        *,
        embedder: Embedder | str | None = None,
        clock: Clock | None = None,
        durability: str = "full",
        limits: Limits | None = None,
        seed: int | None = None,
        store: Store | None = None,
        detect_conflicts: bool = True,
        read_only: bool = False,
        principal: str | None = None,
        conflict_reader: SecondReader | str | None = None,
        read_at_write: bool = False,
        busy_timeout_ms: int | None = None,
    ) -> None:
        """Open (creating if missing) the store at ``path``: a SQLite file, ``":memory:"``, or a
        ``postgresql://`` URL (``reverie.store.postgres``; needs ``pip install 'reverie[postgres]'``).

        ``embedder``: an ``Embedder``, ``"minilm"`` (the default: a local model shipped in a
        PyPI package), or ``"hash"`` (deterministic, no model; for tests and scale runs).
        ``clock``: where "now" comes from (inject a ``ManualClock`` in tests).
        ``durability``: ``"full"`` (fsync every commit, the default) or ``"fast"``.
        ``seed``: makes generated ids reproducible. ``store``: another backend (e.g. the
        in-memory reference store) instead of SQLite at ``path``. ``detect_conflicts``: check
        each new claim against similar ones and link contradictions (on by default).
        ``read_only``: open the existing SQLite file at ``path`` for inspection; every write raises
        ``ReadOnlyError`` and reads record nothing (recall records no use).
        ``principal``: act for this principal (``reverie.model.visibility``): every read sees only
        what it may see. None (the default) is the store's owner, who sees everything.
        ``conflict_reader``: a second reader for contradictions the rules cannot name — ``"nli"``
        (an int8 NLI model from ``pip install 'reverie[nli]'``) or a
        ``reverie.conflict.second.SecondReader``. None (the default): rules only. The reader costs
        ~45 ms a candidate pair, so it reads while idle: writes run the rules and flag the new
        claim ``conflicts_unread``; the next ``dream`` pass reads it. ``read_at_write=True``
        reads right after each write instead (its result names what it found; ~25x slower writes).
        ``busy_timeout_ms``: how long a write waits for another process's write lock before it fails
        with ``StorageError`` (default 30,000; 0 fails at once) — SQLite's busy timeout, PostgreSQL's
        ``lock_timeout``. Also what ``close()`` waits to write uses a recall kept (``pending_uses``).
        """
        if store is None:
            from reverie.store.opening import open_store

            timeout = {} if busy_timeout_ms is None else {"busy_timeout_ms": busy_timeout_ms}
            store = open_store(path, durability=durability, read_only=read_only, **timeout)  # a postgresql:// URL too
        elif read_only:
            raise InvalidInputError("read_only opens the SQLite file at path; a store you pass is opened by you")
        elif busy_timeout_ms is not None:
            raise InvalidInputError("busy_timeout_ms sets the store Memory opens at path; set it on a store you pass")
        # -- visibility (issue #14.8): the one point where a principal's reads are filtered --
        if principal is not None:
            store = VisibleStore(store, principal, owns=True)
        self._core = core = Core(
            store,
            clock=clock or SystemClock(),
            limits=limits or DEFAULT_LIMITS,
            seed=seed,
            embedder=embedder,
            detect_conflicts=detect_conflicts,
            conflict_reader=conflict_reader,
            read_at_write=read_at_write,
        )
        self._closed = False
        self._conflicts = Contradictions(core)
        self._writes = Writes(core, self._conflicts)
        self._usage = Usage(core)
        self._reads = Reads(core)
        self._retrieval = Retrieval(core, self._usage)
        self._dreaming = Dreaming(core, self._conflicts)
        self._maintenance = Maintenance(core)
        self._retraction = Retraction(core)
        self._imports = Imports(core, self._writes)
        self._conversations = Conversations(
            core,
            learner=Learner(core, self._writes.remember_held, self._writes.detect_held, is_place=is_place),
            recall=self._retrieval.recall_in,
        )
        self._writes.message_purge = self._conversations.purge_message_memory
        self._writes.message_of = self._conversations.message_id_of
        self._people = People(core)
        self._slices = Slices(core, self._writes)
        self._alerts = Alerts(core)
        #: Intents and tasks on the same log (``reverie.memory.intents`` / ``reverie.memory.tasks``).
        self.intents = Intents(core, self._dreaming.thinking_queue)
        self.tasks = Tasks(core, self._writes.remember_guarded)
        #: Idempotency keys for a face that retries writes (``reverie.memory.idempotency``).
        self.idempotency = Idempotency(core)

    # -- lifecycle ------------------------------------------------------------------------
    def close(self) -> None:
        """Release the file. Safe to call twice; any later call raises ``ClosedError``.

        A dream pass running in another thread is asked to stop and given up to
        ``DREAM_STOP_WAIT`` seconds: it stops between two atomic batches, releases its lease and
        reports itself interrupted, so close() returns promptly and leaves nothing half-applied.

        Inside an open ``atomic`` block of this thread it raises ``ConflictError`` and closes
        nothing: the block still holds its writes on the connection (``store/blocks.py``).

        Uses of recalls that found another writer holding the lock (``pending_uses``) are written
        first, waiting the busy timeout as any write does; if the lock is still held it raises
        ``StorageError``, keeps them and stays open: call ``close()`` again once the writer is done.
        """
        if not self._closed and self._core.store.in_atomic():
            raise refused_in_block("close()")
        if not self._closed:
            self._core.pending_uses.flush_at_close()
            self._closed = True
            self._dreaming.stop()
            self._core.store.close()

    @property
    def pending_uses(self) -> int:
        """How many recalls' uses wait to be written: a recall that found another writer holding
        the lock answered without waiting and kept its use here (``reverie.memory.pending_uses``).
        They are written, in order and with their recalls' times, by the next recall that can write,
        before this Memory's next write, or by ``close()``."""
        return len(self._core.pending_uses)

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def as_principal(self, principal: str) -> Memory:
        """This memory as ``principal`` may see it: a view sharing this one's store and clock.

        Closing the view leaves the store open (this Memory owns it). A server that serves many
        callers makes one view per caller's principal; each sees only what it may see.
        """
        return _view(self, principal)

    @property
    def principal(self) -> str | None:
        """Whom this memory reads for (None: the store's owner, who sees everything)."""
        return principal_of(self._core.store)

    # -- shared state, read-only to callers -----------------------------------------------
    @property
    def store(self) -> Store:
        """The store backend (for operators and adapters' health checks; agents use the methods)."""
        return self._core.store

    @property
    def clock(self) -> Clock:
        """Where "now" comes from (a ``ManualClock`` in tests)."""
        return self._core.clock

    @property
    def limits(self) -> Limits:
        """The input bounds every call is checked against."""
        return self._core.limits

    @property
    def embedder(self) -> Embedder:
        """The embedder in use (created on first need: opening a store loads no model)."""
        return self._core.embedder

    @property
    def last_dream_report(self) -> DreamReport | None:
        """The report of the last dream pass this process applied (``dream_runs`` for any process)."""
        return self._dreaming.last_report

    # -- writes ---------------------------------------------------------------------------
    remember = delegate("_writes", Writes.remember)
    remember_checked = delegate("_writes", Writes.remember_checked)  # + the contradictions it created
    remember_manual = delegate("_writes", Writes.remember_manual)
    remember_system = delegate("_writes", Writes.remember_system)
    remember_many = delegate("_writes", Writes.remember_many)
    remember_many_checked = delegate("_writes", Writes.remember_many_checked)  # + each write's contradictions
    remember_imported = delegate("_imports", Imports.remember_imported)
    conversation_replay = delegate("_imports", Imports.conversation_replay)  # an export's conversations
    revise = delegate("_writes", Writes.revise)
    revise_checked = delegate("_writes", Writes.revise_checked)
    forget = delegate("_writes", Writes.forget)
    dismiss = delegate("_writes", Writes.dismiss)
    undismiss = delegate("_writes", Writes.undismiss)
    link = delegate("_writes", Writes.link)
    unlink = delegate("_writes", Writes.unlink)
    set_scores = delegate("_writes", Writes.set_scores)
    set_tier = delegate("_writes", Writes.set_tier)
    set_tiers = delegate("_writes", Writes.set_tiers)
    promote = delegate("_writes", Writes.promote)
    flag = delegate("_writes", Writes.flag)
    set_visibility = delegate("_writes", Writes.set_visibility)
    pause_learning = delegate("_writes", Writes.pause_learning)
    resume_learning = delegate("_writes", Writes.resume_learning)
    cascade_retract = delegate("_retraction", Retraction.cascade_retract)
    record_use = delegate("_usage", Usage.record_use)
    atomic = delegate("_writes", Writes.atomic)  # a block of writes in one transaction (an import)

    # -- reads ----------------------------------------------------------------------------
    get = delegate("_reads", Reads.get)
    history = delegate("_reads", Reads.history)
    list = delegate("_reads", Reads.list)
    edges = delegate("_reads", Reads.edges)
    events = delegate("_reads", Reads.events)
    summary = delegate("_reads", Reads.summary)
    scopes = delegate("_reads", Reads.scopes)

    # -- recall ---------------------------------------------------------------------------
    recall = delegate("_retrieval", Retrieval.recall)
    context = delegate("_retrieval", Retrieval.context)

    # -- conversations (reverie.conversation) --------------------------------------------
    conversation = delegate("_conversations", Conversations.conversation)
    archive_search = delegate("_conversations", Conversations.archive_search)
    recap = delegate("_conversations", Conversations.recap)
    conversations = delegate("_conversations", Conversations.conversations)

    # -- slices (reverie.slice): transplant a piece of a scope to another store and back -----
    export_slice = delegate("_core", export_slice)
    import_slice = delegate("_slices", Slices.import_slice)

    # -- people (reverie.conversation.people) -------------------------------------------
    people = delegate("_people", People.people)
    person = delegate("_people", People.person)

    # -- contradictions -------------------------------------------------------------------
    detect_conflicts = delegate("_conflicts", Contradictions.detect_conflicts)
    contradictions = delegate("_conflicts", Contradictions.contradictions)
    resolve = delegate("_conflicts", Contradictions.resolve)
    dismiss_contradiction = delegate("_conflicts", Contradictions.dismiss_contradiction)  # "not a conflict"

    # -- bias alerts (standing checks of each dream pass) ---------------------------------
    alerts = delegate("_alerts", Alerts.alerts)
    dismiss_alert = delegate("_alerts", Alerts.dismiss_alert)

    # -- the dream pass -------------------------------------------------------------------
    dream = delegate("_dreaming", Dreaming.dream)
    dream_runs = delegate("_dreaming", Dreaming.dream_runs)
    value_by_cohort = delegate("_dreaming", Dreaming.value_by_cohort)
    thinking_queue = delegate("_dreaming", Dreaming.thinking_queue)

    # -- health ---------------------------------------------------------------------------
    doctor = delegate("_maintenance", Maintenance.doctor)
    rebuild = delegate("_maintenance", Maintenance.rebuild)
    reindex = delegate("_maintenance", Maintenance.reindex)
    backup = delegate("_maintenance", Maintenance.backup)


def owner_view(mem: Memory) -> Memory:
    """``mem``'s store as its owner sees it (``mem`` itself when it has no principal).

    For a server that serves as a principal but runs the operator's scheduled dream passes,
    which must plan from the whole scope. The view shares ``mem``'s store, clock and settings;
    never close it — ``mem`` owns the file.
    """
    if mem.principal is None and not mem._closed:
        return mem
    return _sharing(mem, unwrapped(mem._core.store))


def _view(mem: Memory, principal: str) -> Memory:
    """A ``Memory`` over ``mem``'s store as ``principal`` sees it (the store stays ``mem``'s)."""
    return _sharing(mem, VisibleStore(unwrapped(mem._core.store), principal))


def _sharing(mem: Memory, store: Store) -> Memory:
    """A ``Memory`` over ``store`` (``mem``'s, seen some way) with ``mem``'s clock and settings."""
    if mem._closed:
        raise ClosedError("this Memory was closed; open a new one")
    core = mem._core
    return Memory(
        store=store,
        embedder=core.loaded_embedder or core.embedder_spec,
        clock=core.clock,
        limits=core.limits,
        detect_conflicts=core.detect_conflicts,
        conflict_reader=core.conflict_reader_spec,
        read_at_write=core.read_at_write,
    )

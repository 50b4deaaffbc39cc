"""SQLite schema and migrations, with a version row so old files upgrade in place.

Projections live beside the event log in the same file and change in the same transaction.
The full-text and vector indexes hold *current* items only; closed items (forgotten,
superseded, dismissed) move to the ``*_history`` twins, which recall reads only when asked
for history or a point in time. So "no index row for a forgotten item" holds for the
indexes that current-truth recall uses, and ``as_of`` can still find the past.

Versions: 1 is the belief store; 2 adds ``leases`` (one dream pass per scope across
processes, see ``SQLiteStore.take_lease``). A lease row is coordination state, not a
projection: it is not derived from events, and ``rebuild`` leaves it alone. 3 adds
``dream_runs``: a compact summary of each recent dream pass per scope, so a pass run by cron
or another process is visible to every reader of the file (``SQLiteStore.record_dream_run``).
It is operational data like ``leases``: not derived from events (the pass's actions are in the
log already), pruned to the newest ``DREAM_RUNS_KEPT`` per scope, and left alone by ``rebuild``.

4 makes two derived things honest across processes (issue #14):

- Every vector row records which embedder made it (``made_by``), and ``reindex`` builds the new
  vectors aside in ``vectors_staging`` and swaps them in with one transaction. A reindex killed
  part-way leaves the old vectors (and its staged progress) rather than a mix, and a mix that
  does arise (the label changed, the swap never came) is visible to ``doctor`` and refused by
  reads. Triggers keep the rows honest for writers that do not know about the column (the purge
  code's inserts are tagged with the recorded embedder) and drop a staged vector whose text
  changed (a purge between two reindex batches must not bring the old text's vector back).
- ``scope_state`` counts each scope's full-text rows and their tokens (current and history), in
  the same transaction as the rows, so lexical ranking can use the scope's own statistics
  (``fts_scope.py``) instead of the whole table's.

5 adds who may see each item (``_v5``); 6 keeps a value's type (``_v6``); 7 changes no table: the
full-text rows hold ``fts_tokens.index_form`` of their text (CJK one character apiece, a
word-initial "#" blanked, format characters off, composed), rewritten in place (``fts_form``).
8 changes no table either: each item's fingerprints are recomputed from its text and each plain
tombstone normalised again, so prints written before format characters were dropped from the
comparison form meet today's (``store.print_form``).
"""

from __future__ import annotations

import sqlite3

SCHEMA_VERSION = 8

FTS_TOKENIZE_DEFAULT = "unicode61 remove_diacritics 2 tokenchars '+#'"


def _v1(tokenize: str) -> list[str]:
    fts_opts = f'text, extra, tokenize = "{tokenize}"'
    return [
        """CREATE TABLE IF NOT EXISTS settings (k TEXT PRIMARY KEY, v TEXT NOT NULL)""",
        """CREATE TABLE events (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            type TEXT NOT NULL,
            scope TEXT NOT NULL,
            at TEXT NOT NULL,
            cause TEXT NOT NULL,
            payload TEXT NOT NULL
        )""",
        "CREATE INDEX events_by_scope ON events(scope, seq)",
        """CREATE TABLE items (
            n INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            scope TEXT NOT NULL,
            text TEXT NOT NULL,
            kind TEXT NOT NULL,
            source TEXT NOT NULL,
            key TEXT,
            value TEXT,
            author TEXT,
            tags TEXT NOT NULL,
            meta TEXT NOT NULL,
            parents TEXT NOT NULL,
            provenance TEXT NOT NULL,
            authority REAL NOT NULL,
            confidence REAL NOT NULL,
            importance REAL NOT NULL,
            durability REAL NOT NULL,
            value_score REAL NOT NULL,
            evidence_count INTEGER NOT NULL,
            tier TEXT NOT NULL,
            status TEXT NOT NULL,
            flags TEXT NOT NULL,
            valid_from TEXT,
            valid_to TEXT,
            closed_at TEXT,
            recorded_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            last_seen_at TEXT,
            last_used_at TEXT,
            last_used_query TEXT,
            use_count INTEGER NOT NULL,
            version INTEGER NOT NULL
        )""",
        "CREATE INDEX items_by_scope ON items(scope, recorded_at)",
        "CREATE INDEX items_by_key ON items(scope, key)",
        "CREATE INDEX items_current ON items(scope, closed_at)",
        # Several current items can share a fingerprint (a revise may reword a claim into another
        # one's words), so the key includes the item: retiring one holder must not hide the others.
        """CREATE TABLE fingerprints (
            scope TEXT NOT NULL, fp TEXT NOT NULL, item_id TEXT NOT NULL, PRIMARY KEY (scope, fp, item_id)
        ) WITHOUT ROWID""",
        "CREATE INDEX fingerprints_by_item ON fingerprints(item_id)",
        """CREATE TABLE tombstones (
            scope TEXT NOT NULL, fp TEXT NOT NULL, item_id TEXT NOT NULL, PRIMARY KEY (scope, fp)
        ) WITHOUT ROWID""",
        """CREATE TABLE scope_state (
            scope TEXT PRIMARY KEY, paused INTEGER NOT NULL DEFAULT 0,
            vec_appends INTEGER NOT NULL DEFAULT 0, vec_removals INTEGER NOT NULL DEFAULT 0
        )""",
        """CREATE TABLE edges (
            id TEXT PRIMARY KEY,
            scope TEXT NOT NULL,
            type TEXT NOT NULL,
            src TEXT NOT NULL,
            dst TEXT NOT NULL,
            recorded_at TEXT NOT NULL,
            author TEXT,
            authority REAL NOT NULL,
            meta TEXT NOT NULL,
            closed_at TEXT
        )""",
        "CREATE INDEX edges_by_src ON edges(scope, src)",
        "CREATE INDEX edges_by_dst ON edges(scope, dst)",
        f"CREATE VIRTUAL TABLE fts USING fts5({fts_opts})",
        f"CREATE VIRTUAL TABLE fts_history USING fts5({fts_opts})",
        """CREATE TABLE vectors (n INTEGER PRIMARY KEY, scope TEXT NOT NULL, vec BLOB NOT NULL)""",
        "CREATE INDEX vectors_by_scope ON vectors(scope, n)",
        """CREATE TABLE vectors_history (n INTEGER PRIMARY KEY, scope TEXT NOT NULL, vec BLOB NOT NULL)""",
        "CREATE INDEX vectors_history_by_scope ON vectors_history(scope, n)",
    ]


def _v2() -> list[str]:
    """Schema 2: the lease table. ``expires_at`` is ``to_iso`` text, so it compares in time order."""
    return [
        """CREATE TABLE IF NOT EXISTS leases (
            scope TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at TEXT NOT NULL
        ) WITHOUT ROWID""",
    ]


def _v3() -> list[str]:
    """Schema 3: recent dream passes. ``n`` (AUTOINCREMENT: never reused) orders them as recorded,
    because ``at`` comes from each writer's clock, and two processes' clocks may disagree."""
    return [
        """CREATE TABLE IF NOT EXISTS dream_runs (
            n INTEGER PRIMARY KEY AUTOINCREMENT, scope TEXT NOT NULL, at TEXT NOT NULL, summary TEXT NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS dream_runs_by_scope ON dream_runs(scope, n)",
    ]


def read_schema_version(conn: sqlite3.Connection) -> int:
    """The version the file says it has: 0 for a file reverie has never written to.

    Refuses, with ``CorruptStoreError`` naming the file, a version row that is not a positive
    integer (``'abc'`` raised a bare ``ValueError``) and a missing row in a file that already
    holds reverie's tables (read as 0, migration then failed on "table events already exists",
    which named neither the file nor the problem). Nothing is written, so the damage stays for
    a person to inspect.
    """
    rows = conn.execute("SELECT v FROM settings WHERE k = 'schema_version'").fetchall()
    if not rows:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").fetchone() is None:
            return 0
        raise _corrupt(conn, "has reverie's tables but no schema_version row in its settings table")
    text = str(rows[0][0])
    if not (text.isascii() and text.isdigit() and int(text) >= 1):
        raise _corrupt(conn, f"has schema_version {text[:40]!r} in its settings table, which is no positive integer")
    return int(text)


def _file_name(conn: sqlite3.Connection) -> str:
    """The file ``conn`` has open as its main database, or a phrase for an in-memory one."""
    row = conn.execute("PRAGMA database_list").fetchone()  # (seq, name, file) of "main"
    return str(row[2]) if row and row[2] else "the in-memory store"


def _corrupt(conn: sqlite3.Connection, problem: str) -> Exception:
    from reverie.errors import CorruptStoreError

    name = _file_name(conn)
    return CorruptStoreError(
        f"{name} {problem}: it is damaged or was not written by reverie; nothing was changed. "
        "Restore it from a backup, or open another file"
    )


_STAGING_TRIGGERS = (
    # A staged vector is of the text it was computed from; a changed text (a purge) or a removed
    # row makes it wrong, and a reindex must then embed the item again.
    """CREATE TRIGGER IF NOT EXISTS vectors_staging_text AFTER UPDATE OF text ON items
        WHEN old.text IS NOT new.text BEGIN DELETE FROM vectors_staging WHERE n = old.n; END""",
    """CREATE TRIGGER IF NOT EXISTS vectors_staging_gone AFTER DELETE ON items
        BEGIN DELETE FROM vectors_staging WHERE n = old.n; END""",
)


def _made_by_trigger(table: str) -> str:
    """Rows inserted without ``made_by`` (code that predates the column) get the recorded embedder."""
    return (
        f"CREATE TRIGGER IF NOT EXISTS {table}_made_by AFTER INSERT ON {table} WHEN new.made_by IS NULL "  # nosec B608 # table: a constant name
        f"BEGIN UPDATE {table} SET made_by = (SELECT v FROM settings WHERE k = 'embedder') WHERE n = new.n; END"
    )


def _v4(conn: sqlite3.Connection) -> list[str]:
    """Schema 4: ``made_by`` on vector rows, the reindex staging table, per-scope full-text counters.

    Existing rows were all written under the recorded embedder (the only one a store accepted), so
    they are tagged with it; the counters are filled by ``fts_scope.fill_counters`` after these run.
    A column already there is left alone, so a file whose version row was set back re-migrates.
    """
    out = []
    for table in ("vectors", "vectors_history"):
        if "made_by" not in _columns(conn, table):
            out.append(f"ALTER TABLE {table} ADD COLUMN made_by TEXT")
        out += [
            f"UPDATE {table} SET made_by = (SELECT v FROM settings WHERE k = 'embedder') WHERE made_by IS NULL",  # nosec B608 # table: a constant name
            f"CREATE INDEX IF NOT EXISTS {table}_by_maker ON {table}(scope, made_by)",
            _made_by_trigger(table),
        ]
    out.append(
        """CREATE TABLE IF NOT EXISTS vectors_staging (
            n INTEGER PRIMARY KEY, made_by TEXT NOT NULL, vec BLOB NOT NULL
        )"""
    )
    out += list(_STAGING_TRIGGERS)
    have = _columns(conn, "scope_state")
    for column in ("fts_docs", "fts_tokens", "fts_history_docs", "fts_history_tokens"):
        if column not in have:
            out.append(f"ALTER TABLE scope_state ADD COLUMN {column} INTEGER NOT NULL DEFAULT 0")
    return out


def _v5(conn: sqlite3.Connection) -> list[str]:
    """Schema 5 (issue #14.8): who may see each item, and per-scope term statistics.

    ``items.visibility`` is a JSON list of principals, ``'[]'`` for everyone in the scope (what
    every existing item gets: visibility was never narrower before). ``items_restricted`` is a
    partial index over the restricted items only, so finding what one principal may not see
    costs their number, not the scope's. ``fts_terms`` holds, per scope, table and term, how
    many full-text rows contain the term (``fts_scope``): filled after these statements run.
    """
    out = []
    if "visibility" not in _columns(conn, "items"):
        out.append("ALTER TABLE items ADD COLUMN visibility TEXT NOT NULL DEFAULT '[]'")
    out += [
        "CREATE INDEX IF NOT EXISTS items_restricted ON items(scope) WHERE visibility != '[]'",
        """CREATE TABLE IF NOT EXISTS fts_terms (
            scope TEXT NOT NULL, tbl INTEGER NOT NULL, term TEXT NOT NULL, docs INTEGER NOT NULL,
            PRIMARY KEY (scope, tbl, term)
        ) WITHOUT ROWID""",
    ]
    return out


def _v6(conn: sqlite3.Connection) -> list[str]:
    """Schema 6 (outside tester, finding 7): a value keeps its type.

    ``items.value_type`` is ``int`` or ``float`` when the value is a number (``value`` holds its
    text, as before), NULL for text. Every existing row was stored as text and stays text: the
    column is NULL for all of them, and nothing is rewritten.
    """
    if "value_type" in _columns(conn, "items"):
        return []
    return ["ALTER TABLE items ADD COLUMN value_type TEXT"]


#: ``settings`` key: which tokenizer counted ``fts_terms``. "exact" is ``store.fts_tokens``;
#: files of schema 5 and 6 written before it counted non-ASCII text by an approximation.
TERMS_COUNTED_BY = "fts_terms_counted_by"


def _recount_terms(conn: sqlite3.Connection, found: int) -> None:
    """Recount ``fts_terms`` once in a file whose counts came from the old approximation.

    Not a schema version: no table changes, only counts of rare non-ASCII terms were wrong (a
    scope's lexical recall could miss a text holding one, e.g. "a⻳"). A file below schema 5 was
    just counted by ``fill_terms`` with the exact tokenizer; one pass over the rows otherwise.
    """
    from reverie.store.sqlite.fts_scope import fill_terms

    row = conn.execute("SELECT v FROM settings WHERE k = ?", (TERMS_COUNTED_BY,)).fetchone()
    if found >= 5 and (row is None or row[0] != "exact"):
        fill_terms(conn)
    conn.execute("INSERT OR REPLACE INTO settings VALUES (?, 'exact')", (TERMS_COUNTED_BY,))


#: The scope's edges of one type (``SQLiteStore.edges_by_type``): the alias groups conflict
#: detection reads per claim are a few rows among the scope's growing about / derived_from edges.
EDGES_BY_TYPE = "CREATE INDEX IF NOT EXISTS edges_by_type ON edges(scope, type)"
#: The edges from one item to another (``edges_between``, asked before every link is recorded).
#: Why: with only (scope, src) and (scope, dst), SQLite had no statistics to tell which end is
#: the rare one and probed the message memory's end, whose incoming ``derived_from`` edges grow
#: by one per claim mined from it: linking a long message's claims was quadratic (outside probe
#: 2, finding 11). With both ends in one index the probe reads the pair's own rows.
EDGES_BY_PAIR = "CREATE INDEX IF NOT EXISTS edges_by_pair ON edges(scope, src, dst)"


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {str(r[1]) for r in conn.execute(f"PRAGMA table_info({table})")}


#: The conversation tables' own version (settings key ``conversation_schema``), apart from
#: ``SCHEMA_VERSION`` so the belief store's migrations and these never renumber each other.
#: 2: no table changes; a conversation under a principal's name hidden from it is renamed
#: (``store.sqlite.legacy_names``).
CONVERSATION_SCHEMA = 2


def _conversation_v1(tokenize: str) -> list[str]:
    """Conversations (``model/conversation.py``): projections of ``conversation.*`` events.

    ``conv_state`` is each conversation's state (JSON, as the last event carried it);
    ``conv_entries`` every entry in append order (``n``); ``conv_fts`` the archive's full-text
    index over messages (rowid = ``conv_entries.n``); ``conv_speakers`` the scope's speakers,
    which recall matches as authors (a table, so recall reads a handful of rows, not the archive).
    """
    return [
        """CREATE TABLE IF NOT EXISTS conv_state (
            scope TEXT NOT NULL, id TEXT NOT NULL, active_at TEXT NOT NULL, state TEXT NOT NULL,
            PRIMARY KEY (scope, id)
        ) WITHOUT ROWID""",
        """CREATE TABLE IF NOT EXISTS conv_entries (
            n INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            scope TEXT NOT NULL,
            conversation TEXT NOT NULL,
            position INTEGER NOT NULL,
            kind TEXT NOT NULL,
            entry TEXT NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS conv_entries_by_position ON conv_entries(scope, conversation, position)",
        f'CREATE VIRTUAL TABLE IF NOT EXISTS conv_fts USING fts5(text, tokenize = "{tokenize}")',
        """CREATE TABLE IF NOT EXISTS conv_speakers (
            scope TEXT NOT NULL, speaker TEXT NOT NULL, PRIMARY KEY (scope, speaker)
        ) WITHOUT ROWID""",
    ]


def _migrate_conversations(conn: sqlite3.Connection, tokenize: str) -> None:
    """The conversation tables, in their own step: a file of any belief-store version gains them in place."""
    row = conn.execute("SELECT v FROM settings WHERE k = 'conversation_schema'").fetchone()
    found = int(row[0]) if row else 0
    if found < 1:
        for stmt in _conversation_v1(tokenize):
            conn.execute(stmt)
    if found < 2:  # no table changes (a new file's empty tables are scanned for nothing)
        from reverie.store.sqlite import legacy_names

        legacy_names.rename_all(conn)
    conn.execute("INSERT OR REPLACE INTO settings VALUES ('conversation_schema', ?)", (str(CONVERSATION_SCHEMA),))


def migrate(conn: sqlite3.Connection, tokenize: str = FTS_TOKENIZE_DEFAULT) -> int:
    """Bring the file to ``SCHEMA_VERSION`` inside one transaction; returns the version found.

    Refuses first (``foreign.check_reverie_file``) a file that is another application's database,
    inside the same transaction, so one filled by another program since the store was opened is
    not adopted either.
    """
    from reverie.store.sqlite.foreign import check_reverie_file

    check_reverie_file(conn, _file_name(conn))
    conn.execute("CREATE TABLE IF NOT EXISTS settings (k TEXT PRIMARY KEY, v TEXT NOT NULL)")
    found = read_schema_version(conn)
    if found > SCHEMA_VERSION:
        from reverie.errors import CorruptStoreError

        raise CorruptStoreError(
            f"this store was written by a newer reverie (schema {found} > {SCHEMA_VERSION}); upgrade reverie"
        )
    if found < 1:
        for stmt in _v1(tokenize)[1:]:
            conn.execute(stmt)
        conn.execute("INSERT OR REPLACE INTO settings VALUES ('fts_tokenize', ?)", (tokenize,))
    if found < 2:  # a v1 file upgrades in place, in the same transaction as the version row
        for stmt in _v2():
            conn.execute(stmt)
    if found < 3:  # likewise a v1 or v2 file: one new table, nothing else changes
        for stmt in _v3():
            conn.execute(stmt)
    if found < 4:  # columns, a table, triggers and counters; existing rows keep their content
        from reverie.store.sqlite.fts_scope import fill_counters

        for stmt in _v4(conn):
            conn.execute(stmt)
        fill_counters(conn)
    if found < 5:  # a column every existing row fills with "everyone", an index, term statistics
        from reverie.store.sqlite.fts_scope import fill_terms

        for stmt in _v5(conn):
            conn.execute(stmt)
        fill_terms(conn)
    if found < 6:  # a column, NULL (text) for every existing row
        for stmt in _v6(conn):
            conn.execute(stmt)
    if 1 <= found < 7:  # no table changes: the full-text rows are rewritten to the index form, then recounted
        from reverie.store.sqlite import fts_form

        fts_form.rewrite(conn)
    if 1 <= found < 8:  # no table changes: fingerprints and tombstones in today's comparison form
        from reverie.store.sqlite import print_form

        print_form.rewrite(conn)
    _recount_terms(conn, found)
    conn.execute("INSERT OR REPLACE INTO settings VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
    # Not a schema version of its own: an index changes no row and every reader works without it
    # (``edges_by_type`` is only slower), so a file of any version gains it here, idempotently.
    conn.execute(EDGES_BY_TYPE)
    from reverie.store.sqlite import event_refs  # likewise: an index of the log every writer keeps (triggers)

    event_refs.ensure(conn)
    conn.execute(EDGES_BY_PAIR)
    row = conn.execute("SELECT v FROM settings WHERE k = 'fts_tokenize'").fetchone()
    _migrate_conversations(conn, str(row[0]) if row else tokenize)
    from reverie.store.sqlite import agenda  # its own step and version, like the conversations'

    agenda.migrate(conn)
    from reverie.store.sqlite import idempotency  # likewise: the keys of retried writes

    idempotency.migrate(conn)
    return found


def current(conn: sqlite3.Connection) -> bool:
    """True when ``migrate`` would change nothing: every step's version row and every index it adds.

    Why: ``migrate`` runs under the write lock, and a reader opening the store while another
    process holds that lock (an import's ``atomic`` block, for its whole run) waited the busy
    timeout and failed (outside probe 5, finding 6). An open asks this first, inside one read
    transaction, and takes the lock only for a file that needs a step. Every step ``migrate`` takes
    must be named here (``tests/reliability/test_reads_beside_writer.py`` undoes each one), or
    a file missing only that step would never get it.
    """
    from reverie.store.sqlite import agenda, event_refs, idempotency

    if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'settings'").fetchone() is None:
        return False
    rows = conn.execute(
        "SELECT k, v FROM settings WHERE k IN "
        "('schema_version', 'conversation_schema', 'agenda_schema', 'idempotency_schema', ?)",
        (TERMS_COUNTED_BY,),
    )
    want = {
        "schema_version": str(SCHEMA_VERSION),
        "conversation_schema": str(CONVERSATION_SCHEMA),
        "agenda_schema": str(agenda.AGENDA_SCHEMA),
        "idempotency_schema": str(idempotency.SCHEMA),
        TERMS_COUNTED_BY: "exact",
    }
    if {str(k): str(v) for k, v in rows} != want:
        return False
    indexes = {
        str(r[0])
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND name IN ('edges_by_type', 'edges_by_pair')"
        )
    }
    return indexes == {"edges_by_type", "edges_by_pair"} and event_refs.current(conn)


PROJECTION_TABLES = (
    "items",
    "fingerprints",
    "tombstones",
    "scope_state",
    "fts_terms",
    "edges",
    "fts",
    "fts_history",
    "vectors",
    "vectors_history",
    "vectors_staging",
    # conversations (a separate migration step, ``_migrate_conversations``)
    "conv_state",
    "conv_entries",
    "conv_fts",
    "conv_speakers",
    # intents and tasks (their own migration step, ``store/sqlite/agenda.py``)
    "intents",
    "tasks",
)

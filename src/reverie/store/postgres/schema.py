"""PostgreSQL schema, migrations and row-level security, with a version row like the SQLite file.

Why this shape:
- **Scope first everywhere.** Every table but ``settings`` has ``scope`` as the first column of
  its primary key, and every statement the store issues filters on it, so the schema can be
  distributed by scope (Citus: ``create_distributed_table(t, 'scope')``; ``settings`` becomes a
  reference table). ``tests/postgres/test_pg_audit.py`` checks the statements.
- **Projections on the item row.** The full-text document (``tsv``, with its token count
  ``ntok`` for bm25) and the vector (``vec``, with ``made_by``: the embedder that made it) live
  on the item's own row, so they change in the same statement as the row and cannot drift from
  it; "current" is ``closed_at IS NULL`` (the SQLite store moves rows to ``*_history`` twins).
- **Text compares bytewise.** Every text column is ``COLLATE "C"``, so ``ORDER BY`` agrees with
  SQLite's binary collation whatever locale the server was initialised with.
- **Row-level security.** Every scoped table has ``FORCE ROW LEVEL SECURITY`` and a policy that
  shows a role only the scopes the current transaction named (``set_config('reverie.scopes',
  ..., true)``, a text array; the store sets it per transaction). The owner (who ran the
  migration) has a second policy that sees every row: it is the maintenance role (doctor,
  rebuild, migrate). An application role made with ``create_app_role`` has only the scope policy,
  so raw SQL run as it cannot read or write another scope; it reads the scope *names* through the
  ``reverie_scopes`` view (schema 9), which runs with the owner's rights.
- **Versions step by step.** ``statements()`` is schema 1 as it first shipped; each later
  version is a list of steps (``STEPS``) run in order inside the migration transaction, so a
  database of any earlier version is brought up to date in place and a new one runs them all.
"""

from __future__ import annotations

import hashlib

SCHEMA_VERSION = 10

T = 'TEXT COLLATE "C"'

#: Scoped tables, in the order ``rebuild`` empties the projections among them.
PROJECTION_TABLES = (
    "items",
    "fingerprints",
    "tombstones",
    "scope_state",
    "edges",
    "conv_state",
    "conv_entries",
    "conv_speakers",
    "intents",  # schema 2
    "tasks",  # schema 2
)
#: Schema 1's tables carrying a ``scope`` column (its DDL gives each row-level security).
_V1_SCOPED = ("events", *PROJECTION_TABLES[:-2], "leases", "dream_runs")
#: Every table carrying a ``scope`` column (RLS applies to each).
SCOPED_TABLES = (*_V1_SCOPED, "intents", "tasks", "idempotency")

_TABLES = [
    f"CREATE TABLE IF NOT EXISTS settings (k {T} PRIMARY KEY, v {T} NOT NULL)",
    f"""CREATE TABLE events (
        scope {T} NOT NULL,
        seq BIGINT NOT NULL,  -- from the settings row 'event_seq': dense, as SQLite's (see store.append_event)
        id {T} NOT NULL,
        type {T} NOT NULL,
        at {T} NOT NULL,
        cause {T} NOT NULL,
        payload {T} NOT NULL,
        PRIMARY KEY (scope, seq),
        UNIQUE (scope, id)
    )""",
    f"""CREATE TABLE items (
        scope {T} NOT NULL,
        id {T} NOT NULL,
        n BIGINT GENERATED ALWAYS AS IDENTITY,
        text {T} NOT NULL,
        kind {T} NOT NULL,
        source {T} NOT NULL,
        key {T},
        value {T},
        author {T},
        tags {T} NOT NULL,
        meta {T} NOT NULL,
        parents {T} NOT NULL,
        provenance {T} NOT NULL,
        authority DOUBLE PRECISION NOT NULL,
        confidence DOUBLE PRECISION NOT NULL,
        importance DOUBLE PRECISION NOT NULL,
        durability DOUBLE PRECISION NOT NULL,
        value_score DOUBLE PRECISION NOT NULL,
        evidence_count BIGINT NOT NULL,
        tier {T} NOT NULL,
        status {T} NOT NULL,
        flags {T} NOT NULL,
        valid_from {T},
        valid_to {T},
        closed_at {T},
        recorded_at {T} NOT NULL,
        updated_at {T} NOT NULL,
        last_seen_at {T},
        last_used_at {T},
        last_used_query {T},
        use_count BIGINT NOT NULL,
        version BIGINT NOT NULL,
        tsv TSVECTOR NOT NULL,
        ntok INTEGER NOT NULL,
        vec VECTOR,
        made_by {T},
        PRIMARY KEY (scope, id)
    )""",
    "CREATE INDEX items_by_n ON items (scope, n)",
    "CREATE INDEX items_by_recorded ON items (scope, recorded_at)",
    "CREATE INDEX items_by_key ON items (scope, key)",
    "CREATE INDEX items_current ON items (scope, closed_at)",
    "CREATE INDEX items_fts ON items USING gin (tsv)",
    f"""CREATE TABLE fingerprints (
        scope {T} NOT NULL, fp {T} NOT NULL, item_id {T} NOT NULL, PRIMARY KEY (scope, fp, item_id)
    )""",
    "CREATE INDEX fingerprints_by_item ON fingerprints (scope, item_id)",
    f"""CREATE TABLE tombstones (
        scope {T} NOT NULL, fp {T} NOT NULL, item_id {T} NOT NULL, PRIMARY KEY (scope, fp)
    )""",
    f"CREATE TABLE scope_state (scope {T} PRIMARY KEY, paused BOOLEAN NOT NULL DEFAULT false)",
    f"""CREATE TABLE edges (
        scope {T} NOT NULL,
        id {T} NOT NULL,
        type {T} NOT NULL,
        src {T} NOT NULL,
        dst {T} NOT NULL,
        recorded_at {T} NOT NULL,
        author {T},
        authority DOUBLE PRECISION NOT NULL,
        meta {T} NOT NULL,
        closed_at {T},
        PRIMARY KEY (scope, id)
    )""",
    "CREATE INDEX edges_by_src ON edges (scope, src)",
    "CREATE INDEX edges_by_dst ON edges (scope, dst)",
    f"CREATE TABLE leases (scope {T} PRIMARY KEY, owner {T} NOT NULL, expires_at {T} NOT NULL)",
    f"""CREATE TABLE dream_runs (
        scope {T} NOT NULL, n BIGINT GENERATED ALWAYS AS IDENTITY, at {T} NOT NULL, summary {T} NOT NULL,
        PRIMARY KEY (scope, n)
    )""",
    f"""CREATE TABLE conv_state (
        scope {T} NOT NULL, id {T} NOT NULL, active_at {T} NOT NULL, state {T} NOT NULL, PRIMARY KEY (scope, id)
    )""",
    f"""CREATE TABLE conv_entries (
        scope {T} NOT NULL,
        id {T} NOT NULL,
        n BIGINT GENERATED ALWAYS AS IDENTITY,
        conversation {T} NOT NULL,
        position BIGINT NOT NULL,
        kind {T} NOT NULL,
        entry {T} NOT NULL,
        tsv TSVECTOR,
        PRIMARY KEY (scope, id)
    )""",
    "CREATE INDEX conv_entries_by_position ON conv_entries (scope, conversation, position)",
    "CREATE INDEX conv_entries_fts ON conv_entries USING gin (tsv)",
    f"CREATE TABLE conv_speakers (scope {T} NOT NULL, speaker {T} NOT NULL, PRIMARY KEY (scope, speaker))",
]

#: The scopes the current transaction may touch: a text array set with ``set_config(..., true)``.
_SCOPES = "coalesce(nullif(current_setting('reverie.scopes', true), ''), '{}')::text[]"
#: Reads of ``subscopes`` (``scope/child``) are allowed only when the transaction asks for them.
_VISIBLE = (
    f"(scope = ANY ({_SCOPES}) OR (current_setting('reverie.subscopes', true) = 'on' "  # nosec B608 # constants
    f"AND EXISTS (SELECT 1 FROM unnest({_SCOPES}) AS s WHERE starts_with(scope, s || '/'))))"
)
_WRITABLE = f"(scope = ANY ({_SCOPES}))"


def _rls(table: str) -> list[str]:
    return [
        f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY",
        f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY",
        f"CREATE POLICY reverie_scope ON {table} USING {_VISIBLE} WITH CHECK {_WRITABLE}",
        f"CREATE POLICY reverie_owner ON {table} TO CURRENT_USER USING (true) WITH CHECK (true)",
    ]


def statements() -> list[str]:
    """The DDL of schema 1, in order (tables, then their row-level security)."""
    out = list(_TABLES)
    for table in _V1_SCOPED:
        out += _rls(table)
    return out


#: Schema 2: claim visibility (``model/visibility.py``) and intents and tasks (``model/agenda.py``).
#: ``visibility`` is the JSON list of principals SQLite stores (``'[]'``: everyone in the scope,
#: what every existing item gets); ``items_restricted`` is spelled as ``Restricted`` compiles, so
#: finding a scope's restricted items costs their number, not the scope's. The agenda tables keep
#: the record as the JSON its last event carried (as on SQLite) plus the columns lists filter on.
_V2 = [
    f"ALTER TABLE items ADD COLUMN visibility {T} NOT NULL DEFAULT '[]'",
    "CREATE INDEX items_restricted ON items (scope) WHERE visibility <> '[]'",
    f"""CREATE TABLE intents (
        scope {T} NOT NULL, id {T} NOT NULL, status {T} NOT NULL, owner {T}, parent {T},
        priority DOUBLE PRECISION NOT NULL, record {T} NOT NULL,
        PRIMARY KEY (scope, id)
    )""",
    "CREATE INDEX intents_by_status ON intents (scope, status, priority DESC, id)",
    "CREATE INDEX intents_by_owner ON intents (scope, owner, priority DESC, id)",
    "CREATE INDEX intents_by_parent ON intents (scope, parent, priority DESC, id)",
    f"""CREATE TABLE tasks (
        scope {T} NOT NULL, id {T} NOT NULL, status {T} NOT NULL, intent {T}, agent {T},
        parent {T}, record {T} NOT NULL,
        PRIMARY KEY (scope, id)
    )""",
    "CREATE INDEX tasks_by_intent ON tasks (scope, intent, id)",
    "CREATE INDEX tasks_by_status ON tasks (scope, status, id)",
    "CREATE INDEX tasks_by_agent ON tasks (scope, agent, id)",
    "CREATE INDEX tasks_by_parent ON tasks (scope, parent, id)",
    *_rls("intents"),
    *_rls("tasks"),
]

#: Schema 3: idempotency keys of retried writes (``reverie.store.idempotency``). A side table
#: like ``leases``: not derived from events, so ``rebuild`` leaves it alone (it is not among
#: ``PROJECTION_TABLES``). ``idempotency_by_expiry`` makes the sweep of expired rows one range.
_V3 = [
    f"""CREATE TABLE idempotency (
        scope {T} NOT NULL, key {T} NOT NULL, request {T} NOT NULL, at {T} NOT NULL,
        expires_at {T} NOT NULL, status INTEGER, body {T}, erased BOOLEAN NOT NULL DEFAULT false,
        PRIMARY KEY (scope, key)
    )""",
    "CREATE INDEX idempotency_by_expiry ON idempotency (scope, expires_at)",
    *_rls("idempotency"),
]

#: Schema 4: typed edge reads (``edges_by_type``, as on SQLite) get their index, and the one
#: HNSW index over every scope's vectors goes. Why: pgvector updated that graph on every item
#: insert of every scope (about 5 ms each at 10k rows here, most of a batched write's time),
#: while only scopes above ``ANN_THRESHOLD`` ever search it; such a scope now gets its own
#: partial index (``scope_hnsw_statement``), built by ``warm`` (the dream pass's last step).
_V4 = [
    "CREATE INDEX IF NOT EXISTS edges_by_type ON edges (scope, type)",
    "DROP INDEX IF EXISTS items_hnsw",
]

#: Schema 5: a value keeps its type (``items.value_type``: ``int`` / ``float`` for a number, NULL for
#: text; ``value`` holds its text as before), as SQLite's schema 6. Existing rows were stored as text
#: and stay text.
_V5 = [f"ALTER TABLE items ADD COLUMN IF NOT EXISTS value_type {T}"]  # a version row set back re-runs it

#: The canonical UUIDs a payload holds as JSON strings (``events_by_ref``; ``reverie_event_refs``).
UUID_PATTERN = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"

#: Schema 6: the log indexed by the ids its payloads name, as SQLite's ``event_refs``. Why: replaying
#: one item (``get(id, as_of=T)``; ``recall(as_of=T)`` for each candidate changed since T) found
#: its events by testing every payload of the scope for the id, once per item. The GIN index over
#: each payload's UUID strings (a superset of the ids an event is about) finds those few events;
#: the store still applies its exact test to them. PostgreSQL keeps an expression index whole
#: whoever writes the row, and a purge's rewrite of a payload re-indexes it.
_V6 = [
    "CREATE OR REPLACE FUNCTION reverie_event_refs(payload text) RETURNS text[] "  # nosec B608 # a constant pattern
    "LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT coalesce(array_agg(DISTINCT m[1]), '{}') "
    f"FROM regexp_matches(payload, '\"({UUID_PATTERN})\"', 'g') AS m $$",
    "CREATE INDEX IF NOT EXISTS events_by_ref ON events USING gin (reverie_event_refs(payload))",
]

#: Schema 7: no DDL. The ``tsv`` documents are tokens of ``fts_tokens.index_form`` (CJK one character
#: apiece, a word-initial "#" a separator, format characters off, composed), as SQLite's schema 7;
#: ``PostgresStore._migrate`` recomputes the rows that may differ (``postgres.fts_form``).
_V7: list[str] = []

#: Schema 8: no DDL. Fingerprints recomputed from the items' text, plain tombstones normalised again:
#: prints written before format characters left the comparison form meet today's, as SQLite's
#: schema 8 (``PostgresStore._migrate`` runs ``postgres.print_form``).
_V8: list[str] = []

#: The view every store lists the scopes through (``PostgresStore.scopes``, ``doctor``, ``rebuild``).
SCOPES_VIEW = "reverie_scopes"

#: Schema 9: the scope names, readable by an application role. Why: row-level security shows that
#: role only the scopes its transaction names, so a listing of the log's scopes named none and
#: found none — ``scopes()`` answered ``[]`` and ``doctor`` checked 0 items (outside probe 4, finding
#: 18). The role names any scope it likes (that is how the store works through it), so the names
#: were never a secret from it. A view runs with its owner's rights (the owner's policy sees every
#: row) and gives names only: no row, and no write (a view over a recursive query is not
#: updatable). It reads the log's primary key by a skip scan, one index probe per scope.
#: ``create_app_role``'s grant on every table covers it, and its default privileges give it to a
#: role made before this upgrade.
_V9 = [
    f"CREATE OR REPLACE VIEW {SCOPES_VIEW} AS "  # nosec B608 # constants
    "WITH RECURSIVE s(scope) AS (SELECT min(scope) FROM events "
    "UNION ALL SELECT (SELECT min(e.scope) FROM events e WHERE e.scope > s.scope) FROM s WHERE s.scope IS NOT NULL) "
    "SELECT scope FROM s WHERE scope IS NOT NULL",
]

#: ``STEPS[v]`` brings a database of schema ``v`` to ``v + 1``.
#: Schema 10 has no DDL: conversations under a principal's name hidden from it are renamed
#: (``store.postgres.legacy_names``, run by the migration after these steps).
STEPS: dict[int, list[str]] = {1: _V2, 2: _V3, 3: _V4, 4: _V5, 5: _V6, 6: _V7, 7: _V8, 8: _V9, 9: []}


def upgrade_statements(version: int) -> list[str]:
    """The DDL that brings a database of schema ``version`` (0: empty) to ``SCHEMA_VERSION``."""
    out = statements() if version == 0 else []
    for v in range(max(version, 1), SCHEMA_VERSION):
        out += STEPS[v]
    return out


#: Per-scope HNSW indexes are named this prefix + a hash of the scope (a name is at most 63 bytes).
HNSW_PREFIX = "items_hnsw_"


def hnsw_index_name(scope: str) -> str:
    """The name of ``scope``'s HNSW index: stable, and the same from every process."""
    return HNSW_PREFIX + hashlib.sha256(scope.encode("utf-8")).hexdigest()[:32]


def scope_hnsw_statement(scope_literal: str, name: str, dim: int) -> str:
    """The partial HNSW index over one scope's current vectors. ``scope_literal`` is the scope as
    a quoted SQL literal (the caller renders it with the driver): a partial index's predicate
    cannot take a parameter. CONCURRENTLY: writers of every scope go on while it builds."""
    return (
        f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON items "
        f"USING hnsw ((vec::vector({int(dim)})) vector_cosine_ops) "
        f"WHERE scope = {scope_literal} AND closed_at IS NULL AND vec IS NOT NULL"
    )


def app_role_statements(role: str, quoted_password: str) -> list[str]:
    """Grants for a non-owner application role: row access only, no DDL, never the owner policy."""
    return [
        f"CREATE ROLE {role} LOGIN PASSWORD {quoted_password} NOSUPERUSER NOBYPASSRLS",
        f"GRANT USAGE ON SCHEMA public TO {role}",
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}",
        # tables a later schema version adds reach the role too (the owner runs that migration)
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {role}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO {role}",
    ]

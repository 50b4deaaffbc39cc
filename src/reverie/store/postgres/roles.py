"""The application role: what a deployment's agents connect as, so isolation holds in the database.

The owner of the schema (who ran the migration) keeps a policy that sees every row: it is the
maintenance role (``doctor``, ``rebuild``, ``reverie migrate``). Agents connect as a role made
here, which has row access but no DDL, no ``BYPASSRLS`` and not the owner's policy: it sees and
writes only the scopes its current transaction names, which the store sets per transaction. It
reads the scope names through the ``reverie_scopes`` view (schema 9), so ``scopes()`` and
``doctor`` as it answer what they answer as the owner; an upgrade of the schema is the owner's.
"""

from __future__ import annotations

import re

from reverie.errors import InvalidInputError
from reverie.store.postgres import connect as pgconnect
from reverie.store.postgres.schema import app_role_statements

_ROLE = re.compile(r"[a-z_][a-z0-9_]{0,62}")


def create_app_role(owner_url: str, role: str, password: str) -> None:
    """Create ``role`` (LOGIN, ``password``) with row access to reverie's tables at ``owner_url``.

    Run as the owner, after the store was opened once (the tables must exist). ``role`` is a
    plain lower-case identifier; the password is sent as a quoted literal, never spliced raw.
    """
    if not _ROLE.fullmatch(role):
        raise InvalidInputError(f"role must be a lower-case identifier (letters, digits, _), got {role!r}")
    conn = pgconnect.connect(owner_url)
    try:
        from psycopg import sql

        quoted = sql.Literal(password).as_string(conn)
        with conn.transaction():
            for stmt in app_role_statements(role, quoted):
                conn.execute(stmt)
    except Exception as exc:
        if isinstance(exc, InvalidInputError):
            raise
        raise pgconnect.translate(exc, owner_url) from None
    finally:
        conn.close()

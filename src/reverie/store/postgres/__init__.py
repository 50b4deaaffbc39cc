"""The PostgreSQL backend (several processes and hosts on one database; pgvector for vectors).

Needs the optional driver: ``pip install 'reverie[postgres]'`` (psycopg 3). Importing this
package does not import the driver; opening a store does.
"""

from reverie.store.postgres.connect import is_url
from reverie.store.postgres.store import PostgresStore

__all__ = ["PostgresStore", "is_url"]

"""Failed sign-in attempts per client (table ``sign_in_failures``), for the sign-in throttle
(:mod:`core.annotation.throttle`): kept in the store so several server processes share it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

SCHEMA = """
create table if not exists sign_in_failures (
    id integer primary key,
    client text not null,       -- the client's address as the server saw it
    failed_at real not null     -- seconds since the epoch
);
create index if not exists sign_in_failures_client on sign_in_failures(client, failed_at);
"""


def apply(db: Database) -> None:
    """Create table ``sign_in_failures``."""
    execute_script(db, SCHEMA)

"""Sign-in sessions, and sign-in tokens that work once.

A personal link's token is exchanged once for a server-side session: ``accounts.token_used_at``
records the exchange (a used token signs nobody in again), and table ``sessions`` holds each
session under the SHA-256 of its random id (the id itself lives only in the person's browser, as a
cookie). Signing out sets ``revoked_at``; a revoked session is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

SCHEMA = """
alter table accounts add column token_used_at text;
create table sessions (
    id integer primary key,
    id_hash text not null unique,   -- hex sha256 of the session id (the cookie's value)
    name text not null,             -- the account
    token_id text not null,         -- the account's token the session was started with
    created_at text not null,
    revoked_at text
);
create index sessions_name on sessions(name);
"""


def apply(db: Database) -> None:
    """Add ``accounts.token_used_at`` and create table ``sessions``."""
    execute_script(db, SCHEMA)

"""Personal accounts of the annotation team: name, role and a salted hash of the sign-in token.

The token itself is never stored: ``token_id`` (public, the part before the dot) finds the row,
``token_hash`` is ``scrypt(secret, salt)``. Revoking sets ``revoked_at``; a revoked account
signs in no more and its labels stay.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

SCHEMA = """
create table accounts (
    id integer primary key,
    name text not null unique,
    role text not null,             -- annotator | adjudicator | admin
    token_id text not null unique,
    salt text not null,             -- hex
    token_hash text not null,       -- hex scrypt(secret, salt)
    created_at text not null,
    revoked_at text
);
"""


def apply(db: Database) -> None:
    """Create table ``accounts``."""
    execute_script(db, SCHEMA)

"""Sign-in sessions (table ``sessions``): start, look up, end.

A session id is 256 random bits, handed to the browser once (as a cookie) and stored only as its
SHA-256 (a stolen database copy holds no usable id; the id is random, so no salt or slow hash is
needed). A session is valid while it is not ended, its account is active, and the account still
has the token the session was started with (a fresh link ends the older sessions). SQLAlchemy
Core over :mod:`core.store.tables` (issue 33).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.errors import AccessError
from core.store.accounts import Account
from core.store.connection import utcnow
from core.store.prepared import bound_rows, bound_rows_later
from core.store.statements import run
from core.store.tables import sessions
from core.store.tables_people import accounts

if TYPE_CHECKING:
    from core.store.engine import Database

#: Why an unknown or ended session signs nobody in.
ENDED = "this sign-in session has ended (signed out, or unknown); sign in with a fresh link"


@dataclass(frozen=True, slots=True)
class Session:
    """One ``sessions`` row: account ``name`` signed in with token ``token_id``; ``revoked_at``
    is when it ended (None while open)."""

    id: int
    id_hash: str
    name: str
    token_id: str
    created_at: str
    revoked_at: str | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """The record of a ``sessions`` row."""
        return cls(**row)


def session_hash(session_id: str) -> str:
    """The stored form of a session id: hex SHA-256."""
    return hashlib.sha256((session_id or "").encode("utf-8")).hexdigest()


def create_session(db: Database, name: str, token_id: str) -> str:
    """Store a new session of account ``name`` (started with token ``token_id``); return its
    plain id (once). Run inside the transaction that used the token."""
    session_id = secrets.token_urlsafe(32)
    row = {
        "id_hash": session_hash(session_id),
        "name": name,
        "token_id": token_id,
        "created_at": utcnow(),
        "revoked_at": None,
    }
    run(db, sa.insert(sessions).values(**row))
    return session_id


#: A session by its id's hash (built once: every labelling run checks the sign-in, issue 37).
_BY_HASH = sa.select(sessions).where(sessions.c.id_hash == sa.bindparam("id_hash"))


def get_session(db: Database, id_hash: str) -> Session | None:
    """The session ``id_hash`` (open or ended), or None."""
    found = bound_rows(db, _BY_HASH, {"id_hash": id_hash})
    return Session.from_row(found[0]) if found else None


#: A session's own end and token with its account's row, one statement (every labelling run
#: checks the sign-in: on PostgreSQL each statement is a round trip, issue 33).
_WITH_ACCOUNT = (
    sa.select(
        sessions.c.revoked_at.label("session_revoked_at"),
        sessions.c.token_id.label("session_token_id"),
        accounts,
    )
    .select_from(sessions.join(accounts, accounts.c.name == sessions.c.name))
    .where(sessions.c.id_hash == sa.bindparam("id_hash"))
)


def session_account(db: Database, id_hash: str) -> Account:
    """The account of the valid session ``id_hash``; AccessError with the reason otherwise
    (ended or unknown, account revoked, token replaced). One statement (a join)."""
    return _valid_account(bound_rows(db, _WITH_ACCOUNT, {"id_hash": id_hash}))


def session_account_later(db: Database, id_hash: str) -> Callable[[], Account]:
    """:func:`session_account`, its statement sent with the connection's next one on
    PostgreSQL (:func:`core.store.prepared.bound_rows_later`: a label's sign-in check in the
    round trip of its row locks); calling the result checks it (AccessError as there)."""
    found = bound_rows_later(db, _WITH_ACCOUNT, {"id_hash": id_hash})
    return lambda: _valid_account(found())


def _valid_account(found: list[dict[str, Any]]) -> Account:
    """The account of a session's row (:data:`_WITH_ACCOUNT`), or AccessError saying why not."""
    if not found or found[0]["session_revoked_at"] is not None:
        raise AccessError(ENDED)
    account = Account.from_row(found[0])
    if account.revoked_at is not None:
        raise AccessError("this account was revoked")
    if account.token_id != found[0]["session_token_id"]:
        raise AccessError(
            f"the sign-in of {account.name!r} is no longer valid (given a fresh link); sign in "
            "with the new link"
        )
    return account


def end_session(db: Database, id_hash: str) -> bool:
    """End the session ``id_hash`` (sign-out); True when it was open."""
    end = sa.update(sessions).where(sessions.c.id_hash == id_hash, sessions.c.revoked_at.is_(None))
    return run(db, end.values(revoked_at=utcnow())).rowcount == 1

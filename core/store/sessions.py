"""Sign-in sessions (table ``sessions``): start, look up, end.

A session id is 256 random bits, handed to the browser once (as a cookie) and stored only as its
SHA-256 (a stolen database copy holds no usable id; the id is random, so no salt or slow hash is
needed). A session is valid while it is not ended, its account is active, and the account still
has the token the session was started with (a fresh link ends the older sessions).
"""

from __future__ import annotations

import hashlib
import secrets
from typing import TYPE_CHECKING, Any

from core.errors import AccessError
from core.store.connection import rows, utcnow

if TYPE_CHECKING:
    from core.store.engine import Database

#: Why an unknown or ended session signs nobody in.
ENDED = "this sign-in session has ended (signed out, or unknown); sign in with a fresh link"


def session_hash(session_id: str) -> str:
    """The stored form of a session id: hex SHA-256."""
    return hashlib.sha256((session_id or "").encode("utf-8")).hexdigest()


def create_session(db: Database, name: str, token_id: str) -> str:
    """Store a new session of account ``name`` (started with token ``token_id``); return its
    plain id (once). Run inside the transaction that used the token."""
    session_id = secrets.token_urlsafe(32)
    db.table("sessions").insert(
        {
            "id_hash": session_hash(session_id),
            "name": name,
            "token_id": token_id,
            "created_at": utcnow(),
            "revoked_at": None,
        }
    )
    return session_id


def session_account(db: Database, id_hash: str) -> dict[str, Any]:
    """The account of the valid session ``id_hash`` (``name``, ``role``, ``token_id``);
    AccessError with the reason otherwise (ended or unknown, account revoked, token replaced)."""
    found = rows(
        db,
        "select s.revoked_at as ended, a.name, a.role, a.token_id, a.revoked_at, "
        "s.token_id as session_token from sessions s join accounts a on a.name = s.name "
        "where s.id_hash = ?",
        [id_hash],
    )
    if not found or found[0]["ended"] is not None:
        raise AccessError(ENDED)
    row = found[0]
    if row["revoked_at"] is not None:
        raise AccessError("this account was revoked")
    if row["token_id"] != row["session_token"]:
        raise AccessError(
            f"the sign-in of {row['name']!r} is no longer valid (given a fresh link); sign in "
            "with the new link"
        )
    return {k: row[k] for k in ("name", "role", "token_id")}


def end_session(db: Database, id_hash: str) -> bool:
    """End the session ``id_hash`` (sign-out); True when it was open."""
    done = db.execute(
        "update sessions set revoked_at = ? where id_hash = ? and revoked_at is null",
        [utcnow(), id_hash],
    )
    return done.rowcount == 1

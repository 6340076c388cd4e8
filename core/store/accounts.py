"""Accounts of the annotation team: create, list, revoke, and verify a personal sign-in token.

A token is ``<token_id>.<secret>``: ``token_id`` (public) finds the account, and only
``scrypt(secret, salt)`` is stored; the check uses :func:`hmac.compare_digest`. The plain token
is returned once, by :func:`create_account` or :func:`reissue_token`, and never stored or logged.
A token works once (:func:`mark_token_used`, when it starts a session: :mod:`core.store.sessions`);
a fresh one replaces it (:func:`reissue_token`). Readers return :class:`Account` records, which
carry no token material. SQLAlchemy Core over :mod:`core.store.tables_people` (issue 33): nothing
here is translated for PostgreSQL.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.errors import AccessError, InputError
from core.store.connection import transaction, utcnow
from core.store.prepared import bound_rows, rows_later, run_bound
from core.store.row_locks import hold_name
from core.store.statements import all_rows, run
from core.store.stored_enums import stored_enum
from core.store.tables_people import accounts

if TYPE_CHECKING:
    from core.store.engine import Database


class Role(StrEnum):
    """What an account may do: label, also settle disagreements, also manage the team."""

    ANNOTATOR = "annotator"
    ADJUDICATOR = "adjudicator"
    ADMIN = "admin"


ROLES = tuple(Role)
#: Why a used token signs nobody in.
USED = (
    "this sign-in link was already used (a link works once); ask an admin for a fresh one "
    "(python -m core annotators link NAME)"
)
NAME = re.compile(r"[^\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]{1,128}")
#: scrypt cost: 16 MiB and ~30-60 ms per check; tokens are 192-bit random, so this is ample.
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}


@dataclass(frozen=True, slots=True)
class Account:
    """One ``accounts`` row without its token material (salt and hash stay in the store)."""

    name: str
    role: Role
    token_id: str
    created_at: str
    revoked_at: str | None = None
    token_used_at: str | None = None
    #: When an admin left this (revoked) account's labels out of the team's figures (None: they
    #: count): :func:`set_labels_excluded`.
    labels_excluded_at: str | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """The record of an ``accounts`` row (extra columns such as the hash are ignored)."""
        return cls(
            name=row["name"],
            role=stored_enum(Role, row["role"], "role", row["name"]),
            token_id=row["token_id"],
            created_at=row["created_at"],
            revoked_at=row["revoked_at"],
            token_used_at=row["token_used_at"],
            labels_excluded_at=row.get("labels_excluded_at"),
        )


def check_name(name: str) -> str:
    """A stripped, non-empty name of at most 128 characters without control or format
    characters: the store's guard. The full rule (core.corpus.names) and the look-alike check
    run before, in ``core.annotation.identity.account_name``."""
    name = (name or "").strip()
    if not name:
        raise InputError("enter an annotator name")
    if not NAME.fullmatch(name):
        raise InputError("a name has 1-128 characters and no control or invisible characters")
    return name


def _digest(secret: str, salt: bytes) -> bytes:
    return hashlib.scrypt(secret.encode("utf-8"), salt=salt, maxmem=64 * 2**20, **_SCRYPT)


def _named(name: str, *, active: bool = False) -> sa.Select[Any]:
    """Every column of the account ``name`` (only an active one: ``active``)."""
    query = sa.select(accounts).where(accounts.c.name == name)
    return query.where(accounts.c.revoked_at.is_(None)) if active else query


def _update(db: Database, account_id: int, values: Mapping[str, Any]) -> None:
    run(db, sa.update(accounts).where(accounts.c.id == account_id).values(**values))


def accounts_exist(db: Database) -> bool:
    """Whether any account (active or revoked) exists: then names alone no longer sign in."""
    return run(db, sa.select(sa.literal(1)).select_from(accounts).limit(1)).fetchone() is not None


def _new_token() -> tuple[str, dict[str, Any]]:
    """A fresh plain token and the account columns that store it (unused)."""
    token_id, secret = secrets.token_hex(6), secrets.token_urlsafe(24)
    salt = secrets.token_bytes(16)
    stored = {
        "token_id": token_id,
        "salt": salt.hex(),
        "token_hash": _digest(secret, salt).hex(),
        "token_used_at": None,
    }
    return f"{token_id}.{secret}", stored


def create_account(db: Database, name: str, role: str = Role.ANNOTATOR) -> str:
    """Create an account (or give a revoked one a new token); return its plain token (once).

    Refuses an active account of that name (revoke it first, or issue a fresh link with
    :func:`reissue_token`).
    """
    name = check_name(name)
    if role not in ROLES:
        raise InputError(f"role must be one of {', '.join(ROLES)}")
    token, stored = _new_token()
    row = {
        "name": name,
        "role": str(Role(role)),
        **stored,
        "created_at": utcnow(),
        "revoked_at": None,
        "labels_excluded_at": None,  # an account made again: its labels count again
        "labels_excluded_by": None,
    }
    with transaction(db):
        hold_name(db, "accounts", name)  # two admins adding one name: the second is refused
        old = all_rows(db, _named(name))
        if old and old[0]["revoked_at"] is None:
            raise InputError(f"account {name!r} exists; revoke it first to issue a new token")
        if old:
            _update(db, old[0]["id"], row)
        else:
            run(db, sa.insert(accounts).values(**row))
    return token


def reissue_token(db: Database, name: str) -> str:
    """Give the active account ``name`` a fresh token (returned once); the old token, used or
    not, signs in no more, and sessions started with it end (they name the old token)."""
    token, stored = _new_token()
    with transaction(db):
        found = all_rows(db, _named(name, active=True))
        if not found:
            raise InputError(f"no active account named {name!r} (annotators add NAME makes one)")
        _update(db, found[0]["id"], stored)
    return token


def list_accounts(db: Database) -> list[Account]:
    """Every account, by name."""
    return [
        Account.from_row(r) for r in all_rows(db, sa.select(accounts).order_by(accounts.c.name))
    ]


#: Statements of the reads every labelling run makes (built once, issue 37).
_NAMES = sa.select(accounts.c.name)
#: An account whose labels are left out: revoked with its labels excluded.
_LEFT_OUT = sa.and_(accounts.c.revoked_at.is_not(None), accounts.c.labels_excluded_at.is_not(None))
_EXCLUDED = sa.select(accounts.c.name).where(_LEFT_OUT)
_BY_NAME = sa.select(accounts).where(accounts.c.name == sa.bindparam("name"))
#: Every name and whether its labels are left out (:func:`named_and_excluded`), one statement.
_NAMES_EXCLUDED = sa.select(accounts.c.name, _LEFT_OUT)


def account_names(db: Database) -> set[str]:
    """The names of every account, active or revoked: the team whose labels count."""
    return {r[0] for r in run_bound(db, _NAMES)}


def named_and_excluded(db: Database) -> tuple[set[str], set[str]]:
    """:func:`account_names` and :func:`excluded_names` in one statement (every labelling run
    reads both: one round trip less on PostgreSQL, issue 33)."""
    return named_and_excluded_later(db)()


def named_and_excluded_later(db: Database) -> Callable[[], tuple[set[str], set[str]]]:
    """:func:`named_and_excluded`, its statement sent with the connection's next one on
    PostgreSQL (:func:`core.store.prepared.rows_later`); call the result for the two sets."""
    found = rows_later(db, _NAMES_EXCLUDED)

    def names() -> tuple[set[str], set[str]]:
        rows = found()
        return {r[0] for r in rows}, {r[0] for r in rows if r[1]}

    return names


def revoke_account(db: Database, name: str) -> None:
    """Revoke an account: its token signs in no more (its labels stay)."""
    with transaction(db):
        found = all_rows(db, _named(name))
        if not found:
            raise InputError(f"no account named {name!r}")
        if found[0]["revoked_at"] is None:
            _update(db, found[0]["id"], {"revoked_at": utcnow()})


def set_labels_excluded(db: Database, name: str, exclude: bool, by: str) -> None:
    """Leave the revoked account ``name``'s labels out of overlap, gold and agreement
    (``exclude``), or count them again; ``by``: who chose. The labels stay stored (judgments are
    append-only). InputError for an unknown or active account, or a choice already in force."""
    with transaction(db):
        found = all_rows(db, _named(name))
        if not found:
            raise InputError(f"no account named {name!r}")
        if exclude and found[0]["revoked_at"] is None:
            raise InputError(
                f"account {name!r} is active: revoke it first (annotators revoke NAME); only a "
                "revoked account's labels can be left out"
            )
        if exclude == (found[0]["labels_excluded_at"] is not None):
            state = "already left out" if exclude else "not left out"
            raise InputError(f"the labels of {name!r} are {state}; nothing was changed")
        change = {"labels_excluded_at": utcnow() if exclude else None, "labels_excluded_by": by}
        _update(db, found[0]["id"], change)


def excluded_names(db: Database) -> set[str]:
    """The revoked accounts whose labels an admin left out (:func:`set_labels_excluded`)."""
    return {r[0] for r in run_bound(db, _EXCLUDED)}


def verify_token(db: Database, token: str) -> Account:
    """The active account of ``token``; AccessError otherwise."""
    token_id, _, secret = (token or "").strip().partition(".")
    query = sa.select(accounts).where(accounts.c.token_id == token_id)
    found = all_rows(db, query) if secret else []
    # Hash even when nothing matched, so a wrong token id costs the same time as a wrong secret.
    salt = bytes.fromhex(found[0]["salt"]) if found else b"\0" * 16
    expected = bytes.fromhex(found[0]["token_hash"]) if found else b"\0" * 32
    ok = hmac.compare_digest(_digest(secret, salt), expected)
    if not found or not ok:
        raise AccessError("wrong sign-in token")
    if found[0]["revoked_at"] is not None:
        raise AccessError("this account was revoked")
    if found[0]["token_used_at"] is not None:
        raise AccessError(USED)
    return Account.from_row(found[0])


def mark_token_used(db: Database, token_id: str) -> None:
    """Mark the (verified) token ``token_id`` used, once: AccessError when it was used already,
    also when two sign-ins race (the update is conditional). Run inside the transaction that
    starts the session."""
    marked = run(
        db,
        sa.update(accounts)
        .where(
            accounts.c.token_id == token_id,
            accounts.c.token_used_at.is_(None),
            accounts.c.revoked_at.is_(None),
        )
        .values(token_used_at=utcnow()),
    )
    if marked.rowcount != 1:
        raise AccessError(USED)


def get_account(db: Database, name: str) -> Account | None:
    """The account ``name`` (active or revoked), or None."""
    found = bound_rows(db, _BY_NAME, {"name": name})
    return Account.from_row(found[0]) if found else None


def active_account(db: Database, name: str) -> Account | None:
    """The active account of ``name``, or None."""
    found = all_rows(db, _named(name, active=True))
    return Account.from_row(found[0]) if found else None

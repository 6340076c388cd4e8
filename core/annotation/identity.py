"""Who is labelling: the :class:`Annotator` value that only sign-in produces, and authorisation.

Sign-in is by personal token (accounts made with ``python -m core annotators add``; a fresh
link with ``annotators link``) or, while no account exists at all (the key-free demo), by a bare
name in *open mode* (:func:`sign_in_open`). A token works once: :func:`start_session` exchanges
it for a server-side session whose random id the app keeps in a cookie (:func:`resume_session`
on a reload); :func:`sign_out` ends the session on the server, so a later request with it is
refused. Every write path of the annotation API takes an
``Annotator`` and calls :func:`authorise`, which re-checks it against the database inside the
write: an open-mode annotator is refused once accounts exist, a revoked account is refused, and a
role below the one needed is refused. A label is always stored under the annotator's own name, so
no code path can record or withdraw a label for someone else.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from core.corpus.confusables import check_lookalikes
from core.corpus.evaluation_checks import uses_account_name
from core.corpus.names import check_name, normal_form
from core.errors import AccessError, InputError
from core.store.accounts import (
    Account,
    Role,
    account_names,
    accounts_exist,
    active_account,
    mark_token_used,
    set_labels_excluded,
    verify_token,
)
from core.store.connection import transaction
from core.store.judgments import human_raters, imported_human_raters
from core.store.sessions import (
    create_session,
    end_session,
    session_account,
    session_account_later,
    session_hash,
)
from core.store.settings import update_setting

if TYPE_CHECKING:
    from core.store.engine import Database

OPEN_ROLE = "open"
#: Role order: a higher role may do what a lower one may.
_RANK: dict[str, int] = {Role.ANNOTATOR: 1, Role.ADJUDICATOR: 2, Role.ADMIN: 3}
#: Per-process key sealing every Annotator made by sign-in (never stored or shown).
_SEAL_KEY = secrets.token_bytes(32)


def _seal(name: str, role: str, token_id: str, session: str = "") -> str:
    msg = f"{name}\n{role}\n{token_id}\n{session}".encode()
    return hmac.new(_SEAL_KEY, msg, hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Annotator:
    """A signed-in person: ``name`` and ``role`` (``annotator``, ``adjudicator``, ``admin``, or
    ``open`` in open mode). Only sign-in (:func:`start_session`, :func:`resume_session`,
    :func:`sign_in_open`) makes one; any other construction fails (the seal is a keyed hash
    known to this module only). ``session``: the stored hash of its session ("" in open mode)."""

    name: str
    role: str
    token_id: str = field(default="", repr=False)
    session: str = field(default="", repr=False)
    seal: str = field(default="", repr=False, compare=False)

    def __post_init__(self) -> None:
        expected = _seal(self.name, self.role, self.token_id, self.session)
        if not hmac.compare_digest(self.seal, expected):
            raise AccessError(
                "an annotator comes only from sign-in (a token, or a name in open mode)"
            )

    @property
    def open_mode(self) -> bool:
        """Signed in by name only (no account exists)."""
        return self.role == OPEN_ROLE

    @property
    def rater(self) -> str:
        """The rater string of this person's judgments: ``human:<name>``."""
        return f"human:{self.name}"

    def may(self, role: str) -> bool:
        """Whether this role may act as ``role`` (open mode may do everything)."""
        return self.open_mode or _RANK.get(self.role, 0) >= _RANK[role]


def _issue(name: str, role: str, token_id: str = "", session: str = "") -> Annotator:
    return Annotator(name, role, token_id, session, _seal(name, role, token_id, session))


def start_session(db: Database, token: str) -> tuple[Annotator, str]:
    """Exchange a personal token for a session: ``(annotator, session id)``. The token is used
    up (a second use is refused); the plain session id is returned once (only its hash is
    stored). AccessError when the token is wrong, revoked or used."""
    account = verify_token(db, token)  # the slow scrypt check, outside the write lock
    with transaction(db):
        mark_token_used(db, account.token_id)
        session_id = create_session(db, account.name, account.token_id)
    who = _issue(account.name, account.role, account.token_id, session_hash(session_id))
    return who, session_id


def sign_in_token(db: Database, token: str) -> Annotator:
    """Sign in with a personal token (once: :func:`start_session`); AccessError when wrong,
    revoked or already used."""
    return start_session(db, token)[0]


def resume_session(db: Database, session_id: str) -> Annotator:
    """The annotator of a session id (a reload, another tab); AccessError when the session
    ended (signed out) or is unknown, the account was revoked or given a fresh link."""
    id_hash = session_hash(session_id)
    account = session_account(db, id_hash)
    return _issue(account.name, account.role, account.token_id, id_hash)


def sign_out(db: Database, who: object) -> None:
    """End ``who``'s session on the server: the session id signs nobody in again, and writes
    with ``who`` are refused. (Open mode has no session: nothing to end.)"""
    if isinstance(who, Annotator) and who.session:
        with transaction(db):
            end_session(db, who.session)


def account_name(db: Database, name: object) -> str:
    """``name`` (NFC, stripped: :func:`core.corpus.names.normal_form`) when it is a valid name
    (:mod:`core.corpus.names`) that no imported labels use (an account of that name would count
    them as its own, and its Undo would withdraw them: the importer's comparison,
    :func:`core.corpus.evaluation_checks.uses_account_name`) and that does not look like a
    different account or labeller (same confusable skeleton, Unicode TR39: always refused for
    people, so nobody can pass for someone else)."""
    if isinstance(name, str):
        name = normal_form(name)
    if not name:
        raise InputError("enter an annotator name")
    name = check_name(name, "name")
    for rater, n in imported_human_raters(db).items():
        if uses_account_name(rater, name):
            raise InputError(
                f"name {name!r} is the imported rater {rater!r} ({n} verdicts read from a "
                "file): an account never takes a name imported labels use; choose another name"
            )
    people = account_names(db) | {r.removeprefix("human:") for r in human_raters(db)}
    check_lookalikes([name], people, "name")
    return name


def sign_in_open(db: Database, name: str) -> Annotator:
    """Sign in by name alone: only in open mode (while no account exists)."""
    name = account_name(db, name)
    if accounts_exist(db):
        raise AccessError("accounts exist: sign in with your personal token, not a name")
    return _issue(name, OPEN_ROLE)


def shell_admin(db: Database, name: str | None) -> Annotator:
    """The command line acting as ``name`` (``--as NAME``): whoever can run commands on the
    database file administers it, so no token is asked (a link works once and belongs to the
    browser). Once accounts exist ``name`` must be an active admin account; in open mode any
    valid name. AccessError otherwise."""
    name = normal_form(name or "")
    if not name:
        raise InputError("say who acts: --as ADMIN")
    if not accounts_exist(db):
        return sign_in_open(db, name)
    account = active_account(db, name)
    if account is None or account.role != Role.ADMIN:
        raise AccessError(f"{name!r} is not an active admin account; nothing was stored")
    return _issue(account.name, account.role, account.token_id)


def authorise(db: Database, who: object, role: str = "annotator") -> Annotator:
    """``who`` if it is a signed-in Annotator still allowed to act as ``role``; else AccessError.

    Checked against the database at the time of the write: open mode ends when the first account
    is made, an ended session, a revoked account or a changed token is refused, and so is a role
    below ``role``.
    """
    return authorise_later(db, who, role)()


def authorise_later(db: Database, who: object, role: str = "annotator") -> Callable[[], Annotator]:
    """:func:`authorise` in two steps: the session's read is sent with the connection's next
    statement on PostgreSQL (a label's sign-in check in the round trip of its row locks and of
    the row it supersedes, issue 33: :func:`core.store.sessions.session_account_later`), and
    calling the result checks it (AccessError as there): call it before anything is written.
    Not an Annotator, open mode, a sign-in without a session: read and refused at once."""
    if not isinstance(who, Annotator):
        raise AccessError("sign in first: labels are stored only for a signed-in annotator")
    if who.open_mode:
        if accounts_exist(db):
            raise AccessError("accounts exist: sign in with your personal token, not a name")
        return lambda: who
    if not who.session:
        account = active_account(db, who.name)
        return lambda: _still_valid(who, account, role)
    found = session_account_later(db, who.session)
    return lambda: _still_valid(who, found(), role)


def _still_valid(who: Annotator, account: Account | None, role: str) -> Annotator:
    """``who`` if ``account`` (read now) is still theirs and ``role`` is theirs; else AccessError."""
    if (
        account is None
        or account.name != who.name
        or account.token_id != who.token_id
        or account.role != who.role
    ):
        raise AccessError(
            f"the sign-in of {who.name!r} is no longer valid (account revoked or given a new "
            "token); sign in again"
        )
    if not who.may(role):
        raise AccessError(f"this needs the {role} role; {who.name} is {who.role}")
    return who


def leave_out_labels(db: Database, who: object, name: str, exclude: bool = True) -> None:
    """As ``who`` (admin once accounts exist): leave the revoked account ``name``'s labels out of
    overlap, gold and agreement (``exclude``), or count them again. Nothing is deleted
    (:func:`core.store.accounts.set_labels_excluded`)."""
    with transaction(db):
        by = authorise(db, who, "admin").name
        set_labels_excluded(db, name, exclude, by)


def change_settings(
    db: Database, who: object, values: Mapping[str, object]
) -> dict[str, int | str]:
    """Set known settings as ``who`` (admin once accounts exist), all or none; return them."""
    with transaction(db):
        authorise(db, who, "admin")
        return {key: update_setting(db, key, value) for key, value in values.items()}

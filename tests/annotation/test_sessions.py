"""Sign-in sessions: a token works once, a session survives reloads, sign-out ends it on the
server, a fresh link ends the older token and sessions."""

from __future__ import annotations

import pytest

from core.annotation.identity import (
    authorise,
    resume_session,
    sign_out,
    start_session,
)
from core.errors import AccessError, InputError
from core.store.accounts import create_account, mark_token_used, reissue_token, revoke_account
from core.store.sessions import session_hash


def test_a_token_starts_one_session_and_is_used_up(db):
    token = create_account(db, "alice")
    who, session_id = start_session(db, token)
    assert who.name == "alice" and authorise(db, who) == who
    with pytest.raises(AccessError, match="already used"):
        start_session(db, token)
    # the session id is stored only as its hash
    stored = db.execute("select id_hash from sessions").fetchall()
    assert stored == [(session_hash(session_id),)] and session_id not in str(stored)
    # a reload: the session id (cookie) signs the same person in again
    again = resume_session(db, session_id)
    assert again.name == "alice" and authorise(db, again).name == "alice"


def test_marking_a_token_used_twice_is_refused(db):
    token = create_account(db, "alice")
    token_id = token.split(".")[0]
    mark_token_used(db, token_id)
    with pytest.raises(AccessError, match="already used"):
        mark_token_used(db, token_id)


def test_sign_out_ends_the_session_on_the_server(db):
    who, session_id = start_session(db, create_account(db, "alice"))
    other, other_id = start_session(db, reissue_token(db, "alice"))
    sign_out(db, other)
    with pytest.raises(AccessError, match="ended"):
        resume_session(db, other_id)
    with pytest.raises(AccessError, match="ended"):
        authorise(db, other)  # a write with the signed-out annotator is refused
    with pytest.raises(AccessError, match="ended"):
        resume_session(db, "not-a-session")
    with pytest.raises(AccessError):
        resume_session(db, "")


def test_a_fresh_link_replaces_the_token_and_ends_older_sessions(db):
    first = create_account(db, "alice")
    who, session_id = start_session(db, first)
    unused = reissue_token(db, "alice")
    fresh = reissue_token(db, "alice")  # the unused one is replaced too
    for old in (first, unused):
        with pytest.raises(AccessError, match="wrong sign-in token"):
            start_session(db, old)
    with pytest.raises(AccessError, match="fresh link"):
        resume_session(db, session_id)
    with pytest.raises(AccessError):
        authorise(db, who)
    assert start_session(db, fresh)[0].name == "alice"
    with pytest.raises(InputError, match="no active account"):
        reissue_token(db, "nobody")


def test_revoking_the_account_ends_its_sessions(db):
    who, session_id = start_session(db, create_account(db, "alice"))
    revoke_account(db, "alice")
    with pytest.raises(AccessError, match="revoked"):
        resume_session(db, session_id)
    with pytest.raises(AccessError):
        authorise(db, who)
    with pytest.raises(InputError):
        reissue_token(db, "alice")

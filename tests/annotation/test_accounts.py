"""Accounts, sign-in and authorisation: every impersonation route through the API is refused."""

from __future__ import annotations

import dataclasses
import hashlib

import pytest
from reviewing import submit_review

from core.annotation.disputes import resolve_dispute
from core.annotation.identity import (
    Annotator,
    authorise,
    change_settings,
    sign_in_open,
    sign_in_token,
)
from core.annotation.pairwise import blind_item, skip_item, submit_verdict, undo_last, verdict_queue
from core.errors import AccessError, InputError
from core.store.accounts import (
    Role,
    accounts_exist,
    create_account,
    list_accounts,
    revoke_account,
    verify_token,
)
from core.store.database import open_db
from core.store.settings import all_settings


@pytest.fixture
def fdb(fixture_db):
    db_path, ids = fixture_db
    db = open_db(db_path)
    yield db, ids
    db.conn.close()


def _labels(db) -> int:
    return sum(
        db.execute(f"select count(*) from {t}").fetchone()[0]
        for t in ("judgments where rater_kind = 'human'", "reviews", "dispute_resolutions")
    )


def test_token_is_stored_only_as_a_salted_scrypt_hash(fdb):
    db, _ = fdb
    token = create_account(db, "alice", "admin")
    token_id, secret = token.split(".")
    row = db.execute("select * from accounts").fetchone()
    assert secret not in " ".join(str(v) for v in row) and token not in str(row)
    acc = dict(zip([d[0] for d in db.execute("select * from accounts").description], row))
    expected = hashlib.scrypt(
        secret.encode(), salt=bytes.fromhex(acc["salt"]), n=2**14, r=8, p=1, dklen=32
    )
    assert acc["token_hash"] == expected.hex() and acc["token_id"] == token_id
    # two accounts never share a salt
    create_account(db, "bob")
    assert len({r[0] for r in db.execute("select salt from accounts")}) == 2
    alice = verify_token(db, token)
    assert (alice.name, alice.role, alice.token_id) == ("alice", Role.ADMIN, token_id)
    assert [a.name for a in list_accounts(db)] == ["alice", "bob"]
    # a record carries no token material: the salt and hash stay in the store
    fields = {f.name for f in dataclasses.fields(alice)}
    assert fields.isdisjoint({"salt", "token_hash"}) and "salt" not in dataclasses.asdict(alice)


def test_bad_accounts_are_refused_and_write_nothing(fdb):
    db, _ = fdb
    for name, role in (("", "annotator"), ("b\x00", "annotator"), ("eve", "root")):
        with pytest.raises(InputError):
            create_account(db, name, role)
    assert not accounts_exist(db)
    create_account(db, "alice")
    with pytest.raises(InputError, match="exists"):
        create_account(db, "alice")
    with pytest.raises(InputError, match="no account"):
        revoke_account(db, "nobody")


def test_open_mode_ends_when_the_first_account_exists(fdb):
    db, ids = fdb
    early = sign_in_open(db, "yvonne")
    submit_review(db, ids["generated"][0], early, "accept")
    create_account(db, "alice")
    with pytest.raises(AccessError, match="personal token"):
        sign_in_open(db, "yvonne")
    before = _labels(db)
    with pytest.raises(AccessError):  # a sign-in from open mode is refused at the write
        submit_review(db, ids["generated"][1], early, "accept")
    assert _labels(db) == before


def test_wrong_and_revoked_tokens_are_refused(fdb):
    db, ids = fdb
    token = create_account(db, "alice")
    for bad in ("", "nonsense", token + "x", token.split(".")[0] + ".wrong", "." + token):
        with pytest.raises(AccessError, match="wrong sign-in token"):
            sign_in_token(db, bad)
    alice = sign_in_token(db, token)
    item = blind_item(db, verdict_queue(db, "alice")[0], "alice")
    submit_verdict(db, item, alice, "A")
    revoke_account(db, "alice")
    with pytest.raises(AccessError, match="revoked"):
        sign_in_token(db, token)
    before = _labels(db)
    for write in (
        lambda: submit_verdict(db, item, alice, "B"),
        lambda: skip_item(db, item, alice),
        lambda: undo_last(db, alice),
        lambda: resolve_dispute(db, ids["disputes"][0], alice, "model_wrong"),
    ):
        with pytest.raises(AccessError):
            write()
    assert _labels(db) == before
    # a new token for the same name: the old sign-in stays invalid
    new = create_account(db, "alice")
    with pytest.raises(AccessError):
        authorise(db, alice)
    assert authorise(db, sign_in_token(db, new)).name == "alice"


def test_every_impersonation_route_in_the_api_is_refused(fdb):
    db, ids = fdb
    create_account(db, "alice")
    yvonne = sign_in_token(db, create_account(db, "yvonne"))
    item = blind_item(db, verdict_queue(db, "yvonne")[0], "yvonne")
    submit_verdict(db, item, yvonne, "A")
    before = _labels(db)
    # a bare name instead of a signed-in annotator
    for write in (
        lambda: submit_verdict(db, item, "yvonne", "B"),
        lambda: undo_last(db, "yvonne"),
        lambda: skip_item(db, item, "yvonne"),
        lambda: submit_review(db, ids["generated"][0], "yvonne", "accept"),
        lambda: resolve_dispute(db, ids["disputes"][0], "yvonne", "ambiguous"),
    ):
        with pytest.raises(AccessError, match="sign in"):
            write()
    # forging an Annotator value (directly, or by copying a real one with another name)
    with pytest.raises(AccessError, match="only from sign-in"):
        Annotator("yvonne", "annotator")
    with pytest.raises(AccessError, match="only from sign-in"):
        Annotator("yvonne", "annotator", yvonne.token_id, "0" * 64)
    with pytest.raises(AccessError, match="only from sign-in"):
        dataclasses.replace(yvonne, name="alice")
    with pytest.raises(AccessError, match="only from sign-in"):
        dataclasses.replace(yvonne, role="admin")
    # a name in open mode while accounts exist
    with pytest.raises(AccessError):
        sign_in_open(db, "yvonne")
    assert _labels(db) == before
    # undo withdraws only one's own label: alice's undo cannot reach yvonne's verdict
    alice = sign_in_token(db, create_account(db, "alice2"))
    assert undo_last(db, alice) is None
    assert _labels(db) == before


def test_roles_gate_settings(fdb):
    db, _ = fdb
    admin = sign_in_token(db, create_account(db, "root", "admin"))
    ann = sign_in_token(db, create_account(db, "ann"))
    adj = sign_in_token(db, create_account(db, "carol", "adjudicator"))
    for who in (ann, adj, "root"):
        with pytest.raises(AccessError):
            change_settings(db, who, {"annotations_per_item": 3})
    assert all_settings(db)["annotations_per_item"] == 1
    with pytest.raises(InputError):  # all or none: a bad value stores nothing
        change_settings(db, admin, {"annotations_per_item": 3, "calibration_items": -1})
    assert all_settings(db)["annotations_per_item"] == 1
    assert change_settings(db, admin, {"annotations_per_item": 2}) == {"annotations_per_item": 2}
    assert adj.may("annotator") and adj.may("adjudicator") and not adj.may("admin")


def test_open_mode_annotator(db):
    who = sign_in_open(db, "  zed ")
    assert (who.name, who.role, who.open_mode, who.rater) == ("zed", "open", True, "human:zed")
    assert who.may("admin") and authorise(db, who, "admin") is who
    assert "seal" not in repr(who) and "token" not in repr(who)
    with pytest.raises(InputError):
        sign_in_open(db, "ze\u200bd")

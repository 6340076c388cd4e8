"""Who counts as an annotator (issue 38, item 4): an admin can leave a revoked account's labels
out of overlap, gold and agreement (the labels stay stored), and a rater derived from the crowd's
slots (``crowd-majority``) never counts as a person: not in gold, nor in the between-annotators
Fleiss' kappa and Krippendorff's alpha."""

from __future__ import annotations

import json

import pytest
from cli_run import run_cli

from core.annotation.gold import gold_labels
from core.annotation.identity import leave_out_labels, shell_admin, sign_in_token
from core.annotation.pairwise import blind_item, pair_key, submit_verdict, verdict_queue
from core.annotation.tasks import task_items
from core.corpus.evaluations import read_plain_judgments, store_evaluation
from core.errors import AccessError, InputError
from core.store.accounts import create_account, revoke_account
from core.store.database import open_db
from core.store.settings import update_setting
from core.views.figures import agreement_overview
from core.views.team import team_view


@pytest.fixture
def fdb(fixture_db):
    db_path, _ = fixture_db
    db = open_db(db_path)
    update_setting(db, "annotations_per_item", 2)
    yield db, db_path
    db.conn.close()


def _label(db, who, keys, verdict="Equal"):
    for key in keys:
        submit_verdict(db, blind_item(db, key, who.name), who, verdict)


def test_a_revoked_accounts_labels_can_be_left_out_and_are_kept(fdb):
    db, db_path = fdb
    admin = sign_in_token(db, create_account(db, "root", "admin"))
    alice = sign_in_token(db, create_account(db, "alice"))
    bob = sign_in_token(db, create_account(db, "bob"))
    carol = sign_in_token(db, create_account(db, "carol"))
    items = task_items(db, "side-by-side")[:6]
    _label(db, alice, items)
    _label(db, bob, items)
    assert not set(items) & set(verdict_queue(db, "carol"))  # k = 2 reached: not carol's
    assert set(items) <= set(gold_labels(db, "side-by-side"))  # alice and bob agree: gold
    assert "human:bob" in agreement_overview(db)["raters"]
    with pytest.raises(InputError, match="revoke it first"):
        leave_out_labels(db, admin, "bob")
    revoke_account(db, "bob")
    assert not set(items) & set(verdict_queue(db, "carol"))  # revoked alone: still counts
    with pytest.raises(AccessError):
        leave_out_labels(db, carol, "bob")  # an annotator may not
    rows = db["judgments"].count
    leave_out_labels(db, admin, "bob")
    assert db["judgments"].count == rows  # nothing deleted, nothing added
    assert set(items) <= set(verdict_queue(db, "carol"))  # overlap: bob's labels no longer count
    assert not set(items) & set(gold_labels(db, "side-by-side"))  # alice alone is no gold
    assert "human:bob" not in agreement_overview(db)["raters"]
    view = team_view(db, "side-by-side")
    assert "bob" not in set(view["table"]["annotator"]) | set(view["imported"]["rater"])
    assert view["revoked"] == [{"name": "bob", "left_out": True}]
    leave_out_labels(db, admin, "bob", exclude=False)
    assert not set(items) & set(verdict_queue(db, "carol"))
    assert shell_admin(db, " root ").name == "root"


def test_the_command_line_leaves_out_and_counts_again(fdb):
    db, db_path = fdb
    create_account(db, "bob")

    def cli(*argv):
        return run_cli(["--db", str(db_path), "annotators", *argv])

    code, _, err = cli("exclude", "bob")
    assert code == 2 and "revoke it first" in err and "Traceback" not in err
    assert cli("revoke", " bob")[0] == 0  # compared in its normal form (trimmed)
    code, out, err = cli("exclude", "bob")
    assert code == 0, err
    listed = json.loads(cli("list", "--json")[1])["accounts"]
    assert listed[0]["labels_excluded_at"]
    code, _, err = cli("exclude", "bob")
    assert code == 2 and "already left out" in err
    assert cli("include", "bob")[0] == 0
    assert json.loads(cli("list", "--json")[1])["accounts"][0]["labels_excluded_at"] is None
    code, _, err = cli("exclude", "nobody")
    assert code == 2 and "no account" in err


PLAIN = "question_id,system_a,system_b,rater,verdict\n"


def test_crowd_majority_is_not_counted_on_top_of_its_slots(db, tmp_path):
    """Five items with a 2-1 slot majority that crowd-majority repeats (so it is found to be
    derived), and q6, where the two slots split: the slots give no gold there, and
    crowd-majority's vote must not make one."""
    rows = []
    for i in range(1, 6):
        rows += [f"q{i},s1,s2,human:crowd#,{v}" for v in ("A", "A", "B")]
        rows.append(f"q{i},s1,s2,human:crowd-majority,A")
    rows += ["q6,s1,s2,human:crowd#,A", "q6,s1,s2,human:crowd#,B"]
    rows.append("q6,s1,s2,human:crowd-majority,A")
    path = tmp_path / "crowd.csv"
    path.write_text(PLAIN + "\n".join(rows) + "\n", encoding="utf-8")
    store_evaluation(db, read_plain_judgments(path))
    gold = gold_labels(db, "side-by-side")
    assert pair_key("q1", "s1", "s2") in gold
    assert pair_key("q6", "s1", "s2") not in gold
    humans = agreement_overview(db)["humans"]
    assert humans["raters"] == 3  # the three slots; crowd-majority is not an annotator

"""AppTest of the Adjudication page: every disagreement is its own entry (two pairs of one
question included) and opens its own item; a Settle on an item that changed since the page
loaded stores nothing and says why."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_support import build_fixture_db, unescaped
from streamlit.testing.v1 import AppTest

from core.annotation.identity import sign_in_token
from core.annotation.pairwise import blind_item, split_pair_key, submit_verdict
from core.annotation.tasks import task_items
from core.store.accounts import create_account
from core.store.database import open_db
from core.store.settings import update_setting
from core.views.adjudication import label_name

ROOT = Path(__file__).resolve().parents[2]
PAGE = "pages/10_Adjudication.py"


def _label(db, who, key: str, canonical: str, why: str) -> int:
    """Store ``canonical`` (first/second/Equal/None) through ``who``'s own A/B order."""
    item = blind_item(db, key, who.name)
    first = min(item["system_a"], item["system_b"])
    verdict = canonical
    if canonical in ("first", "second"):
        verdict = "A" if (item["system_a"] == first) == (canonical == "first") else "B"
    return submit_verdict(db, item, who, verdict, why)


@pytest.fixture
def split(db_path, monkeypatch):
    """alice and bob disagree on two pairs of one question (and on nothing else)."""
    path = db_path
    build_fixture_db(path)
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    db = open_db(path)
    update_setting(db, "annotations_per_item", 2)
    create_account(db, "root", "admin")
    alice = sign_in_token(db, create_account(db, "alice"))
    bob = sign_in_token(db, create_account(db, "bob"))
    carol = create_account(db, "carol", "adjudicator")
    items = task_items(db, "side-by-side")
    qid = split_pair_key(items[0])[0]
    keys = [k for k in items if split_pair_key(k)[0] == qid][:2]
    assert len(keys) == 2
    for n, key in enumerate(keys):
        _label(db, alice, key, "first", f"alice on pair {n}")
        _label(db, bob, key, "Equal" if n == 0 else "None", f"bob on pair {n}")
    db.conn.close()
    return path, carol, keys, (alice, bob)


def _open(token: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["token"] = token
    at.run()
    at.switch_page(PAGE)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _count(path: Path | str, sql: str) -> int:
    db = open_db(path)
    try:
        return db.execute(sql).fetchone()[0]
    finally:
        db.conn.close()


def _settle_buttons(at: AppTest) -> list:
    return [b for b in at.button if (b.key or "").startswith("adj_settle_")]


def _settle(at: AppTest, label: str) -> AppTest:
    """Press the button of ``label`` (one per label, its key shown on it): it settles at once."""
    name = label_name("side-by-side", label)
    [b for b in _settle_buttons(at) if unescaped(b.label) == name][0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_every_disagreement_is_its_own_entry_and_opens_its_own_item(split):
    path, carol, keys, _ = split
    at = _open(carol)
    picker = at.selectbox(key="adj_item_side-by-side")
    assert sorted(picker.options) == sorted(set(picker.options)) and len(picker.options) == 2
    assert not [o for o in picker.options if "\\" in o]  # plain text: no Markdown escapes
    shown = " ".join(unescaped(o) for o in picker.options)
    assert "pair 1 of 3" in shown and "pair 2 of 3" in shown  # which pair, no system name
    assert "bob: Equal" in shown and "bob: None (both wrong)" in shown  # what each said
    for n, key in enumerate(keys):
        at.selectbox(key="adj_item_side-by-side").set_value(key).run()
        rationales = set(at.table[0].value["rationale"].map(unescaped))
        assert rationales == {f"alice on pair {n}", f"bob on pair {n}"}  # this item, no other
    settled, seen = 0, set()
    while _settle_buttons(at):
        keys_now = {b.key for b in _settle_buttons(at)}
        assert not keys_now & seen  # each item's buttons are its own (workspace.item_bound)
        seen |= keys_now
        _settle(at, "Equal")
        settled += 1
        assert _count(path, "select count(*) from adjudications") == settled
    assert settled == 2
    db = open_db(path)
    stored = {r[0] for r in db.execute("select item_key from adjudications").fetchall()}
    db.close()
    assert stored == set(keys)  # each pair settled once: carol reached both
    assert any("No side-by-side disagreements" in unescaped(s.value) for s in at.success)


def test_a_key_per_label_shown_on_its_button_guidelines_and_position_at_the_top(split):
    """Every label is its own button with its key (1-4 for side by side), no radio and no
    separate Settle; G opens the guidelines; the top line says where the item stands."""
    _, carol, keys, _ = split
    at = _open(carol)
    shown = {unescaped(b.label): b.proto.shortcut for b in _settle_buttons(at)}
    assert shown == {
        "Answer 1 is better": "1",
        "Answer 2 is better": "2",
        "Equal": "3",
        "None (both wrong)": "4",
    }
    assert not [r for r in at.radio if r.label == "Settled label"]
    assert [b for b in at.button if b.label == "Guidelines"][0].proto.shortcut.upper() == "G"
    top = [c.value for c in at.caption if unescaped(c.value).startswith("Item ")]
    assert top and unescaped(top[0]).startswith("Item 1 of 2 open disagreements"), top
    at.selectbox(key="adj_item_side-by-side").set_value(keys[1]).run()
    top = [unescaped(c.value) for c in at.caption if unescaped(c.value).startswith("Item ")]
    assert top[0].startswith("Item 2 of 2 open disagreements"), top
    [b for b in at.button if b.label == "Guidelines"][0].click().run()
    assert any("Settling a disagreement" in m.value for m in at.markdown)
    assert any("Side by side: which answer is better" in m.value for m in at.markdown)


def test_settle_on_an_item_no_longer_disputed_stores_nothing_and_says_so(split):
    path, carol, keys, (alice, bob) = split
    at = _open(carol)
    at.selectbox(key="adj_item_side-by-side").set_value(keys[0]).run()
    db = open_db(path)
    _label(db, bob, keys[0], "first", "bob changed his mind in another tab")  # now they agree
    db.conn.close()
    _settle(at, "Equal")
    assert _count(path, "select count(*) from adjudications") == 0
    assert any("not in disagreement" in unescaped(e.value) for e in at.error)


def test_settle_after_someone_else_settled_stores_nothing_and_says_so(split):
    path, carol, keys, _ = split
    db = open_db(path)
    dave = create_account(db, "dave", "adjudicator")
    db.conn.close()
    at = _open(carol)
    at.selectbox(key="adj_item_side-by-side").set_value(keys[0]).run()
    other = _open(dave)
    other.selectbox(key="adj_item_side-by-side").set_value(keys[0]).run()
    _settle(other, "None")
    _settle(at, "first")  # carol's page still showed the item open
    assert _count(path, "select count(*) from adjudications") == 1
    assert any("dave settled this item" in unescaped(e.value) for e in at.error)

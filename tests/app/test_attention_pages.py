"""AppTest: the Side by side page serves attention checks. With ``attention_every 3``, a person
pressing a verdict key 13 times meets a check at their 3rd, 6th, 9th and 12th item (the page
shows the head of a queue recomputed after each label; the checks used to stay ahead of it)."""

from __future__ import annotations

from pathlib import Path

from browser_support import build_fixture_db, unescaped
from streamlit.testing.v1 import AppTest

from core.annotation.adjudication import adjudicate
from core.annotation.identity import sign_in_token
from core.annotation.pairwise import blind_item, pair_key, submit_verdict
from core.annotation.tasks import task_items
from core.store.accounts import create_account
from core.store.database import open_db
from core.store.settings import update_setting

ROOT = Path(__file__).resolve().parents[2]


def _settled_items(path: Path | str) -> tuple[list[str], str]:
    """Five side-by-side items alice and bob disagree on, settled by carol; dan's token."""
    db = open_db(path)
    try:
        create_account(db, "root", "admin")
        tokens = {n: create_account(db, n) for n in ("alice", "bob", "dan")}
        carol = sign_in_token(db, create_account(db, "carol", "adjudicator"))
        people = {n: sign_in_token(db, tokens[n]) for n in ("alice", "bob")}  # a token: once
        keys = task_items(db, "side-by-side")[:5]
        for key in keys:  # alice: her A better; bob: the other answer (the order is drawn)
            first, second = (blind_item(db, key, n) for n in ("alice", "bob"))
            submit_verdict(db, first, people["alice"], "A")
            other = "B" if second["system_a"] == first["system_a"] else "A"
            submit_verdict(db, second, people["bob"], other)
            adjudicate(db, carol, "side-by-side", key, "Equal")
        update_setting(db, "attention_every", 3)
        return keys, tokens["dan"]
    finally:
        db.close()


def test_an_annotator_giving_13_verdicts_meets_the_checks(db_path, monkeypatch):
    build_fixture_db(db_path)
    keys, token = _settled_items(db_path)
    monkeypatch.setenv("WORKBENCH_DB", str(db_path))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["token"] = token
    at.run()
    at.switch_page("pages/3_Side_by_side.py").run()
    for _ in range(13):
        assert not at.exception, [e.value for e in at.exception]
        [button] = [b for b in at.button if unescaped(b.label) == "A"]
        button.click().run()
        assert any(s.value.startswith("Stored:") for s in at.success)
    db = open_db(db_path)
    try:
        rows = db.execute(
            "select question_id, system_a, system_b from judgments "
            "where rater = 'human:dan' and status = 'ok' order by id"
        ).fetchall()
    finally:
        db.close()
    served = [pair_key(*row) for row in rows]
    assert len(served) == len(set(served)) == 13
    assert [i for i, key in enumerate(served) if key in keys] == [2, 5, 8, 11]

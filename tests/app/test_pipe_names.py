"""A ``|`` in a system name works end to end: import, queue, blind item, verdict, the Side by
side page (keys are JSON lists, not strings joined by ``|``)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.__main__ import main
from core.annotation.identity import sign_in_open
from core.annotation.pairwise import (
    blind_item,
    pair_key,
    pairwise_items,
    split_pair_key,
    submit_verdict,
    verdict_queue,
)
from core.store.database import open_db

ROOT = Path(__file__).resolve().parents[2]
ANSWERS = (
    "question_id,system,answer,question\n"
    "q1,a|b,Brand kept it,Who kept the lighthouse?\n"
    "q1,c,Orion kept it,Who kept the lighthouse?\n"
    "q2,a,One,How many?\n"
    "q2,b|c,Two,How many?\n"
)


@pytest.fixture
def pipe_db(new_db_location, tmp_path, monkeypatch) -> Path | str:
    path, csv = new_db_location(), tmp_path / "a.csv"
    csv.write_text(ANSWERS, encoding="utf-8")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(path), "init"]) == 0
        assert main(["--db", str(path), "import-answers", str(csv)]) == 0
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    monkeypatch.delenv("WORKBENCH_ACCESS_CODE", raising=False)
    return path


@pytest.mark.parametrize(
    ("qid", "s1", "s2"),
    [("q1", "a|b", "c"), ("q1", "a", "b|c"), ("q|1", "x", "y"), ('q"1', "[", "]"), ("q", "", "")],
)
def test_pair_keys_are_structures(qid, s1, s2):
    key = pair_key(qid, s2, s1)
    assert split_pair_key(key) == (qid, *sorted((s1, s2)))
    assert pair_key("q1", "a|b", "c") != pair_key("q1", "a", "b|c")


def test_an_old_key_still_reads():
    assert split_pair_key("q1|s1|s2") == ("q1", "s1", "s2")


def test_a_pipe_in_a_system_name_works_with_the_page_functions(pipe_db):
    db = open_db(pipe_db)
    try:
        items = pairwise_items(db)
        assert sorted(split_pair_key(k) for k in items) == [("q1", "a|b", "c"), ("q2", "a", "b|c")]
        alice = sign_in_open(db, "alice")
        for key in verdict_queue(db, "alice", items):
            item = blind_item(db, key, "alice")
            assert {item["system_a"], item["system_b"]} == set(split_pair_key(key)[1:])
            submit_verdict(db, item, alice, "A")
        stored = db.execute("select system_a, system_b from judgments order by id").fetchall()
        assert {frozenset(r) for r in stored} == {frozenset({"a|b", "c"}), frozenset({"a", "b|c"})}
        assert verdict_queue(db, "alice", items) == []
    finally:
        db.conn.close()


def test_side_by_side_page_reaches_and_stores_a_pipe_item(pipe_db):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90).run()
    at.switch_page("pages/3_Side_by_side.py").run()
    at.sidebar.text_input(key="sign_in_name").input("alice")
    at.sidebar.button[0].click().run()  # the sign-in form's submit button
    assert not at.exception, [e.value for e in at.exception]
    for _ in range(2):
        next(b for b in at.button if (b.key or "").startswith("sbs_A_")).click().run()
        assert not at.exception, [e.value for e in at.exception]
        assert not at.error, [e.value for e in at.error]
    assert any("queue is empty" in s.value for s in at.success)
    db = open_db(pipe_db)
    try:
        stored = db.execute("select system_a, system_b, rater from judgments").fetchall()
    finally:
        db.conn.close()
    assert {frozenset(r[:2]) for r in stored} == {frozenset({"a|b", "c"}), frozenset({"a", "b|c"})}
    assert {r[2] for r in stored} == {"human:alice"}

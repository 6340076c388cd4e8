"""Browse as a list (issue 34): filters, sort, pages, a question opened in place, deep links."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_support import build_fixture_db
from streamlit.testing.v1 import AppTest

from core.store.connection import utcnow
from core.store.database import open_db
from core.store.judgments import JudgmentKind, NewJudgment, RaterKind, insert_judgment

ROOT = Path(__file__).resolve().parents[2]


def _people_disagree(db, qid: str) -> None:
    for name, verdict in (("alice", "A"), ("bob", "B")):
        insert_judgment(
            db,
            NewJudgment(
                kind=JudgmentKind.PAIRWISE,
                question_id=qid,
                rater=f"human:{name}",
                rater_kind=RaterKind.HUMAN,
                criterion="better",
                system_a="fixture-a",
                system_b="fixture-b",
                order_shown="ab",
                verdict=verdict,
            ),
        )


@pytest.fixture
def browse_db(db_path, monkeypatch):
    """The fixture database, a discarded question with no answers first by id, and two people
    who disagree on gen-2."""
    build_fixture_db(db_path)
    db = open_db(db_path)
    try:
        now = utcnow()
        db["questions"].insert(
            {
                "id": "aaa-discarded",
                "question": "A discarded question nobody answered?",
                "origin": "generated",
                "status": "discarded",
                "answers": "[]",
                "created_at": now,
                "updated_at": now,
            }
        )
        _people_disagree(db, "gen-2")
        insert_judgment(  # a person's absolute verdict: no system_a / system_b
            db,
            NewJudgment(
                kind=JudgmentKind.ABSOLUTE,
                question_id="gen-2",
                rater="human:carol",
                rater_kind=RaterKind.HUMAN,
                criterion="supported",
                system="fixture-a",
                verdict="yes",
            ),
        )
    finally:
        db.close()
    monkeypatch.setenv("WORKBENCH_DB", str(db_path))
    return db_path


def browse(**params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("pages/6_Browse.py")
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _select(at: AppTest, label: str, value: str) -> AppTest:
    [box] = [s for s in at.selectbox if s.label == label]
    box.set_value(value).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _listed(at: AppTest) -> list[str]:
    return list(at.dataframe[0].value["id"])


def _opened(at: AppTest) -> str:
    return [s for s in at.selectbox if s.label == "Open question"][0].value


def test_browse_lists_questions_and_opens_the_busiest_first(browse_db):
    at = browse()
    assert at.caption[0].value.startswith("Find any question")
    listed = _listed(at)
    assert len(listed) == 8 and "aaa-discarded" in listed
    assert listed[0] == "gen-2"  # the most verdicts (two people's too) first
    assert _opened(at) == "gen-2" and any(s.value == "Answers (3)" for s in at.subheader)
    tables = [t.value.to_string() for t in at.dataframe]
    assert len(tables) >= 3 and not [t for t in tables if "None" in t]  # empty cells, no None
    assert "Raw reply" not in str([e.label for e in at.expander])


def test_browse_filters_sorts_and_keeps_deep_links(browse_db):
    at = _select(browse(), "Disagreement", "people vs people")
    assert _listed(at) == ["gen-2"]
    at = _select(_select(at, "Disagreement", "(all)"), "Rater", "human:bob")
    assert _listed(at) == ["gen-2"]
    at = _select(_select(at, "Rater", "(all)"), "Status", "discarded")
    assert _listed(at) == ["aaa-discarded"] and _opened(at) == "aaa-discarded"
    at = _select(at, "Status", "(all)")
    at = _select(at, "Sort", "question id")
    assert _listed(at)[0] == "aaa-discarded"
    at = _select(at, "Origin", "narrativeqa")
    assert set(_listed(at)) == {"nqa-0", "nqa-1", "nqa-2"}
    at = _select(at, "Verdict", "no")
    assert set(_listed(at)) <= {"nqa-0", "nqa-1", "nqa-2"}
    # a deep link opens its question whatever the filters
    linked = browse(q="gen-3")
    linked = _select(linked, "Origin", "narrativeqa")
    assert _opened(linked) == "gen-3"


def test_browse_pages_through_a_long_list(db_path, monkeypatch):
    build_fixture_db(db_path, n_generated=30)
    monkeypatch.setenv("WORKBENCH_DB", str(db_path))
    at = browse()
    assert len(_listed(at)) == 25
    first = set(_listed(at))
    at.number_input[0].set_value(2).run()
    assert not at.exception
    assert len(_listed(at)) == 8 and not first & set(_listed(at))
    at = _select(at, "Origin", "generated")  # 30 questions: still two pages, back on the first
    assert len(_listed(at)) == 25 and not at.exception
    at.number_input[0].set_value(2).run()
    at = _select(at, "Origin", "narrativeqa")  # one page: no page picker
    assert len(_listed(at)) == 3 and not at.number_input

"""The Browse list (core.views.browse_list): filters, disagreement, gold, sort and pages."""

from __future__ import annotations

from browser_support import build_fixture_db

from core.store.database import open_db
from core.store.gold_sources import GoldAction, NewGoldSource, insert_gold_source_change
from core.store.judgments import JudgmentKind, NewJudgment, RaterKind, insert_judgment
from core.views.browse_list import (
    JUDGES,
    PEOPLE,
    PEOPLE_VS_JUDGE,
    PEOPLE_VS_PEOPLE,
    BrowseFilters,
    browse_choices,
    browse_rows,
    page_of,
)
from core.views.figures import rater_pair_view


def _person(db, qid: str, name: str, verdict: str) -> None:
    """``name``'s side-by-side verdict on fixture-a vs fixture-b of ``qid``."""
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


def test_the_list_filters_on_status_origin_system_rater_verdict_disagreement_and_gold(db_path):
    build_fixture_db(db_path)
    db = open_db(db_path)
    try:
        every = browse_rows(db, BrowseFilters(sort="question id"))
        assert [r["id"] for r in every] == sorted(r["id"] for r in every)
        assert {r["origin"] for r in every} == {"generated", "narrativeqa"}
        assert all(r["judges"] > 0 and r["people"] == 0 for r in every)
        assert "None" not in str(every)
        accepted = browse_rows(db, BrowseFilters(status="accepted"))
        assert accepted and {r["status"] for r in accepted} == {"accepted"}
        assert browse_rows(db, BrowseFilters(origin="generated", status="accepted")) == []

        _person(db, "gen-0", "alice", "A")  # fixture-a wins
        _person(db, "gen-0", "bob", "B")  # fixture-b wins: people disagree
        _person(db, "gen-1", "alice", "B")  # against the judge on gen-1? see below
        people = browse_rows(db, BrowseFilters(rater=PEOPLE))
        assert {r["id"] for r in people} == {"gen-0", "gen-1"}
        assert {r["id"] for r in browse_rows(db, BrowseFilters(rater="human:bob"))} == {"gen-0"}
        assert len(browse_rows(db, BrowseFilters(rater=JUDGES))) == len(every)
        bob_won = BrowseFilters(rater="human:bob", verdict="fixture-b")
        assert [r["id"] for r in browse_rows(db, bob_won)] == ["gen-0"]
        split = browse_rows(db, BrowseFilters(disagreement=PEOPLE_VS_PEOPLE))
        assert [r["id"] for r in split] == ["gen-0"]
        assert PEOPLE_VS_PEOPLE in split[0]["disagreement"]
        # the judge prefers fixture-a to fixture-b on gen-1 (no upset there); alice chose b
        against = browse_rows(db, BrowseFilters(disagreement=PEOPLE_VS_JUDGE))
        assert "gen-1" in {r["id"] for r in against}
        assert browse_rows(db, BrowseFilters(sort="disagreements first"))[0]["disagreement"]
        assert browse_rows(db, BrowseFilters())[0]["id"] == "gen-0"  # most verdicts first

        assert browse_rows(db, BrowseFilters(gold=True)) == []
        insert_gold_source_change(
            db, NewGoldSource(rater="human:bob", action=GoldAction.ADD, marked_by="admin")
        )
        assert [r["id"] for r in browse_rows(db, BrowseFilters(gold=True))] == ["gen-0"]
        assert "gen-0" not in {r["id"] for r in browse_rows(db, BrowseFilters(gold=False))}
        assert browse_rows(db, BrowseFilters(system="no-such-system")) == []
        assert len(browse_rows(db, BrowseFilters(system="fixture-c"))) == len(every)

        choices = browse_choices(db)
        assert "human:bob" in choices["raters"] and "fixture-a" in choices["systems"]
        assert {"tie", "yes", "no"} <= set(choices["verdicts"])
    finally:
        db.close()


def test_two_raters_disagreements_name_no_json_item_key(db_path):
    build_fixture_db(db_path)
    db = open_db(db_path)
    try:
        _person(db, "gen-0", "alice", "A")
        _person(db, "gen-0", "bob", "B")
        found = rater_pair_view(db, "pairwise", "human:alice", "human:bob")["disagreements"]
        assert len(found) == 1 and "item_id" not in found.columns
        assert not [c for c in found.astype(str).to_numpy().ravel() if c.startswith("[")]
    finally:
        db.close()


def test_pages_of_the_list():
    rows = [{"id": str(i)} for i in range(60)]
    assert [r["id"] for r in page_of(rows, 1, 25)] == [str(i) for i in range(25)]
    assert [r["id"] for r in page_of(rows, 3, 25)] == [str(i) for i in range(50, 60)]
    assert page_of(rows, 9, 25) == page_of(rows, 3, 25)  # past the end: the last page
    assert page_of([], 1) == []


def test_a_blind_viewer_sees_no_other_labels_on_questions_still_in_their_queue(db_path):
    build_fixture_db(db_path)
    db = open_db(db_path)
    try:
        _person(db, "gen-0", "bob", "B")
        seen = {r["id"]: r for r in browse_rows(db, BrowseFilters(), "carol", "annotator")}
        everything = {r["id"]: r for r in browse_rows(db, BrowseFilters(), "carol", "admin")}
        assert everything["gen-0"]["people"] == 1 and everything["gen-0"]["systems"]
        assert seen["gen-0"]["people"] == 0 and seen["gen-0"]["judges"] == 0  # in her queue
        assert seen["gen-0"]["systems"] == "" and seen["gen-0"]["status"] != "pending"
        assert browse_rows(db, BrowseFilters(rater="human:bob"), "carol", "annotator") == []
        assert browse_rows(db, BrowseFilters(system="fixture-a"), "carol", "annotator") == []
    finally:
        db.close()

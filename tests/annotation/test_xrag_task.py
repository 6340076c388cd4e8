"""The ``xrag`` label task: people's yes/no verdicts on stored XRAG answers, recorded by
:func:`core.xrag.human_verdicts.record_human_verdict` for signed-in accounts, reach the shared
machinery: a disagreement, settled by an adjudicator, becomes the gold; the panel is an
auto-rater of the task; the queue is empty (no page collects the verdicts)."""

from __future__ import annotations

import pytest

from core.annotation.adjudication import adjudicate, disagreements, settled
from core.annotation.base import Progress
from core.annotation.gold import gold_labels
from core.annotation.identity import sign_in_token
from core.annotation.task_registry import task_named
from core.annotation.tasks import human_labels, next_items, task_items, task_progress, task_queue
from core.errors import InputError
from core.store.accounts import create_account
from core.store.connection import utcnow
from core.store.database import open_db
from core.store.engine import Database
from core.store.judgments import JudgmentKind, NewJudgment, RaterKind, insert_judgment
from core.store.questions import all_question_ids, get_question
from core.store.xrag_results import XRAG_CRITERION, finish_result, insert_answer, result_ids
from core.views.adjudication import adjudication_detail, adjudication_queue
from core.views.overview import my_queues
from core.views.team import team_table
from core.xrag.evaluate import CRITERION
from core.xrag.human_verdicts import record_human_verdict


def _result(db: Database, qid: str, setting: str, panel: str, answer: str) -> int:
    insert_answer(
        db,
        {
            "question_id": qid,
            "item_id": qid,
            "language": "en",
            "setting": setting,
            "model": "m",
            "documents": [],
            "answer": answer,
            "judge_panel": panel,
            "created_at": utcnow(),
        },
    )
    rid = result_ids(db)[-1]
    finish_result(
        db,
        rid,
        {"votes": [], "content_verdict": "yes", "panel_status": "ok", "verdict": "yes"},
    )
    return rid


@pytest.fixture
def xdb(fixture_db):
    db_path, _ = fixture_db
    db = open_db(db_path)
    qid = all_question_ids(db)[0]
    ids = [
        _result(db, qid, "english", "p1", "Paris."),
        _result(db, qid, "none", "p1", "I do not know."),
        _result(db, qid, "english", "p2", "Paris."),  # a second panel: same answer request
    ]
    panel = NewJudgment(
        kind=JudgmentKind.ABSOLUTE,
        question_id=qid,
        rater="auto:xrag-panel",
        rater_kind=RaterKind.AUTO,
        criterion=XRAG_CRITERION,
        system="m@english",
        verdict="yes",
        context_kind="english",
    )
    insert_judgment(db, panel)
    people = {
        name: sign_in_token(db, create_account(db, name, role))
        for name, role in (("alice", "annotator"), ("bob", "annotator"), ("carol", "adjudicator"))
    }
    try:
        yield db, qid, ids, people
    finally:
        db.conn.close()


def test_the_criterion_has_one_definition_in_the_store():
    assert CRITERION is XRAG_CRITERION and XRAG_CRITERION == "xrag-key-info"


def test_conflicting_verdicts_are_a_disagreement_settled_into_gold(xdb):
    db, qid, (first, other, second_panel), people = xdb
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    assert task_items(db, "xrag") == [str(first), str(other), str(second_panel)]
    assert human_labels(db, "xrag") == [] and disagreements(db, "xrag") == []
    assert adjudication_queue(db, "xrag") == []  # the empty state the page shows
    record_human_verdict(db, alice, first, "no")
    record_human_verdict(db, alice, first, "yes")  # given again: the latest is alice's label
    record_human_verdict(db, bob, second_panel, "no")  # the same answer request: the same item
    record_human_verdict(db, alice, other, "no")
    record_human_verdict(db, bob, other, "no")  # agreement: no disagreement, majority gold
    labels = human_labels(db, "xrag")
    assert [(r["item"], r["annotator"], r["label"]) for r in labels] == [
        (str(first), "alice", "yes"),
        (str(first), "bob", "no"),
        (str(other), "alice", "no"),
        (str(other), "bob", "no"),
    ]
    assert not any(r["imported"] for r in labels) and labels[0]["question_id"] == qid
    found = disagreements(db, "xrag")
    assert [d["item"] for d in found] == [str(first)] and found[0]["question_id"] == qid
    entry = adjudication_queue(db, "xrag")[0]
    assert entry["where"] == f"answer {first}"
    assert entry["said"] == "alice: Yes: gives the key information; bob: No"
    detail = adjudication_detail(db, "xrag", str(first))
    assert detail is not None and detail["options"] == ["yes", "no"]
    references = get_question(db, qid).answers  # type: ignore[union-attr]
    assert detail["texts"] == [*(("Reference answer", r) for r in references), ("Answer", "Paris.")]
    with pytest.raises(InputError, match="not in disagreement"):
        adjudicate(db, carol, "xrag", str(other), "yes")
    with pytest.raises(InputError, match="label must be one of yes, no"):
        adjudicate(db, carol, "xrag", str(first), "maybe")
    adjudicate(db, carol, "xrag", str(first), "yes", "Paris is the key information")
    assert settled(db, "xrag")[str(first)].label == "yes"
    assert gold_labels(db, "xrag") == {str(first): "yes", str(other): "no"}
    assert adjudication_queue(db, "xrag") == []  # settled: no longer open
    # the panel is scored as an auto-rater; nobody has a queue (no page collects verdicts)
    assert task_named("xrag").auto_labels(db) == {"auto:xrag-panel": {str(first): "yes"}}
    assert task_queue(db, "alice", "xrag") == [] and next_items(db, "alice", "xrag") == []
    assert task_progress(db, "alice", "xrag") == Progress(2, 2, 0)
    assert my_queues(db, "bob")["xrag"] == Progress(2, 2, 0)
    table = team_table(db, "xrag").set_index("annotator")
    assert table.loc["alice", "done"] == 2 and table.loc["bob", "remaining"] == 0
    assert table.loc["alice", "agree_others"] == 0.5

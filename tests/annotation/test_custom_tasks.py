"""Custom label tasks (issue 32): an admin defines a task (name, scale, labels, guideline) and
its items; people label it from their queue with overlap; undo withdraws one's own last label;
disagreements go to adjudication and the settled label is the gold; refusals are one line and
store nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.annotation.adjudication import adjudicate, disagreements
from core.annotation.custom_labels import label_item, undo_label
from core.annotation.custom_tasks import add_items, define_task, task_summaries
from core.annotation.gold import gold_labels
from core.annotation.identity import sign_in_open, sign_in_token
from core.annotation.task_registry import task_named, task_names
from core.annotation.tasks import human_labels, task_progress, task_queue
from core.errors import AccessError, InputError
from core.store.accounts import create_account
from core.store.settings import set_setting
from core.views.adjudication import adjudication_detail, adjudication_queue
from core.views.overview import my_queues
from core.views.team import team_table


def _items(tmp_path: Path, rows: list[dict[str, str]]) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


ITEMS = [
    {"item": "i1", "text": "Is the sky green?", "answer": "No, blue."},
    {"item": "i2", "text": "Is water wet?"},
    {"item": "i3", "question_id": "i2", "system": "gpt", "answer": "Yes."},
]


@pytest.fixture
def tone(db, tmp_path):
    """Task ``tone`` (categorical) with three items, defined in open mode."""
    admin = sign_in_open(db, "admin")
    define_task(db, admin, "tone", "categorical", "good,bad,unsure", "Judge the answer.")
    assert add_items(db, admin, "tone", _items(tmp_path, ITEMS)) == 3
    return db


def _count(db, sql: str) -> int:
    return int(db.execute(sql).fetchone()[0])


def test_a_defined_task_joins_the_registry_with_its_items_and_guideline(tone):
    task = task_named("tone", tone)
    assert task.labels == ("good", "bad", "unsure")
    assert task.items(tone) == ["i1", "i2", "i3"]
    assert "tone" in task_names(tone) and "tone" not in task_names()
    assert task_summaries(tone) == [
        {
            "task": "tone",
            "scale": "categorical",
            "labels": ["good", "bad", "unsure"],
            "items": 3,
            "defined_by": "admin",
        }
    ]
    assert task.texts(tone, "i1", "i1") == [("Answer", "No, blue.")]


def test_overlap_keeps_an_item_in_the_next_persons_queue_until_met(tone):
    set_setting(tone, "annotations_per_item", 2)
    alice, bob, carol = (sign_in_open(tone, n) for n in ("alice", "bob", "carol"))
    first = task_queue(tone, "alice", "tone")[0]
    label_item(tone, alice, "tone", str(first), "good")
    assert first not in task_queue(tone, "alice", "tone")
    assert task_queue(tone, "bob", "tone")[0] == first  # started by alice: comes first
    label_item(tone, bob, "tone", str(first), "bad")
    assert first not in task_queue(tone, "carol", "tone")  # overlap 2 met
    assert str(task_progress(tone, "alice", "tone")) == "1 of 3 done"
    rows = tone.execute(
        "select rater, verdict, kind, criterion from judgments order by id"
    ).fetchall()
    assert [tuple(r) for r in rows] == [
        ("human:alice", "good", "label", "tone"),
        ("human:bob", "bad", "label", "tone"),
    ]
    # a disagreement: an adjudicator who did not label it settles it; that label is the gold
    assert [d["item"] for d in disagreements(tone, "tone")] == [first]
    with pytest.raises(InputError, match="you labelled this item yourself"):
        adjudicate(tone, alice, "tone", str(first), "good")
    with pytest.raises(InputError, match="label must be one of good, bad, unsure"):
        adjudicate(tone, carol, "tone", str(first), "meh")
    # the shared views reach it through the registry: the Adjudication, Team and Overview pages
    assert [e["item"] for e in adjudication_queue(tone, "tone")] == [first]
    detail = adjudication_detail(tone, "tone", str(first))
    assert detail is not None and list(detail["options"]) == ["good", "bad", "unsure"]
    assert sorted(team_table(tone, "tone")["annotator"]) == ["alice", "bob"]
    assert str(my_queues(tone, "carol")["tone"]) == "0 of 2 done"
    adjudicate(tone, carol, "tone", str(first), "bad")
    assert gold_labels(tone, "tone")[str(first)] == "bad"
    # the settled item is an attention check for someone new (setting attention_every)
    assert task_queue(tone, "dave", "tone")[0] != first
    set_setting(tone, "attention_every", 1)
    assert task_queue(tone, "dave", "tone")[0] == first


def test_a_second_label_supersedes_and_undo_withdraws_only_my_own(tone):
    alice, bob = sign_in_open(tone, "alice"), sign_in_open(tone, "bob")
    label_item(tone, alice, "tone", "i2", "good")
    label_item(tone, alice, "tone", "i2", "unsure")
    label_item(tone, bob, "tone", "i1", "bad")
    assert [(r["annotator"], r["label"]) for r in human_labels(tone, "tone")] == [
        ("alice", "unsure"),
        ("bob", "bad"),
    ]
    assert undo_label(tone, alice, "tone") is not None
    assert [(r["annotator"], r["label"]) for r in human_labels(tone, "tone")] == [("bob", "bad")]
    assert "i2" in task_queue(tone, "alice", "tone")
    assert undo_label(tone, alice, "tone") is None  # her first label was superseded: nothing left
    assert [(r["annotator"], r["label"]) for r in human_labels(tone, "tone")] == [("bob", "bad")]
    assert _count(tone, "select count(*) from judgments where status = 'withdrawn'") == 1
    assert _count(tone, "select count(*) from judgments") == 4  # appended, never changed


def test_multilabel_labels_are_sets(db, tmp_path):
    admin = sign_in_open(db, "admin")
    define_task(db, admin, "topics", "multilabel", "plot,people,place")
    add_items(db, admin, "topics", _items(tmp_path, ITEMS[:2]))
    alice = sign_in_open(db, "alice")
    label_item(db, alice, "topics", "i1", ["place", "plot"])
    label_item(db, alice, "topics", "i2", [])
    assert [r["label"] for r in human_labels(db, "topics")] == ['["place", "plot"]', "[]"]
    assert task_named("topics", db).label_name('["place", "plot"]') == "place, plot"
    assert '["people", "place"]' in task_named("topics", db).labels  # any set can be settled
    with pytest.raises(InputError, match="'war' is not a label of task 'topics'"):
        label_item(db, alice, "topics", "i1", ["war"])


@pytest.mark.parametrize(
    ("name", "scale", "labels", "message"),
    [
        ("bad name!", "categorical", "a,b", "task name 'bad name!' must start with"),
        ("review", "categorical", "a,b", "'review' is a built-in task"),
        ("absolute", "categorical", "a,b", "'absolute' is a built-in task"),
        ("t", "categorical", "a,a", "repeats a label"),
        ("t", "categorical", "a,,b", "has an empty label"),
        ("t", "categorical", "a", "give at least two labels"),
        ("t", "nominal", "a,b", "scale must be one of categorical, ordinal, multilabel"),
        ("tone", "categorical", "good,bad", "task 'tone' exists with scale categorical"),
        ("tone", "ordinal", "good,bad,unsure", "task 'tone' exists with scale categorical"),
    ],
)
def test_a_bad_definition_is_one_line_and_stores_nothing(tone, name, scale, labels, message):
    before = _count(tone, "select count(*) from label_scales")
    with pytest.raises(InputError, match=message) as caught:
        define_task(tone, sign_in_open(tone, "admin"), name, scale, labels)
    assert "\n" not in str(caught.value)
    assert _count(tone, "select count(*) from label_scales") == before


def test_redefining_with_the_same_labels_changes_the_guideline(tone):
    define_task(tone, sign_in_open(tone, "admin"), "tone", "categorical", "good,bad,unsure", "v2")
    assert task_named("tone", tone).guideline == "v2"  # type: ignore[attr-defined]


def test_only_an_admin_defines_or_adds_items(db, tmp_path):
    create_account(db, "root", "admin")
    bob = sign_in_token(db, create_account(db, "bob"))
    with pytest.raises(AccessError, match="this needs the admin role"):
        define_task(db, bob, "tone", "categorical", "good,bad")
    assert _count(db, "select count(*) from label_scales") == 0


def test_bad_items_are_refused_whole(tone, tmp_path):
    admin = sign_in_open(tone, "admin")
    cases = [
        ([{"item": "i1", "text": "again"}], "item 'i1' is in task 'tone' already"),
        ([{"item": "n1", "question_id": "i2"}], "another item of task 'tone' is on question"),
        ([{"item": "n1", "question_id": "nowhere"}], "no question 'nowhere'"),
        ([{"item": "n1", "text": "x"}, {"item": "n1", "text": "y"}], "is in task 'tone' already"),
    ]
    for rows, message in cases:
        with pytest.raises(InputError, match=message):
            add_items(tone, admin, "tone", _items(tmp_path, rows))
    with pytest.raises(InputError, match="no custom task 'nope'"):
        add_items(tone, admin, "nope", _items(tmp_path, ITEMS))
    assert len(task_named("tone", tone).items(tone)) == 3
    with pytest.raises(InputError, match="label must be one of good, bad, unsure"):
        label_item(tone, admin, "tone", "i1", "great")
    with pytest.raises(InputError, match="no item 'zz'"):
        label_item(tone, admin, "tone", "zz", "good")
    with pytest.raises(InputError, match="built-in task"):
        label_item(tone, admin, "review", "i1", "accept")
    assert _count(tone, "select count(*) from judgments") == 0

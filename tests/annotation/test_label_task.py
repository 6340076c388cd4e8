"""The label-task registry: the shipped tasks, a clear error for an unknown name, and a task
added by one module (here: a class in this test) running through the shared machinery (queue,
next items, progress, disagreements, adjudication, gold, the Adjudication and Team views, the
Overview's queues) with no edit anywhere else."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from core.annotation.adjudication import adjudicate, disagreements, settled
from core.annotation.base import Progress, queue_progress, team_queue
from core.annotation.gold import gold_labels
from core.annotation.identity import sign_in_open
from core.annotation.label_task import (
    HumanLabel,
    ItemFields,
    ItemKey,
    TaskDefaults,
    register,
    unregister,
)
from core.annotation.task_registry import all_tasks, task_named, task_names
from core.annotation.tasks import (
    check_task,
    human_labels,
    next_items,
    task_items,
    task_progress,
    task_queue,
)
from core.cli.team_commands import TASKS as CLI_TASKS
from core.errors import InputError
from core.store.database import open_db
from core.store.questions import all_question_ids
from core.views.adjudication import adjudication_detail, adjudication_queue
from core.views.overview import my_queues
from core.views.team import team_table


def test_the_shipped_tasks_are_registered_in_page_order():
    assert task_names() == ["review", "disputes", "side-by-side", "xrag"]
    assert [t.name for t in all_tasks()] == task_names()
    assert task_named("disputes").labels == (
        "reference_wrong",
        "model_wrong",
        "both_acceptable",
        "ambiguous",
    )
    assert task_named("side-by-side").label_name("first") == "Answer 1 is better"
    assert task_named("side-by-side").stored_key("q|a|b") == '["q","a","b"]'  # old key form
    assert task_named("xrag").labels == ("yes", "no")
    # the CLI keeps its --task choices literal (start-up time): they must be the registry's
    assert list(CLI_TASKS) == task_names()


@pytest.mark.parametrize("name", ["sidebyside", "", "Review"])
def test_an_unknown_task_name_is_one_clear_error(name):
    with pytest.raises(InputError) as caught:
        task_named(name)
    assert str(caught.value) == (
        f"unknown task {name!r}: task must be one of review, disputes, side-by-side, xrag"
    )
    with pytest.raises(InputError, match="task must be one of"):
        check_task(name)


def test_a_second_task_of_a_taken_name_is_refused():
    class Impostor(TaskDefaults):
        name = "review"

    with pytest.raises(InputError, match="registered already"):
        register(Impostor())  # type: ignore[arg-type]  # deliberately incomplete: refused first
    assert task_named("review").labels == ("accept", "reject", "edit")


class ThumbsTask(TaskDefaults):
    """A tiny task, all in one class: thumbs up or down on a question, labels kept in memory."""

    name = "thumbs"
    labels = ("up", "down")
    position = 50

    def __init__(self) -> None:
        self.given: list[HumanLabel] = []
        self.settled_items: list[str] = []

    def give(self, who: str, qid: str, label: str | None) -> None:
        status = "ok" if label else "skipped"
        at = f"2026-01-01T00:00:{len(self.given):02d}"
        self.given = [r for r in self.given if (r["annotator"], r["item"]) != (who, qid)]
        self.given.append(
            {
                "item": qid,
                "question_id": qid,
                "annotator": who,
                "label": label,
                "status": status,
                "rationale": f"{who} says {label}",
                "created_at": at,
                "imported": False,
            }
        )

    def _marks(self) -> dict[str, dict[ItemKey, set[str]]]:
        marks: dict[str, dict[ItemKey, set[str]]] = {"ok": {}, "skipped": {}}
        for r in self.given:
            marks[r["status"]].setdefault(r["item"], set()).add(r["annotator"])
        return marks

    def items(self, db):
        return list[ItemKey](all_question_ids(db))

    def queue(self, db, annotator, items):
        marks = self._marks()
        return team_queue(items, marks["ok"], annotator, k=2, seed=0, skipped=marks["skipped"])

    def progress(self, db, annotator, items, queue):
        return queue_progress(items, self._marks(), annotator, queue)

    def human_labels(self, db):
        return list(self.given)

    def item_fields(self, db, keys: Sequence[ItemKey]) -> list[ItemFields]:
        return [{"question_id": str(k)} for k in keys]

    def label_name(self, label: str) -> str:
        return {"up": "Thumbs up", "down": "Thumbs down"}[label]

    def after_settlement(self, db, item: str) -> None:
        self.settled_items.append(item)


@pytest.fixture
def thumbs(fixture_db):
    db_path, _ = fixture_db
    db = open_db(db_path)
    task = ThumbsTask()
    register(task)
    try:
        yield db, task
    finally:
        unregister("thumbs")
        db.conn.close()


def test_a_task_added_in_one_module_runs_through_the_shared_machinery(thumbs):
    db, task = thumbs
    assert task_names()[-1] == "thumbs" and task_named("thumbs") is task
    qids = all_question_ids(db)
    assert task_items(db, "thumbs") == qids
    # queue and progress: k = 2, started items first, a skip last and not done
    a, b, c = qids[:3]
    task.give("alice", a, "up")
    task.give("bob", a, "down")
    task.give("bob", b, "up")
    task.give("alice", c, None)  # alice skipped c
    queue = task_queue(db, "alice", "thumbs")
    assert a not in queue and queue[0] == b and queue[-1] == c
    assert task_progress(db, "alice", "thumbs") == Progress(1, len(qids), 1)
    assert my_queues(db, "alice")["thumbs"] == Progress(1, len(qids), 1)
    entries = next_items(db, "alice", "thumbs", limit=2)
    assert entries[0] == {"key": b, "labels": 1, "question_id": b}
    assert human_labels(db, "thumbs")[0]["annotator"] == "alice"
    # a disagreement reaches adjudication, is settled, and the settlement is the gold
    found = disagreements(db, "thumbs")
    assert [d["item"] for d in found] == [a]
    queue_view = adjudication_queue(db, "thumbs")
    assert queue_view[0]["where"] == "thumbs"
    assert queue_view[0]["said"] == "alice: Thumbs up; bob: Thumbs down"
    detail = adjudication_detail(db, "thumbs", a)
    assert detail is not None and detail["options"] == ["up", "down"]
    assert detail["names"] == {"up": "Thumbs up", "down": "Thumbs down"}
    carol = sign_in_open(db, "carol")
    with pytest.raises(InputError, match="label must be one of up, down"):
        adjudicate(db, carol, "thumbs", a, "sideways")
    with pytest.raises(InputError, match="not in disagreement"):
        adjudicate(db, carol, "thumbs", b, "up")
    adjudicate(db, carol, "thumbs", a, "down", "bob is right")
    assert settled(db, "thumbs")[a].label == "down" and task.settled_items == [a]
    assert gold_labels(db, "thumbs") == {a: "down"}  # b has one label: no majority of two
    assert adjudication_queue(db, "thumbs") == []  # settled: no longer open
    table = team_table(db, "thumbs").set_index("annotator")
    assert table.loc["alice", "done"] == 1 and table.loc["alice", "skipped"] == 1
    assert table.loc["bob", "done"] == 2
    # the other tasks are untouched by the extra one
    assert task_items(db, "review") == qids and settled(db, "review") == {}

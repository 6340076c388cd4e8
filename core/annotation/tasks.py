"""The three labelling tasks side by side: their items, everyone's effective labels, queues.

Labels are put on one scale per task so people (and auto-raters) can be compared: a review's
decision, a dispute's resolution, and a side-by-side verdict relative to the canonical (sorted)
system order of the item (``first``, ``second``, ``Equal``, ``None``): person X's "A" and person
Y's "B" name the same answer when their A/B orders differed.
"""

from __future__ import annotations

from typing import Any

import sqlite_utils

from core.annotation.disputes import RESOLUTIONS, dispute_queue
from core.annotation.pairwise import pair_key, pairwise_items, split_pair_key, verdict_queue
from core.annotation.reviews import REVIEW_DECISIONS, review_queue
from core.errors import InputError
from core.store.connection import rows
from core.store.schema import not_superseded

TASKS = ("review", "disputes", "side-by-side")
#: Side-by-side labels on the canonical order of an item's two systems.
PAIR_LABELS = ("first", "second", "Equal", "None")
LABELS = {"review": REVIEW_DECISIONS, "disputes": RESOLUTIONS, "side-by-side": PAIR_LABELS}


def check_task(task: str) -> str:
    """``task`` if it is one of :data:`TASKS`; InputError otherwise."""
    if task not in TASKS:
        raise InputError(f"task must be one of {', '.join(TASKS)}")
    return task


def task_items(db: sqlite_utils.Database, task: str) -> list:
    """Every item of ``task``: question ids, dispute ids, or side-by-side pair keys."""
    check_task(task)
    if task == "review":
        return [r[0] for r in db.execute("select id from questions order by id")]
    if task == "disputes":
        return [int(r[0]) for r in db.execute("select id from disputes order by id")]
    return pairwise_items(db)


def _pair_label(r: dict) -> str:
    first = min(r["system_a"], r["system_b"])
    if r["verdict"] in ("Equal", "None"):
        return r["verdict"]
    winner = r["system_a"] if r["verdict"] == "A" else r["system_b"]
    return "first" if winner == first else "second"


def human_labels(db: sqlite_utils.Database, task: str) -> list[dict[str, Any]]:
    """Everyone's effective label rows of ``task``, oldest first.

    Each: ``item`` (the key as text), ``question_id``, ``annotator``, ``label`` (None for a
    skip), ``status`` (``ok`` or ``skipped``), ``rationale``, ``created_at``.
    """
    check_task(task)
    out = []
    if task == "side-by-side":
        for r in rows(
            db,
            "select question_id, system_a, system_b, rater, verdict, status, rationale, "
            "created_at from judgments t where rater_kind = 'human' and kind = 'pairwise' and "
            f"status in ('ok', 'skipped') and {not_superseded('judgments')} order by id",
        ):
            out.append(
                {
                    "item": pair_key(r["question_id"], r["system_a"], r["system_b"]),
                    "question_id": r["question_id"],
                    "annotator": r["rater"].removeprefix("human:"),
                    "label": _pair_label(r) if r["status"] == "ok" else None,
                    "status": r["status"],
                    "rationale": r["rationale"],
                    "created_at": r["created_at"],
                }
            )
        return out
    if task == "review":
        found = rows(
            db,
            "select question_id, annotator, decision as label, note as rationale, created_at "
            f"from reviews t where {not_superseded('reviews')} order by id",
        )
    else:
        found = rows(
            db,
            "select t.dispute_id, d.question_id, t.annotator, t.resolution as label, "
            "t.note as rationale, t.created_at from dispute_resolutions t "
            "join disputes d on d.id = t.dispute_id "
            f"where {not_superseded('dispute_resolutions')} order by t.id",
        )
    for r in found:
        item = str(r.pop("dispute_id")) if task == "disputes" else r["question_id"]
        out.append({"item": item, **r, "status": "ok"})
    return out


def auto_pair_labels(db: sqlite_utils.Database) -> dict[str, dict[str, str]]:
    """Auto-rater -> side-by-side item -> its latest effective verdict (canonical scale)."""
    out: dict[str, dict[str, str]] = {}
    for r in rows(
        db,
        "select question_id, system_a, system_b, rater, verdict from judgments t "
        "where rater_kind = 'auto' and kind = 'pairwise' and status = 'ok' and verdict in "
        f"('A', 'B', 'Equal', 'None') and {not_superseded('judgments')} order by id",
    ):
        key = pair_key(r["question_id"], r["system_a"], r["system_b"])
        out.setdefault(r["rater"], {})[key] = _pair_label(r)
    return out


def next_items(
    db: sqlite_utils.Database, name: str, task: str, limit: int = 10
) -> list[dict[str, Any]]:
    """The next ``limit`` items of ``name``'s queue for ``task``, in order.

    Each: ``key``, ``question_id``, ``labels`` (how many people have labelled it already) and,
    for side-by-side, the two ``systems`` in canonical order.
    """
    check_task(task)
    counts: dict[str, int] = {}
    for r in human_labels(db, task):
        if r["status"] == "ok":
            counts[r["item"]] = counts.get(r["item"], 0) + 1
    if task == "review":
        keys: list = review_queue(db, name, task_items(db, task))[:limit]
    elif task == "disputes":
        keys = dispute_queue(db, name, task_items(db, task))[:limit]
    else:
        keys = verdict_queue(db, name)[:limit]
    question_of = {}
    if task == "disputes" and keys:
        marks = ", ".join("?" * len(keys))
        question_of = dict(
            db.execute(f"select id, question_id from disputes where id in ({marks})", keys)
        )
    out = []
    for key in keys:
        entry: dict[str, Any] = {"key": str(key), "labels": counts.get(str(key), 0)}
        if task == "side-by-side":
            qid, s1, s2 = split_pair_key(key)
            entry.update(question_id=qid, systems=[s1, s2])
        else:
            entry["question_id"] = question_of.get(key, key)
        out.append(entry)
    return out

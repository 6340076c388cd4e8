"""The three labelling tasks side by side: their items, everyone's effective labels, queues.

Labels are put on one scale per task so people (and auto-raters) can be compared: a review's
decision, a dispute's resolution, and a side-by-side verdict relative to the canonical (sorted)
system order of the item (``first``, ``second``, ``Equal``, ``None``): person X's "A" and person
Y's "B" name the same answer when their A/B orders differed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.annotation.base import Progress, team_names
from core.annotation.disputes import RESOLUTIONS, dispute_items, dispute_progress, dispute_queue
from core.annotation.pairwise import (
    APP_CONTEXT,
    pair_key,
    pairwise_items,
    split_pair_key,
    verdict_progress,
    verdict_queue,
)
from core.annotation.reviews import REVIEW_DECISIONS, review_progress, review_queue
from core.errors import InputError
from core.store.disputes import dispute_question_ids
from core.store.judgments import JudgmentKind, JudgmentStatus, RaterKind, effective_values
from core.store.questions import all_question_ids
from core.store.resolutions import Resolution, effective_resolutions, skipped_resolutions
from core.store.reviews import Review, effective_reviews, skipped_reviews
from core.store.verdict_reads import verdict_summary

if TYPE_CHECKING:  # sqlite_utils imports pandas: loaded only when a database is opened
    import sqlite_utils

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
    """Every item of ``task``: question ids, dispute ids (one per question and answer text), or
    side-by-side pair keys."""
    check_task(task)
    if task == "review":
        return all_question_ids(db)
    if task == "disputes":
        return dispute_items(db)  # one per (question, answer text): what people resolve
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
    skip), ``status`` (``ok`` or ``skipped``), ``rationale``, ``created_at`` and ``imported``
    (True for a verdict read from a file: an imported rater, not a team member). A withdrawn
    label (undo) is no label: neither the withdrawal nor what it took back is listed.
    """
    check_task(task)
    out = []
    if task == "side-by-side":
        columns = ["question_id", "system_a", "system_b", "rater", "verdict", "status"]
        columns += ["context_kind", "rationale", "created_at"]
        for values in effective_values(
            db, columns, kind=JudgmentKind.PAIRWISE, rater_kind=RaterKind.HUMAN
        ):
            r = dict(zip(columns, values, strict=True))
            if r["status"] not in (JudgmentStatus.OK, JudgmentStatus.SKIPPED):
                continue
            out.append(
                {
                    "item": pair_key(r["question_id"], r["system_a"], r["system_b"]),
                    "question_id": r["question_id"],
                    "annotator": r["rater"].removeprefix("human:"),
                    "label": _pair_label(r) if r["status"] == "ok" else None,
                    "status": r["status"],
                    "rationale": r["rationale"],
                    "created_at": r["created_at"],
                    "imported": r["context_kind"] != APP_CONTEXT,
                }
            )
        return out
    # the store's readers leave withdrawals (undo) and skips out of the labels; skips are
    # listed with status "skipped" and no label
    found: list[tuple[str, str, str | None, str, Review | Resolution]]
    if task == "review":
        found = [(r.question_id, r.question_id, r.decision, "ok", r) for r in effective_reviews(db)]
        found += [(r.question_id, r.question_id, None, "skipped", r) for r in skipped_reviews(db)]
    else:
        found = [
            (str(r.dispute_id), r.question_id, r.resolution, "ok", r)
            for r in effective_resolutions(db)
        ]
        found += [
            (str(r.dispute_id), qid, None, "skipped", r) for r, qid in skipped_resolutions(db)
        ]
    for item, question_id, label, status, row in sorted(found, key=lambda f: f[4].id):
        out.append(
            {
                "item": item,
                "question_id": question_id,
                "annotator": row.annotator,
                "label": label,
                "rationale": row.note,
                "created_at": row.created_at,
                "status": status,
                "imported": False,
            }
        )
    return out


def team_labels(
    db: sqlite_utils.Database, labels: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``labels`` (of :func:`human_labels`) split into the team's and the imported raters'.

    A team label was made in the app by an account (by anyone in open mode, no accounts)."""
    names = team_names(db)
    team, imported = [], []
    for r in labels:
        mine = not r["imported"] and (names is None or r["annotator"] in names)
        (team if mine else imported).append(r)
    return team, imported


def auto_pair_labels(db: sqlite_utils.Database) -> dict[str, dict[str, str]]:
    """Auto-rater -> side-by-side item -> its effective verdict (canonical scale).

    Read from :func:`core.store.verdict_reads.verdict_summary` (one row per rater and pair as shown,
    by latest id), not from every verdict: an auto-rater that judged an item many times costs
    one row. An auto-rater that judged both orders of a pair with conflicting canonical labels has
    no label on the item (as for people: :mod:`core.annotation.gold`), so the result does not
    depend on which order was stored last."""
    found: dict[str, dict[str, set[str]]] = {}
    for rater, rater_kind, qid, a, b, _, _, _, _, verdict in verdict_summary(db, "pairwise"):
        if rater_kind != "auto" or verdict not in ("A", "B", "Equal", "None"):
            continue
        label = _pair_label({"system_a": a, "system_b": b, "verdict": verdict})
        found.setdefault(rater, {}).setdefault(pair_key(qid, a, b), set()).add(label)
    return {
        rater: {item: next(iter(v)) for item, v in items.items() if len(v) == 1}
        for rater, items in found.items()
    }


def task_queue(db: sqlite_utils.Database, name: str, task: str) -> list:
    """``name``'s whole queue for ``task``, in order (the items the Review, Disputes and Side by
    side pages show next)."""
    check_task(task)
    items = task_items(db, task)
    if task == "review":
        return review_queue(db, name, items)
    if task == "disputes":
        return dispute_queue(db, name, items)
    return verdict_queue(db, name, items)


def task_progress(
    db: sqlite_utils.Database, name: str, task: str, queue: list | None = None
) -> Progress:
    """``name``'s progress on their own queue for ``task``: what the pages, ``queue NAME`` and
    the Overview show (:func:`core.annotation.base.queue_progress`)."""
    items = task_items(db, task)
    queue = task_queue(db, name, task) if queue is None else queue
    if task == "review":
        return review_progress(db, name, items, queue)
    if task == "disputes":
        return dispute_progress(db, name, items, queue)
    return verdict_progress(db, name, items, queue)


def next_items(
    db: sqlite_utils.Database, name: str, task: str, limit: int = 10, queue: list | None = None
) -> list[dict[str, Any]]:
    """The next ``limit`` items of ``name``'s queue for ``task`` (``queue``: their
    :func:`task_queue`, computed when not given), in order.

    Each: ``key``, ``question_id``, ``labels`` (how many team members have labelled it already:
    imported raters do not count) and, for side-by-side, the two ``systems`` in canonical order.
    """
    check_task(task)
    counts: dict[str, int] = {}
    for r in team_labels(db, human_labels(db, task))[0]:
        if r["status"] == "ok":
            counts[r["item"]] = counts.get(r["item"], 0) + 1
    keys = (task_queue(db, name, task) if queue is None else queue)[:limit]
    question_of: dict[Any, str] = dispute_question_ids(db, keys) if task == "disputes" else {}
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

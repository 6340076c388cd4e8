"""Side-by-side verdicts of people: items, blind presentation, the queue, verdicts, skips, undo.

An item is a question with a canonically sorted pair of systems that both answered it
(:func:`pair_key`). The A/B order is drawn per annotator and item (:func:`shown_order`) and
stored as ``order_shown``; the verdict is relative to that order.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import sqlite_utils

from core.annotation.base import (
    Progress,
    calibration_size,
    own_latest,
    progress_of,
    queue_seed,
    rater_name,
    required_annotations,
    shown_order,
    team_queue,
)
from core.annotation.identity import Annotator, authorise
from core.errors import InputError
from core.store.connection import rows, transaction, utcnow
from core.store.schema import not_superseded

PAIRWISE_VERDICTS = ("A", "B", "Equal", "None")
HUMAN_CRITERION = "better"
#: Every pair of systems with an ok answer to the same question (``a.system < b.system``).
_ANSWER_PAIRS = (
    "from answers a join answers b on a.question_id = b.question_id and "
    "a.system < b.system where a.status = 'ok' and b.status = 'ok'"
)


def pair_key(question_id: str, system_1: str, system_2: str) -> str:
    """The item key of a side-by-side item: question and the canonically sorted pair."""
    s1, s2 = sorted((system_1, system_2))
    return f"{question_id}|{s1}|{s2}"


def split_pair_key(key: str) -> tuple[str, str, str]:
    """Inverse of :func:`pair_key`: ``(question_id, first system, second system)``."""
    question_id, s1, s2 = key.rsplit("|", 2)
    return question_id, s1, s2


def pairwise_items(db: sqlite_utils.Database) -> list[str]:
    """Every side-by-side item: each question with each pair of systems that answered it (ok)."""
    return [
        pair_key(q, s1, s2)
        for q, s1, s2 in db.execute(f"select a.question_id, a.system, b.system {_ANSWER_PAIRS}")
    ]


def _human_pairwise_done(
    db: sqlite_utils.Database, statuses: tuple[str, ...] = ("ok", "skipped")
) -> dict[str, set[str]]:
    """Item key -> annotators whose effective human label on it has one of ``statuses`` (by
    default a verdict or a skip)."""
    done: dict[str, set[str]] = {}
    for r in db.query(
        "select question_id, system_a, system_b, rater, status from judgments t "
        f"where rater_kind = 'human' and kind = 'pairwise' and {not_superseded('judgments')}"
    ):
        if r["status"] in statuses:
            key = pair_key(r["question_id"], r["system_a"], r["system_b"])
            done.setdefault(key, set()).add(r["rater"])
    return done


def identical_items(db: sqlite_utils.Database) -> list[str]:
    """Side-by-side items whose two answers are the same text (:func:`same_text`), sorted."""
    out = []
    for q, s1, t1, s2, t2 in db.execute(
        f"select a.question_id, a.system, a.text, b.system, b.text {_ANSWER_PAIRS}"
    ):
        if same_text(t1, t2):
            out.append(pair_key(q, s1, s2))
    return sorted(out)


def verdict_queue(
    db: sqlite_utils.Database,
    annotator: str,
    items: list[str] | None = None,
    k: int | None = None,
    identical: Iterable[str] | None = None,
) -> list[str]:
    """Side-by-side items that need a verdict and that ``annotator`` (a name) has not done.

    Ordered by :func:`core.annotation.base.team_queue`: calibration items, then items started
    by others, then new ones. A skip counts as done for the annotator but not towards ``k``.
    Items whose two answers are the same text (``identical``, default :func:`identical_items`)
    come after the others of their group: they stay in the queue (informative about ties) but a
    person's time goes first to pairs that differ.
    """
    k = k or required_annotations(db)
    items = pairwise_items(db) if items is None else items
    done = _human_pairwise_done(db)
    counted: dict[str, set[str]] = {}
    for r in db.query(
        "select distinct question_id, system_a, system_b, rater from judgments t "
        "where rater_kind = 'human' and kind = 'pairwise' and status = 'ok' and "
        f"{not_superseded('judgments')}"
    ):
        key = pair_key(r["question_id"], r["system_a"], r["system_b"])
        counted.setdefault(key, set()).add(r["rater"])
    same = identical_items(db) if identical is None else identical
    return team_queue(
        items,
        counted,
        rater_name(annotator),
        k=k,
        seed=queue_seed(db),
        calibration=calibration_size(db),
        done=done,
        last=same,
    )


def verdict_progress(
    db: sqlite_utils.Database, annotator: str, items: list[str] | None = None
) -> Progress:
    """How many side-by-side items this annotator has given a verdict on (``done``) and how many
    they skipped (``skipped``; a skip is not counted as done)."""
    items = pairwise_items(db) if items is None else items
    rater = rater_name(annotator)
    done = progress_of(items, _human_pairwise_done(db, ("ok",)), rater)
    skipped = progress_of(items, _human_pairwise_done(db, ("skipped",)), rater)
    return Progress(done.done, done.total, skipped.done)


def blind_item(db: sqlite_utils.Database, key: str, annotator: str) -> dict[str, Any]:
    """The item as this annotator sees it: answers in the seeded order, names kept out of the
    text fields meant for display (``answer_a``/``answer_b``); ``system_a``/``system_b`` are for
    storing the verdict only. ``identical``: the two answers are the same text
    (:func:`same_text`); such items stay in the queue (they are informative about ties)."""
    question_id, s1, s2 = split_pair_key(key)
    order = shown_order(queue_seed(db), annotator, key)
    first, second = (s1, s2) if order == "ab" else (s2, s1)
    answers = {
        r["system"]: r
        for r in rows(
            db,
            "select id, system, text from answers where question_id = ? and system in (?, ?)",
            [question_id, s1, s2],
        )
    }
    if first not in answers or second not in answers:
        raise InputError(f"item {key!r} has no answers for both systems")
    a, b = answers[first]["text"], answers[second]["text"]
    return {
        "key": key,
        "question_id": question_id,
        "order_shown": order,
        "system_a": first,
        "system_b": second,
        "answer_a_id": answers[first]["id"],
        "answer_b_id": answers[second]["id"],
        "answer_a": a,
        "answer_b": b,
        "identical": same_text(a, b),
    }


def same_text(a: str | None, b: str | None) -> bool:
    """Whether two answers are the same text up to whitespace (runs of it, and at the ends)."""
    return " ".join((a or "").split()) == " ".join((b or "").split())


def submit_verdict(
    db: sqlite_utils.Database,
    item: dict[str, Any],
    annotator: Annotator,
    verdict: str,
    rationale: str = "",
    *,
    status: str = "ok",
) -> int:
    """Append a human side-by-side verdict for ``item`` (from :func:`blind_item`); return its id.

    ``verdict`` is relative to the order shown. A second verdict by the same annotator on the
    same item supersedes the first. ``status='skipped'`` records a skip (verdict NULL). The
    label is stored under the signed-in ``annotator`` (:func:`authorise`), never another name.
    """
    if status == "ok" and not verdict:
        raise InputError("choose a verdict first (A, B, Equal or None); nothing was stored")
    if status == "ok" and verdict not in PAIRWISE_VERDICTS:
        raise InputError(f"verdict must be one of {', '.join(PAIRWISE_VERDICTS)}")
    s1, s2 = item["system_a"], item["system_b"]
    with transaction(db):
        rater = authorise(db, annotator).rater
        old = own_latest(
            db,
            "judgments",
            "t.kind = 'pairwise' and t.question_id = ? and "
            "((t.system_a = ? and t.system_b = ?) or (t.system_a = ? and t.system_b = ?))",
            [item["question_id"], s1, s2, s2, s1],
            "rater",
            rater,
        )
        new_id = (
            db["judgments"]
            .insert(
                {
                    "kind": "pairwise",
                    "question_id": item["question_id"],
                    "rater": rater,
                    "rater_kind": "human",
                    "criterion": HUMAN_CRITERION,
                    "system_a": s1,
                    "system_b": s2,
                    "answer_a_id": item["answer_a_id"],
                    "answer_b_id": item["answer_b_id"],
                    "order_shown": item["order_shown"],
                    "verdict": verdict if status == "ok" else None,
                    "status": status,
                    "rationale": rationale or "",
                    "context_kind": "human",
                    "supersedes": old["id"] if old else None,
                    "created_at": utcnow(),
                }
            )
            .last_pk
        )
    return int(new_id)


def skip_item(db: sqlite_utils.Database, item: dict[str, Any], annotator: Annotator) -> int:
    """Record that ``annotator`` skipped ``item`` (a judgment row with status ``skipped``)."""
    return submit_verdict(db, item, annotator, "", status="skipped")


def undo_last(db: sqlite_utils.Database, annotator: Annotator) -> int | None:
    """Withdraw this annotator's latest effective side-by-side label (verdict or skip).

    Never deletes: appends a row with ``status='withdrawn'`` and verdict NULL superseding it, so
    the item returns to the queue. Returns the new row's id, or None if there was nothing to undo.
    """
    with transaction(db):
        rater = authorise(db, annotator).rater
        last = rows(
            db,
            "select * from judgments t where rater = ? and kind = 'pairwise' and "
            f"status in ('ok', 'skipped') and {not_superseded('judgments')} "
            "order by id desc limit 1",
            [rater],
        )
        if not last:
            return None
        old = last[0]
        keep = (
            "kind",
            "question_id",
            "rater",
            "rater_kind",
            "criterion",
            "system_a",
            "system_b",
            "answer_a_id",
            "answer_b_id",
            "order_shown",
            "context_kind",
        )
        row = {k: old[k] for k in keep}
        row.update(
            verdict=None,
            status="withdrawn",
            rationale="undo",
            supersedes=old["id"],
            created_at=utcnow(),
        )
        return int(db["judgments"].insert(row).last_pk)

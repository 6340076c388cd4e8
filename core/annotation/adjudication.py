"""Adjudication: items people disagree on go to an adjudicator, whose settled label is the gold.

An item is *in disagreement* when the effective labels (skips aside) of two or more team
members differ (imported raters' labels are shown beside them but do not make a disagreement). An adjudicator (role ``adjudicator`` or ``admin``; anyone signed in, in open mode) who
did not label the item sees every label with its rationale and name, and settles it
(:func:`adjudicate`, table ``adjudications``, append-only). The item's *gold* label is the
settled label first (:mod:`core.annotation.gold` has the whole rule).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.annotation.base import UNCHECKED
from core.annotation.identity import Annotator, authorise
from core.annotation.label_task import HumanLabel
from core.annotation.task_registry import task_named
from core.annotation.tasks import human_labels, team_labels
from core.errors import InputError
from core.store.adjudications import (
    Adjudication,
    NewAdjudication,
    effective_adjudications,
    insert_adjudication,
    own_adjudication,
)
from core.store.connection import retry_when_busy, transaction
from core.store.judgments import JudgmentStatus
from core.store.row_locks import hold_item

if TYPE_CHECKING:
    from core.store.engine import Database


def _by_item(db: Database, task: str, part: str = "all") -> dict[str, list[HumanLabel]]:
    """Item -> its effective labels (skips aside): ``part`` ``all``, ``team`` or ``imported``."""
    labels = human_labels(db, task)
    if part != "all":
        labels = team_labels(db, labels)[0 if part == "team" else 1]
    items: dict[str, list[HumanLabel]] = {}
    for r in labels:
        if r["status"] == JudgmentStatus.OK:
            items.setdefault(r["item"], []).append(r)
    return items


def settled(db: Database, task: str) -> dict[str, Adjudication]:
    """Item -> its effective adjudication (latest row of any adjudicator), for ``task``; a key
    stored in an older form (a side-by-side ``a|b|c``) is read in its current form."""
    found = task_named(task, db)
    return {found.stored_key(r.item_key): r for r in effective_adjudications(db, found.name)}


def disagreements(db: Database, task: str, *, open_only: bool = False) -> list[dict[str, Any]]:
    """Items of ``task`` whose people gave different labels, oldest disagreement first.

    Each: ``item``, ``question_id``, ``labels`` (every effective team label: ``annotator``,
    ``label``, ``rationale``, ``created_at``), ``imported`` (the imported raters' labels of the
    item) and ``settled`` (the adjudication, or None). ``open_only``: only those not settled yet.
    """
    done = settled(db, task)
    imported = _by_item(db, task, "imported")
    out = []
    for item, labels in _by_item(db, task, "team").items():
        if len({r["label"] for r in labels}) < 2:
            continue
        if open_only and item in done:
            continue
        out.append(
            {
                "item": item,
                "question_id": labels[0]["question_id"],
                "labels": labels,
                "imported": imported.get(item, []),
                "settled": done.get(item),
            }
        )
    return out


@retry_when_busy
def adjudicate(
    db: Database,
    who: Annotator,
    task: str,
    item: str,
    label: str,
    rationale: str = "",
    *,
    seen_settled_id: int | None = UNCHECKED,
) -> int:
    """Settle a disagreement of ``task`` on ``item`` with ``label``; return the new row's id.

    Needs the adjudicator role (:func:`authorise`); refused when ``who`` labelled the item
    (someone else settles it) or the item is not in disagreement (any more: the labels may have
    changed since the page loaded). ``seen_settled_id``: the id of the item's effective
    adjudication the page showed (None: not settled); refused when it changed since (someone
    settled it meanwhile), so no decision is overwritten unseen. A second decision by the same
    adjudicator supersedes the first. Writes nothing on refusal, and says why.
    """
    found = task_named(task, db)
    if label not in found.labels:
        raise InputError(f"label must be one of {', '.join(found.labels)}; nothing was stored")
    item = str(item)
    with transaction(db):
        name = authorise(db, who, "adjudicator").name
        # the item's labels, its settlement and what follows from them (a review's question
        # status) stay as read until this commits, on every server (core.store.row_locks)
        hold_item(db, found.name, found.stored_key(item))
        labels = _by_item(db, task, "team").get(item, [])
        if len({r["label"] for r in labels}) < 2:
            raise InputError(
                f"{task} item {item!r} is not in disagreement (any more: its labels agree or "
                "were withdrawn); nothing was stored"
            )
        if any(r["annotator"] == name for r in labels):
            raise InputError("you labelled this item yourself; another adjudicator settles it")
        now = settled(db, task).get(item)
        if seen_settled_id != UNCHECKED and (now.id if now else None) != seen_settled_id:
            raise InputError(
                f"{now.adjudicator if now else 'someone'} "
                + (f"settled this item as {now.label!r}" if now else "withdrew its settlement")
                + " after your page loaded; nothing was stored. Look at it again and settle "
                "it again if you still disagree."
            )
        old = own_adjudication(db, task, item, name)
        new_id = insert_adjudication(
            db,
            NewAdjudication(
                task=task,
                item_key=item,
                label=label,
                rationale=rationale or "",
                adjudicator=name,
                supersedes=old.id if old else None,
            ),
        )
        task_named(task, db).after_settlement(db, item)  # e.g. a review's question status
    return new_id

"""Task ``xrag``: people's yes/no verdicts on stored XRAG answers (the panel-vs-human check).

An item is one stored XRAG result id (as text); the labels are ``yes`` (the answer gives the key
information of the reference) and ``no``. A verdict is an absolute judgment with criterion
:data:`core.store.xrag_results.XRAG_CRITERION`, rater ``human:NAME``, system ``MODEL@SETTING``
and the question it answers (written by :mod:`core.xrag.human_verdicts` for the signed-in
person: ``xrag verify-import`` or :func:`~core.xrag.human_verdicts.record_human_verdict`). The
judgment carries no result id, so it belongs to the lowest result id of its question, model and
setting (results of other judge panels on the same answer request share it); a person's latest
verdict on an item is their label (a verdict is appended, not superseded, when given again).

No page collects XRAG verdicts: they come from the files ``xrag verify-export`` writes, so the
task's queue is empty for everyone. Its labels are a team's own (each authorised as its person),
so two people's different verdicts on an answer are a disagreement an adjudicator settles on the
Adjudication page, and the settled label (or the majority) is the item's gold
(:mod:`core.annotation.gold`). The auto-raters' labels are the judge panel's (``auto:xrag-panel``)
and each judge's verdicts, so they are scored against the people's gold on the Team page.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from core.annotation.base import Progress, queue_progress
from core.annotation.label_task import (
    HumanLabel,
    ItemFields,
    ItemKey,
    TaskDefaults,
    human_label_rows,
    register,
)
from core.annotation.task_names import TaskName
from core.store.judgments import AbsoluteVerdict, JudgmentKind, RaterKind, effective_values
from core.store.xrag_results import (
    XRAG_CRITERION,
    first_result_ids,
    get_result,
    result_ids,
    result_question_ids,
)

if TYPE_CHECKING:
    from core.store.engine import Database

#: The task's name (stored in adjudications; chosen on the pages and ``queue --task``).
XRAG_TASK = TaskName.XRAG.value
#: The scale: does the answer give the key information of the reference?
XRAG_LABELS = tuple(str(v) for v in AbsoluteVerdict)
#: How the labels read on the Adjudication page.
XRAG_LABEL_NAMES = {"yes": "Yes: gives the key information", "no": "No"}

_COLUMNS = ["id", "question_id", "system", "rater", "verdict", "rationale", "created_at"]


def _verdict_rows(db: Database, rater_kind: RaterKind) -> list[tuple[str, str, str, str, str, str]]:
    """``(item, question_id, rater, label, rationale, created_at)`` of every effective verdict
    of ``rater_kind`` on an XRAG answer that a stored result holds, in id order."""
    item_of = first_result_ids(db)
    out = []
    for _, qid, system, rater, verdict, why, at in effective_values(
        db,
        _COLUMNS,
        kind=JudgmentKind.ABSOLUTE,
        criterion=XRAG_CRITERION,
        rater_kind=rater_kind,
        status="ok",
    ):
        rid = item_of.get((qid, system or ""))
        if rid is not None and verdict in XRAG_LABELS:
            out.append((str(rid), qid, rater, verdict, why or "", at))
    return out


class XragTask(TaskDefaults):
    """XRAG answer verdicts: items are result ids, labels :data:`XRAG_LABELS`."""

    name = XRAG_TASK
    labels = XRAG_LABELS
    position = 40

    def items(self, db: Database) -> list[ItemKey]:
        """Every stored XRAG result id, as text (``xrag verify-export`` samples from them)."""
        return list[ItemKey](str(i) for i in result_ids(db))

    def queue(self, db: Database, annotator: str, items: list[ItemKey]) -> list[ItemKey]:
        """Empty: no page collects XRAG verdicts (they are imported with ``xrag verify-import``)."""
        return []

    def progress(
        self, db: Database, annotator: str, items: list[ItemKey], queue: list[ItemKey]
    ) -> Progress:
        """:func:`core.annotation.base.queue_progress`: done = the items ``annotator`` judged."""
        ok: dict[str, set[str]] = {}
        for r in self.human_labels(db):
            ok.setdefault(r["item"], set()).add(r["annotator"])
        return queue_progress([str(i) for i in items], {"ok": ok, "skipped": {}}, annotator, queue)

    def human_labels(self, db: Database) -> list[HumanLabel]:
        """Each person's latest verdict on each item (earlier ones are replaced, not kept as
        conflicting labels), in id order; all made by the person themselves (not imported
        raters), so they count as the team's."""
        latest: dict[tuple[str, str], tuple[str, str, str, str, str, str]] = {}
        for row in _verdict_rows(db, RaterKind.HUMAN):
            key = (row[0], row[2])
            latest.pop(key, None)  # re-inserted: the dict keeps the order of the latest rows
            latest[key] = row
        return human_label_rows(
            (item, label, "ok", qid, rater.removeprefix("human:"), why, at)
            for item, qid, rater, label, why, at in latest.values()
        )

    def item_fields(self, db: Database, keys: Sequence[ItemKey]) -> list[ItemFields]:
        """The question the result answers."""
        question_of = result_question_ids(db, [int(k) for k in keys])
        return [{"question_id": question_of.get(int(k), str(k))} for k in keys]

    def label_name(self, label: str) -> str:
        """ "Yes: gives the key information" or "No" (:data:`XRAG_LABEL_NAMES`)."""
        return XRAG_LABEL_NAMES.get(label, label)

    def places(self, db: Database, items: Sequence[str]) -> dict[str, str]:
        """ "answer ID": the stored result's id (as in the ``verify-export`` file)."""
        return {item: f"answer {item}" for item in items}

    def texts(self, db: Database, item: str, question_id: str) -> list[tuple[str, str]]:
        """The question's reference answers and the judged answer (its system not named)."""
        texts = super().texts(db, item, question_id)
        result = get_result(db, int(item))
        texts.append(("Answer", str(result["answer"]) if result else ""))
        return texts

    def auto_labels(self, db: Database) -> dict[str, dict[str, str]]:
        """Auto-rater (the panel, each judge) -> item -> its verdict; a rater with different
        verdicts on one item (two panels' runs of it) has no label there."""
        found: dict[str, dict[str, set[str]]] = {}
        for item, _, rater, label, _, _ in _verdict_rows(db, RaterKind.AUTO):
            found.setdefault(rater, {}).setdefault(item, set()).add(label)
        return {
            rater: {item: next(iter(v)) for item, v in items.items() if len(v) == 1}
            for rater, items in found.items()
        }


XRAG = register(XragTask())

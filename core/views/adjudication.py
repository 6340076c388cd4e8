"""What the Adjudication page shows: open disagreements and one item with every label beside it.

Names are shown here (the page is for adjudicators only); the side-by-side answers stay blind as
"Answer 1" and "Answer 2" (the canonical order, the scale of the labels).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

import pandas as pd

from core.annotation.adjudication import disagreements
from core.annotation.label_task import HumanLabel
from core.annotation.label_tasks.custom import CustomLabelTask
from core.annotation.task_names import TaskName
from core.annotation.task_registry import task_named
from core.store.questions import question_texts
from core.views.custom_labelling import LABEL_KEYS
from core.views.guidelines import task_guideline
from core.views.row_records import AdjudicationRow, adjudication_row
from core.views.text import InertMarkdown, md

if TYPE_CHECKING:
    from core.store.engine import Database


#: The shipped tasks' guideline files (:data:`core.views.guidelines.TASKS`), by task name.
_SHIPPED_GUIDELINES = {
    TaskName.SIDE_BY_SIDE.value: TaskName.SIDE_BY_SIDE.value,
    TaskName.REVIEW.value: TaskName.REVIEW.value,
    TaskName.XRAG.value: TaskName.REVIEW.value,
    TaskName.DISPUTES.value: TaskName.DISPUTES.value,
}
#: The page's own lines above a task's guideline (constant text).
_SETTLING = (
    "### Settling a disagreement\n\nRead the item and every label with its rationale, then "
    "press the label the guideline below asks for (its key is shown on its button). The "
    "settled label becomes the item's gold; a settled item can be settled again under "
    "**Show settled items too**.\n\n"
)


def label_name(task: str, label: str | None, db: Database | None = None) -> str:
    """How a label reads on the page (the task's :meth:`~core.annotation.label_task.LabelTask.label_name`)."""
    if label is None:
        return ""
    return task_named(task, db).label_name(label)


class Disagreement(TypedDict):
    """One entry of :func:`adjudication_queue`."""

    item: str
    question: str
    question_id: str
    where: str
    said: str
    n_labels: int
    settled: str
    choice: str


class DisagreementDetail(TypedDict):
    """One disagreement with every label (:func:`adjudication_detail`)."""

    item: str
    question: str
    texts: list[tuple[str, str]]
    labels: pd.DataFrame
    imported: pd.DataFrame
    options: list[str]
    names: dict[str, str]
    settled: AdjudicationRow | None


def adjudication_queue(
    db: Database, task: str, include_settled: bool = False
) -> list[Disagreement]:
    """Disagreements of ``task`` (open ones only unless ``include_settled``): ``item``,
    ``question`` (its text), ``question_id``, ``where`` (the pair, "pair 2 of 3", or the
    dispute: which item of the question it is), ``said`` ("alice: Equal; bob: Answer 1 is
    better": what each person said), ``n_labels``, ``settled`` (the settled label's name or "")
    and ``choice``: the picker's text, distinct for every entry (a picker keyed by its shown
    text must never merge two items of one question)."""
    found = disagreements(db, task, open_only=not include_settled)
    text = question_texts(db, sorted({d["question_id"] for d in found}))
    places = task_named(task, db).places(db, [d["item"] for d in found])
    out: list[Disagreement] = []
    for d in found:
        where = places[d["item"]]
        said = "; ".join(
            f"{r['annotator']}: {label_name(task, r['label'], db)}" for r in d["labels"]
        )
        settled = label_name(task, d["settled"].label, db) if d["settled"] else ""
        question = text.get(d["question_id"], d["question_id"])
        choice = f"{_short(question)} [{d['question_id']}, {where}] {said}"
        out.append(
            {
                "item": d["item"],
                "question": question,
                "question_id": d["question_id"],
                "where": where,
                "said": said,
                "n_labels": len(d["labels"]),
                "settled": settled,
                "choice": choice + (f" (settled: {settled})" if settled else ""),
            }
        )
    seen: dict[str, int] = {}
    for e in out:  # the same text twice (two questions cut alike): number them
        seen[e["choice"]] = seen.get(e["choice"], 0) + 1
        if seen[e["choice"]] > 1:
            e["choice"] += f" #{seen[e['choice']]}"
    return out


def _short(text: str, n: int = 70) -> str:
    """``text`` on one line, cut to ``n`` characters."""
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _label_table(db: Database, task: str, labels: list[HumanLabel], who: str) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                who: r["annotator"],
                "label": label_name(task, r["label"], db),
                "rationale": r["rationale"],
            }
            for r in labels
        ],
        columns=[who, "label", "rationale"],
    )


def adjudication_detail(db: Database, task: str, item: str) -> DisagreementDetail | None:
    """One disagreement: ``question``, ``texts`` [(title, text)], ``labels`` (the team's: a
    table of annotator, label, rationale), ``imported`` (the imported raters' labels of the item,
    a table of rater, label, rationale: data, not the team), ``options`` (label values) and
    ``names`` (how they read), ``settled`` (the adjudication row or None). None when ``item`` is
    not in disagreement."""
    kind = task_named(task, db)
    found = [d for d in disagreements(db, task) if d["item"] == str(item)]
    if not found:
        return None
    d = found[0]
    labels = _label_table(db, task, d["labels"], "annotator")
    return {
        "item": d["item"],
        "question": question_texts(db, [d["question_id"]]).get(d["question_id"], ""),
        "texts": kind.texts(db, d["item"], d["question_id"]),
        "labels": labels,
        "imported": _label_table(db, task, d["imported"], "imported rater"),
        "options": list(kind.labels),
        "names": {v: kind.label_name(v) for v in kind.labels},
        "settled": adjudication_row(d["settled"]) if d["settled"] else None,
    }


def settle_buttons(options: list[str], names: dict[str, str]) -> list[tuple[str, str, str | None]]:
    """``(label, how it reads, key)`` for each label of a task: the first ten get the keys
    ``1``-``9``, ``0`` (as the Label page's buttons), later ones none."""
    return [
        (v, names.get(v, v), LABEL_KEYS[n] if n < len(LABEL_KEYS) else None)
        for n, v in enumerate(options)
    ]


def adjudication_guideline(db: Database, task: str) -> InertMarkdown:
    """What an adjudicator of ``task`` reads behind the page's *Guidelines* key: how settling
    works, then the task's own guideline (a shipped task's file, trusted Markdown; a custom
    task's text from its author, escaped; nothing said when it has none)."""
    found = task_named(task, db)
    if task in _SHIPPED_GUIDELINES:
        body = task_guideline(_SHIPPED_GUIDELINES[task])
    elif isinstance(found, CustomLabelTask) and found.guideline.strip():
        body = InertMarkdown(f"**Guideline of {md(task)}**\n\n" + md(found.guideline))
    else:
        body = InertMarkdown(f"*The task {md(task)} has no guideline of its own.*")
    return InertMarkdown(_SETTLING + body)


def queue_position(items: list[str], item: str, include_settled: bool) -> str:
    """The line at the top of the page: ``"Item 12 of 40 open disagreements · ..."``."""
    what = "disagreements (settled ones included)" if include_settled else "open disagreements"
    return (
        f"Item {items.index(item) + 1} of {len(items)} {what} · a label's key settles the "
        "item, its label becomes the gold, and the next item opens"
    )

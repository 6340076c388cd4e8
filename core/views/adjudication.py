"""What the Adjudication page shows: open disagreements and one item with every label beside it.

Names are shown here (the page is for adjudicators only); the side-by-side answers stay blind as
"Answer 1" and "Answer 2" (the canonical order, the scale of the labels).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from core.annotation.adjudication import disagreements
from core.annotation.pairwise import split_pair_key
from core.annotation.tasks import LABELS, check_task
from core.store.answers import get_answer, question_answers
from core.store.disputes import get_dispute
from core.store.questions import get_question, question_texts

if TYPE_CHECKING:  # sqlite_utils imports pandas: loaded only when a database is opened
    import sqlite_utils

PAIR_LABEL_NAMES = {
    "first": "Answer 1 is better",
    "second": "Answer 2 is better",
    "Equal": "Equal",
    "None": "None (both wrong)",
}


def label_name(task: str, label: str | None) -> str:
    """How a label reads on the page."""
    if label is None:
        return ""
    if task == "side-by-side":
        return PAIR_LABEL_NAMES.get(label, label)
    return label.replace("_", " ")


def adjudication_queue(
    db: sqlite_utils.Database, task: str, include_settled: bool = False
) -> list[dict[str, Any]]:
    """Disagreements of ``task`` (open ones only unless ``include_settled``): ``item``,
    ``question`` (its text), ``n_labels``, ``settled`` (the settled label's name or "")."""
    found = disagreements(db, task, open_only=not include_settled)
    text = question_texts(db, sorted({d["question_id"] for d in found}))
    return [
        {
            "item": d["item"],
            "question": text.get(d["question_id"], d["question_id"]),
            "n_labels": len(d["labels"]),
            "settled": label_name(task, d["settled"]["label"]) if d["settled"] else "",
        }
        for d in found
    ]


def _texts(db: sqlite_utils.Database, task: str, item: str, qid: str) -> list[tuple[str, str]]:
    """The texts the labels are about: both answers, the model answer, or the references."""
    if task == "side-by-side":
        _, s1, s2 = split_pair_key(item)
        answers = {a["system"]: a["text"] for a in question_answers(db, qid, ["system", "text"])}
        return [("Answer 1", answers.get(s1, "")), ("Answer 2", answers.get(s2, ""))]
    q = get_question(db, qid, ["answers"])
    refs = q["answers"] if q else []
    texts = [("Reference answer", r) for r in (refs or [])]
    if task == "disputes":
        dispute = get_dispute(db, int(item))
        answer = get_answer(db, dispute["answer_id"], ["text"]) if dispute else None
        texts.append(("Model answer", answer["text"] if answer else ""))
    return texts


def _label_table(task: str, labels: list[dict[str, Any]], who: str) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                who: r["annotator"],
                "label": label_name(task, r["label"]),
                "rationale": r["rationale"],
            }
            for r in labels
        ],
        columns=[who, "label", "rationale"],
    )


def adjudication_detail(db: sqlite_utils.Database, task: str, item: str) -> dict[str, Any] | None:
    """One disagreement: ``question``, ``texts`` [(title, text)], ``labels`` (the team's: a
    table of annotator, label, rationale), ``imported`` (the imported raters' labels of the item,
    a table of rater, label, rationale: data, not the team), ``options`` (label values) and
    ``names`` (how they read), ``settled`` (the adjudication row or None). None when ``item`` is
    not in disagreement."""
    check_task(task)
    found = [d for d in disagreements(db, task) if d["item"] == str(item)]
    if not found:
        return None
    d = found[0]
    labels = _label_table(task, d["labels"], "annotator")
    return {
        "item": d["item"],
        "question": question_texts(db, [d["question_id"]]).get(d["question_id"], ""),
        "texts": _texts(db, task, d["item"], d["question_id"]),
        "labels": labels,
        "imported": _label_table(task, d["imported"], "imported rater"),
        "options": list(LABELS[task]),
        "names": {v: label_name(task, v) for v in LABELS[task]},
        "settled": d["settled"],
    }

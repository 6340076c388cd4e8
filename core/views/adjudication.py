"""What the Adjudication page shows: open disagreements and one item with every label beside it.

Names are shown here (the page is for adjudicators only); the side-by-side answers stay blind as
"Answer 1" and "Answer 2" (the canonical order, the scale of the labels).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from core.annotation.adjudication import disagreements
from core.annotation.pairwise import pairwise_items, split_pair_key
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


def _pair_numbers(items: list[str]) -> dict[str, tuple[int, int]]:
    """Side-by-side item -> (its number among its question's pairs, how many pairs the question
    has), numbered in the sorted order of the item keys: names the pair without naming systems."""
    by_question: dict[str, list[str]] = {}
    for key in sorted(items):
        by_question.setdefault(split_pair_key(key)[0], []).append(key)
    return {k: (n, len(keys)) for keys in by_question.values() for n, k in enumerate(keys, 1)}


def adjudication_queue(
    db: sqlite_utils.Database, task: str, include_settled: bool = False
) -> list[dict[str, Any]]:
    """Disagreements of ``task`` (open ones only unless ``include_settled``): ``item``,
    ``question`` (its text), ``question_id``, ``where`` (the pair, "pair 2 of 3", or the
    dispute: which item of the question it is), ``said`` ("alice: Equal; bob: Answer 1 is
    better": what each person said), ``n_labels``, ``settled`` (the settled label's name or "")
    and ``choice``: the picker's text, distinct for every entry (a picker keyed by its shown
    text must never merge two items of one question)."""
    found = disagreements(db, task, open_only=not include_settled)
    text = question_texts(db, sorted({d["question_id"] for d in found}))
    pairs = _pair_numbers(pairwise_items(db)) if task == "side-by-side" else {}
    out = []
    for d in found:
        if task == "side-by-side":
            n, of = pairs.get(d["item"], (0, 0))
            where = f"pair {n} of {of}" if n else "pair"
        elif task == "disputes":
            where = f"dispute {d['item']}"
        else:
            where = "review"
        said = "; ".join(f"{r['annotator']}: {label_name(task, r['label'])}" for r in d["labels"])
        settled = label_name(task, d["settled"]["label"]) if d["settled"] else ""
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


def _texts(db: sqlite_utils.Database, task: str, item: str, qid: str) -> list[tuple[str, str]]:
    """The texts the labels are about: both answers, the model answer, or the references."""
    if task == "side-by-side":
        _, s1, s2 = split_pair_key(item)
        answers = {a.system: a.text for a in question_answers(db, qid)}
        return [("Answer 1", answers.get(s1, "")), ("Answer 2", answers.get(s2, ""))]
    q = get_question(db, qid)
    texts = [("Reference answer", r) for r in (q.answers if q else [])]
    if task == "disputes":
        dispute = get_dispute(db, int(item))
        answer = get_answer(db, dispute["answer_id"]) if dispute else None
        texts.append(("Model answer", answer.text if answer else ""))
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

"""Task ``side-by-side``: people's verdicts on two answers shown blind (:mod:`core.annotation.pairwise`).

An item is a question with a canonically sorted pair of systems (:func:`pair_key`). Labels are on
the canonical order of the pair (``first``, ``second``, ``Equal``, ``None``) so people (and
auto-raters) can be compared: person X's "A" and person Y's "B" name the same answer when their
A/B orders differed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from core.annotation.base import Progress
from core.annotation.label_task import HumanLabel, ItemFields, ItemKey, TaskDefaults, register
from core.annotation.pairwise import (
    APP_CONTEXT,
    SIDE_BY_SIDE_TASK,
    canonical_pair_key,
    pair_key,
    pairwise_items,
    split_pair_key,
    verdict_progress,
    verdict_queue,
)
from core.store.answers import question_answers
from core.store.judgments import (
    JudgmentKind,
    JudgmentStatus,
    PairwiseVerdict,
    RaterKind,
    effective_values,
)
from core.store.verdict_reads import verdict_summary

if TYPE_CHECKING:
    from core.store.engine import Database

#: Side-by-side labels on the canonical order of an item's two systems.
PAIR_LABELS = ("first", "second", "Equal", "None")
#: How the labels read (the answers stay blind as "Answer 1" and "Answer 2": the canonical order).
PAIR_LABEL_NAMES = {
    "first": "Answer 1 is better",
    "second": "Answer 2 is better",
    "Equal": "Equal",
    "None": "None (both wrong)",
}


def pair_label(r: Mapping[str, Any]) -> str:
    """A verdict (``system_a``, ``system_b``, ``verdict`` A/B/Equal/None) on the canonical scale."""
    first = min(r["system_a"], r["system_b"])
    if r["verdict"] in (PairwiseVerdict.EQUAL, PairwiseVerdict.NONE):
        return str(r["verdict"])
    winner = r["system_a"] if r["verdict"] == PairwiseVerdict.A else r["system_b"]
    return "first" if winner == first else "second"


def auto_pair_labels(db: Database) -> dict[str, dict[str, str]]:
    """Auto-rater -> side-by-side item -> its effective verdict (canonical scale).

    Read from :func:`core.store.verdict_reads.verdict_summary` (one row per rater and pair as shown,
    by latest id), not from every verdict: an auto-rater that judged an item many times costs
    one row. An auto-rater that judged both orders of a pair with conflicting canonical labels has
    no label on the item (as for people: :mod:`core.annotation.gold`), so the result does not
    depend on which order was stored last."""
    found: dict[str, dict[str, set[str]]] = {}
    for rater, rater_kind, qid, a, b, _, _, _, _, verdict in verdict_summary(db, "pairwise"):
        if rater_kind != RaterKind.AUTO or verdict not in tuple(PairwiseVerdict):
            continue
        label = pair_label({"system_a": a, "system_b": b, "verdict": verdict})
        found.setdefault(rater, {}).setdefault(pair_key(qid, a, b), set()).add(label)
    return {
        rater: {item: next(iter(v)) for item, v in items.items() if len(v) == 1}
        for rater, items in found.items()
    }


def _pair_numbers(items: list[str]) -> dict[str, tuple[int, int]]:
    """Side-by-side item -> (its number among its question's pairs, how many pairs the question
    has), numbered in the sorted order of the item keys: names the pair without naming systems."""
    by_question: dict[str, list[str]] = {}
    for key in sorted(items):
        by_question.setdefault(split_pair_key(key)[0], []).append(key)
    return {k: (n, len(keys)) for keys in by_question.values() for n, k in enumerate(keys, 1)}


class SideBySideTask(TaskDefaults):
    """Side-by-side verdicts: items are pair keys, labels :data:`PAIR_LABELS`."""

    name = SIDE_BY_SIDE_TASK
    labels = PAIR_LABELS
    position = 30

    def items(self, db: Database) -> list[ItemKey]:
        """Every question with each pair of systems that answered it."""
        return list[ItemKey](pairwise_items(db))

    def queue(self, db: Database, annotator: str, items: list[ItemKey]) -> list[ItemKey]:
        """:func:`core.annotation.pairwise.verdict_queue`."""
        return list[ItemKey](verdict_queue(db, annotator, [str(i) for i in items]))

    def progress(
        self, db: Database, annotator: str, items: list[ItemKey], queue: list[ItemKey]
    ) -> Progress:
        """:func:`core.annotation.pairwise.verdict_progress`."""
        keys = [str(i) for i in items]
        return verdict_progress(db, annotator, keys, [str(i) for i in queue])

    def human_labels(self, db: Database) -> list[HumanLabel]:
        """People's effective verdicts and skips (imported ones marked ``imported``), by id."""
        columns = ["question_id", "system_a", "system_b", "rater", "verdict", "status"]
        columns += ["context_kind", "rationale", "created_at"]
        out: list[HumanLabel] = []
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
                    "label": pair_label(r) if r["status"] == JudgmentStatus.OK else None,
                    "status": r["status"],
                    "rationale": r["rationale"],
                    "created_at": r["created_at"],
                    "imported": r["context_kind"] != APP_CONTEXT,
                }
            )
        return out

    def item_fields(self, db: Database, keys: Sequence[ItemKey]) -> list[ItemFields]:
        """The question and the two systems in canonical order."""
        out: list[ItemFields] = []
        for key in keys:
            qid, s1, s2 = split_pair_key(str(key))
            out.append({"question_id": qid, "systems": [s1, s2]})
        return out

    def stored_key(self, key: str) -> str:
        """A key stored in the old ``a|b|c`` form is read as its JSON form."""
        return canonical_pair_key(key)

    def label_name(self, label: str) -> str:
        """ "Answer 1 is better", ... (:data:`PAIR_LABEL_NAMES`)."""
        return PAIR_LABEL_NAMES.get(label, label)

    def places(self, db: Database, items: Sequence[str]) -> dict[str, str]:
        """ "pair 2 of 3": the pair's number among its question's pairs."""
        pairs = _pair_numbers(pairwise_items(db))
        out = {}
        for item in items:
            n, of = pairs.get(item, (0, 0))
            out[item] = f"pair {n} of {of}" if n else "pair"
        return out

    def texts(self, db: Database, item: str, question_id: str) -> list[tuple[str, str]]:
        """Both answers, blind, in canonical order."""
        _, s1, s2 = split_pair_key(item)
        answers = {a.system: a.text for a in question_answers(db, question_id)}
        return [("Answer 1", answers.get(s1, "")), ("Answer 2", answers.get(s2, ""))]

    def auto_labels(self, db: Database) -> dict[str, dict[str, str]]:
        """:func:`auto_pair_labels`."""
        return auto_pair_labels(db)


SIDE_BY_SIDE = register(SideBySideTask())

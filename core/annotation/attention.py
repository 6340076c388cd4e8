"""Attention checks: items with a known answer mixed into each person's queue at a set rate.

An item's *known answer* is its settled label (an adjudication: :mod:`core.annotation.adjudication`;
an admin who wants a check on an item settles it). With setting ``attention_every`` = N > 0,
every N-th label a person gives is on such an item they have neither labelled, skipped nor
settled themselves (:func:`mix_attention`; the checks in a seeded order of their own, so the mix
is reproducible). The places are counted from the labels the person has given, not from the
head of the queue: the pages serve the head of a queue that is recomputed after each label, so a
check placed "third from the head" would stay third and never be served. With ``c`` labels
given, the queue's entry ``i`` is a check when ``(c + i) % N == N - 1`` (N = 1: every entry).
A person's attention accuracy (:func:`attention_accuracy`) is the share of their labels on
known-answer items, given after the item was settled, that equal the known answer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from core.store.adjudications import Adjudication, effective_adjudications
from core.store.judgments import JudgmentStatus
from core.store.settings import int_setting

if TYPE_CHECKING:
    from core.store.engine import Database


def mix_attention(
    db: Database,
    task: str,
    annotator: str,
    queue: list[Any],
    items: list[Any],
    marks: dict[str, dict[Any, set[str]]],
) -> list[Any]:
    """``queue`` (of ``annotator``: a name, or ``human:NAME`` on side by side) with attention
    checks where the person's every N-th label falls (N: setting ``attention_every``; 0 = none,
    ``queue`` unchanged): with ``c`` labels given (``marks["ok"]``), entry ``i`` of the result
    is a check when ``(c + i) % N == N - 1``, so the next item served is a check once N - 1
    labels followed the last one. Checks are the settled items of ``task`` among ``items``, not
    in ``queue``, that ``annotator`` has no label or skip on (``marks``: status -> item ->
    annotators) and did not settle, ordered by ``sha256(f"{seed}|{annotator}|attention|{key}")``;
    when they run out the rest of ``queue`` follows."""
    every = int_setting(db, "attention_every")
    if not every or not queue:
        return queue
    name = annotator.removeprefix("human:")
    present: dict[str, Hashable] = {str(i): i for i in items}
    queued = {str(i) for i in queue}
    seen = marks.get("ok", {}), marks.get("skipped", {})
    checks = [
        present[r.item_key]
        for r in effective_adjudications(db, task)
        if r.item_key in present
        and r.item_key not in queued
        and r.adjudicator != name
        and not any(annotator in m.get(present[r.item_key], ()) for m in seen)
    ]
    seed = int_setting(db, "queue_seed")
    checks.sort(
        key=lambda k: hashlib.sha256(f"{seed}|{annotator}|attention|{k}".encode()).hexdigest()
    )
    given = sum(annotator in who for who in marks.get("ok", {}).values())
    out: list[Any] = []
    rest = list(queue)
    while rest:
        if checks and (given + len(out)) % every == every - 1:
            out.append(checks.pop(0))
        else:
            out.append(rest.pop(0))
    return out


def attention_accuracy(
    labels: Sequence[Mapping[str, Any]], known: Mapping[str, Adjudication]
) -> dict[str, tuple[int, int]]:
    """Person -> (correct, checks): over their ``labels`` (of
    :func:`core.annotation.tasks.human_labels`: ``item``, ``annotator``, ``label``, ``status``,
    ``created_at``) on items with a known answer (``known``: item -> its adjudication, ``label``,
    ``adjudicator``, ``created_at``) given after it was settled, by someone other than the
    adjudicator, how many equal the known answer."""
    out: dict[str, tuple[int, int]] = {}
    for r in labels:
        k = known.get(r["item"])
        if r["status"] != JudgmentStatus.OK or k is None or r["annotator"] == k.adjudicator:
            continue
        if r["created_at"] <= k.created_at:
            continue  # labelled before it was settled: part of the disagreement, not a check
        right, n = out.get(r["annotator"], (0, 0))
        out[r["annotator"]] = (right + (r["label"] == k.label), n + 1)
    return out

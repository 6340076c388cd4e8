"""Can this auto-rater replace people here? The alt-test (:mod:`core.stats.alt_test`) on the
store's effective verdicts (read-only).

Items and labels:

- ``side-by-side``: effective pairwise verdicts (status ok, a verdict, not superseded or withdrawn;
  each rater's latest per pair as shown, :func:`core.store.verdict_reads.verdict_summary`), put on
  the canonical scale ``first``/``second``/``Equal``/``None`` of the alphabetically sorted pair.
  The item is ``(question_id, system_1, system_2, "any")`` with the systems sorted, EXCEPT when
  some human judged the pair in both presentation orders: then it splits into one item per order
  shown, ``(question_id, system_1, system_2, "ab" | "ba")`` (``ab``: ``system_1`` shown first),
  and every human joins the item of the order they saw. The rater's labels on an item are all of
  its verdicts that fall in it (one per order it judged, at most two), so the results do not
  depend on the order of rows in an imported file and every effective verdict is used.
- ``absolute``: item ``(question_id, system, criterion)``, labels ``yes`` / ``no``.
- a task imported on its own scale (:mod:`core.views.task_scales`): item ``(question_id,
  system or "", task)``, the label in its canonical form; the alt-test's alignment is the
  scale's metric (exact match, negative RMSE, Jaccard) or the one asked for.

Humans are ``human:`` raters; anonymous slots (``human:NAME#k``) are not people. Which humans a
rater is compared with is decided in one place, :func:`choose_annotators`, for ``validate-rater``,
``validation-items``, ``rater-report`` and the Rater validation page alike: by default the named
people when any of them shares an item with the rater, else the anonymous slots when any slot
does (an imported crowd is all there is), and the one sentence it returns says which, and why,
so the decision is never silently about slot positions. ``include_slots`` True: people and slots;
False: people only. A label derived from other humans' labels (:data:`DERIVED_RATERS`, e.g.
PRD's ``human:crowd-majority``) is never an annotator: as one of the "remaining humans" it would
carry the left-out human's own label; it is listed in ``skipped``.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.annotation.task_names import SIDE_BY_SIDE_TASK
from core.corpus.evaluation_layouts import PRD_MAJORITY
from core.corpus.evaluation_ratings import is_slot
from core.errors import InputError
from core.stats.alt_test import AltTestResult, NotEnoughLabels, alt_test_on_table, check_parameters
from core.stats.alt_test_power import items_needed
from core.store.judgments import JudgmentKind, PairwiseVerdict, RaterKind
from core.store.verdict_reads import verdict_summary
from core.views.criterion_hint import criterion_hint
from core.views.shared_reads import shared, shared_table
from core.views.task_scales import TaskScale, alignment_of, task_scale, validation_tasks
from core.views.validation_records import AltResult, Short

if TYPE_CHECKING:
    from core.store.engine import Database

PAIR_VERDICTS = ("A", "B", "Equal", "None")
#: Human raters whose labels are derived from other humans' (never annotators here).
DERIVED_RATERS = {
    PRD_MAJORITY: "derived from the crowd's labels (their majority), not an annotator"
}


def _what(ts: TaskScale) -> str:
    """How a task's labels are called in messages (``pairwise verdicts``, ...)."""
    return f"{ts.kind} verdicts" if ts.kind != JudgmentKind.LABEL else f"labels of task {ts.task!r}"


def canonical_label(system_a: str, system_b: str, verdict: str) -> str:
    """A pairwise verdict (relative to the order shown) on the sorted pair's scale."""
    if verdict in (PairwiseVerdict.EQUAL, PairwiseVerdict.NONE):
        return verdict
    winner = system_a if verdict == PairwiseVerdict.A else system_b
    return "first" if winner == min(system_a, system_b) else "second"


def _rows(db: Database, ts: TaskScale) -> list[tuple[str, str, str, str, str, str]]:
    """``(rater, rater_kind, question_id, K1, K2, verdict)``: each rater's latest effective verdict
    per item as shown (K1, K2: the systems as shown, or system and criterion; a labelled task's
    system or "" and the task); read once per :func:`core.views.shared_reads.shared_reads`."""
    return shared(("rows", id(db), ts), lambda: _read_rows(db, ts))


def _read_rows(db: Database, ts: TaskScale) -> list[tuple[str, str, str, str, str, str]]:
    out = []
    for rater, rater_kind, qid, k1, k2, _, _, _, _, verdict in verdict_summary(db, ts.kind):
        if ts.kind == JudgmentKind.PAIRWISE and verdict not in PAIR_VERDICTS:
            continue
        if ts.kind == JudgmentKind.LABEL:
            if k2 != ts.task:
                continue
            k1 = k1 or ""
        out.append((rater, rater_kind, qid, k1, k2, verdict))
    return out


def _is_human(rater: str, rater_kind: str, include_slots: bool) -> bool:
    """A person (or, with ``include_slots``, also an anonymous slot); never a derived label."""
    return (
        rater_kind == RaterKind.HUMAN
        and rater.startswith("human:")
        and rater not in DERIVED_RATERS
        and (include_slots or not is_slot(rater))
    )


@dataclass(frozen=True)
class Annotators:
    """Whom a rater is compared with (:func:`choose_annotators`): ``slots`` whether anonymous
    slots count, ``people`` / ``n_slots`` how many named people / slots share an item with the
    rater, and ``sentence``, the one sentence every caller shows."""

    slots: bool
    people: int
    n_slots: int
    sentence: str

    @property
    def kind(self) -> str:
        """``anonymous slots`` when slots count, else ``people`` (the JSON's ``annotators``)."""
        return "anonymous slots" if self.slots else "people"


def _count(n: int, one: str, many: str) -> str:
    """``1 person``, ``3 people``."""
    return f"{n} {one if n == 1 else many}"


def choose_annotators(
    db: Database, rater: str, task: str = SIDE_BY_SIDE_TASK, include_slots: bool | None = None
) -> Annotators:
    """The one rule for whom ``rater`` is compared with (see the module docstring) and the
    sentence saying so. ``include_slots`` None: people when any named person shares an item with
    the rater, else the slots when any slot does; True: people and slots; False: people only."""
    people, n_slots = shared(("sharers", id(db), rater, task), lambda: _sharers(db, rater, task))
    slots = bool(n_slots) and (include_slots or (include_slots is None and not people))
    said = _sentence(people, n_slots, bool(slots))
    if not people + n_slots and (ts := task_scale(db, task)).kind == JudgmentKind.ABSOLUTE:
        hint = criterion_hint(_rows(db, ts), rater, lambda r, rk: _is_human(r, rk, True))
        said = hint or said
    return Annotators(bool(slots), people, n_slots, said)


def _sharers(db: Database, rater: str, task: str) -> tuple[int, int]:
    """How many named people and anonymous slots share an item with ``rater``."""
    kind = task_scale(db, task).kind
    mine: set[Hashable] = set()
    shared: dict[str, set[Hashable]] = {}
    rows = _rows(db, task_scale(db, task))
    for r, _, qid, k1, k2, _ in rows:
        if r == rater:
            mine.add((qid, *sorted((k1, k2))) if kind == JudgmentKind.PAIRWISE else (qid, k1, k2))
    for r, rk, qid, k1, k2, _ in rows:
        item = (qid, *sorted((k1, k2))) if kind == JudgmentKind.PAIRWISE else (qid, k1, k2)
        if item in mine and _is_human(r, rk, True):
            shared.setdefault(r, set()).add(item)
    people = sum(not is_slot(r) for r in shared)
    return people, len(shared) - people


def _sentence(people: int, n_slots: int, slots: bool) -> str:
    """The one sentence about whom the rater is compared with."""
    named = _count(people, "named person", "named people")
    slot_words = _count(n_slots, "anonymous crowd slot", "anonymous crowd slots")
    if slots and not people:
        return (
            f"No named person labelled these items, so the annotators are {slot_words}: a slot "
            "is a position filled by different people, not a person, so the test compares "
            "the rater with slot positions of the crowd."
        )
    if slots:
        return (
            f"The annotators are {named} and {slot_words} (slots counted on request): a slot is "
            "a position filled by different people, not a person."
        )
    if n_slots and not people:
        return (
            f"No named person labelled these items, and the {slot_words} that did "
            f"{'is' if n_slots == 1 else 'are'} left out (not people; --include-slots counts "
            "them)."
        )
    if n_slots:
        return (
            f"The annotators are {named}; {slot_words} sharing these items "
            f"{'is' if n_slots == 1 else 'are'} left out (not people; --include-slots counts "
            "them)."
        )
    if not people:
        return "No human labelled these items."
    return f"The annotators are {named}."


def validation_labels(
    db: Database,
    rater: str,
    task: str = SIDE_BY_SIDE_TASK,
    include_slots: bool = False,
) -> tuple[dict[str, dict[Hashable, list[str]]], dict[Hashable, list[str]]]:
    """``(humans, rater_labels)``: human rater -> item -> ``[label]`` and item -> the rater's
    labels, built as the module docstring says (items keyed as tuples). Callers only read them
    (inside :func:`core.views.shared_reads.shared_reads` every caller gets the same dicts)."""
    return shared(
        ("labels", id(db), rater, task, include_slots),
        lambda: _validation_labels(db, rater, task, include_slots),
    )


def _validation_labels(
    db: Database, rater: str, task: str, include_slots: bool
) -> tuple[dict[str, dict[Hashable, list[str]]], dict[Hashable, list[str]]]:
    ts = task_scale(db, task)
    kind = ts.kind
    rows = _rows(db, ts)
    humans: dict[str, dict[Hashable, list[str]]] = {}
    mine: dict[Hashable, list[str]] = {}
    if kind != JudgmentKind.PAIRWISE:
        for r, rk, qid, system, criterion, verdict in rows:
            item = (qid, system, criterion)
            if r == rater:
                mine.setdefault(item, []).append(verdict)
            elif _is_human(r, rk, include_slots):
                humans.setdefault(r, {})[item] = [verdict]
        return humans, mine
    seen: dict[tuple[str, ...], set[str]] = {}
    for r, rk, qid, a, b, _ in rows:
        if _is_human(r, rk, include_slots):
            seen.setdefault((r, qid, *sorted((a, b))), set()).add(a)
    split = {(qid, s1, s2) for (_, qid, s1, s2), firsts in seen.items() if len(firsts) == 2}
    for r, rk, qid, a, b, verdict in rows:
        s1, s2 = sorted((a, b))
        order = ("ab" if a == s1 else "ba") if (qid, s1, s2) in split else "any"
        pair_item = (qid, s1, s2, order)
        label = canonical_label(a, b, verdict)
        if r == rater:
            mine.setdefault(pair_item, []).append(label)
        elif _is_human(r, rk, include_slots):
            humans.setdefault(r, {})[pair_item] = [label]
    return humans, mine


def auto_raters(db: Database, task: str) -> list[str]:
    """Auto-raters (``auto:`` raters) with effective verdicts of ``task``, sorted."""
    return sorted({r for r, rk, *_ in _rows(db, task_scale(db, task)) if rk == RaterKind.AUTO})


def rater_tasks(db: Database, rater: str) -> list[str]:
    """The tasks in which ``rater`` has effective verdicts (for a hint)."""
    return [t for t in validation_tasks(db) if rater in auto_raters(db, t)]


def result_json(
    rater: str, task: str, result: AltTestResult, who: Annotators, scale: str = "", metric: str = ""
) -> AltResult:
    """The CLI's JSON of an :class:`AltTestResult`: each person's ``advantage`` (the rater's,
    ``rho^f_j``) beside ``human_advantage`` (the person's own, ``rho^h_j``); ``annotators``
    (``people`` or ``anonymous slots``) and ``annotators_text``, the sentence of
    :func:`choose_annotators`."""
    return {
        "rater": rater,
        "task": task,
        "scale": scale,
        "metric": metric,
        "epsilon": result.epsilon,
        "q": result.q,
        "items": result.items,
        "humans": [
            {
                "name": h.name,
                "items": h.items,
                "advantage": h.advantage,
                "human_advantage": h.human_advantage,
                "p_value": h.p_value,
                "rejected": h.rejected,
            }
            for h in result.humans
        ],
        "winning_rate": result.winning_rate,
        "advantage_prob": result.advantage_prob,
        "passed": result.passed,
        "skipped": [{"name": n, "reason": why} for n, why in result.skipped],
        "annotators": who.kind,
        "annotators_text": who.sentence,
    }


def validate_or_why(
    db: Database,
    rater: str,
    task: str,
    epsilon: float,
    q: float,
    include_slots: bool | None,
    metric: str | None = None,
) -> tuple[AltResult | None, str, Short]:
    """:func:`validate_rater`'s result, or why there is none: ``(result, reason, short)``, with
    ``short`` the humans and items still needed when too few were labelled (a report section
    states the reason instead of failing)."""
    try:
        return validate_rater(db, rater, task, epsilon, q, include_slots, metric), "", {}
    except NotEnoughLabels as exc:
        short: Short = {"humans_needed": exc.humans_needed, "items_needed": dict(exc.items_needed)}
        return None, str(exc), short
    except InputError as exc:
        return None, str(exc), {}


def validate_rater(
    db: Database,
    rater: str,
    task: str = SIDE_BY_SIDE_TASK,
    epsilon: float = 0.2,
    q: float = 0.05,
    include_slots: bool | None = None,
    metric: str | None = None,
) -> AltResult:
    """The alt-test of ``rater`` against the humans of ``task`` chosen by
    :func:`choose_annotators`, as the CLI's JSON (see :func:`result_json`), the alignment being
    ``metric`` (default: the task's scale's). InputError for a rater without verdicts (naming
    the tasks it has verdicts in); NotEnoughLabels (an InputError) when too few humans or
    items."""
    ts = task_scale(db, task)
    chosen, alignment = alignment_of(ts, metric)
    if not rater.startswith("auto:"):
        raise InputError(f"--rater must be an auto-rater (auto:NAME), got {rater!r}")
    who = choose_annotators(db, rater, task, include_slots)
    humans, mine = validation_labels(db, rater, task, who.slots)
    if not mine:
        raise InputError(no_labels_message(db, rater, ts))
    left_out = {r for r, rk, *_ in _rows(db, ts) if rk == RaterKind.HUMAN and r not in humans}
    try:
        check_parameters(epsilon, q)  # before the table, as alt_test checks them
        table = shared_table(humans, mine, alignment)
        result = alt_test_on_table(table, epsilon=epsilon, q=q)
    except NotEnoughLabels as exc:
        raise NotEnoughLabels(
            f"{exc}. {who.sentence}", exc.humans_needed, exc.items_needed
        ) from None
    out = result_json(rater, task, result, who, ts.scale, chosen)
    out["skipped"] += [
        {"name": name, "reason": why} for name, why in DERIVED_RATERS.items() if name in left_out
    ]
    return out


def validation_items_needed(
    db: Database,
    rater: str,
    task: str = SIDE_BY_SIDE_TASK,
    *,
    epsilon: float = 0.2,
    q: float = 0.05,
    target: float = 0.9,
    n_sim: int = 100,
    seed: int = 0,
    include_slots: bool | None = None,
    metric: str | None = None,
) -> dict[str, Any]:
    """How many doubly-labelled items would make ``rater``'s alt-test decision hold
    (:func:`core.stats.alt_test_power.items_needed` on the labels of the humans
    :func:`choose_annotators` picks), with ``rater``, ``task``, ``annotators`` and
    ``annotators_text``; JSON-ready (the per-size maps keyed by the number of items as text)."""
    ts = task_scale(db, task)
    chosen, alignment = alignment_of(ts, metric)
    who = choose_annotators(db, rater, task, include_slots)
    humans, mine = validation_labels(db, rater, task, who.slots)
    if not mine:
        raise InputError(no_labels_message(db, rater, ts))
    try:
        out = items_needed(
            humans,
            mine,
            epsilon=epsilon,
            q=q,
            target=target,
            n_sim=n_sim,
            seed=seed,
            alignment=alignment,
        )
    except InputError as exc:  # too few labels: say whom the rater was compared with
        raise InputError(f"{exc}. {who.sentence}") from None
    for key in ("per_item_counts", "pass_probability", "stability", "decision"):
        out[key] = {str(n): v for n, v in out[key].items()}
    return {
        "rater": rater,
        "task": task,
        "scale": ts.scale,
        "metric": chosen,
        "annotators": who.kind,
        "annotators_text": who.sentence,
        **out,
    }


def no_labels_message(db: Database, rater: str, ts: TaskScale) -> str:
    """Why ``rater`` cannot be validated on ``ts``: it has none of its labels; the tasks it has
    labels in (``--task ...``) and the auto-raters that have this task's."""
    elsewhere = [t for t in rater_tasks(db, rater) if t != ts.task]
    known = auto_raters(db, ts.task)
    hint = ""
    if elsewhere:
        hint += f"; it has verdicts in task {', '.join(elsewhere)}: pass --task {elsewhere[0]}"
    if known:
        hint += f"; auto-raters with {_what(ts)}: {', '.join(known)}"
    return f"{rater} has no effective {_what(ts)}{hint}"

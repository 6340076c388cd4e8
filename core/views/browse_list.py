"""Browse page: every question as a row of a list, filtered, sorted and paged (pure reads).

A row says what a question is (origin, status, document), who answered it (systems) and who
judged it (people's and judges' verdicts), whether raters disagree and whether it has gold. The
filters narrow on all of these; a *unit* of agreement is one thing a verdict is about (a pair of
systems, or one system's answer, per criterion): people disagree when two people's effective
verdicts on a unit differ, and people and a judge disagree when an auto-rater's verdict differs
from the people's most common one. Gold: an adjudicated side-by-side pair, or a verdict by a
rater marked as a gold source.

Blind (:mod:`core.views.blind`): on a question with an item still in a blind viewer's queue only
the viewer's own verdicts count, and its status and systems read as hidden.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from core.annotation.pairwise import split_pair_key
from core.annotation.task_names import SIDE_BY_SIDE_TASK
from core.store.adjudications import effective_adjudications
from core.store.answers import systems_by_question
from core.store.gold_sources import active_gold_sources
from core.store.judgments import JudgmentKind, JudgmentStatus, RaterKind, effective_values
from core.store.questions import find_question_ids, questions_by_id
from core.views.blind import HIDDEN_STATUS, open_questions
from core.views.review import question_filters

if TYPE_CHECKING:
    from core.store.engine import Database

#: The rater filter's two kinds (any other value is one rater's name).
PEOPLE, JUDGES = "people", "auto-raters"
#: The disagreement filter's values.
PEOPLE_VS_PEOPLE, PEOPLE_VS_JUDGE = "people vs people", "people vs judge"
#: The sort orders, the first the default (questions with the most verdicts first).
SORTS = ("most verdicts", "disagreements first", "question id", "newest")
PAGE_SIZE = 25
#: The judgment columns read, in the order the helpers index them (j[0] ... j[8]).
_COLUMNS = (
    "question_id",
    "rater",
    "rater_kind",
    "kind",
    "criterion",
    "system_a",
    "system_b",
    "system",
    "verdict",
)


@dataclass(frozen=True, slots=True)
class BrowseFilters:
    """What the Browse list is narrowed to (None: any). ``rater``: :data:`PEOPLE`,
    :data:`JUDGES` or a rater's name; ``disagreement``: :data:`PEOPLE_VS_PEOPLE` or
    :data:`PEOPLE_VS_JUDGE`; ``gold``: with (True) or without (False) gold."""

    status: str | None = None
    origin: str | None = None
    document_id: str | None = None
    system: str | None = None
    rater: str | None = None
    verdict: str | None = None
    disagreement: str | None = None
    gold: bool | None = None
    search: str = ""
    sort: str = SORTS[0]


class BrowseRow(TypedDict):
    """One question of the list, as the page shows it."""

    id: str
    question: str
    origin: str
    status: str
    document: str
    systems: str
    people: int
    judges: int
    disagreement: str
    gold: str
    created: str


class Choices(TypedDict):
    """The values each filter offers (``verdicts``: labels, ``tie``, ``neither``, then the
    systems: a side-by-side verdict for that system)."""

    statuses: list[str]
    origins: list[str]
    documents: list[tuple[str, str]]
    systems: list[str]
    raters: list[str]
    verdicts: list[str]


def _winner(j: tuple[Any, ...]) -> str:
    """What a verdict chose: the winning system of a pair, ``tie``, ``neither``, or the label."""
    verdict = str(j[8])
    if j[3] == JudgmentKind.PAIRWISE:
        return {"A": str(j[5]), "B": str(j[6]), "Equal": "tie"}.get(verdict, "neither")
    return verdict


def _unit(j: tuple[Any, ...]) -> tuple[str, ...]:
    """What a verdict is about: kind, criterion and the pair (unordered) or the system."""
    pair = sorted((str(j[5] or ""), str(j[6] or "")))
    return (str(j[3]), str(j[4] or ""), *pair, str(j[7] or ""))


def _disagreement(found: list[tuple[Any, ...]]) -> set[str]:
    """Which of :data:`PEOPLE_VS_PEOPLE` and :data:`PEOPLE_VS_JUDGE` hold in one question's
    verdicts (effective ones: the last of each rater per unit)."""
    units: dict[tuple[str, ...], dict[str, tuple[str, str]]] = {}
    for j in found:
        units.setdefault(_unit(j), {})[str(j[1])] = (str(j[2]), _winner(j))
    out = set()
    for by_rater in units.values():
        people = [w for kind, w in by_rater.values() if kind == RaterKind.HUMAN]
        judges = [w for kind, w in by_rater.values() if kind != RaterKind.HUMAN]
        if len(set(people)) > 1:
            out.add(PEOPLE_VS_PEOPLE)
        if people and any(w != Counter(people).most_common(1)[0][0] for w in judges):
            out.add(PEOPLE_VS_JUDGE)
    return out


def _rater_matches(j: tuple[Any, ...], rater: str | None) -> bool:
    if rater is None:
        return True
    if rater == PEOPLE:
        return bool(j[2] == RaterKind.HUMAN)
    if rater == JUDGES:
        return bool(j[2] != RaterKind.HUMAN)
    return bool(j[1] == rater)


def _gold_questions(db: Database, found: list[tuple[Any, ...]]) -> set[str]:
    """Questions with an adjudicated side-by-side pair or a verdict by a gold-source rater."""
    out = {split_pair_key(a.item_key)[0] for a in effective_adjudications(db, SIDE_BY_SIDE_TASK)}
    sources = {g.rater for g in active_gold_sources(db)}
    return out | {str(j[0]) for j in found if j[1] in sources}


def _cut(text: str, n: int = 120) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1] + "…"


def browse_rows(
    db: Database, filters: BrowseFilters, viewer: str | None = None, role: str | None = None
) -> list[BrowseRow]:
    """Every question matching ``filters``, as ``viewer`` of ``role`` may see it, sorted."""
    ids = find_question_ids(
        db,
        {"status": filters.status, "origin": filters.origin, "document_id": filters.document_id},
        filters.search,
    )
    questions = questions_by_id(db, ids)
    titles = dict(question_filters(db)["documents"])
    systems = systems_by_question(db)
    held = open_questions(db, viewer, role)
    own = f"human:{viewer}"
    found = [
        j
        for j in effective_values(db, _COLUMNS, status=JudgmentStatus.OK, with_verdict=True)
        if j[0] not in held or j[1] == own
    ]
    gold = _gold_questions(db, found)
    by_question: dict[str, list[tuple[Any, ...]]] = {}
    for j in found:
        by_question.setdefault(str(j[0]), []).append(j)
    out: list[BrowseRow] = []
    for qid in ids:
        q, js = questions[qid], by_question.get(qid, [])
        shown_systems = [] if qid in held else systems.get(qid, [])
        split = _disagreement(js)
        chosen = [j for j in js if _rater_matches(j, filters.rater)]
        if filters.rater is not None and not chosen:
            continue
        if filters.verdict is not None and filters.verdict not in {_winner(j) for j in chosen}:
            continue
        named = set(shown_systems) | {str(s) for j in js for s in j[5:8] if s}
        if filters.system is not None and (qid in held or filters.system not in named):
            continue
        if filters.disagreement is not None and filters.disagreement not in split:
            continue
        if filters.gold is not None and (qid in gold) != filters.gold:
            continue
        people = sum(1 for j in js if j[2] == RaterKind.HUMAN)
        out.append(
            {
                "id": qid,
                "question": _cut(q.question),
                "origin": str(q.origin),
                "status": HIDDEN_STATUS if qid in held else str(q.status),
                "document": titles.get(q.document_id or "", q.document_id or ""),
                "systems": ", ".join(shown_systems),
                "people": people,
                "judges": len(js) - people,
                "disagreement": ", ".join(sorted(split)),
                "gold": "yes" if qid in gold else "",
                "created": q.created_at,
            }
        )
    return sort_rows(out, filters.sort)


def sort_rows(rows: list[BrowseRow], sort: str) -> list[BrowseRow]:
    """``rows`` in one of the :data:`SORTS` orders (ties by question id)."""
    by_id = sorted(rows, key=lambda r: r["id"])
    if sort == "most verdicts":
        return sorted(by_id, key=lambda r: -(r["people"] + r["judges"]))
    if sort == "disagreements first":
        return sorted(by_id, key=lambda r: (not r["disagreement"], -(r["people"] + r["judges"])))
    if sort == "newest":
        return sorted(by_id, key=lambda r: r["created"], reverse=True)
    return by_id


def browse_choices(db: Database) -> Choices:
    """What each filter offers: statuses, origins, documents, systems, raters, verdicts."""
    opts = question_filters(db)
    found = effective_values(
        db, ("rater", "kind", "system_a", "system_b", "verdict"), status=JudgmentStatus.OK
    )
    systems = {s for names in systems_by_question(db).values() for s in names}
    systems |= {str(s) for r in found for s in r[2:4] if s}
    verdicts = {str(v) for r in found if r[1] != JudgmentKind.PAIRWISE and (v := r[4]) is not None}
    return {
        "statuses": [str(s) for s in opts["statuses"]],
        "origins": [str(o) for o in opts["origins"]],
        "documents": opts["documents"],
        "systems": sorted(systems),
        "raters": sorted({str(r[0]) for r in found}),
        "verdicts": [*sorted(verdicts - systems), "tie", "neither", *sorted(systems)],
    }


def page_of(rows: list[BrowseRow], page: int, size: int = PAGE_SIZE) -> list[BrowseRow]:
    """Rows of the 1-based ``page`` of ``size`` rows (the last page when ``page`` is past it)."""
    last = max(1, -(-len(rows) // size))
    start = (min(max(page, 1), last) - 1) * size
    return rows[start : start + size]


def table_rows(
    rows: Sequence[Mapping[str, object]], columns: tuple[str, ...] | None = None
) -> list[dict[str, object]]:
    """``rows`` (only ``columns``, when given) for a table: a missing value (None) as an empty
    cell, never the word ``None`` (a table's cells: any value a data frame shows)."""
    return [
        {k: "" if v is None else v for k, v in r.items() if columns is None or k in columns}
        for r in rows
    ]

"""Table ``judgments``: the only module with SQL on it.

Judgments are append-only (triggers abort UPDATE and DELETE): a changed verdict is a new row whose
``supersedes`` names the old one, and :func:`effective_judgments` is the one reader of the rows no
later row supersedes. A new row is a :class:`NewJudgment` (the one constructor of a judgment);
a stored row comes back as a :class:`Judgment` (``evidence`` decoded as a list). The
statements are SQLAlchemy Core, built once in :mod:`core.store.judgment_queries` (issue 33):
nothing here is translated for PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from functools import cache
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.store.connection import dumps, transaction, utcnow
from core.store.judgment_queries import (
    BY_ID,
    HUMAN_OF_QUESTION,
    HUMANS,
    IMPORTED_HUMANS,
    INSERT,
    LAST_PAIRWISE,
    MAX_ID,
    OF_QUESTION,
    OWN_PAIRWISE,
    PAIRWISE_RATERS,
    PAIRWISE_RATERS_OF_KIND,
    QUESTION_ROWS,
    RATER_KINDS,
    after_query,
    effective_select,
)
from core.store.prepared import bound_rows, bound_rows_later, run_bound, scalar, scalar_later
from core.store.row_stage import RowStage, staged_value, switch_rows
from core.store.statements import run_many
from core.store.tables import answers, judgments
from core.vocabulary import AbsoluteVerdict as AbsoluteVerdict  # defined in the leaf: no cycle
from core.vocabulary import JudgmentKind as JudgmentKind
from core.vocabulary import JudgmentStatus as JudgmentStatus
from core.vocabulary import PairwiseVerdict as PairwiseVerdict
from core.vocabulary import RaterKind as RaterKind

if TYPE_CHECKING:
    from core.store.engine import Database


@dataclass(frozen=True, slots=True, kw_only=True)
class NewJudgment:
    """A judgment to append (every column but ``id``): absolute rows name ``system`` and
    ``answer_id``, pairwise rows the systems as shown (``system_a`` first) and ``order_shown``.
    ``verdict`` is None for a reply that could not be parsed, a failure, a skip or an undo."""

    kind: JudgmentKind
    question_id: str
    rater: str
    rater_kind: RaterKind
    criterion: str = ""
    system: str | None = None
    answer_id: int | None = None
    system_a: str | None = None
    system_b: str | None = None
    answer_a_id: int | None = None
    answer_b_id: int | None = None
    order_shown: str = ""
    verdict: str | None = None
    status: JudgmentStatus = JudgmentStatus.OK
    evidence: list[dict[str, Any]] = field(default_factory=list)
    rationale: str = ""
    raw: str = ""
    prompt_hash: str = ""
    context_kind: str = ""
    run_id: str | None = None
    supersedes: int | None = None
    created_at: str = field(default_factory=utcnow)

    def row(self) -> dict[str, Any]:
        """The columns to insert (``evidence`` JSON-encoded, enums as their text)."""
        out = {name: getattr(self, name) for name in _new_judgment_fields()}
        out["evidence"] = dumps(self.evidence)
        for key in ("kind", "rater_kind", "status"):
            out[key] = str(out[key])
        if out["verdict"] is not None:
            out["verdict"] = str(out["verdict"])
        return out


@cache
def _new_judgment_fields() -> tuple[str, ...]:
    """The names of :class:`NewJudgment`'s fields (``dataclasses.fields`` once, not per row)."""
    return tuple(f.name for f in fields(NewJudgment))


@dataclass(frozen=True, slots=True, kw_only=True)
class Judgment(NewJudgment):
    """A stored judgment row."""

    id: int

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """The record of a decoded ``judgments`` row (every column)."""
        values = {name: row[name] for name in _new_judgment_fields()}
        evidence = row["evidence"]
        values.update(
            kind=JudgmentKind(row["kind"]),
            rater_kind=RaterKind(row["rater_kind"]),
            status=JudgmentStatus(row["status"]),
            evidence=evidence if isinstance(evidence, list) else [],
        )
        return cls(id=int(row["id"]), **values)

    def withdrawal(self) -> NewJudgment:
        """The row that withdraws this one (an undo): the same item and rater, status
        ``withdrawn``, no verdict, ``supersedes`` this id (judgments are append-only)."""
        same = (
            "kind question_id rater rater_kind criterion system answer_id system_a system_b "
            "answer_a_id answer_b_id order_shown context_kind"
        ).split()
        return NewJudgment(
            **{k: getattr(self, k) for k in same},
            status=JudgmentStatus.WITHDRAWN,
            rationale="undo",
            supersedes=self.id,
        )


def effective_judgments(
    db: Database,
    *,
    kind: str | None = None,
    rater: str | None = None,
    raters: Sequence[str] | None = None,
    rater_kind: str | None = None,
    criterion: str | None = None,
    status: str | None = None,
    with_verdict: bool = False,
    question_id: str | None = None,
    document_id: str | None = None,
) -> list[Judgment]:
    """The effective (not superseded) judgments matching every given filter, in id order.

    ``raters``: any of these raters; ``with_verdict``: only rows with a non-null verdict;
    ``document_id``: only judgments of that document's questions.
    """
    query, values = effective_select(
        None,
        kind=kind,
        rater=rater,
        raters=raters,
        rater_kind=rater_kind,
        criterion=criterion,
        status=status,
        with_verdict=with_verdict,
        question_id=question_id,
        document_id=document_id,
    )
    return [Judgment.from_row(r) for r in bound_rows(db, query, values)]


def effective_values(db: Database, columns: Sequence[str], **filters: Any) -> list[tuple[Any, ...]]:
    """The plain ``columns`` (nothing decoded) of the judgments :func:`effective_judgments`
    returns for the same keyword ``filters``, as tuples in id order: the narrow read of the
    hot paths (queues, leaderboards)."""
    query, values = effective_select(columns, **filters)
    return [tuple(r) for r in run_bound(db, query, values).fetchall()]


def question_judgments(db: Database, question_id: str) -> list[tuple[Judgment, bool]]:
    """Every judgment of a question (superseded ones too) with whether it is superseded, by
    kind, rater and id."""
    found = bound_rows(db, QUESTION_ROWS, {"question_id": question_id})
    return [(Judgment.from_row(r), bool(r["superseded"])) for r in found]


def get_judgment(db: Database, judgment_id: int) -> Judgment | None:
    """One judgment by id (or None)."""
    found = bound_rows(db, BY_ID, {"id": judgment_id})
    return Judgment.from_row(found[0]) if found else None


def insert_judgment(db: Database, new: NewJudgment) -> int:
    """Append one judgment; returns its id."""
    return int(scalar(db, INSERT, new.row()) or 0)


def insert_judgment_later(db: Database, new: NewJudgment) -> Callable[[], int]:
    """:func:`insert_judgment` as a transaction's last statement: on PostgreSQL sent with its
    ``COMMIT``, in one round trip (:func:`core.store.prepared.scalar_later`); call the result
    for the new id once the transaction has ended."""
    new_id = scalar_later(db, INSERT, new.row())
    return lambda: int(new_id() or 0)


def pairwise_raters(db: Database, rater_kind: str | None = None) -> list[str]:
    """Raters with a parsed pairwise verdict (optionally only of ``rater_kind``), sorted."""
    if rater_kind is None:
        return [r[0] for r in run_bound(db, PAIRWISE_RATERS)]
    return [r[0] for r in run_bound(db, PAIRWISE_RATERS_OF_KIND, {"rater_kind": rater_kind})]


def max_judgment_id(db: Database) -> int:
    """The largest judgment id (0 when empty): grows whenever a judgment is appended, so it is
    the judgments' cache fingerprint."""
    return int(scalar(db, MAX_ID))


def own_pairwise_label(
    db: Database, rater: str, question_id: str, system_1: str, system_2: str
) -> Judgment | None:
    """``rater``'s effective pairwise row on the question's pair of systems (shown in either
    order; any status): the row their next label on that item supersedes. None when none."""
    return own_pairwise_label_later(db, rater, question_id, system_1, system_2)()


def own_pairwise_label_later(
    db: Database, rater: str, question_id: str, system_1: str, system_2: str
) -> Callable[[], Judgment | None]:
    """:func:`own_pairwise_label`, its statement sent with the connection's next one on
    PostgreSQL (:func:`core.store.prepared.bound_rows_later`); call the result for the row."""
    values = {"question_id": question_id, "one": system_1, "two": system_2, "rater": rater}
    found = bound_rows_later(db, OWN_PAIRWISE, values)

    def own() -> Judgment | None:
        rows = found()
        return Judgment.from_row(rows[0]) if rows else None

    return own


def last_pairwise_label(db: Database, rater: str) -> Judgment | None:
    """``rater``'s latest effective pairwise verdict or skip (status ``ok`` or ``skipped``) given
    in the app (``context_kind`` ``human``; an imported verdict is never withdrawn by an undo):
    what an undo withdraws. None when there is none."""
    found = bound_rows(db, LAST_PAIRWISE, {"rater": rater})
    return Judgment.from_row(found[0]) if found else None


def pairwise_rater_kinds(db: Database) -> list[tuple[str, str]]:
    """(rater, rater kind) of every rater with a parsed pairwise verdict, sorted by rater."""
    return [(r[0], r[1]) for r in run_bound(db, RATER_KINDS)]


def human_raters(db: Database) -> list[str]:
    """Every rater of kind ``human`` with a stored judgment (any kind or status), sorted."""
    return [r[0] for r in run_bound(db, HUMANS)]


def question_judgment_count(db: Database, question_id: str, *, human_only: bool = False) -> int:
    """How many judgment rows (superseded ones too) a question has; ``human_only``: only those
    of raters named ``human:...``."""
    query = HUMAN_OF_QUESTION if human_only else OF_QUESTION
    return int(scalar(db, query, {"question_id": question_id}))


def insert_judgments(db: Database, new: Sequence[NewJudgment], batch_size: int = 500) -> None:
    """Append judgments (``batch_size`` rows per ``executemany``, each batch atomic)."""
    size = max(1, batch_size)
    for start in range(0, len(new), size):
        with transaction(db):
            run_many(db, sa.insert(judgments), [j.row() for j in new[start : start + size]])


def imported_human_raters(db: Database) -> dict[str, int]:
    """Human raters with verdicts imported from a file (``raw`` names the file: see
    :mod:`core.corpus.evaluations`), sorted, each with how many rows it has; not people who
    labelled in the app."""
    return {r[0]: int(r[1]) for r in run_bound(db, IMPORTED_HUMANS)}


def judgments_after(db: Database, after_id: int, columns: Sequence[str]) -> list[tuple[Any, ...]]:
    """Every judgment row (effective or not) with an id above ``after_id``: the plain
    ``columns`` only, as tuples."""
    return [tuple(r) for r in run_bound(db, after_query(tuple(columns)), {"after": after_id})]


def switch_staged_judgments(db: Database, stage: RowStage) -> int:
    """Append the staged judgment rows (:mod:`core.store.row_stage`); a null answer id is filled
    with the stored answer of that question and system (as shown), if any. Returns how many."""

    def answer(system: str) -> sa.ColumnElement[Any]:
        return (
            sa.select(sa.func.max(answers.c.id))
            .where(
                answers.c.question_id == staged_value("question_id"),
                answers.c.system == staged_value(system),
            )
            .scalar_subquery()
        )

    fill = {"answer_id": answer("system"), "answer_a_id": answer("system_a")}
    fill["answer_b_id"] = answer("system_b")
    return switch_rows(db, stage, {c: e for c, e in fill.items() if c in stage.columns})

"""Counts of table ``judgments`` for the Overview and the importers (SQL on it besides
:mod:`core.store.judgments`): judgments and unparsed replies per rater, the judge models named,
verdicts imported per file."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import sqlalchemy as sa

from core.store.judgments import JudgmentStatus
from core.store.statements import json_text, run
from core.store.tables import judgments

if TYPE_CHECKING:
    from core.store.engine import Database


@dataclass(frozen=True, slots=True)
class RaterSummary:
    """One rater's stored judgments of one kind and how many of them are unparsed replies."""

    rater_kind: str
    kind: str
    rater: str
    judgments: int
    unparsed: int


def summary_by_rater(db: Database) -> list[RaterSummary]:
    """Per (rater kind, kind, rater): judgments and unparsed replies (withdrawn rows left out)."""
    j = judgments
    keys = (j.c.rater_kind, j.c.kind, j.c.rater)
    unparsed = sa.func.sum(sa.case((j.c.status == JudgmentStatus.UNPARSED, 1), else_=0))
    query = (
        sa.select(*keys, sa.func.count(), unparsed)
        .where(j.c.status != JudgmentStatus.WITHDRAWN)
        .group_by(*keys)
        .order_by(*keys)
    )
    return [RaterSummary(r[0], r[1], r[2], int(r[3]), int(r[4])) for r in run(db, query).fetchall()]


def count_judgments(db: Database, status: str | None = None) -> int:
    """Number of stored judgments (optionally only of ``status``)."""
    query = sa.select(sa.func.count()).select_from(judgments)
    if status is not None:
        query = query.where(judgments.c.status == status)
    return int(run(db, query).fetchone()[0])


def judge_models(db: Database) -> set[str]:
    """Model ids named by auto-raters (``auto:<provider>:<model>`` -> ``<provider>:<model>``)."""
    model = sa.func.substr(judgments.c.rater, 6)
    query = sa.select(model).distinct().where(judgments.c.rater.like("auto:%:%"))
    return {r[0] for r in run(db, query).fetchall() if r[0]}


def imported_verdict_counts(db: Database) -> dict[str, int]:
    """Per source file named in ``raw.file`` (verdicts imported from files): their number."""
    raw = judgments.c.raw
    source = json_text(raw, "file")
    query = (
        sa.select(source, sa.func.count())
        .where(raw.like('{"file"%'), sa.func.json_valid(raw))
        .group_by(source)
    )
    return {r[0]: int(r[1]) for r in run(db, query).fetchall()}

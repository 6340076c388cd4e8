"""Counts of table ``judgments`` for the Overview and the importers (SQL on it besides
:mod:`core.store.judgments`): judgments and unparsed replies per rater, the judge models named,
verdicts imported per file."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

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
    return [
        RaterSummary(r[0], r[1], r[2], int(r[3]), int(r[4]))
        for r in db.execute(
            "select rater_kind, kind, rater, count(*), sum(status = 'unparsed') from judgments "
            "where status != 'withdrawn' group by 1, 2, 3 order by 1, 2, 3"
        )
    ]


def count_judgments(db: Database, status: str | None = None) -> int:
    """Number of stored judgments (optionally only of ``status``)."""
    if status is None:
        return int(db.execute("select count(*) from judgments").fetchone()[0])
    return int(
        db.execute("select count(*) from judgments where status = ?", [status]).fetchone()[0]
    )


def judge_models(db: Database) -> set[str]:
    """Model ids named by auto-raters (``auto:<provider>:<model>`` -> ``<provider>:<model>``)."""
    return {
        r[0]
        for r in db.execute(
            "select distinct substr(rater, 6) from judgments where rater like 'auto:%:%'"
        )
        if r[0]
    }


def imported_verdict_counts(db: Database) -> dict[str, int]:
    """Per source file named in ``raw.file`` (verdicts imported from files): their number."""
    return {
        r[0]: int(r[1])
        for r in db.execute(
            "select json_extract(raw, '$.file'), count(*) from judgments "
            "where raw like '{\"file\"%' and json_valid(raw) group by 1"
        )
    }

"""What the EXAM page shows around :mod:`core.views.exam`: undefined SEs and the book correlation.

EXAM's standard error is taken over queries (``sd(EXAM_s(q)) / sqrt(|Q|)``, see
:mod:`core.exam.scores`); a run over a single query (a book) has no such SE, and
:func:`core.exam.scores.mean_se` returns 0 for it, which would show a 95% interval collapsed to a
point. :func:`exam_leaderboard` shows those cells as undefined instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

import pandas as pd

from core.store.exam_bank import run_query_ids
from core.views.exam import (
    book_correlation_frame,
    book_systems_frame,
    leaderboard_frame,
)

if TYPE_CHECKING:
    from core.store.engine import Database

UNDEFINED = "–"
SE_COLUMNS = ("EXAM SE", "EXAM 95% low", "EXAM 95% high", "n-EXAM (gold) SE", "n-EXAM (pool) SE")
BINOMIAL_SE = "EXAM SE (per question, binomial)"


def exam_leaderboard(db: Database, run_id: str) -> tuple[pd.DataFrame, str]:
    """:func:`core.views.exam.leaderboard_frame` and a caption.

    With one query the across-query SE and its interval are undefined: those columns show
    ``UNDEFINED`` and the caption says why.
    """

    frame = leaderboard_frame(db, run_id)
    if frame.empty or int(frame["queries"].max()) > 1:
        return frame, (
            "EXAM SE: standard error over queries; intervals are mean ± 1.96 SE (normal, 95%)."
        )
    frame = frame.copy()
    for col in SE_COLUMNS:
        if col in frame.columns:
            frame[col] = UNDEFINED
    return frame, (
        "This run has a single query, so the standard error over queries (and its "
        f"95% interval) is undefined ({UNDEFINED}). For a book, the rank-correlation "
        "section below shows a per-question binomial SE, sqrt(p(1-p)/n) over the "
        "book's exam questions."
    )


class BookCorrelation(TypedDict):
    """EXAM vs side-by-side on single books (:func:`book_correlation`)."""

    books: dict[str, str]  # book id -> title
    document_id: str | None  # the book shown
    correlations: pd.DataFrame
    systems: pd.DataFrame
    caption: str


def book_correlation(db: Database, document_id: str | None = None) -> BookCorrelation:
    """EXAM vs side-by-side (Bradley-Terry) on single books, for the Rank correlation section.

    ``{"books": {id: title}, "correlations": frame, "systems": frame, "caption": str}``; the
    systems frame's EXAM SE is the per-question binomial SE (one query), labelled so. Empty frames
    when nothing is stored.
    """

    every = book_correlation_frame(db)
    books = {r["book"]: (r["title"] or r["book"]) for r in every.to_dict("records")}
    if document_id is None and books:
        document_id = next(iter(books))  # the newest correlation's book
    corr = book_correlation_frame(db, document_id) if document_id else every
    first = [
        "title",
        "Spearman",
        "Kendall tau",
        "Spearman (SE ties)",
        "Kendall tau (SE ties)",
        "systems",
        "questions",
        "judgments",
        "decisive judgments",
        "side-by-side rater",
    ]
    corr = corr[[*first, *(c for c in corr.columns if c not in first)]]
    systems = book_systems_frame(db, document_id) if document_id else book_systems_frame(db)
    systems = systems.rename(columns={"EXAM SE": BINOMIAL_SE})
    caption = ""
    if len(corr):
        top = corr.iloc[0]
        caption = (
            f"Rank correlation of the EXAM leaderboard (share of the book's generated "
            f"questions each system's overview answers) with the Bradley-Terry ranking "
            f"from side-by-side verdicts on the same book: {int(top['systems'])} systems, "
            f"{int(top['questions'])} exam questions, {int(top['judgments'])} side-by-side "
            f"judgments ({int(top['decisive judgments'])} decisive). Ties within one SE "
            "are broken at random. In the demo every answer, question and verdict comes "
            "from offline baselines (no language model) and n is small: this shows how "
            "the comparison works, not evidence that EXAM agrees with side-by-side "
            "judging."
        )
    return {
        "books": books,
        "document_id": document_id,
        "correlations": corr,
        "systems": systems,
        "caption": caption,
    }


def exam_query_ids(db: Database, run_id: str) -> list[str]:
    """The query ids of an EXAM run's bank."""
    return run_query_ids(db, run_id)

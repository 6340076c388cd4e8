"""EXAM vs. side-by-side on one book: the stored rank correlations (core.exam.book_case).

One row per (book, EXAM run, side-by-side rater): Spearman and Kendall tau-b of the EXAM
leaderboard with the Bradley-Terry ranking of the same systems, plain and with systems within one
standard error tied (ties broken at random, ``repeats`` seeded draws averaged), and per system
the scores behind them (``systems``: JSON list of {system, strategy, tokens, exam, exam_se, bt,
bt_se}).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

SCHEMA = """
create table exam_book_correlations (
    id integer primary key,
    document_id text not null references documents(id) on delete cascade,
    exam_run_id text not null references exam_runs(id) on delete cascade,
    experiment text not null,          -- the side-by-side experiment (experiments.name)
    rater text not null,               -- the pairwise rater behind the Bradley-Terry fit
    n_systems integer not null,
    n_questions integer not null,
    spearman real,
    kendall real,
    spearman_ties real,                -- 1-SE tie rule, random tie-breaks averaged
    kendall_ties real,
    repeats integer,
    seed integer,
    n_judgments integer,               -- parsed pairwise verdicts behind the fit (None included)
    n_decisive integer,                -- of which A, B or Equal (None carries no preference)
    bt_estimate text not null default '',   -- maximum likelihood | MAP with a weak prior (...)
    systems text not null default '[]',
    created_at text not null,
    unique (document_id, exam_run_id, rater)
);
"""


def apply(db: Database) -> None:
    """Create the table of stored EXAM-vs-Bradley-Terry correlations."""
    execute_script(db, SCHEMA)

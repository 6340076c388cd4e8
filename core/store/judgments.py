"""Table ``judgments``: the only module with SQL on it.

Judgments are append-only (triggers abort UPDATE and DELETE): a changed verdict is a new row whose
``supersedes`` names the old one, and :func:`effective_judgments` is the one reader of the rows no
later row supersedes. Rows come back decoded (``evidence`` as a list) by
:func:`core.store.connection.rows`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from core.store.connection import placeholders, rows
from core.store.row_stage import RowStage, staged, switch_rows
from core.store.schema import not_superseded

if TYPE_CHECKING:
    from core.store.engine import Database

_COLUMN = re.compile(r"^[a-z_]+$")


def _columns(columns: Sequence[str] | None) -> str:
    if columns is None:
        return "j.*"
    for c in columns:
        if not _COLUMN.match(c):
            raise ValueError(f"not a judgments column: {c!r}")
    return ", ".join(f"j.{c}" for c in columns)


def effective_query(
    columns: Sequence[str] | None,
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
    ordered: bool = True,
) -> tuple[str, list[Any]]:
    """The SQL and parameters of :func:`effective_judgments` (also the inner query of
    :func:`core.store.verdict_reads.verdict_summary`, with ``ordered=False``: no ``order by``)."""
    where = [not_superseded("judgments", "j")]
    params: list[Any] = []
    for col, value in (
        ("j.kind", kind),
        ("j.rater", rater),
        ("j.rater_kind", rater_kind),
        ("j.criterion", criterion),
        ("j.status", status),
        ("j.question_id", question_id),
    ):
        if value is not None:
            where.append(f"{col} = ?")
            params.append(value)
    if raters is not None:
        where.append(f"j.rater in ({placeholders(raters)})")
        params.extend(raters)
    if with_verdict:
        where.append("j.verdict is not null")
    if document_id is not None:
        where.append("j.question_id in (select id from questions where document_id = ?)")
        params.append(document_id)
    sql = f"select {_columns(columns)} from judgments j where {' and '.join(where)}"
    return (sql + " order by j.id" if ordered else sql), params


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
    columns: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """The effective (not superseded) judgments matching every given filter, in id order.

    ``raters``: any of these raters; ``with_verdict``: only rows with a non-null verdict;
    ``document_id``: only judgments of that document's questions; ``columns``: the columns to
    return (default all).
    """
    sql, params = effective_query(
        columns,
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
    return rows(db, sql, params)


def question_judgments(db: Database, question_id: str) -> list[dict[str, Any]]:
    """Every judgment of a question (superseded ones too, flagged ``superseded``), by kind,
    rater and id."""
    return rows(
        db,
        f"select j.*, not {not_superseded('judgments', 'j')} as superseded from judgments j "
        "where question_id = ? order by kind, rater, id",
        [question_id],
    )


def get_judgment(
    db: Database, judgment_id: int, columns: Sequence[str] | None = None
) -> dict[str, Any] | None:
    """One judgment by id (or None)."""
    found = rows(db, f"select {_columns(columns)} from judgments j where id = ?", [judgment_id])
    return found[0] if found else None


def insert_judgment(db: Database, row: dict[str, Any]) -> int:
    """Append one judgment row; returns its id."""
    return int(db.table("judgments").insert(row).last_pk or 0)


def judged_answer_ids(db: Database, rater: str) -> set[int]:
    """Answer ids ``rater`` judged (absolute) without an error."""
    return {
        int(r[0])
        for r in db.execute(
            "select answer_id from judgments where rater = ? and kind = 'absolute' "
            "and status != 'error'",
            [rater],
        )
    }


def judged_pairs(db: Database, rater: str) -> set[tuple[str, str, str]]:
    """(question id, system A, system B) ``rater`` judged side by side without an error."""
    return {
        (r[0], r[1], r[2])
        for r in db.execute(
            "select question_id, system_a, system_b from judgments where rater = ? "
            "and kind = 'pairwise' and status != 'error'",
            [rater],
        )
    }


def last_error_id(
    db: Database,
    rater: str,
    *,
    answer_id: int | None = None,
    pair: tuple[str, str, str] | None = None,
) -> int | None:
    """Id of ``rater``'s latest failed judgment of an answer (or of a (question, A, B) pair):
    the row a retry supersedes."""
    params: list[Any]
    if pair is not None:
        where, params = "question_id = ? and system_a = ? and system_b = ?", list(pair)
    else:
        where, params = "answer_id = ?", [answer_id]
    found = db.execute(
        f"select max(id) from judgments where rater = ? and status = 'error' and {where}",
        [rater, *params],
    ).fetchone()[0]
    return None if found is None else int(found)


def stored_call_counts(
    db: Database, rater: str, kind: str, systems: Sequence[str]
) -> dict[str, int]:
    """Per question: ``rater``'s judgments of ``kind`` stored without error on ``systems``
    (pairwise: both systems among them)."""
    marks = placeholders(systems)
    if kind == "pairwise":
        cond = f"system_a in ({marks}) and system_b in ({marks})"
        params = [rater, kind, *systems, *systems]
    else:
        cond = f"system in ({marks})"
        params = [rater, kind, *systems]
    sql = (
        "select question_id, count(*) from judgments where rater = ? and kind = ? and "
        f"status != 'error' and {cond} group by question_id"
    )
    return {r[0]: int(r[1]) for r in db.execute(sql, params)}


def pairwise_raters(db: Database, rater_kind: str | None = None) -> list[str]:
    """Raters with a parsed pairwise verdict (optionally only of ``rater_kind``), sorted."""
    cond = "" if rater_kind is None else " and rater_kind = ?"
    return [
        r[0]
        for r in db.execute(
            f"select distinct rater from judgments where kind = 'pairwise' and status = 'ok'{cond} "
            "order by 1",
            [] if rater_kind is None else [rater_kind],
        )
    ]


def latest_verdicts(
    db: Database, criterion: str, *, rater: str | None = None, rater_prefix: str = ""
) -> dict[tuple[str, str], str]:
    """(question id, system) -> the latest non-null verdict on ``criterion`` by ``rater`` (or by
    any rater whose name starts with ``rater_prefix``)."""
    params: list[Any]
    if rater is not None:
        cond, params = "rater = ?", [rater]
    else:
        cond, params = "substr(rater, 1, ?) = ?", [len(rater_prefix), rater_prefix]
    got: dict[tuple[str, str], str] = {}
    for r in db.execute(
        "select question_id, system, verdict from judgments where criterion = ? and verdict is "
        f"not null and {cond} order by id",
        [criterion, *params],
    ):
        got[(r[0], r[1])] = r[2]
    return got


def summary_by_rater(db: Database) -> list[dict[str, Any]]:
    """Per (rater kind, kind, rater): judgments and unparsed replies (withdrawn rows left out)."""
    return rows(
        db,
        "select rater_kind, kind, rater, count(*) judgments, sum(status = 'unparsed') unparsed "
        "from judgments where status != 'withdrawn' group by 1, 2, 3 order by 1, 2, 3",
    )


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


def max_judgment_id(db: Database) -> int:
    """The largest judgment id (0 when empty): grows whenever a judgment is appended, so it is
    the judgments' cache fingerprint."""
    return int(db.execute("select coalesce(max(id), 0) from judgments").fetchone()[0])


def own_pairwise_label(
    db: Database, rater: str, question_id: str, system_1: str, system_2: str
) -> dict[str, Any] | None:
    """``rater``'s effective pairwise row on the question's pair of systems (shown in either
    order; any status): the row their next label on that item supersedes. None when none."""
    found = rows(
        db,
        "select j.* from judgments j where j.kind = 'pairwise' and j.question_id = ? and "
        "((j.system_a = ? and j.system_b = ?) or (j.system_a = ? and j.system_b = ?)) and "
        f"j.rater = ? and {not_superseded('judgments', 'j')} order by j.id desc limit 1",
        [question_id, system_1, system_2, system_2, system_1, rater],
    )
    return found[0] if found else None


def last_pairwise_label(db: Database, rater: str) -> dict[str, Any] | None:
    """``rater``'s latest effective pairwise verdict or skip (status ``ok`` or ``skipped``):
    what an undo withdraws. None when there is none."""
    found = rows(
        db,
        "select j.* from judgments j where j.rater = ? and j.kind = 'pairwise' and "
        f"j.status in ('ok', 'skipped') and {not_superseded('judgments', 'j')} "
        "order by j.id desc limit 1",
        [rater],
    )
    return found[0] if found else None


def pairwise_rater_kinds(db: Database) -> list[tuple[str, str]]:
    """(rater, rater kind) of every rater with a parsed pairwise verdict, sorted by rater."""
    return [
        (r[0], r[1])
        for r in db.execute(
            "select distinct rater, rater_kind from judgments where kind = 'pairwise' "
            "and status = 'ok' order by 1"
        )
    ]


def human_raters(db: Database) -> list[str]:
    """Every rater of kind ``human`` with a stored judgment (any kind or status), sorted."""
    return [
        r[0]
        for r in db.execute(
            "select distinct rater from judgments where rater_kind = 'human' order by 1"
        )
    ]


def question_judgment_count(db: Database, question_id: str, *, human_only: bool = False) -> int:
    """How many judgment rows (superseded ones too) a question has; ``human_only``: only those
    of raters named ``human:...``."""
    cond = " and rater like 'human:%'" if human_only else ""
    return int(
        db.execute(
            f"select count(*) from judgments where question_id = ?{cond}", [question_id]
        ).fetchone()[0]
    )


def insert_judgments(db: Database, new: Sequence[dict[str, Any]], batch_size: int = 500) -> None:
    """Append judgment rows (``batch_size`` rows per statement)."""
    if new:
        db.table("judgments").insert_all(new, batch_size=batch_size)


def run_judgments(db: Database, rater: str, run_id: str, kind: str) -> list[dict[str, Any]]:
    """Every judgment of ``kind`` that ``rater`` stored in run ``run_id`` (superseded ones and
    errors too), by id."""
    return rows(
        db,
        "select * from judgments where rater = ? and run_id = ? and kind = ? order by id",
        [rater, run_id, kind],
    )


def imported_verdict_counts(db: Database) -> dict[str, int]:
    """Per source file named in ``raw.file`` (verdicts imported from files): their number."""
    return {
        r[0]: int(r[1])
        for r in db.execute(
            "select json_extract(raw, '$.file'), count(*) from judgments "
            "where raw like '{\"file\"%' and json_valid(raw) group by 1"
        )
    }


def imported_human_raters(db: Database) -> list[str]:
    """Human raters with verdicts imported from a file (``raw`` names the file: see
    :mod:`core.corpus.evaluations`), sorted; not people who labelled in the app."""
    return [
        r[0]
        for r in db.execute(
            "select distinct rater from judgments where rater_kind = 'human' "
            "and raw like '{\"file\":%' order by 1"
        )
    ]


def judgments_after(db: Database, after_id: int, columns: Sequence[str]) -> list[dict[str, Any]]:
    """Every judgment row (effective or not) with an id above ``after_id``: ``columns`` only."""
    return rows(db, f"select {_columns(columns)} from judgments j where j.id > ?", [after_id])


def switch_staged_judgments(db: Database, stage: RowStage) -> int:
    """Append the staged judgment rows (:mod:`core.store.row_stage`); a null answer id is filled
    with the stored answer of that question and system (as shown), if any. Returns how many."""

    def answer(system: str) -> str:
        return (
            f"(select max(a.id) from answers a where a.question_id = {staged('question_id')} "
            f"and a.system = {staged(system)})"
        )

    fill = {"answer_id": answer("system"), "answer_a_id": answer("system_a")}
    fill["answer_b_id"] = answer("system_b")
    return switch_rows(db, stage, {c: e for c, e in fill.items() if c in stage.columns})

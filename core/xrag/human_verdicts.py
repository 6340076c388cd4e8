"""People's yes/no verdicts on stored XRAG answers (the panel-vs-human agreement check).

A verdict is a judgment like any label: stored under the signed-in :class:`Annotator`'s own rater
(``human:<name>``), with :func:`core.annotation.identity.authorise` checked inside the write, so
no path records a verdict for someone else. A file of verdicts may name its annotator in an
``annotator`` column; each row must name the person who imports it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from core.annotation.identity import Annotator, authorise
from core.corpus.names import normal_form
from core.corpus.row_ids import row_id
from core.corpus.tabular import read_records
from core.errors import InputError
from core.store.connection import retry_when_busy, transaction
from core.store.judgments import (
    AbsoluteVerdict,
    JudgmentKind,
    NewJudgment,
    RaterKind,
    insert_judgment,
)
from core.store.xrag_results import get_result
from core.xrag.evaluate import CRITERION

if TYPE_CHECKING:
    from core.store.engine import Database

VERDICTS = tuple(AbsoluteVerdict)


def _insert(db: Database, who: Annotator, result_id: int, verdict: str) -> int:
    r = get_result(db, result_id)
    if r is None:
        raise InputError(f"unknown XRAG result {result_id}")
    return insert_judgment(
        db,
        NewJudgment(
            kind=JudgmentKind.ABSOLUTE,
            question_id=r["question_id"],
            rater=who.rater,
            rater_kind=RaterKind.HUMAN,
            criterion=CRITERION,
            system=f"{r['model']}@{r['setting']}",
            verdict=AbsoluteVerdict(verdict),
            context_kind=r["setting"],
        ),
    )


@retry_when_busy
def record_human_verdict(db: Database, who: Annotator, result_id: int, verdict: str) -> int:
    """Append ``who``'s yes/no verdict on the stored XRAG answer ``result_id``; returns the
    judgment id. AccessError unless ``who`` is signed in and still allowed to label."""
    if verdict not in VERDICTS:
        raise InputError(f"verdict must be 'yes' or 'no', not {verdict!r}")
    with transaction(db):
        authorise(db, who)
        return _insert(db, who, result_id, verdict)


def named_annotator(path: str | Path) -> str | None:
    """The one name in the file's ``annotator`` column, in its normal form (NFC, trimmed; None
    when the column is empty or missing); InputError when it names several people."""
    names = {
        normal_form(str(rec.get("annotator") or ""))
        for _, rec in read_records(path, ["result_id", "verdict"])
    } - {""}
    if len(names) > 1:
        raise InputError(
            f"the file names {len(names)} annotators ({', '.join(sorted(names))}); import each "
            "person's verdicts as that person",
            path=str(path),
        )
    return next(iter(names), None)


@retry_when_busy
def import_human_verdicts(db: Database, path: str | Path, who: Annotator) -> dict[str, int]:
    """Record ``who``'s verdicts from a CSV/JSONL file (``result_id, verdict[, annotator]``).

    Rows with an empty verdict are skipped (not yet judged). Every row is validated before any
    is written; a bad row (a verdict not yes/no, an unknown result, an annotator other than
    ``who``) raises an InputError naming the file, line and column. All rows in one transaction.
    """
    todo = []
    for line, rec in read_records(path, ["result_id", "verdict"]):
        verdict = str(rec.get("verdict") or "").strip().lower()
        if not verdict:
            continue
        if verdict not in VERDICTS:
            raise InputError(
                f"verdict must be 'yes' or 'no', not {rec['verdict']!r}",
                path=str(path),
                line=line,
                column="verdict",
            )
        named = normal_form(str(rec.get("annotator") or ""))  # NFC, trimmed: as names compare
        if named and named != who.name:
            raise InputError(
                f"the row is {named!r}'s verdict but {who.name!r} is importing; a label belongs "
                "to the person who gives it",
                path=str(path),
                line=line,
                column="annotator",
            )
        rid = row_id(rec["result_id"], "result_id", path, line)
        if get_result(db, rid) is None:
            raise InputError(
                f"unknown XRAG result {rid}", path=str(path), line=line, column="result_id"
            )
        todo.append((rid, verdict))
    with transaction(db):
        authorise(db, who)
        for rid, verdict in todo:
            _insert(db, who, rid, verdict)
    return {"recorded": len(todo)}

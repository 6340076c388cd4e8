"""EXAM input files read by the ``exam`` commands: reference leaderboards and article texts.

Every bad line is an :class:`core.errors.InputError` naming the file and line.
"""

from __future__ import annotations

from pathlib import Path

from core.corpus.names import check_name
from core.corpus.tabular import jsonl_records, read_records
from core.errors import InputError
from core.exam.bt_correlation import reference_from_rank_json


def read_leaderboard(path: str | Path) -> tuple[dict[str, float], dict[str, float] | None]:
    """A reference leaderboard: ``rank --json`` output, or CSV/TSV ``system,score[,se]``."""
    path = Path(path)
    if path.suffix == ".json":
        return reference_from_rank_json(path)
    scores, ses = {}, {}
    for n, row in read_records(path, ["system", "score"]):
        system = check_name(row["system"], "system", path=str(path), line=n, column="system")
        try:
            scores[system] = float(row["score"])
            if row.get("se") not in (None, ""):
                ses[system] = float(row["se"])
        except (TypeError, ValueError):
            raise InputError("score/se is not a number", path=str(path), line=n) from None
    return scores, (ses if len(ses) == len(scores) else None)


def read_articles_jsonl(path: str | Path) -> dict[str, str]:
    """``{query_id: text}`` from a JSONL file of ``{"query_id", "text"}`` lines.

    ``InputError`` (path, line) for a line that is not such an object, a non-string or blank
    text, or a query id given twice.
    """
    texts: dict[str, str] = {}
    for n, rec in jsonl_records(path):
        if not isinstance(rec.get("text"), str) or not isinstance(rec.get("query_id"), (str, int)):
            raise InputError('expected {"query_id": ..., "text": "..."}', path=str(path), line=n)
        if not rec["text"].strip():
            raise InputError("empty article text", path=str(path), line=n)
        qid = check_name(
            str(rec["query_id"]), "query id", path=str(path), line=n, column="query_id"
        )
        if qid in texts:
            raise InputError(f"query {qid!r} given twice", path=str(path), line=n)
        texts[qid] = rec["text"]
    return texts

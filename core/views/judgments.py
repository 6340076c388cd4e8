"""What the Side by side and Browse pages show: one question's answers and judgments."""

from __future__ import annotations

from typing import Any

import pandas as pd
import sqlite_utils

from core.annotation.base import effective_sql
from core.store.connection import rows


def question_text(db: sqlite_utils.Database, question_id: str) -> dict[str, Any]:
    """The question's text and ids (no system names, no answers)."""
    found = rows(
        db,
        "select id, question, document_id, context_document_id, origin from questions where id = ?",
        [question_id],
    )
    return found[0] if found else {}


def auto_verdicts_shown(db: sqlite_utils.Database, item: dict[str, Any]) -> pd.DataFrame:
    """The auto-raters' effective pairwise verdicts on ``item``, translated to the shown order."""
    out = []
    for r in rows(
        db,
        "select rater, system_a, verdict, status, rationale from judgments t where "
        "kind = 'pairwise' and rater_kind = 'auto' and question_id = ? and "
        "((system_a = ? and system_b = ?) or (system_a = ? and system_b = ?)) and "
        f"{effective_sql('judgments')} order by id",
        [
            item["question_id"],
            item["system_a"],
            item["system_b"],
            item["system_b"],
            item["system_a"],
        ],
    ):
        verdict = r["verdict"]
        if verdict in ("A", "B") and r["system_a"] != item["system_a"]:
            verdict = "B" if verdict == "A" else "A"
        out.append(
            {
                "rater": r["rater"],
                "verdict (as shown)": verdict or f"({r['status']})",
                "rationale": r["rationale"],
            }
        )
    return pd.DataFrame(out, columns=["rater", "verdict (as shown)", "rationale"])


def browse_detail(db: sqlite_utils.Database, question_id: str) -> dict[str, Any] | None:
    """One question: every system's answer, every rater's verdicts (evidence, raw reply) and the
    human labels."""
    q = rows(db, "select * from questions where id = ?", [question_id])
    if not q:
        return None
    answers = rows(
        db,
        "select id, system, text, status, error, context_tokens, cost_usd "
        "from answers where question_id = ? order by system",
        [question_id],
    )
    judgments = rows(
        db,
        "select t.*, exists (select 1 from judgments s where s.supersedes = t.id) superseded "
        "from judgments t where question_id = ? order by kind, rater, id",
        [question_id],
    )
    return {
        "question": q[0],
        "answers": answers,
        "absolute": [j for j in judgments if j["kind"] == "absolute"],
        "pairwise": [j for j in judgments if j["kind"] == "pairwise"],
        "reviews": rows(
            db, "select * from reviews where question_id = ? order by id", [question_id]
        ),
        "disputes": rows(db, "select * from disputes where question_id = ?", [question_id]),
    }


def evidence_table(evidence: Any) -> pd.DataFrame:
    """A judgment's evidence list as a table (quote, verified, score)."""
    items = evidence if isinstance(evidence, list) else []
    out = [
        {
            "quote": e.get("quote", "") if isinstance(e, dict) else str(e),
            "verified": bool(e.get("verified")) if isinstance(e, dict) else False,
            "score": e.get("score") if isinstance(e, dict) else None,
        }
        for e in items
    ]
    return pd.DataFrame(out, columns=["quote", "verified", "score"])

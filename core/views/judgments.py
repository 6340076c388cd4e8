"""What the Side by side and Browse pages show: one question's answers and judgments."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from core.store.answers import question_answers
from core.store.connection import rows
from core.store.disputes import question_disputes
from core.store.judgments import effective_judgments, question_judgments
from core.store.questions import get_question

if TYPE_CHECKING:  # sqlite_utils imports pandas: loaded only when a database is opened
    import sqlite_utils


def question_text(db: sqlite_utils.Database, question_id: str) -> dict[str, Any]:
    """The question's text and ids (no system names, no answers)."""
    cols = ["id", "question", "document_id", "context_document_id", "origin"]
    return get_question(db, question_id, cols) or {}


def auto_verdicts_shown(db: sqlite_utils.Database, item: dict[str, Any]) -> pd.DataFrame:
    """The auto-raters' effective pairwise verdicts on ``item``, translated to the shown order."""
    out = []
    pair = {item["system_a"], item["system_b"]}
    for r in effective_judgments(
        db, kind="pairwise", rater_kind="auto", question_id=item["question_id"]
    ):
        if {r["system_a"], r["system_b"]} != pair:
            continue
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
    q = get_question(db, question_id)
    if q is None:
        return None
    answers = question_answers(
        db, question_id, ["id", "system", "text", "status", "error", "context_tokens", "cost_usd"]
    )
    judgments = question_judgments(db, question_id)
    return {
        "question": q,
        "answers": answers,
        "absolute": [j for j in judgments if j["kind"] == "absolute"],
        "pairwise": [j for j in judgments if j["kind"] == "pairwise"],
        "reviews": rows(
            db, "select * from reviews where question_id = ? order by id", [question_id]
        ),
        "disputes": question_disputes(db, question_id),
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

"""How far a report can be trusted: judges' unparsed/failed shares, systems without usable
verdicts, and intervals resting on too few questions (flagged "too few questions for an
interval" rather than printed as if precise). Used by the report, the runner's exit status
(``max_failure_share``) and the views.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.store.judgments import effective_judgments

if TYPE_CHECKING:  # sqlite_utils imports pandas: loaded only when a database is opened
    import sqlite_utils

    from core.pipeline.config import Experiment

#: Intervals resting on fewer questions with decisive verdicts than this are flagged.
MIN_INTERVAL_QUESTIONS = 10
TOO_FEW = "too few questions for an interval"


def latest_judgments(
    db: sqlite_utils.Database, rater: str, kind: str, qids: set[str], systems: set[str]
) -> list[dict]:
    """Latest (not superseded) judgments of ``rater`` over these questions and systems."""
    found = effective_judgments(db, rater=rater, kind=kind)
    if kind == "absolute":
        return [r for r in found if r["question_id"] in qids and r["system"] in systems]
    return [
        r
        for r in found
        if r["question_id"] in qids and r["system_a"] in systems and r["system_b"] in systems
    ]


def failure_shares(
    db: sqlite_utils.Database, exp: Experiment, qids: list[str]
) -> dict[str, dict[str, Any]]:
    """Per judge: stored verdicts (latest per item) over the experiment's questions and systems,
    how many were unparsed or failed, and that share."""
    qset, sset = set(qids), {s.name for s in exp.systems}
    out = {}
    for judge in exp.judges:
        kind = "pairwise" if judge.pairwise else "absolute"
        js = latest_judgments(db, judge.rater, kind, qset, sset)
        failed = sum(1 for r in js if r["status"] in ("unparsed", "error"))
        out[judge.name] = {
            "n": len(js),
            "failed": failed,
            "share": round(failed / len(js), 4) if js else 0.0,
        }
    return out


def report_warnings(rep: dict[str, Any], max_failure_share: float = 0.2) -> list[str]:
    """What makes the numbers of a report untrustworthy, worst first: judges whose replies were
    mostly unparsed or failed, systems with no usable verdicts, intervals on too few questions."""
    out = []
    for judge, f in rep.get("failure_shares", {}).items():
        if f["failed"]:
            over = (
                f" (over max_failure_share {max_failure_share:.0%})"
                if (f["share"] > max_failure_share)
                else ""
            )
            out.append(
                f"judge {judge}: {f['failed']} of {f['n']} verdicts unparsed or failed "
                f"({f['share']:.0%}){over}"
            )
    for judge, table in rep.get("accuracy", {}).items():
        for r in table:
            if r["n"] == 0:
                out.append(f"system {r['system']}: no usable verdicts from {judge}")
            elif r.get("too_few"):
                out.append(
                    f"accuracy of {r['system']} by {judge}: {TOO_FEW} "
                    f"({r['n_questions']} questions with a verdict, need {MIN_INTERVAL_QUESTIONS})"
                )
    for judge, board in rep.get("ranking", {}).items():
        if "error" in board:
            out.append(f"ranking by {judge}: {board['error']}")
        elif board.get("too_few"):
            out.append(
                f"ranking by {judge}: {TOO_FEW} ({board['n_questions']} questions with decisive "
                f"verdicts, need {MIN_INTERVAL_QUESTIONS})"
            )
    return out

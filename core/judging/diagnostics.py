"""Per-rater diagnostics over stored judgments: position consistency, parse status, evidence."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from core.corpus.evidence import verified_share
from core.judging.tournament import Comparison
from core.store.judgments import (
    Judgment,
    JudgmentKind,
    JudgmentStatus,
    PairwiseVerdict,
    effective_judgments,
)

if TYPE_CHECKING:
    from core.store.engine import Database


def position_consistency(
    db: Database,
    rater: str,
    question_ids: Sequence[str] | None = None,
    systems: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Items judged in both orders: how many gave inconsistent verdicts.

    A pair is inconsistent when the canonical verdicts (winner name, ``Equal``, ``None``) of the
    two orders differ; pairs with an unparsed side are left out.
    """
    items: dict[tuple[str, tuple[str, str]], dict[str, str]] = {}
    for r in _latest(db, rater, "pairwise", question_ids, systems):
        if r.status != JudgmentStatus.OK:
            continue
        a, b = r.system_a or "", r.system_b or ""
        comp = Comparison(r.question_id, a, b, r.order_shown)
        winner = (
            a
            if r.verdict == PairwiseVerdict.A
            else (b if r.verdict == PairwiseVerdict.B else r.verdict or "")
        )
        items.setdefault((comp.question_id, comp.pair), {})[r.order_shown] = winner
    both = [v for v in items.values() if len(v) == 2]
    bad = sum(1 for v in both if v["ab"] != v["ba"])
    return {
        "n_pairs": len(both),
        "n_inconsistent": bad,
        "share_inconsistent": round(bad / len(both), 4) if both else None,
    }


def _latest(
    db: Database,
    rater: str,
    kind: str,
    question_ids: Sequence[str] | None = None,
    systems: Sequence[str] | None = None,
) -> list[Judgment]:
    """A rater's judgments of ``kind`` that no later row supersedes (optionally only on
    ``question_ids`` and on answers of ``systems``: a rater shared by two experiments)."""
    found = effective_judgments(db, rater=rater, kind=kind)
    if question_ids is not None:
        keep = set(question_ids)
        found = [r for r in found if r.question_id in keep]
    if systems is not None:
        names = set(systems)
        found = [
            r
            for r in found
            if (
                r.system in names
                if kind == JudgmentKind.ABSOLUTE
                else r.system_a in names and r.system_b in names
            )
        ]
    return found


def rater_diagnostics(
    db: Database,
    rater: str,
    question_ids: Sequence[str] | None = None,
    systems: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Counts (ok / unparsed / error), share of verified evidence quotes, items flagged."""

    found = [
        r for k in ("absolute", "pairwise") for r in _latest(db, rater, k, question_ids, systems)
    ]
    status = {s: sum(1 for r in found if r.status == s) for s in ("ok", "unparsed", "error")}
    ev = [r.evidence if isinstance(r.evidence, list) else [] for r in found]
    flagged = sum(1 for e in ev if any(not q.get("verified") for q in e))
    return {
        "rater": rater,
        "n": len(found),
        **status,
        "evidence": verified_share(ev),
        "items_with_unverified_quote": flagged,
    }

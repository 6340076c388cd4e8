"""NarrativeQA grounding: disputes between the ground-truth rater and the context rater, and the
rater-bias 2x2 study.

A *dispute* is an answer on which the ground-truth rater (does it match a reference answer?) and
the context rater (is it supported by the story?) disagree, e.g. an answer supported by the story
but rejected against the references (``supported_not_matching``: often a reference that is too
narrow) or one that matches a reference but is not supported by the retrieved text
(``matching_not_supported``). Disputes are stored in table ``disputes`` for human audit, each
pointing at both judgments (and so at both raters' evidence).

Rater bias (Bohnet et al. 2024, rater-bias study): raters of two model families judge answers of
both families; per cell (rater family x answer family) the agreement and Cohen's kappa with the
reference rater are reported (:func:`core.stats.agreement.cohen_kappa`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from core.annotation.disputes import group_disputes
from core.errors import InputError
from core.stats.agreement import cohen_kappa, percent_agreement
from core.stats.rater_bias import self_preference
from core.store.connection import transaction, utcnow
from core.store.disputes import NewDispute, add_dispute, dispute_records
from core.store.judgments import (
    AbsoluteVerdict,
    Judgment,
    JudgmentKind,
    JudgmentStatus,
    effective_judgments,
    effective_values,
)
from core.store.resolutions import effective_resolutions

if TYPE_CHECKING:
    from core.store.engine import Database


def _latest_ok(
    db: Database,
    rater: str,
    question_ids: Sequence[str] | None,
    systems: Sequence[str] | None,
) -> dict[int, Judgment]:
    """Latest parsed absolute judgment of ``rater`` per answer id (judgments of no stored
    answer left out)."""
    found = effective_judgments(
        db, rater=rater, kind=JudgmentKind.ABSOLUTE, status=JudgmentStatus.OK
    )
    qs = set(question_ids) if question_ids is not None else None
    ss = set(systems) if systems is not None else None
    return {
        r.answer_id: r
        for r in found
        if r.answer_id is not None
        and (qs is None or r.question_id in qs)
        and (ss is None or r.system in ss)
    }


def find_disputes(
    db: Database,
    gt_rater: str,
    ctx_rater: str,
    *,
    question_ids: Sequence[str] | None = None,
    systems: Sequence[str] | None = None,
    run_id: str | None = None,
) -> dict[str, int]:
    """Store a dispute for every answer where the two raters' verdicts differ.

    Raters are ``judgments.rater`` strings (``auto:<judge>`` or ``human:<name>``). Idempotent:
    a dispute already stored for the same two judgments is not added again. Returns
    ``{"compared", "disputes", "added"}``.
    """
    if gt_rater == ctx_rater:
        raise InputError("the ground-truth and context raters must differ")
    gt = _latest_ok(db, gt_rater, question_ids, systems)
    ctx = _latest_ok(db, ctx_rater, question_ids, systems)
    both = sorted(set(gt) & set(ctx))
    disputed = [a for a in both if gt[a].verdict != ctx[a].verdict]
    added = 0
    now = utcnow()
    with transaction(db):
        for answer_id in disputed:
            g, c = gt[answer_id], ctx[answer_id]
            added += add_dispute(
                db,
                NewDispute(
                    question_id=g.question_id,
                    answer_id=int(answer_id or 0),
                    system=g.system or "",
                    gt_judgment_id=g.id,
                    ctx_judgment_id=c.id,
                    gt_verdict=g.verdict or "",
                    ctx_verdict=c.verdict or "",
                    run_id=run_id,
                    created_at=now,
                ),
            )
    return {"compared": len(both), "disputes": len(disputed), "added": added}


def dispute_kind(gt_verdict: str, ctx_verdict: str) -> str:
    """``supported_not_matching`` (story yes, references no) or ``matching_not_supported``."""
    return (
        "supported_not_matching" if ctx_verdict == AbsoluteVerdict.YES else "matching_not_supported"
    )


def list_disputes(
    db: Database,
    *,
    question_ids: Sequence[str] | None = None,
    systems: Sequence[str] | None = None,
    unresolved_only: bool = False,
    items_only: bool = False,
) -> list[dict[str, Any]]:
    """Disputes with everything an auditor needs: question, references, answer, both verdicts,
    raters, rationales and evidence, and the latest resolution (or None).

    Each also has ``item``: the dispute people resolve for it, one per (question, answer text)
    (:func:`core.annotation.disputes.group_disputes`), and ``systems``: every system of that
    item; a dispute's resolution is its item's. ``unresolved_only``: only those whose item has
    no resolution; ``items_only``: one row per item (what the queues and the Overview count)."""
    found = [asdict(d) for d in dispute_records(db)]
    resolutions = {r.dispute_id: asdict(r) for r in effective_resolutions(db)}
    groups = group_disputes(found)
    item_of = {m["id"]: first for first, members in groups.items() for m in members}

    out = []
    qs = set(question_ids) if question_ids is not None else None
    ss = set(systems) if systems is not None else None
    for r in found:
        if (qs is not None and r["question_id"] not in qs) or (
            ss is not None and r["system"] not in ss
        ):
            continue
        item = item_of[int(r["id"])]
        if items_only and item != int(r["id"]):
            continue
        res = resolutions.get(r["id"]) or resolutions.get(item)
        if unresolved_only and res is not None:
            continue
        r["kind"] = dispute_kind(r["gt_verdict"], r["ctx_verdict"])
        r["resolution"] = res
        r["item"] = item
        r["systems"] = [m["system"] for m in groups[item]]
        out.append(r)
    return out


def dispute_summary(
    db: Database,
    question_ids: Sequence[str] | None = None,
    systems: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Counts of disputes per system and per kind."""
    items = list_disputes(db, question_ids=question_ids, systems=systems)
    per_system: dict[str, int] = {}
    per_kind: dict[str, int] = {}
    for d in items:
        per_system[d["system"]] = per_system.get(d["system"], 0) + 1
        per_kind[d["kind"]] = per_kind.get(d["kind"], 0) + 1
    return {
        "n": len(items),
        "per_system": per_system,
        "per_kind": per_kind,
        "resolved": sum(1 for d in items if d["resolution"] is not None),
    }


# ---------------------------------------------------------------------------------------------
# Rater bias (2x2: rater family x answer family)
# ---------------------------------------------------------------------------------------------


def rater_bias_absolute(
    db: Database,
    reference: str,
    rater_family: Mapping[str, str],
    system_family: Mapping[str, str],
    *,
    question_ids: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """Per (rater family, answer family): items, agreement and Cohen's kappa of the family's
    absolute raters with the ``reference`` rater, and both yes-rates (leniency).

    ``rater_family`` maps rater strings to families, ``system_family`` system names to families.
    """

    ref = _latest_ok(db, reference, question_ids, list(system_family))
    if not ref:
        raise InputError(f"no parsed judgments by the reference rater {reference!r}")
    cells: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for rater, rfam in rater_family.items():
        for answer_id, j in _latest_ok(db, rater, question_ids, list(system_family)).items():
            if answer_id in ref:
                key = (rfam, system_family[j.system or ""])
                cells.setdefault(key, []).append((j.verdict or "", ref[answer_id].verdict or ""))
    out = []
    for (rfam, afam), pairs in sorted(cells.items()):
        a, b = [p[0] for p in pairs], [p[1] for p in pairs]
        kappa = cohen_kappa(a, b, labels=["yes", "no"])
        out.append(
            {
                "rater_family": rfam,
                "answer_family": afam,
                "n": len(pairs),
                "agreement": round(percent_agreement(a, b), 4),
                "cohen_kappa": None if kappa != kappa else round(kappa, 4),
                "rater_yes_rate": round(a.count("yes") / len(a), 4),
                "reference_yes_rate": round(b.count("yes") / len(b), 4),
            }
        )
    return out


def rater_bias_pairwise(
    db: Database,
    reference: str,
    rater_family: Mapping[str, str],
    system_family: Mapping[str, str],
    *,
    question_ids: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """The pairwise 2x2 table of :func:`core.stats.rater_bias.self_preference` over stored judgments."""
    import pandas as pd

    raters = [reference, *rater_family]
    columns = ("rater", "question_id", "system_a", "system_b", "verdict")
    found = effective_values(
        db, columns, kind=JudgmentKind.PAIRWISE, status=JudgmentStatus.OK, raters=raters
    )
    if question_ids is not None:
        keep = set(question_ids)
        found = [r for r in found if r[1] in keep]
    found = [r for r in found if r[2] in system_family and r[3] in system_family]
    if not found:
        raise InputError("no pairwise judgments for the rater-bias study")
    frame = pd.DataFrame(found, columns=list(columns))
    table = self_preference(frame, dict(rater_family), dict(system_family), reference)
    return [
        {
            str(k): (
                None
                if isinstance(v, float) and v != v
                else round(v, 4)
                if isinstance(v, float)
                else v
            )
            for k, v in rec.items()
        }
        for rec in table.to_dict(orient="records")
    ]

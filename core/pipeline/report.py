"""The report of a stored experiment: accuracy, rankings, agreement, bias and disputes.

Per absolute judge: the share of ``yes`` per system with a Wilson interval. Per pairwise judge:
the Bradley-Terry leaderboard with question-clustered bootstrap intervals (the MAP estimate
under a weak prior, labelled as such, when the maximum-likelihood estimate does not exist).
Also percent agreement and Cohen's kappa between raters (pairwise: canonical labels on the units
of :mod:`core.stats.agreement_units`, as the Agreement page), position consistency, parse and
evidence counts, disputes and, when configured, the rater-bias 2x2 tables.

The dry-run plan (:func:`dry_run_summary`) is a report too: the calls a run would still send
(stored answers and judgments skipped), their tokens and estimated cost.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from core.errors import InputError, WorkbenchError
from core.generation.span import span_summary
from core.judging.diagnostics import position_consistency, rater_diagnostics
from core.judging.requests import build_request
from core.llm.cost import call_cost, estimate_cost
from core.llm.tokens import count_tokens, request_input_tokens
from core.pipeline.config import parse_config
from core.pipeline.grounding import (
    dispute_summary,
    rater_bias_absolute,
    rater_bias_pairwise,
)
from core.pipeline.trust import (
    MIN_INTERVAL_QUESTIONS,
    answer_failure_shares,
    comparison_questions,
    failure_shares,
    latest_judgments,
    offline_scope,
    question_statuses,
    report_warnings,
)
from core.stats.agreement import cohen_kappa, percent_agreement
from core.stats.agreement_units import MISSING, paired_units
from core.stats.leaderboard import leaderboard
from core.stats.pairwise_counts import NotIdentifiableError
from core.stats.ranking_settings import RankingSettings
from core.stats.significance import wilson_ci
from core.store.answers import answered
from core.store.experiments import experiment_names, get_experiment
from core.store.judge_runs import stored_call_counts
from core.store.judgments import AbsoluteVerdict, Judgment, JudgmentStatus, PairwiseVerdict
from core.store.questions import Question

_OK = JudgmentStatus.OK
_DECISIVE = (PairwiseVerdict.A, PairwiseVerdict.B, PairwiseVerdict.EQUAL)  # a verdict, not None

if TYPE_CHECKING:
    from core.answering.answer_runs import PlannedAnswer
    from core.judging.specs import Judge
    from core.pipeline.schema import Experiment
    from core.store.engine import Database

PLACEHOLDER_ANSWER = "A typical answer of about one or two sentences. " * 2


def _accuracy(judgments: list[Judgment], systems: list[str], level: float) -> list[dict[str, Any]]:
    """Per system: share of ``yes`` among parsed verdicts with a Wilson interval."""

    out = []
    for name in systems:
        mine = [r for r in judgments if r.system == name]
        ok = [r for r in mine if r.status == JudgmentStatus.OK]
        yes = sum(1 for r in ok if r.verdict == AbsoluteVerdict.YES)
        row: dict[str, Any] = {
            "system": name,
            "n": len(ok),
            "yes": yes,
            "unparsed": sum(1 for r in mine if r.status == JudgmentStatus.UNPARSED),
            "errors": sum(1 for r in mine if r.status == JudgmentStatus.ERROR),
        }
        n_q = len({r.question_id for r in ok})
        row["n_questions"] = n_q
        row["too_few"] = bool(ok) and n_q < MIN_INTERVAL_QUESTIONS
        if ok:
            ci = wilson_ci(yes, len(ok), level)
            row.update(
                accuracy=round(ci.estimate, 4),
                ci_low=round(ci.low, 4),
                ci_high=round(ci.high, 4),
                level=level,
                interval="Wilson",
            )
        else:
            row.update(accuracy=None, ci_low=None, ci_high=None, level=level, interval="Wilson")
        out.append(row)
    return sorted(out, key=lambda r: -(r["accuracy"] or 0))


def _ranking(js: list[Judgment], settings: RankingSettings, alpha: float) -> dict[str, Any]:
    """Bradley-Terry leaderboard (``settings``), the MAP one under an ``N(0, 1/alpha)`` prior
    when the maximum-likelihood one does not exist."""
    records = [(r.question_id, r.system_a, r.system_b, r.verdict) for r in js if r.status == _OK]
    note = "maximum likelihood"
    try:
        try:
            board = leaderboard(records, settings)
        except NotIdentifiableError as exc:
            # e.g. a system that never wins: report the MAP estimate under a weak prior, said so.
            note = f"MAP with N(0, 1/{alpha}) prior ({exc})"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                board = leaderboard(records, settings.with_alpha(alpha))
    except WorkbenchError as exc:
        return {"error": str(exc), "n_judgments": len(records)}
    d = board.to_dict()
    decisive = {q for q, _, _, v in records if v in _DECISIVE}
    return {
        "too_few": len(decisive) < MIN_INTERVAL_QUESTIONS,
        "n_decisive_questions": len(decisive),
        "estimate": note,
        **{
            k: d[k]
            for k in (
                "systems",
                "level",
                "interval",
                "n_boot",
                "seed",
                "ties",
                "n_judgments",
                "n_excluded_none",
                "n_questions",
                "n_degenerate_replicates",
                "win_rate",
                "alpha",
            )
        },
    }


_SWAP = {"A": "B", "B": "A"}


def _shared_keys(a: dict[Any, str], b: dict[Any, str]) -> tuple[list[str], list[str]]:
    """Two raters' labels on the keys both have."""
    shared = sorted(set(a) & set(b), key=str)
    return [a[k] for k in shared], [b[k] for k in shared]


def _shared_units(
    a: dict[tuple[str, tuple[str, str], int], str], b: dict[tuple[str, tuple[str, str], int], str]
) -> tuple[list[str], list[str]]:
    """Two raters' canonical pairwise labels, keyed (question, sorted pair, shown order), over
    their shared units (:func:`core.stats.agreement_units.paired_units`: an item either judged
    in both orders is compared per order, any other on the one verdict each gave)."""
    items = sorted({k[:2] for k in a} | {k[:2] for k in b}, key=str)
    index = {k: n for n, k in enumerate(items)}
    labels = sorted({*a.values(), *b.values()}, key=str)
    code = {x: n for n, x in enumerate(labels)}
    codes = np.full((len(items), 2, 2), MISSING, np.int64)
    for r, given in enumerate((a, b)):
        for (q, pair, order), v in given.items():
            codes[index[(q, pair)], r, order] = code[v]
    pairs, _, _ = paired_units(codes)
    return [labels[x] for x in pairs[:, 0]], [labels[x] for x in pairs[:, 1]]


def _agreement(
    by_rater: dict[str, dict[Any, str]],
    shared: Callable[[dict[Any, str], dict[Any, str]], tuple[list[str], list[str]]] = _shared_keys,
) -> list[dict[str, Any]]:
    """Percent agreement and Cohen's kappa for every pair of raters over what they share."""

    names = sorted(by_rater)
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            va, vb = shared(by_rater[a], by_rater[b])
            if not va:
                continue
            kappa = cohen_kappa(va, vb)
            out.append(
                {
                    "rater_a": a,
                    "rater_b": b,
                    "n": len(va),
                    "agreement": round(percent_agreement(va, vb), 4),
                    "cohen_kappa": None if kappa != kappa else round(kappa, 4),
                }
            )
    return out


def report(db: Database, name: str) -> dict[str, Any]:
    """Accuracy with intervals per absolute judge, Bradley-Terry ranking with intervals per
    pairwise judge, agreement between raters, position consistency, parse and evidence counts,
    disputes and (if configured) the rater-bias tables of a stored experiment."""

    row = get_experiment(db, name)
    if row is None:
        known = experiment_names(db)
        raise InputError(f"unknown experiment {name!r}; stored: {', '.join(known) or 'none'}")
    exp = parse_config(row.config, row.path)
    all_qids = list(row.question_ids)
    comparison = comparison_questions(db, exp, all_qids)
    qids = comparison["questions"]  # systems are compared on the questions all of them answered
    qset, systems = set(qids), [s.name for s in exp.systems]
    sset = set(systems)
    level = exp.report.level
    out: dict[str, Any] = {
        "experiment": name,
        "status": str(row.status),
        "questions": len(all_qids),
        "systems": systems,
        "comparison": comparison,
        "answer_failures": answer_failure_shares(db, exp, all_qids),
        "question_statuses": question_statuses(db, all_qids),
        "accuracy": {},
        "ranking": {},
        "raters": {},
        "position_consistency": {},
    }
    absolute: dict[str, dict[Any, str]] = {}
    pairwise: dict[str, dict[Any, str]] = {}
    for judge in exp.judges:
        kind = "pairwise" if judge.pairwise else "absolute"
        js = latest_judgments(db, judge.rater, kind, qset, sset)
        out["raters"][judge.name] = rater_diagnostics(db, judge.rater, qids, systems)
        if judge.pairwise:
            out["ranking"][judge.name] = _ranking(
                js, exp.report.ranking(exp.seed), exp.report.prior_alpha
            )
            out["position_consistency"][judge.name] = position_consistency(
                db, judge.rater, qids, systems
            )
            items: dict[Any, str] = {}
            for r in js:  # in id order: the latest verdict per shown order stays
                if r.status == JudgmentStatus.OK and r.verdict is not None:
                    # canonical label (A = the alphabetically first system wins), as in the app
                    a, b = r.system_a or "", r.system_b or ""
                    order = int(a > b)
                    pair = tuple(sorted((a, b)))
                    verdict = _SWAP.get(r.verdict, r.verdict) if order else r.verdict
                    items[(r.question_id, pair, order)] = verdict
            pairwise[judge.name] = items
        else:
            out["accuracy"][judge.name] = _accuracy(js, systems, level)
            absolute[judge.name] = {
                (r.question_id, r.system): r.verdict or "" for r in js if r.status == _OK
            }
    out["agreement"] = {
        "absolute": _agreement(absolute),
        "pairwise": _agreement(pairwise, _shared_units),
    }
    out["failure_shares"] = failure_shares(db, exp, all_qids)
    out["warnings"] = report_warnings(out, exp.max_failure_share)
    out["disputes"] = dispute_summary(db, all_qids, systems)
    out["span"] = span_summary(db, qids)  # evidence span fractions of the questions (flagged)
    out["offline_scope"] = offline_scope(exp)  # what offline baselines' scores can show
    bias_refs = exp.rater_bias.model_dump(exclude_none=True)
    if bias_refs:
        rfam = {j.rater: j.family for j in exp.judges}
        sfam = {s.name: s.family for s in exp.systems}
        bias: dict[str, Any] = {}
        for key, fn, on_pairs in (
            ("reference", rater_bias_absolute, False),
            ("pairwise_reference", rater_bias_pairwise, True),
        ):
            if key in bias_refs:
                ref = f"auto:{bias_refs[key]}"
                fams = {
                    r: f
                    for r, f in rfam.items()
                    if r != ref and any(j.rater == r and j.pairwise == on_pairs for j in exp.judges)
                }
                try:
                    bias["pairwise" if on_pairs else "absolute"] = fn(
                        db, ref, fams, sfam, question_ids=qids
                    )
                except InputError as exc:
                    bias["pairwise" if on_pairs else "absolute"] = {"error": str(exc)}
        out["rater_bias"] = bias
    return out


# ---------------------------------------------------------------------------------------------
# The dry-run plan: calls, tokens and cost of what a run would still send
# ---------------------------------------------------------------------------------------------


def _stored_judge_calls(db: Database, judge: "Judge", names: list[str]) -> dict[str, int]:
    """Per question: the judge calls of ``judge`` already stored without error on the
    experiment's systems (a rerun skips them)."""
    kind = "pairwise" if judge.pairwise else "absolute"
    return stored_call_counts(db, judge.rater, kind, names)


def judge_preview(
    db: Database,
    exp: "Experiment",
    questions: list[Question],
    planned: list[PlannedAnswer] | None = None,
) -> list[tuple[Any, int]]:
    """One placeholder request per (judge, question) with the number of judge calls it stands
    for: over the answers stored or planned for that question (a system that skips a question
    has none), judgments already stored left out (windows checked; for the dry-run estimate)."""

    out: list[tuple[Any, int]] = []
    names = [s.name for s in exp.systems]
    have = answered(db, names) | {(p.question_id, p.system.name) for p in planned or []}
    per_q = {q.id: sum((q.id, s) in have for s in names) for q in questions}
    for judge in exp.judges:
        if judge.pairwise and judge not in exp.pairwise_judges:
            continue
        done = _stored_judge_calls(db, judge, names)
        answers = [PLACEHOLDER_ANSWER] * (2 if judge.pairwise else 1)
        for q in questions:
            n = per_q[q.id]
            calls = (n * (n - 1) // 2 * (2 if judge.both_orders else 1)) if judge.pairwise else n
            if judge.pairwise and exp.tournament.design == "adaptive":
                calls = round(calls * exp.tournament.budget)
            req, _, _ = build_request(db, judge, q, answers, nonce="000000000000")
            out.append((req, max(0, calls - done.get(q.id, 0))))
    return out


def _estimate_repeated(
    preview: list[tuple[Any, int]], db: Database, output_tokens: int
) -> dict[str, Any]:
    """:func:`core.llm.estimate_cost` of ``preview`` where each request stands for ``k`` calls.

    The distinct requests are priced by ``estimate_cost``; each of the ``k - 1`` repeats costs
    ``call_cost(model, n_in, n_out, cached=context tokens)`` (its context was sent before, so
    it counts as cached, as ``estimate_cost`` counts a repeated context). Hashing each repeat
    would cost minutes on full-book contexts.
    """

    unique = [r for r, k in preview if k > 0]
    est = estimate_cost(unique, db, output_tokens=output_tokens)
    for req, k in preview:
        if k <= 1:
            continue
        row = est["per_model"][req.model]
        n_in = request_input_tokens(req)
        n_out = min(output_tokens, req.max_tokens)
        cached = count_tokens(req.context) if req.context else 0
        extra = k - 1
        row["calls"] += extra
        row["input_tokens"] += n_in * extra
        row["cached_tokens"] += cached * extra
        row["output_tokens"] += n_out * extra
        row["cost_usd"] = round(
            row["cost_usd"] + call_cost(req.model, n_in, n_out, cached) * extra, 6
        )
        for key, val in (
            ("calls", extra),
            ("input_tokens", n_in * extra),
            ("cached_tokens", cached * extra),
            ("output_tokens", n_out * extra),
        ):
            est[key] += val
        est["requests_to_send"] += extra
    est["cost_usd"] = round(sum(r["cost_usd"] for r in est["per_model"].values()), 6)
    return est


def dry_run_summary(
    db: Database,
    exp: "Experiment",
    questions: list[Question],
    planned: list[PlannedAnswer],
    judge_preview: list[tuple[Any, int]],
    missing_keys: list[str],
) -> dict[str, Any]:

    answer_est = estimate_cost([p.request for p in planned], db)
    judge_est = _estimate_repeated(judge_preview, db, output_tokens=200)
    return {
        "experiment": exp.name,
        "dry_run": True,
        "questions": len(questions),
        "systems": [s.name for s in exp.systems],
        "judges": [j.name for j in exp.judges],
        "answer_calls": answer_est["calls"],
        "judge_calls": judge_est["calls"],
        "calls": answer_est["calls"] + judge_est["calls"],
        "input_tokens": answer_est["input_tokens"] + judge_est["input_tokens"],
        "output_tokens": answer_est["output_tokens"] + judge_est["output_tokens"],
        "cost_usd": round(answer_est["cost_usd"] + judge_est["cost_usd"], 4),
        "answers": answer_est,
        "judgments": judge_est,
        "note": "stored answers and judgments are skipped (a rerun resumes); judge calls are "
        "estimated with placeholder answers and 200 output tokens; answer output "
        "tokens are max_tokens (upper bound)",
        "missing_keys": missing_keys,
    }

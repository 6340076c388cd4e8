"""People + judge: systems ranked from a few people's verdicts and many of an auto-rater's, with
intervals that stay honest whatever the judge's bias (prediction-powered ranking).

A *battle* is one question and one unordered pair of systems. The people's verdicts (raters
``human:...``) and the judge's (one ``auto:...`` rater) are read as the Agreement page reads them:
each rater's latest effective verdict per item as shown
(:func:`core.store.verdict_reads.verdict_summary`); a battle judged several times on a side (two
people, or both orders) scores the mean. Battles judged by both sides are the labelled set,
battles judged by the judge alone the unlabelled one; battles only people judged
are counted (``n_people_unpaired``) but not used. Each system's win probability (a tie, Equal or
None, is no win unless ``ties="half"``) is estimated three ways: people alone (the labelled
battles), the judge alone (all its battles) and combined (PPI++,
:func:`core.stats.ppi_mean.ppi_win_rates`), each with marginal intervals and rank-sets
(:func:`core.stats.rank_sets.rank_sets`) at level ``1 - alpha``. docs/statistics.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go

from core.errors import InputError
from core.stats.ppi_cluster import Clustered, clustered, replicates
from core.stats.ppi_mean import (
    Battles,
    WinRates,
    check_alpha,
    classical_win_rates,
    effective_people,
    ppi_win_rates,
    tie_scores,
)
from core.stats.ppi_planning import people_needed
from core.stats.rank_sets import point_ranks, rank_sets
from core.store.judgments import RaterKind, pairwise_rater_kinds
from core.store.verdict_reads import verdict_summary
from core.views.ppi_records import (
    JudgeWorth,
    PeopleNeeded,
    PpiRanking,
    PpiSystem,
    TableRow,
    WinEstimate,
)
from core.views.ppi_strengths import strengths_block
from core.views.ppi_warnings import thin_warnings
from core.views.text import inert_figure

if TYPE_CHECKING:
    from core.store.engine import Database

#: The three estimates, in the order the page shows them.
KINDS = ("people", "judge", "combined")
CLUSTERS = ("question",)  # what the intervals may be clustered by
MIN_PAIRED = 2  # labelled battles a system needs (a variance from one battle is zero)

Key = tuple[str, str, str]  # (question_id, first system, second system), systems sorted


def check_raters(db: Database, people: Sequence[str], judge: str) -> None:
    """Every rater named exists with pairwise verdicts and is of the right kind."""
    kinds = dict(pairwise_rater_kinds(db))
    if not people:
        raise InputError("give the people's raters (human:...) to combine with the judge")
    for rater, kind in [*((p, "human") for p in people), (judge, "auto")]:
        if rater not in kinds:
            known = ", ".join(r for r, k in kinds.items() if k == kind) or "none"
            raise InputError(f"rater {rater!r} has no pairwise verdict ({kind} raters: {known})")
        if kinds[rater] != kind:
            what = (
                "the people's raters are human:..."
                if kind == RaterKind.HUMAN
                else "the judge is auto:..."
            )
            raise InputError(f"{rater!r} is a {kinds[rater]} rater: {what}")


def ppi_sources(db: Database) -> dict[str, list[str]]:
    """The raters the page offers: ``human`` (people's raters) and ``auto`` (judges)."""
    kinds = pairwise_rater_kinds(db)
    return {kind: [r for r, k in kinds if k == kind] for kind in ("human", "auto")}


def _battle_scores(
    db: Database, raters: Sequence[str], ties: str
) -> dict[Key, tuple[float, float]]:
    """The mean score of each battle's two systems (sorted) over ``raters``' verdicts."""
    sums: dict[Key, list[float]] = {}
    for _, _, q, a, b, _, _, _, _, verdict in verdict_summary(db, "pairwise", list(raters)):
        sa, sb = tie_scores(str(verdict), ties)
        key, first, second = ((q, a, b), sa, sb) if a < b else ((q, b, a), sb, sa)
        acc = sums.setdefault(key, [0.0, 0.0, 0.0])
        acc[0] += first
        acc[1] += second
        acc[2] += 1
    return {k: (s[0] / s[2], s[1] / s[2]) for k, s in sums.items()}


def _battles(
    keys: list[Key], scores: dict[Key, tuple[float, float]], index: dict[str, int]
) -> Battles:
    a = np.array([index[k[1]] for k in keys], int)
    b = np.array([index[k[2]] for k in keys], int)
    s = np.array([scores[k] for k in keys], float).reshape(-1, 2)
    return Battles(a, b, s[:, 0], s[:, 1])


def _check_systems(paired: list[Key], alone: list[Key], people: str, judge: str) -> list[str]:
    systems = sorted({s for k in paired + alone for s in k[1:]})
    n_l = {s: 0 for s in systems}
    n_u = {s: 0 for s in systems}
    for keys, counts in ((paired, n_l), (alone, n_u)):
        for _, x, y in keys:
            counts[x] += 1
            counts[y] += 1
    thin = [s for s in systems if n_l[s] < MIN_PAIRED]
    if thin:
        raise InputError(
            f"{', '.join(thin)}: fewer than {MIN_PAIRED} battles judged by both {people} and "
            f"{judge} (a system's combined estimate needs them)"
        )
    lone = [s for s in systems if not n_u[s]]
    if lone:
        raise InputError(
            f"{', '.join(lone)}: no battle judged by {judge} alone (the combined estimate "
            "needs judge verdicts on battles people did not judge)"
        )
    if len(systems) < 2:
        raise InputError("fewer than two systems to rank")
    return systems


def _summary(fit: WinRates, alpha: float) -> dict[str, Any]:
    iv = fit.intervals(alpha)
    sets = rank_sets(fit.estimate, fit.cov, alpha)
    return {
        "estimate": fit.estimate,
        "interval": iv,
        "rank_set": sets,
        "rank": point_ranks(fit.estimate),
    }


def people_judge_ranking(
    db: Database,
    people: Sequence[str],
    judge: str,
    alpha: float = 0.05,
    ties: str = "none",
    target: int | None = None,
    cluster: str | None = None,
    n_boot: int = 1000,
    seed: int = 0,
) -> PpiRanking:
    """The people-only, judge-only and combined (PPI++) win probabilities of every system, with
    ``1 - alpha`` intervals and rank-sets, as ``rank --method ppi --json`` prints them (module
    docstring), and the Bradley-Terry strengths the same three ways (``"bt"``,
    :func:`core.views.ppi_strengths.strengths_block`). ``target``: also ``people_needed``, how
    many more people's verdicts on the judge-only battles would make the widest rank-set at most
    ``target`` ranks (:func:`core.stats.ppi_planning.people_needed`, under independence).
    ``cluster="question"``: the win probabilities' covariances (so intervals and rank-sets) from
    an ``n_boot``-replicate bootstrap over questions (:mod:`core.stats.ppi_cluster`, ``seed``).
    Bad input (unknown rater, no shared battle, a system without enough battles): an
    :class:`InputError` naming it."""
    alpha = check_alpha(alpha)
    if cluster is not None and cluster not in CLUSTERS:
        raise InputError(f"cluster must be one of {', '.join(CLUSTERS)}, not {cluster!r}")
    people = list(dict.fromkeys(people))
    check_raters(db, people, judge)
    who = ", ".join(people)
    said = _battle_scores(db, people, ties)
    judged = _battle_scores(db, [judge], ties)
    paired = sorted(set(said) & set(judged))
    alone = sorted(set(judged) - set(said))
    if not paired:
        raise InputError(
            f"{who} and {judge} share no battle (the same question and pair of systems): "
            "the combined ranking needs battles both judged"
        )
    systems = _check_systems(paired, alone, who, judge)
    index = {s: i for i, s in enumerate(systems)}
    k = len(systems)
    human, paired_judge = _battles(paired, said, index), _battles(paired, judged, index)
    only = _battles(alone, judged, index)
    judge_all = _battles(paired + alone, judged, index)
    fits = {
        "people": classical_win_rates(human, k),
        "judge": classical_win_rates(judge_all, k),
        "combined": ppi_win_rates(human, paired_judge, only, k),
    }
    questions = sorted({key[0] for key in paired + alone})
    if cluster == "question":
        row_of = {q: i for i, q in enumerate(questions)}  # in id order: the draws are order-free
        data = Clustered(
            human,
            paired_judge,
            only,
            np.array([row_of[key[0]] for key in paired], int),
            np.array([row_of[key[0]] for key in alone], int),
            len(questions),
        )
        fits = clustered(fits, replicates(data, k, fits["combined"].lam, n_boot, seed))
    parts = {name: _summary(fit, alpha) for name, fit in fits.items()}
    n_both = np.bincount(np.r_[human.a, human.b], minlength=k)
    n_only = np.bincount(np.r_[only.a, only.b], minlength=k)
    rows: list[PpiSystem] = []
    for m, name in enumerate(systems):
        combined, judge_alone = _entry(parts["combined"], m), _entry(parts["judge"], m)
        lo, hi = combined["rank_set"]
        rows.append(
            {
                "name": name,
                **combined,
                "people": _entry(parts["people"], m),
                "judge": judge_alone,
                "judge_rank_outside": not lo <= judge_alone["rank"] <= hi,
                "n_both": int(n_both[m]),
                "n_judge_only": int(n_only[m]),
            }
        )
    rows.sort(key=lambda r: (-r["estimate"], r["name"]))
    out: PpiRanking = {
        "method": "ppi",
        "estimand": "win probability: the share of its battles a system wins by people's "
        + ("verdicts, a tie counting half" if ties == "half" else "verdicts, a tie no win"),
        "systems": rows,
        "lambda": fits["combined"].lam,
        "alpha": alpha,
        "level": 1 - alpha,
        "interval": f"{1 - alpha:.0%} normal interval per system; rank-sets from the "
        f"simultaneous {1 - alpha:.0%} chi-square ellipsoid"
        + (
            f"; covariances from a {n_boot}-replicate bootstrap over {len(questions):,} questions"
            if cluster
            else "; battles counted as independent"
        ),
        "cluster": cluster,
        "n_boot": n_boot if cluster else 0,
        "n_questions": len(questions),
        "ties": ties,
        "people": people,
        "judge": judge,
        "n_both": len(paired),
        "n_judge_only": len(alone),
        "n_people_unpaired": len(set(said) - set(judged)),
        "effective_people": effective_people(fits["people"], fits["combined"], len(paired)),
        "judge_outside": [r["name"] for r in rows if r["judge_rank_outside"]],
        "widest_rank_set": max(hi - lo + 1 for lo, hi in parts["combined"]["rank_set"]),
        "warnings": thin_warnings(systems, human),
        "bt": strengths_block(systems, human, paired_judge, only, judge_all, alpha),
    }
    if target is not None:
        out["people_needed"] = _needed(fits["combined"], paired, alone, alpha, target)
    return out


def _entry(part: dict[str, Any], m: int) -> WinEstimate:
    """System ``m``'s figures of one :func:`_summary`."""
    return {
        "estimate": float(part["estimate"][m]),
        "interval": [float(x) for x in part["interval"][m]],
        "rank_set": [int(r) for r in part["rank_set"][m]],
        "rank": int(part["rank"][m]),
    }


def _needed(
    fit: WinRates, paired: list[Key], alone: list[Key], alpha: float, target: int
) -> PeopleNeeded:
    """:func:`core.stats.ppi_planning.people_needed` with its JSON keys and a sentence."""
    plan = people_needed(fit, len(paired), len(alone), alpha, target)
    more, curve = plan["more"], plan["curve"]
    said = (
        f"About {more:,} more people's verdicts on battles the judge judged alone (drawn at "
        f"random) make the widest rank-set at most {target} rank(s) in "
        f"{plan['share']:.0%} of simulated outcomes"
        if more is not None
        else f"No number of people's verdicts on the {len(alone):,} judge-only battles makes "
        f"the widest rank-set at most {target} rank(s) in {plan['share']:.0%} of simulations"
    )
    return {
        "target": target,
        "more": more,
        "share": plan["share"],
        "curve": {str(m): v for m, v in curve.items()},
        "sentence": said,
    }


def judge_worth(db: Database, judge: str, people: Sequence[str]) -> JudgeWorth:
    """The rater report's "what this judge is worth for ranking": combined with ``people``'s
    verdicts (:func:`people_judge_ranking`, 95%), the number of people's verdicts alone that
    would rank as precisely (``effective_people``), the ratio to the current ``n_both`` and a
    sentence; ``why`` (and no numbers) when it cannot be measured."""
    try:
        r = people_judge_ranking(db, people, judge)
    except InputError as exc:
        return {"why": str(exc), "sentence": f"Not measured: {exc}."}
    n, worth = r["n_both"], r["effective_people"]
    return {
        "why": "",
        "n_both": n,
        "n_judge_only": r["n_judge_only"],
        "lambda": r["lambda"],
        "effective_people": worth,
        "ratio": worth / n,
        "judge_outside": r["judge_outside"],
        "sentence": f"With the people's verdicts on the {n:,} battles it also judged and its "
        f"{r['n_judge_only']:,} battles judged alone, this judge ranks the systems as precisely "
        f"as {worth:,.0f} people's verdicts alone would: {worth / n:.2f} times the {n:,} people "
        f"have given (lambda = {r['lambda']:.2f}; rank --method ppi, docs/statistics.md)."
        + "".join(f" Warning: {w}." for w in r["warnings"]),
    }


def ppi_table(result: PpiRanking) -> list[TableRow]:
    """One row per system: the three estimates, intervals and rank-sets side by side."""
    out = []
    for r in result["systems"]:
        row: TableRow = {"system": r["name"]}
        ways: tuple[tuple[str, WinEstimate], ...] = (
            ("people", r["people"]),
            ("judge", r["judge"]),
            ("combined", r),
        )
        for kind, src in ways:
            lo, hi = src["interval"]
            row[f"{kind}"] = round(src["estimate"], 3)
            row[f"{kind} interval"] = f"[{lo:.3f}, {hi:.3f}]"
            row[f"{kind} rank-set"] = "{}-{}".format(*src["rank_set"])
        row["judge rank"] = r["judge"]["rank"]
        row["judge rank outside"] = r["judge_rank_outside"]
        out.append(row)
    return out


def ppi_figure(result: PpiRanking) -> go.Figure:
    """Each system's three intervals side by side (people only / judge only / combined)."""
    rows = result["systems"][::-1]
    fig = go.Figure()
    offsets = {"people": -0.22, "judge": 0.0, "combined": 0.22}
    labels = {"people": "people only", "judge": "judge only", "combined": "combined (PPI++)"}
    for kind in KINDS:
        src = [
            r if kind == "combined" else r["people" if kind == "people" else "judge"] for r in rows
        ]
        x = np.array([s["estimate"] for s in src])
        lo = np.array([s["interval"][0] for s in src])
        hi = np.array([s["interval"][1] for s in src])
        fig.add_trace(
            go.Scatter(
                x=x,
                y=np.arange(len(rows)) + offsets[kind],
                mode="markers",
                name=labels[kind],
                marker={"size": 9},
                error_x={"type": "data", "symmetric": False, "array": hi - x, "arrayminus": x - lo},
                customdata=[[r["name"]] for r in rows],
                hovertemplate="%{customdata[0]}<br>" + labels[kind] + " %{x:.3f}<extra></extra>",
            )
        )
    fig.update_layout(
        title=f"Win probability with {result['level']:.0%} intervals",
        xaxis_title="win probability (people's verdicts)",
        yaxis={
            "tickmode": "array",
            "tickvals": list(range(len(rows))),
            "ticktext": [r["name"] for r in rows],  # made inert below
        },
        height=160 + 50 * len(rows),
        margin={"l": 10, "r": 10, "t": 60, "b": 40},
    )
    return inert_figure(fig)

"""Prediction-powered (PPI++) estimates of each system's win probability from pairwise battles.

A *battle* compares two of ``k`` systems on one question. Each system ``m`` in a battle gets a
*score*: 1 when it won, 0 when it lost, and for a tie 0 (the win probability of Chatzi et al.,
"Prediction-Powered Ranking of Large Language Models", NeurIPS 2024: a tie is no win) or 1/2
(``ties="half"``). The estimand is the people's win probability

.. math:: \\theta_m = E[Y_m \\mid m \\in \\text{battle}],

the mean score people would give ``m`` over the battles it takes part in.

Data: ``n`` *labelled* battles judged by people (score ``Y``) and by the judge (score ``F``), and
``N`` more battles judged by the judge alone (score ``G``). ``L_m`` / ``U_m`` are the labelled /
judge-only battles of ``m``, with sizes ``n_m`` / ``N_m``. The PPI++ estimate (Angelopoulos,
Duchi & Zrnic, "PPI++: Efficient Prediction-Powered Inference", 2023) is

.. math:: \\hat\\theta_m(\\lambda) = \\lambda \\bar G_{U_m} + \\overline{(Y - \\lambda F)}_{L_m}

(the judge on the judge-only battles plus a correction measured on the people's battles);
unbiased for every ``lambda`` and every judge. Its covariance is the sandwich, over battles,

.. math:: \\hat\\Sigma_{ml} = \\sum_{j \\in L_m \\cap L_l} \\frac{r_{jm} r_{jl}}{n_m n_l}
   + \\lambda^2 \\sum_{j \\in U_m \\cap U_l} \\frac{u_{jm} u_{jl}}{N_m N_l},

``r = (Y - lambda F) - mean``, ``u = G - mean`` (the diagonal is ppi_py's
``var(Y - lambda F) / n_m + lambda^2 var(G) / N_m``, population variances). The power-tuning
weight minimises the estimated total variance ``sum_m Var(theta_m)``:

.. math:: \\lambda^* = \\mathrm{clip}_{[0, 1]}\\Big( \\sum_m \\frac{c_m}{n_m} \\Big/
   \\sum_m s^2_m \\big(\\tfrac{1}{n_m} + \\tfrac{1}{N_m}\\big) \\Big),

``c_m`` the covariance of ``Y`` and ``F`` on ``L_m`` (divisor ``n_m``) and ``s^2_m`` the variance
of the judge's scores on ``L_m`` and ``U_m`` together (divisor count - 1): with one system, or two
systems that meet in every battle, this is ppi_py's ``ppi_mean_pointestimate`` weight.
``lambda = 0`` is the people alone, so the tuned estimate is never (asymptotically) worse than
them; ``lambda = 1`` is plain PPI.

Pure numpy/scipy (``docs/statistics.md``, "People + judge").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from core.errors import InputError
from core.vocabulary import PairwiseVerdict

TIE_RULES = ("none", "half")


@dataclass(frozen=True)
class Battles:
    """Battles as indices into ``systems`` (``a``, ``b``) and each side's scores.

    ``score_a``/``score_b``: the score of ``a`` / ``b`` in each battle (people's on labelled
    battles; the judge's where there is no person); a battle judged several times holds the mean.
    """

    a: np.ndarray
    b: np.ndarray
    score_a: np.ndarray
    score_b: np.ndarray

    def __len__(self) -> int:
        return len(self.a)

    def long(self) -> tuple[np.ndarray, np.ndarray]:
        """``(system, score)`` of every (battle, side), ``a`` sides first: ``2n`` entries."""
        return np.concatenate([self.a, self.b]), np.concatenate([self.score_a, self.score_b])

    def minus(self, other: Battles, lam: float) -> Battles:
        """The same battles scored ``self - lam * other`` (``other``: the same battles)."""
        return Battles(
            self.a, self.b, self.score_a - lam * other.score_a, self.score_b - lam * other.score_b
        )


@dataclass(frozen=True)
class WinRates:
    """Per-system win probabilities, their covariance and the weight ``lam`` used; for a PPI
    estimate also ``rect_cov`` and ``judge_cov``, the covariances of the correction (people's
    battles) and of the judge's mean (judge-only battles): ``cov = rect_cov + lam^2 judge_cov``."""

    estimate: np.ndarray
    cov: np.ndarray
    lam: float
    rect_cov: np.ndarray | None = None
    judge_cov: np.ndarray | None = None

    def intervals(self, alpha: float) -> np.ndarray:
        """``k x 2`` marginal normal intervals at level ``1 - alpha``:
        ``theta_m +- z_{1 - alpha/2} sqrt(Sigma_mm)`` (ppi_py's ``ppi_mean_ci``)."""
        z = float(sps.norm.ppf(1 - check_alpha(alpha) / 2))
        half = z * np.sqrt(np.clip(np.diag(self.cov), 0, None))
        return np.column_stack([self.estimate - half, self.estimate + half])


def check_alpha(alpha: float) -> float:
    """``alpha`` when it is an error level in (0, 1); else an :class:`InputError`."""
    if not 0 < alpha < 1:
        raise InputError(f"alpha must be in (0, 1), not {alpha}")
    return float(alpha)


def tie_scores(verdict: str, ties: str = "none") -> tuple[float, float]:
    """The scores ``(system shown first, second)`` of one stored verdict (``A``, ``B``, ``Equal``
    or ``None`` = both bad): a tie of either kind is no win (``ties="none"``) or half a win."""
    if ties not in TIE_RULES:
        raise InputError(f"ties must be one of {', '.join(TIE_RULES)}, not {ties!r}")
    if verdict == PairwiseVerdict.A:
        return 1.0, 0.0
    if verdict == PairwiseVerdict.B:
        return 0.0, 1.0
    if verdict in (PairwiseVerdict.EQUAL, PairwiseVerdict.NONE):
        return (0.5, 0.5) if ties == "half" else (0.0, 0.0)
    raise InputError(f"not a pairwise verdict: {verdict!r}")


def counts(battles: Battles, k: int) -> np.ndarray:
    """The number of battles of each system."""
    return np.bincount(battles.long()[0], minlength=k)


def mean_and_cov(battles: Battles, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-system mean score over its battles and the sandwich covariance of those means,
    ``Sigma_ml = sum_j r_jm r_jl / (n_m n_l)`` with ``r = score - mean`` (a battle touches two
    systems: its own two diagonal terms and one off-diagonal pair). O(n) time and memory."""
    system, score = battles.long()
    n_m = np.bincount(system, minlength=k)
    if (n_m == 0).any():
        raise InputError("a system has no battle in this set")
    mean = np.bincount(system, score, minlength=k) / n_m
    r = (score - mean[system]) / n_m[system]
    cov = np.diag(np.bincount(system, r * r, minlength=k))
    half = len(battles)
    cross = r[:half] * r[half:]
    np.add.at(cov, (battles.a, battles.b), cross)
    np.add.at(cov, (battles.b, battles.a), cross)
    return mean, cov


def classical_win_rates(battles: Battles, k: int) -> WinRates:
    """The plain mean score per system over ``battles`` (people alone, or the judge alone) with
    its sandwich covariance (:func:`mean_and_cov`); ``lam`` is 0."""
    mean, cov = mean_and_cov(battles, k)
    return WinRates(mean, cov, 0.0)


def power_tuned_lambda(
    people: Battles, judge_paired: Battles, judge_only: Battles, k: int
) -> float:
    """``lambda*`` of the module docstring from the labelled battles' people's and judge's
    scores and the judge-only battles' scores (every system in both sets)."""
    system, y = people.long()
    _, f = judge_paired.long()
    system_u, g = judge_only.long()
    n_m = np.bincount(system, minlength=k)
    big_m = np.bincount(system_u, minlength=k)
    ybar = np.bincount(system, y, minlength=k) / n_m
    fbar = np.bincount(system, f, minlength=k) / n_m
    c = np.bincount(system, (y - ybar[system]) * (f - fbar[system]), minlength=k) / n_m
    pooled_n = n_m + big_m
    pooled_mean = (np.bincount(system, f, minlength=k) + np.bincount(system_u, g, minlength=k)) / (
        pooled_n
    )
    ss = np.bincount(system, (f - pooled_mean[system]) ** 2, minlength=k) + np.bincount(
        system_u, (g - pooled_mean[system_u]) ** 2, minlength=k
    )
    s2 = ss / np.maximum(pooled_n - 1, 1)
    denom = float((s2 * (1 / n_m + 1 / big_m)).sum())
    if denom <= 0:
        return 0.0
    return float(np.clip((c / n_m).sum() / denom, 0.0, 1.0))


def ppi_win_rates(
    people: Battles, judge_paired: Battles, judge_only: Battles, k: int, lam: float | None = None
) -> WinRates:
    """The PPI++ estimate of every system's win probability (module docstring).

    ``people`` and ``judge_paired`` are the same ``n`` battles (same ``a``, ``b``, in the same
    order) with the people's and the judge's scores; ``judge_only`` the ``N`` battles the judge
    alone judged. ``lam``: a fixed weight in [0, 1], or None for the power-tuned ``lambda*``.
    Every system needs at least one battle in each set.
    """
    if not (np.array_equal(people.a, judge_paired.a) and np.array_equal(people.b, judge_paired.b)):
        raise InputError("the people's and the judge's labelled battles differ")
    if (counts(people, k) == 0).any() or (counts(judge_only, k) == 0).any():
        raise InputError("every system needs battles judged by both and by the judge alone")
    if lam is None:
        lam = power_tuned_lambda(people, judge_paired, judge_only, k)
    elif not 0 <= lam <= 1:
        raise InputError(f"lambda must be in [0, 1], not {lam}")
    rect_mean, rect_cov = mean_and_cov(people.minus(judge_paired, lam), k)
    judge_mean, judge_cov = mean_and_cov(judge_only, k)
    return WinRates(
        lam * judge_mean + rect_mean,
        rect_cov + lam**2 * judge_cov,
        float(lam),
        rect_cov,
        judge_cov,
    )


def effective_people(people_only: WinRates, combined: WinRates, n: int) -> float:
    """The human verdicts the combination is worth: ``n * tr(Sigma_people) / tr(Sigma_combined)``
    (the variance ratio at the current ``n``)."""
    num, den = float(np.trace(people_only.cov)), float(np.trace(combined.cov))
    return float(n * num / den) if den > 0 else float(n)

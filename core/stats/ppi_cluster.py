"""Question-clustered bootstrap of the people-only, judge-only and combined win probabilities.

The normal intervals of :mod:`core.stats.ppi_mean` treat battles as independent. Battles of the
same question are not (a hard question makes every system lose; a judge misreads a whole
question), so those intervals are too narrow when a question holds several battles. This
bootstrap resamples *questions*: replicate ``r`` draws question weights ``w_r ~
Multinomial(Q; 1/Q, ..., 1/Q)`` (:func:`core.stats.bradley_terry.question_weights`, questions in
the order of their ids, so the draws do not depend on the order the battles came in), and every
battle of question ``q`` counts ``w_rq`` times, labelled and judge-only battles alike (a question
keeps its battles together, as the clustering requires). With ``S`` the weighted per-system sums,

.. math:: \\theta^{people}_r = S_r(Y)_L / S_r(1)_L, \\quad
   \\theta^{judge}_r = (S_r(F)_L + S_r(G)_U) / (S_r(1)_L + S_r(1)_U), \\quad
   \\theta^{PPI}_r = \\lambda S_r(G)_U / S_r(1)_U + S_r(Y - \\lambda F)_L / S_r(1)_L,

with ``lambda`` held at the full-data value (as ppi_py's ``ppboot`` holds a given ``lam``). The
covariance of the replicates (divisor ``B - 1``) replaces the sandwich; intervals and rank-sets
are then computed from it as before. A replicate in which some system has no battle in a set is
left out; when more than half are, the data are too thin and an :class:`InputError` says so.
With one battle per question it is the ordinary bootstrap, close to the normal intervals
(``tests/stats/test_ppi_cluster.py`` compares it with ppi_py). Pure numpy.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from core.errors import InputError
from core.stats.bradley_terry import question_weights
from core.stats.ppi_mean import Battles, WinRates

CELLS = 20_000_000  # weights per chunk of replicates


@dataclass(frozen=True)
class Clustered:
    """The three sets of battles with each battle's question (``0 .. n_questions - 1``)."""

    people: Battles
    judge_paired: Battles
    judge_only: Battles
    q_paired: np.ndarray
    q_only: np.ndarray
    n_questions: int


def _sums(battles: Battles, q: np.ndarray, nq: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(count, score sum)`` of every (question, system): two ``nq x k`` matrices."""
    system, score = battles.long()
    cell = np.concatenate([q, q]) * k + system
    n = np.bincount(cell, minlength=nq * k).reshape(nq, k).astype(float)
    s = np.bincount(cell, score, minlength=nq * k).reshape(nq, k)
    return n, s


def replicates(
    data: Clustered, k: int, lam: float, n_boot: int, seed: int
) -> dict[str, np.ndarray]:
    """``{"people", "judge", "combined"}``: ``B' x k`` replicate estimates (module docstring),
    ``B'`` the replicates in which every system has battles in every set."""
    if n_boot < 2:
        raise InputError(f"the question bootstrap needs at least 2 replicates, not {n_boot}")
    nq = data.n_questions
    if (
        len(data.q_paired)
        and int(data.q_paired.max()) >= nq
        or (len(data.q_only) and int(data.q_only.max()) >= nq)
    ):
        raise InputError("a battle's question is outside the questions given")
    n_l, y_l = _sums(data.people, data.q_paired, nq, k)
    _, f_l = _sums(data.judge_paired, data.q_paired, nq, k)
    n_u, g_u = _sums(data.judge_only, data.q_only, nq, k)
    m = np.hstack([n_l, y_l, f_l, n_u, g_u])  # nq x 5k
    rng = np.random.default_rng(seed)
    chunk = max(1, min(n_boot, CELLS // max(nq, 1)))
    parts = []
    for start in range(0, n_boot, chunk):
        w = question_weights(rng, nq, min(chunk, n_boot - start)).astype(float)
        parts.append(w @ m)
    sums = np.vstack(parts)
    cl, sy, sf, cu, sg = (sums[:, i * k : (i + 1) * k] for i in range(5))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = {
            "people": sy / cl,
            "judge": (sf + sg) / (cl + cu),
            "combined": lam * sg / cu + (sy - lam * sf) / cl,
        }
    ok = (cl > 0).all(axis=1) & (cu > 0).all(axis=1)
    if ok.sum() < max(2, n_boot / 2):
        raise InputError(
            "too few questions for the question bootstrap: in most replicates some system has "
            "no battle judged by both or by the judge alone"
        )
    return {name: rep[ok] for name, rep in out.items()}


def clustered(fits: dict[str, WinRates], reps: dict[str, np.ndarray]) -> dict[str, WinRates]:
    """``fits`` with each covariance replaced by its replicates' covariance (divisor ``B - 1``)."""
    return {
        name: replace(fit, cov=np.atleast_2d(np.cov(reps[name], rowvar=False)))
        for name, fit in fits.items()
    }

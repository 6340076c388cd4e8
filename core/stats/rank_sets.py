"""Rank-sets from a simultaneous confidence region of the systems' scores.

Chatzi, Straitouri, Thejaswi & Gomez-Rodriguez, "Prediction-Powered Ranking of Large Language
Models" (NeurIPS 2024). With an estimate ``theta_hat`` of ``k`` scores and its covariance
``Sigma``, the ellipsoid

.. math:: \\{\\theta : (\\theta - \\hat\\theta)^T \\Sigma^{-1} (\\theta - \\hat\\theta)
   \\le \\chi^2_{k, 1-\\alpha}\\}

holds the true scores with probability about ``1 - alpha``. On it, ``theta_l - theta_m`` ranges
over ``(theta_hat_l - theta_hat_m) +- sqrt(chi2 * v_ml)``, ``v_ml = Sigma_ll + Sigma_mm -
2 Sigma_lm``; so ``l`` is surely above ``m`` when ``theta_hat_l - theta_hat_m > sqrt(chi2 *
v_ml)``, for every pair at once. The rank-set of ``m`` (rank 1 = best) is

.. math:: [\\,1 + \\#\\{l \\text{ surely above } m\\},\\; k - \\#\\{l \\text{ surely below } m\\}\\,],

and all rank-sets cover the true ranking together with probability at least that of the
ellipsoid. Pure numpy/scipy.
"""

from __future__ import annotations

import numpy as np
from scipy import stats as sps

from core.stats.ppi_mean import check_alpha


def surely_above(estimate: np.ndarray, cov: np.ndarray, alpha: float) -> np.ndarray:
    """``k x k`` boolean: ``[l, m]`` when ``l`` is above ``m`` everywhere on the ``1 - alpha``
    ellipsoid (module docstring)."""
    theta = np.asarray(estimate, float)
    cov = np.asarray(cov, float)
    k = len(theta)
    chi2 = float(sps.chi2.ppf(1 - check_alpha(alpha), k))
    d = np.diag(cov)
    v = np.clip(d[:, None] + d[None, :] - 2 * cov, 0, None)
    above = theta[:, None] - theta[None, :] > np.sqrt(chi2 * v)
    np.fill_diagonal(above, False)
    return np.asarray(above)


def rank_sets(estimate: np.ndarray, cov: np.ndarray, alpha: float) -> list[tuple[int, int]]:
    """The rank-set ``(best, worst)`` of every system at level ``1 - alpha`` (module docstring)."""
    above = surely_above(estimate, cov, alpha)
    k = above.shape[0]
    return [(1 + int(above[:, m].sum()), k - int(above[m, :].sum())) for m in range(k)]


def point_ranks(estimate: np.ndarray) -> list[int]:
    """``1 + the number of systems with a strictly larger estimate`` for each system."""
    theta = np.asarray(estimate, float)
    return [1 + int((theta > t).sum()) for t in theta]

"""Prediction-powered (PPI++) Bradley-Terry strengths from pairwise battles.

The Bradley-Terry model is a logistic regression without intercept: in a battle of ``a`` and
``b``, ``P(a beats b) = expit(beta_a - beta_b)``. The strengths are identified up to a constant;
they are fitted in the ``k - 1`` coordinates ``theta`` of an orthonormal basis ``Q`` (Helmert
contrasts) of the vectors that sum to 0, so ``beta = Q theta`` is centred (mean 0) and
``tr Cov(theta) = tr Cov(beta)``. A battle's covariates are ``x = Q_a - Q_b`` (the rows of ``Q``)
and its outcome ``y = (1 + s_a - s_b) / 2`` from the two systems' scores
(:class:`core.stats.ppi_mean.Battles`): 1 a win of ``a``, 0 a loss, 1/2 a tie of either kind
(under both tie rules; the mean when several raters judged the battle).

PPI++ for M-estimation (Angelopoulos, Duchi & Zrnic 2023): with ``n`` labelled battles (people's
outcomes ``Y``, the judge's ``F``) and ``N`` judge-only battles (``G``), ``l(x, t; theta) =
-t x.theta + log(1 + exp(x.theta))``,

.. math:: \\hat\\theta(\\lambda) = \\arg\\min_\\theta \\frac{\\lambda}{N}\\sum_U l(x, G)
   + \\frac{1}{n} \\sum_L \\big(l(x, Y) - \\lambda\\, l(x, F)\\big),

solved by Newton's method (convex for ``lambda`` in [0, 1]). Its covariance is the sandwich
``H^{-1} (n/N V_U + V_L) H^{-1} / n`` with ``H`` the Hessian of the log-loss over all battles at
``theta_hat``, ``V_L = Cov(grad l(x, Y) - lambda grad l(x, F))`` over the labelled battles and
``V_U = lambda^2 Cov(grad l(x, G))`` over the judge-only ones. ``lambda`` is tuned as ppi_py's
``ppi_logistic_ci`` tunes it (``_calc_lam_glm``, clipped to [0, 1]; fit at ``lambda = 1``, tune,
refit, tune again at that fit, refit), so the estimates and intervals equal ppi_py's
on the same covariates (``tests/stats/test_ppi_bt.py``). ``lambda = 0`` is people alone
(the classical logistic MLE with its sandwich covariance). Pure numpy/scipy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg
from scipy import stats as sps
from scipy.special import expit

from core.errors import InputError
from core.stats.bradley_terry import strongly_connected
from core.stats.ppi_mean import Battles, check_alpha

MAX_NEWTON = 100
BIG = 30.0  # |theta| beyond this: a system wins (or loses) every battle, no finite strength
NOT_FINITE = (
    "a system (or group of systems) wins or loses every battle against the rest, or the "
    "battles do not connect the systems: its Bradley-Terry strength is not finite"
)


@dataclass(frozen=True)
class Design:
    """Some battles as the model sees them: systems ``a``, ``b``, outcomes ``y`` and the
    contrasts ``q``. The covariates ``x = Q_a - Q_b`` are never formed for the fit: every
    product with them is a sum over the battles' two systems (O(n), no dense ``n x k`` matrix)."""

    a: np.ndarray
    b: np.ndarray
    y: np.ndarray
    q: np.ndarray

    @property
    def x(self) -> np.ndarray:
        """The ``n x (k - 1)`` covariates (for comparison with ppi_py)."""
        x: np.ndarray = self.q[self.a] - self.q[self.b]
        return x

    def eta(self, theta: np.ndarray) -> np.ndarray:
        """``x . theta`` of every battle: ``beta_a - beta_b`` with ``beta = Q theta``."""
        beta = self.q @ theta
        out: np.ndarray = beta[self.a] - beta[self.b]
        return out

    def xt(self, r: np.ndarray) -> np.ndarray:
        """``X^T r``."""
        k = len(self.q)
        out: np.ndarray = self.q.T @ (np.bincount(self.a, r, k) - np.bincount(self.b, r, k))
        return out

    def gram(self, w: np.ndarray) -> np.ndarray:
        """``X^T diag(w) X = Q^T L Q``, ``L`` the Laplacian of the battles weighted by ``w``."""
        k = len(self.q)
        lap = np.diag(np.bincount(self.a, w, k) + np.bincount(self.b, w, k))
        cross = np.bincount(self.a * k + self.b, w, k * k).reshape(k, k)
        lap -= cross + cross.T
        out: np.ndarray = self.q.T @ lap @ self.q
        return out


@dataclass(frozen=True)
class StrengthFit:
    """Centred strengths ``beta = Q theta``, their covariance, the weight ``lam`` used, and the
    fit in contrast coordinates (``theta``, ``theta_cov``: what ppi_py reports)."""

    estimate: np.ndarray
    cov: np.ndarray
    lam: float
    theta: np.ndarray
    theta_cov: np.ndarray

    def intervals(self, alpha: float) -> np.ndarray:
        """``k x 2`` normal intervals ``beta_m +- z_{1 - alpha/2} sqrt(Cov_mm)``."""
        return _normal(self.estimate, self.cov, alpha)

    def theta_intervals(self, alpha: float) -> np.ndarray:
        """The same in contrast coordinates (``ppi_logistic_ci``'s ``(lower, upper)``)."""
        return _normal(self.theta, self.theta_cov, alpha)


def _normal(est: np.ndarray, cov: np.ndarray, alpha: float) -> np.ndarray:
    z = float(sps.norm.ppf(1 - check_alpha(alpha) / 2))
    half = z * np.sqrt(np.clip(np.diag(cov), 0, None))
    return np.column_stack([est - half, est + half])


def contrasts(k: int) -> np.ndarray:
    """``Q``: ``k x (k - 1)``, orthonormal columns orthogonal to the ones vector (Helmert)."""
    if k < 2:
        raise InputError("Bradley-Terry strengths need at least two systems")
    q: np.ndarray = linalg.helmert(k).T
    return q


def design(battles: Battles, k: int) -> Design:
    """The covariates ``Q_a - Q_b`` and outcomes ``(1 + s_a - s_b) / 2`` of ``battles``."""
    y = np.clip((1 + battles.score_a - battles.score_b) / 2, 0.0, 1.0)
    return Design(np.asarray(battles.a), np.asarray(battles.b), y, contrasts(k))


def _row_cov(parts: list[tuple[Design, np.ndarray]]) -> np.ndarray:
    """``np.cov`` (divisor count - 1) of the rows ``x_j r_j`` of every ``(design, r)`` in
    ``parts`` together: ``(sum x x^T r^2 - count m m^T) / (count - 1)``, ``m`` their mean."""
    count = sum(len(d.y) for d, _ in parts)
    mean = sum(d.xt(r) for d, r in parts) / count
    square = sum(d.gram(r * r) for d, r in parts)
    out: np.ndarray = (square - count * np.outer(mean, mean)) / (count - 1)
    return out


def _solve(lab: Design, f: np.ndarray, unl: Design, lam: float, theta: np.ndarray) -> np.ndarray:
    """``theta_hat(lambda)`` of the module docstring by damped Newton steps from ``theta``."""
    n, big_n = len(lab.y), len(unl.y)

    def loss(t: np.ndarray) -> float:
        eta, eta_u = lab.eta(t), unl.eta(t)
        soft, soft_u = np.logaddexp(0, eta), np.logaddexp(0, eta_u)
        labelled = ((1 - lam) * soft - (lab.y - lam * f) * eta).sum() / n
        return float(labelled + lam * (soft_u - unl.y * eta_u).sum() / big_n)

    current = loss(theta)
    for _ in range(MAX_NEWTON):
        mu, mu_u = expit(lab.eta(theta)), expit(unl.eta(theta))
        grad = lab.xt((1 - lam) * mu - lab.y + lam * f) / n + lam * unl.xt(mu_u - unl.y) / big_n
        hess = (1 - lam) * lab.gram(mu * (1 - mu)) / n + lam * unl.gram(mu_u * (1 - mu_u)) / big_n
        try:
            step = np.linalg.solve(hess, grad)
        except np.linalg.LinAlgError:
            raise InputError(NOT_FINITE) from None
        size = 1.0
        while True:
            trial = theta - size * step
            value = loss(trial)
            if value <= current + 1e-15 * abs(current) or size < 1e-8:
                break
            size /= 2
        theta, current = trial, value
        if np.max(np.abs(size * step)) < 1e-13:
            break
    if not np.all(np.isfinite(theta)) or np.max(np.abs(theta)) > BIG:
        raise InputError(NOT_FINITE)
    return theta


def _check_finite(battles: Battles, k: int) -> None:
    """The maximum-likelihood strengths of ``battles`` are finite only when the graph of wins
    (a tie both ways) is strongly connected (:func:`core.stats.bradley_terry.strongly_connected`)."""
    y = design(battles, k).y
    wins = np.zeros((k, k))
    np.add.at(wins, (battles.a, battles.b), y)
    np.add.at(wins, (battles.b, battles.a), 1 - y)
    if not bool(strongly_connected(wins[None])[0]):
        raise InputError(NOT_FINITE)


def _residuals(
    theta: np.ndarray, lab: Design, f: np.ndarray, unl: Design, use_unlabelled: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """ppi_py's ``_logistic_get_stats`` with each gradient row ``x_j r_j`` kept as its residual
    ``r_j`` (``mu - Y``, ``mu - F``, ``mu - G``), and the inverse Hessian."""
    n, big_n = len(lab.y), len(unl.y)
    mu, mu_u = expit(lab.eta(theta)), expit(unl.eta(theta))
    hess = lab.gram(mu * (1 - mu))
    if use_unlabelled:
        hess = (hess + unl.gram(mu_u * (1 - mu_u))) / (n + big_n)
    else:
        hess = hess / n
    return mu - lab.y, mu - f, mu_u - unl.y, np.linalg.inv(hess)


def _tuned_lambda(
    lab: Design, unl: Design, r_y: np.ndarray, r_f: np.ndarray, r_g: np.ndarray, inv_h: np.ndarray
) -> float:
    """ppi_py's ``_calc_lam_glm(..., clip=True)`` for the total variance."""
    n, big_n = len(r_y), len(r_g)
    m_y, m_f = lab.xt(r_y) / n, lab.xt(r_f) / n
    cov_grads = (2 * lab.gram(r_y * r_f) - n * (np.outer(m_y, m_f) + np.outer(m_f, m_y))) / n
    var_hat = _row_cov([(lab, r_f), (unl, r_g)])
    num = np.trace(inv_h @ cov_grads @ inv_h)
    den = 2 * (1 + n / big_n) * np.trace(inv_h @ var_hat @ inv_h)
    return float(np.clip(num / den, 0, 1)) if den > 0 else 0.0


def _covariance(
    theta: np.ndarray, lab: Design, f: np.ndarray, unl: Design, lam: float
) -> np.ndarray:
    n, big_n = len(lab.y), len(unl.y)
    r_y, r_f, r_g, inv_h = _residuals(theta, lab, f, unl, lam != 0)
    var_u = lam**2 * _row_cov([(unl, r_g)])
    var = _row_cov([(lab, r_y - lam * r_f)])
    cov: np.ndarray = inv_h @ (n / big_n * var_u + var) @ inv_h / n
    return cov


def ppi_strengths(
    people: Battles, judge_paired: Battles, judge_only: Battles, k: int, lam: float | None = None
) -> StrengthFit:
    """The PPI++ Bradley-Terry strengths (module docstring); ``lam`` fixed in [0, 1] or None
    (tuned as ``ppi_logistic_ci`` tunes it). The three sets as for
    :func:`core.stats.ppi_mean.ppi_win_rates`."""
    if not (np.array_equal(people.a, judge_paired.a) and np.array_equal(people.b, judge_paired.b)):
        raise InputError("the people's and the judge's labelled battles differ")
    if lam is not None and not 0 <= lam <= 1:
        raise InputError(f"lambda must be in [0, 1], not {lam}")
    _check_finite(people, k)
    lab, unl = design(people, k), design(judge_only, k)
    f = design(judge_paired, k).y
    start = _solve(lab, f, lab, 0.0, np.zeros(k - 1))
    if lam is None:
        theta = _solve(lab, f, unl, 1.0, start)
        for _ in range(2):
            used = _tuned_lambda(lab, unl, *_residuals(theta, lab, f, unl, True))
            theta = _solve(lab, f, unl, used, theta)
    else:
        used = float(lam)
        theta = _solve(lab, f, unl, used, start)
    return _fit(theta, _covariance(theta, lab, f, unl, used), used, k)


def classical_strengths(battles: Battles, k: int) -> StrengthFit:
    """The Bradley-Terry MLE of ``battles`` alone (people alone, or the judge alone) with its
    sandwich covariance: the PPI fit at ``lambda = 0``."""
    _check_finite(battles, k)
    lab = design(battles, k)
    theta = _solve(lab, lab.y, lab, 0.0, np.zeros(k - 1))
    return _fit(theta, _covariance(theta, lab, lab.y, lab, 0.0), 0.0, k)


def _fit(theta: np.ndarray, theta_cov: np.ndarray, lam: float, k: int) -> StrengthFit:
    q = contrasts(k)
    return StrengthFit(q @ theta, q @ theta_cov @ q.T, float(lam), theta, theta_cov)

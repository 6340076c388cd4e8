"""Leaderboards: :class:`Leaderboard` (table, matrices, JSON) and :func:`leaderboard`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from core.errors import InputError
from core.stats.bradley_terry import bootstrap_bradley_terry, fit_bradley_terry, rank_ub
from core.stats.pairwise_counts import PairwiseCounts, _expit
from core.stats.ranking_settings import DEFAULT_RANKING, RankingSettings

if TYPE_CHECKING:  # pandas costs ~0.5 s to import: loaded only where a table is built
    import pandas as pd


def _nan_none(x: float) -> float | None:
    return None if x is None or not np.isfinite(x) else float(x)


@dataclass
class Leaderboard:
    """A fitted leaderboard. Matrices are indexed by ``systems`` (in order of first appearance).

    ``ci_low``/``ci_high`` bound ``beta`` at ``level`` (question-clustered bootstrap percentile
    interval); NaN without bootstrap. ``rank`` = 1 + number of systems with a larger ``beta``;
    ``rank_ub`` = 1 + number of systems whose ``ci_low`` exceeds this system's ``ci_high``.
    ``settings`` are the :class:`RankingSettings` it was fitted with.
    """

    systems: list[str]
    beta: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    decided: np.ndarray
    tie_counts: np.ndarray
    settings: RankingSettings
    n_questions: int
    n_none: int
    n_degenerate: int = 0
    boot: np.ndarray | None = None
    extra_columns: dict[str, np.ndarray] | None = None
    extra: dict[str, Any] | None = None

    @property
    def rank(self) -> np.ndarray:
        out: np.ndarray = 1 + (self.beta[None, :] > self.beta[:, None] + 1e-12).sum(axis=1)
        return out

    @property
    def rank_ub(self) -> np.ndarray:
        if self.settings.n_boot == 0:
            return np.full(len(self.systems), np.nan)
        return rank_ub(self.ci_low, self.ci_high)

    @property
    def order(self) -> np.ndarray:
        return np.lexsort((np.arange(len(self.beta)), -self.beta))

    def _columns(self) -> dict[str, np.ndarray]:
        wins, losses = self.decided.sum(axis=1), self.decided.sum(axis=0)
        ties = self.tie_counts.sum(axis=1)
        cols = {
            "name": np.array(self.systems, dtype=object),
            "beta": self.beta,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "strength": np.exp(self.beta),
            "rank": self.rank,
            "rank_ub": self.rank_ub,
            "n_comparisons": wins + losses + ties,
            "wins": wins,
            "losses": losses,
            "ties": ties,
        }
        cols.update(self.extra_columns or {})
        return {k: np.asarray(v)[self.order] for k, v in cols.items()}

    @property
    def table(self) -> pd.DataFrame:
        """DataFrame sorted by ``beta``: name, beta, ci_low, ci_high, strength, rank, rank_ub, ..."""
        import pandas as pd

        df = pd.DataFrame(self._columns())
        df["rank_ub"] = (
            df["rank_ub"].astype("Int64")
            if self.settings.n_boot
            else pd.array([pd.NA] * len(df), dtype="Int64")
        )
        return df.reset_index(drop=True)

    def _frame(self, m: np.ndarray) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(m, index=pd.Index(self.systems, name="system"), columns=self.systems)

    def predicted_matrix(self) -> np.ndarray:
        """``P[i, j] = sigma(beta_i - beta_j)``; NaN on the diagonal."""
        p = _expit(self.beta[:, None] - self.beta[None, :])
        np.fill_diagonal(p, np.nan)
        return p

    def win_rate_matrix(self) -> np.ndarray:
        """Empirical share won by i against j (Equal = 1/2 under ``ties='half'``); NaN if never met."""
        t = self.tie_counts if self.settings.ties == "half" else 0 * self.tie_counts
        den = self.decided + self.decided.T + t
        with np.errstate(invalid="ignore", divide="ignore"):
            out: np.ndarray = np.where(
                den > 0, (self.decided + 0.5 * t) / np.where(den > 0, den, 1), np.nan
            )
        return out

    def count_matrix(self) -> np.ndarray:
        """Number of non-None judgments between i and j (ties included)."""
        out: np.ndarray = self.decided + self.decided.T + self.tie_counts
        return out

    @property
    def predicted_win(self) -> pd.DataFrame:
        return self._frame(self.predicted_matrix())

    @property
    def win_rate(self) -> pd.DataFrame:
        return self._frame(self.win_rate_matrix())

    @property
    def counts(self) -> pd.DataFrame:
        return self._frame(self.count_matrix())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: ``systems`` rows (best first) plus the matrices and run facts."""
        cols = self._columns()
        rows = []
        for k in range(len(self.systems)):
            row: dict[str, Any] = {}
            for name, col in cols.items():
                v = col[k]
                if name == "name":
                    row[name] = str(v)
                elif name in (
                    "rank",
                    "rank_ub",
                    "rank_lc",
                    "n_comparisons",
                    "wins",
                    "losses",
                    "ties",
                ):
                    row[name] = None if not np.isfinite(v) else int(v)
                else:
                    row[name] = _nan_none(v)
            rows.append(row)

        def nested(m: np.ndarray) -> dict[str, dict[str, float | None]]:
            return {
                a: {b: _nan_none(m[i, j]) for j, b in enumerate(self.systems) if i != j}
                for i, a in enumerate(self.systems)
            }

        s = self.settings
        out = {
            "systems": rows,
            "level": s.level,
            "interval": f"question-clustered bootstrap percentile, {s.level:.0%}"
            if s.n_boot
            else "none (no bootstrap)",
            "n_boot": s.n_boot,
            "seed": s.seed,
            "ties": s.ties,
            "n_judgments": int(self.count_matrix().sum() / 2),
            "n_excluded_none": self.n_none,
            "n_questions": self.n_questions,
            "n_degenerate_replicates": self.n_degenerate,
            "alpha": s.alpha,
            "predicted_win": nested(self.predicted_matrix()),
            "win_rate": nested(self.win_rate_matrix()),
            "counts": nested(self.count_matrix()),
        }
        out.update(self.extra or {})
        return out

    def to_json(self, **kwargs: Any) -> str:
        """:meth:`to_dict` as a JSON string."""
        return json.dumps(self.to_dict(), **kwargs)


def _prepare(records: Any) -> PairwiseCounts:
    counts = PairwiseCounts.from_records(records)
    if counts.n_systems < 2:
        found = f" (found only {counts.systems[0]!r})" if counts.systems else ""
        raise InputError(f"need judgments over at least two systems{found}")
    return counts


def leaderboard(records: Any, settings: RankingSettings = DEFAULT_RANKING) -> Leaderboard:
    """Bradley-Terry leaderboard with question-clustered bootstrap intervals at ``settings.level``.

    ``records``: (question_id, system_a, system_b, verdict) tuples, a DataFrame with those columns,
    or a :class:`PairwiseCounts`. ``ties='half'`` counts Equal as half a win each, ``'drop'``
    ignores it; ``None`` verdicts are excluded. ``n_boot=0`` skips the bootstrap; ``alpha > 0``
    gives the MAP estimate under an ``N(0, 1/alpha)`` prior (:class:`RankingSettings`).
    """
    ties, alpha = settings.ties, settings.alpha
    counts = _prepare(records)
    decided, t = counts.outcome_matrices()
    W = decided + 0.5 * t if ties == "half" else decided.astype(float)
    if W.sum() <= 0:
        raise InputError("no decided comparisons left (all verdicts None or dropped ties)")
    beta = fit_bradley_terry(W, alpha, systems=counts.systems)
    n = counts.n_systems
    lo = hi = np.full(n, np.nan)
    boot, n_deg = None, 0
    if settings.n_boot:
        res = bootstrap_bradley_terry(counts, settings, init=beta)
        lo, hi, boot, n_deg = res.ci_low, res.ci_high, res.beta, res.n_degenerate
    return Leaderboard(
        list(counts.systems),
        beta,
        lo,
        hi,
        decided.astype(float),
        t.astype(float),
        settings,
        len(counts.questions),
        counts.n_none,
        n_deg,
        boot,
    )

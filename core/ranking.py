"""Bradley-Terry ranking of systems from pairwise verdicts, with question-clustered bootstrap CIs.

Model (Bradley & Terry 1952; Zermelo 1929). System ``i`` has strength ``g_i = exp(beta_i)`` and

.. math:: P(i \\succ j) = \\frac{g_i}{g_i + g_j} = \\sigma(\\beta_i - \\beta_j),
          \\qquad \\textstyle\\sum_i \\beta_i = 0 .

Given the win matrix ``W`` (``W[i, j]`` = wins of ``i`` over ``j``; an ``Equal`` verdict adds 1/2 to
both ``W[i, j]`` and ``W[j, i]`` under ``ties='half'``) the log-likelihood is

.. math:: \\ell(\\beta) = \\sum_{i \\ne j} W_{ij} \\log \\sigma(\\beta_i - \\beta_j)
          \\; - \\; \\tfrac{\\alpha}{2} \\lVert \\beta \\rVert^2 ,

``alpha = 0`` (default) giving the maximum-likelihood estimate. It is maximised by damped Newton
iterations on all bootstrap replicates at once until the gradient norm is <= 1e-9 (or the Newton
step is below 1e-12, i.e. at machine precision). ``None`` verdicts (both answers wrong) are excluded,
as in the Long-Span QA paper (Bohnet et al. 2024).

The MLE exists only when the comparison graph (edge ``i -> j`` when ``i`` beat ``j`` at least once)
is strongly connected; otherwise :class:`NotIdentifiableError` is raised, unless ``alpha > 0`` is
given: then the MAP estimate under a N(0, 1/alpha) prior is returned with a ``RuntimeWarning``.
Bootstrap replicates that are not strongly connected are fitted with ``alpha = 1e-6`` (their runaway
strengths then sit far out in the tails of the percentile interval) and counted in
``n_degenerate``; a warning names the count.

The bootstrap resamples *questions* (all judgments of a question travel together): a replicate is
a multinomial weight vector ``w`` over the ``Q`` questions and ``W* = sum_q w_q W_q``.
"""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from core.errors import InputError, WorkbenchError

A_WINS, B_WINS, EQUAL, NONE = 0, 1, 2, 3
_VERDICTS = {"a": "A", "a is better": "A", "b": "B", "b is better": "B", "equal": "Equal",
             "none": "None"}
_CODE = {"A": A_WINS, "B": B_WINS, "Equal": EQUAL, "None": NONE}
DEGENERATE_ALPHA = 1e-6


class NotIdentifiableError(InputError):
    """The comparison graph is not strongly connected: the Bradley-Terry MLE does not exist."""


class ConvergenceError(WorkbenchError):
    """An iterative fit did not reach its tolerance."""


def parse_verdict(s: Any) -> str:
    """Normalise a pairwise verdict to ``'A'``, ``'B'``, ``'Equal'`` or ``'None'``.

    Case-insensitive; ``'A is better'`` / ``'B is better'`` are accepted. Anything else (including
    an empty or missing value) raises :class:`InputError`.
    """
    if isinstance(s, str):
        key = " ".join(s.strip().lower().split())
        if key in _VERDICTS:
            return _VERDICTS[key]
    raise InputError(f"unknown verdict {s!r} (expected A, B, Equal or None)")


def _expit(x: np.ndarray) -> np.ndarray:
    """Logistic sigma(x) = 1 / (1 + exp(-x)), overflow-free."""
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _log_expit(x: np.ndarray) -> np.ndarray:
    """log sigma(x) = -log(1 + exp(-x)), overflow-free."""
    return -np.logaddexp(0.0, -x)


class PairwiseCounts:
    """Incremental aggregate of pairwise judgments (the live leaderboard's state).

    Stores one integer row per judgment (question, system a, system b, outcome, weight);
    :meth:`add` is O(1) and every fit aggregates with ``numpy.bincount``, so adding a verdict never
    re-reads the others. ``weight=-1`` retracts a judgment (e.g. one that was superseded).
    """

    def __init__(self) -> None:
        self.systems: list[str] = []
        self.questions: list[Any] = []
        self._sidx: dict[str, int] = {}
        self._qidx: dict[Any, int] = {}
        self._base = [np.zeros(0, np.int64) for _ in range(4)] + [np.zeros(0, np.int64)]
        self._tail: list[tuple[int, int, int, int, int]] = []
        self.n_none = 0

    # -- building ------------------------------------------------------------------------------
    def _system(self, name: Any) -> int:
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"missing or empty system name {name!r}")
        idx = self._sidx.get(name)
        if idx is None:
            idx = self._sidx[name] = len(self.systems)
            self.systems.append(name)
        return idx

    def add(self, question_id: Any, system_a: str, system_b: str, verdict: str,
            weight: int = 1) -> None:
        """Add one judgment (``weight=-1`` removes one added before)."""
        code = _CODE[parse_verdict(verdict)]
        if system_a == system_b:
            raise InputError(f"system compared with itself: {system_a!r}")
        if code == NONE:
            self.n_none += weight
            return
        a, b = self._system(system_a), self._system(system_b)
        q = self._qidx.get(question_id)
        if q is None:
            q = self._qidx[question_id] = len(self.questions)
            self.questions.append(question_id)
        self._tail.append((q, a, b, code, weight))

    def remove(self, question_id: Any, system_a: str, system_b: str, verdict: str) -> None:
        """Retract a judgment added before."""
        self.add(question_id, system_a, system_b, verdict, weight=-1)

    @classmethod
    def from_records(cls, records: Any) -> "PairwiseCounts":
        """Build from (question_id, system_a, system_b, verdict) tuples or a DataFrame."""
        if isinstance(records, PairwiseCounts):
            return records
        if hasattr(records, "columns"):
            missing = [c for c in ("question_id", "system_a", "system_b", "verdict")
                       if c not in records.columns]
            if missing:
                raise InputError(f"missing column(s): {', '.join(missing)}")
            return cls.from_columns(*(records[c].to_numpy(dtype=object) for c in
                                      ("question_id", "system_a", "system_b", "verdict")))
        counts = cls()
        for row in records:
            counts.add(*row[:4])
        return counts

    @classmethod
    def from_columns(cls, question_id: np.ndarray, system_a: np.ndarray, system_b: np.ndarray,
                     verdict: np.ndarray) -> "PairwiseCounts":
        """Vectorised build from four equally long arrays (line numbers in errors count a header)."""
        def codes(values: np.ndarray) -> tuple[np.ndarray, list]:
            labels, inverse = np.unique(np.asarray(values, dtype=object).astype(str),
                                        return_inverse=True)
            return inverse.astype(np.int64), list(labels)

        for name, col in (("question_id", question_id), ("system_a", system_a),
                          ("system_b", system_b), ("verdict", verdict)):
            bad = _missing(col)
            if bad.size:
                raise InputError("missing value", line=int(bad[0]) + 2, column=name)
        q, qlab = codes(question_id)
        a, alab = codes(system_a)
        b, blab = codes(system_b)
        v, vlab = codes(verdict)
        return cls.from_codes(q, qlab, a, alab, b, blab, v, vlab)

    @classmethod
    def from_codes(cls, q: np.ndarray, q_labels: list, a: np.ndarray, a_labels: list,
                   b: np.ndarray, b_labels: list, v: np.ndarray, v_labels: list) -> "PairwiseCounts":
        """Build from dictionary-encoded columns (codes index into the label lists)."""
        counts = cls()
        vmap = np.empty(len(v_labels), np.int64)
        for k, label in enumerate(v_labels):
            try:
                vmap[k] = _CODE[parse_verdict(label)]
            except InputError:
                line = int(np.flatnonzero(np.asarray(v) == k)[0]) + 2
                raise InputError(f"unknown verdict {label!r} (expected A, B, Equal or None)",
                                 line=line, column="verdict") from None
        outcome = vmap[np.asarray(v, np.int64)]
        amap = np.array([counts._system(s) for s in a_labels], np.int64)
        bmap = np.array([counts._system(s) for s in b_labels], np.int64)
        a, b = amap[np.asarray(a, np.int64)], bmap[np.asarray(b, np.int64)]
        same = np.flatnonzero(a == b)
        if same.size:
            raise InputError(f"system compared with itself: {counts.systems[a[same[0]]]!r}",
                             line=int(same[0]) + 2)
        keep = outcome != NONE
        counts.n_none = int((~keep).sum())
        qk = np.asarray(q, np.int64)[keep]
        used, qk = np.unique(qk, return_inverse=True)
        counts.questions = [q_labels[i] for i in used]
        counts._qidx = {label: i for i, label in enumerate(counts.questions)}
        counts._base = [qk.astype(np.int64), a[keep], b[keep], outcome[keep],
                        np.ones(int(keep.sum()), np.int64)]
        return counts

    # -- aggregates ----------------------------------------------------------------------------
    def arrays(self) -> tuple[np.ndarray, ...]:
        """(question, a, b, outcome, weight) integer arrays of every stored judgment."""
        if self._tail:
            tail = np.array(self._tail, np.int64).T
            self._base = [np.concatenate([base, t]) for base, t in zip(self._base, tail)]
            self._tail = []
        return tuple(self._base)

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    def __len__(self) -> int:
        return int(self.arrays()[4].sum()) + self.n_none

    def outcome_matrices(self) -> tuple[np.ndarray, np.ndarray]:
        """``(decided, ties)``: ``decided[i, j]`` = wins of i over j, ``ties[i, j]`` = Equal (symmetric)."""
        _, a, b, o, w = self.arrays()
        n = self.n_systems
        win_i = np.where(o == A_WINS, a, b)
        los_i = np.where(o == A_WINS, b, a)
        dec = o != EQUAL
        decided = np.bincount(win_i[dec] * n + los_i[dec], w[dec], n * n).reshape(n, n)
        t = np.bincount(a[~dec] * n + b[~dec], w[~dec], n * n).reshape(n, n)
        return decided, t + t.T

    def win_matrix(self, ties: str = "half") -> np.ndarray:
        """``W[i, j]`` = wins of i over j, plus 1/2 per Equal under ``ties='half'``."""
        decided, t = self.outcome_matrices()
        return decided + 0.5 * t if _check_ties(ties) == "half" else decided.astype(float)

    def question_matrix(self, ties: str = "half") -> tuple[Any, np.ndarray]:
        """Per-question win counts: matrix ``M`` (questions x used pairs) and the pair codes ``i*n+j``.

        Questions left without any counted comparison (all retracted, or only dropped ties) are
        left out, so they are not resampled as empty clusters.
        """
        q, a, b, o, w = self.arrays()
        n, nq = self.n_systems, len(self.questions)
        win_i = np.where(o == B_WINS, b, a)
        los_i = np.where(o == B_WINS, a, b)
        val = w.astype(float)
        if _check_ties(ties) == "half":
            tie = o == EQUAL
            val = np.where(tie, 0.5 * val, val)
            q = np.concatenate([q, q[tie]])
            win_i, los_i = np.concatenate([win_i, b[tie]]), np.concatenate([los_i, a[tie]])
            val = np.concatenate([val, val[tie]])
        else:
            keep = o != EQUAL
            q, win_i, los_i, val = q[keep], win_i[keep], los_i[keep], val[keep]
        pair = win_i * n + los_i
        pairs, col = np.unique(pair, return_inverse=True)
        if nq * len(pairs) <= 20_000_000:
            m = np.bincount(q * len(pairs) + col, val, nq * len(pairs)).reshape(nq, len(pairs))
            return m[np.abs(m).sum(axis=1) > 0], pairs
        from scipy import sparse

        m = sparse.csr_matrix((val, (q, col)), shape=(nq, len(pairs)))
        m.eliminate_zeros()
        return m[m.getnnz(axis=1) > 0], pairs


def _missing(col: Any) -> np.ndarray:
    """Indices of missing (None, NaN) or blank values."""
    import pandas as pd

    arr = np.asarray(col, dtype=object)
    blank = pd.isna(arr) | (pd.Series(arr).astype(str).str.strip() == "").to_numpy()
    return np.flatnonzero(blank)


def _check_ties(ties: str) -> str:
    if ties not in ("half", "drop"):
        raise InputError(f"ties must be 'half' or 'drop', not {ties!r}")
    return ties


# ---------------------------------------------------------------------------------------------
# Fitting
# ---------------------------------------------------------------------------------------------

def strongly_connected(W: np.ndarray) -> np.ndarray:
    """Whether each win matrix in ``W`` (shape (..., n, n)) has a strongly connected graph.

    Edge i -> j when ``W[i, j] > 0``; reachability by repeated Boolean squaring of ``A + I``.
    """
    W = np.asarray(W)
    n = W.shape[-1]
    r = ((W > 0) | np.eye(n, dtype=bool)).astype(np.float32)
    for _ in range(max(1, math.ceil(math.log2(max(n, 2))))):
        r = (np.matmul(r, r) > 0).astype(np.float32)
    return r.reshape(*W.shape[:-2], n * n).min(axis=-1) > 0


def _objective(W: np.ndarray, beta: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    d = beta[:, :, None] - beta[:, None, :]
    return (W * _log_expit(d)).sum(axis=(1, 2)) - 0.5 * alpha * (beta * beta).sum(axis=1)


def fit_bradley_terry_batch(W: np.ndarray, alpha: float | np.ndarray = 0.0, tol: float = 1e-9,
                            max_iter: int = 200, init: np.ndarray | None = None) -> np.ndarray:
    """Fit Bradley-Terry to a batch of win matrices ``W`` (shape (B, n, n)) at once.

    Damped Newton on the centred, concave log-likelihood: with ``C_ij = N_ij p_ij p_ji``
    (``N = W + W^T``, ``p_ij = sigma(beta_i - beta_j)``), gradient ``g_i = sum_j W_ij - N_ij p_ij
    - alpha beta_i`` and step ``(diag(C 1) - C + alpha I + 11^T/n) d = g`` (the ``11^T/n`` term
    fixes the sum-to-zero gauge), halving the step until the objective does not decrease. Stops at
    ``||g||_2 <= tol`` or a step below 1e-12. ``init`` (centred, shape (n,) or (B, n)) is the
    starting point (default 0; the bootstrap starts from the full-data estimate). Returns centred
    ``beta`` of shape (B, n).
    """
    W = np.asarray(W, dtype=float)
    B, n, _ = W.shape
    alpha = np.broadcast_to(np.asarray(alpha, dtype=float), (B,)).copy()
    N = W + W.transpose(0, 2, 1)
    wins = W.sum(axis=2)
    beta = np.zeros((B, n))
    if init is not None:
        beta += np.asarray(init, dtype=float) - np.mean(init, axis=-1, keepdims=True)
    gauge = np.full((n, n), 1.0 / n)
    active = np.arange(B)
    eye = np.eye(n, dtype=bool)
    fcur = _objective(W, beta, alpha)
    for _ in range(max_iter):
        b, Wa, Na, al = beta[active], W[active], N[active], alpha[active]
        p = _expit(b[:, :, None] - b[:, None, :])
        g = wins[active] - (Na * p).sum(axis=2) - al[:, None] * b
        C = Na * p * p.transpose(0, 2, 1)
        H = -C + gauge
        H[:, eye] += C.sum(axis=2) + al[:, None]
        d = np.linalg.solve(H, g[..., None])[..., 0]
        small = (np.linalg.norm(g, axis=1) <= tol) | (np.abs(d).max(axis=1) <= 1e-12)
        f0 = fcur[active]
        t = np.ones(len(active))
        for _ in range(60):
            f1 = _objective(Wa, b + t[:, None] * d, al)
            worse = (f1 < f0 - 1e-13 * np.abs(f0)) & ~small
            if not worse.any():
                break
            t[worse] *= 0.5
        beta[active] = b + t[:, None] * d
        fcur[active] = f1
        active = active[~small]
        if active.size == 0:
            return beta - beta.mean(axis=1, keepdims=True)
    raise ConvergenceError(f"Bradley-Terry fit did not converge in {max_iter} Newton iterations "
                           f"({active.size} of {B} fits)")


def fit_bradley_terry(W: np.ndarray, alpha: float = 0.0, tol: float = 1e-9,
                      systems: list[str] | None = None) -> np.ndarray:
    """Bradley-Terry log-strengths ``beta`` (centred) from one win matrix ``W`` (n x n).

    Maximises ``l(beta) = sum_ij W_ij log sigma(beta_i - beta_j) - alpha/2 ||beta||^2``
    (see :func:`fit_bradley_terry_batch`). Raises :class:`NotIdentifiableError` when the
    comparison graph is not strongly connected and ``alpha == 0``; with ``alpha > 0`` warns and
    returns the regularised (MAP) estimate.
    """
    W = np.asarray(W, dtype=float)
    if W.ndim != 2 or W.shape[0] != W.shape[1] or W.shape[0] < 2:
        raise InputError("need a square win matrix over at least two systems")
    if not strongly_connected(W):
        names = systems or [str(i) for i in range(len(W))]
        why = _why_not_connected(W, names)
        if alpha <= 0:
            raise NotIdentifiableError(f"Bradley-Terry MLE does not exist: {why}; "
                                       "collect more comparisons or pass a prior (alpha > 0)")
        warnings.warn(f"comparison graph not strongly connected ({why}); returning the MAP "
                      f"estimate with prior alpha={alpha}", RuntimeWarning, stacklevel=2)
    return fit_bradley_terry_batch(W[None], alpha, tol)[0]


def _why_not_connected(W: np.ndarray, names: list[str]) -> str:
    n = len(W)
    wins, losses = (W > 0).sum(axis=1), (W > 0).sum(axis=0)
    for i in range(n):
        if wins[i] == 0:
            return f"{names[i]!r} never wins"
        if losses[i] == 0:
            return f"{names[i]!r} never loses"
    reach = np.linalg.matrix_power(((W + W.T) > 0) | np.eye(n, dtype=bool), n).astype(bool)
    if not reach[0].all():
        group = [names[i] for i in np.flatnonzero(reach[0])]
        return f"systems {group} are never compared with the others"
    return "some group of systems never loses to the rest"


@dataclass
class BootstrapResult:
    """Bootstrap replicates of ``beta`` and percentile intervals at ``level``."""

    beta: np.ndarray          # (n_boot, n_systems), centred
    ci_low: np.ndarray
    ci_high: np.ndarray
    level: float
    n_degenerate: int         # replicates not strongly connected (fitted with alpha=1e-6)


def question_weights(rng: np.random.Generator, n_questions: int, n_boot: int) -> np.ndarray:
    """Multinomial(Q; 1/Q, ..., 1/Q) question weights, one row per replicate (shape (B, Q))."""
    draws = rng.integers(0, n_questions, size=(n_boot, n_questions))
    draws += np.arange(n_boot)[:, None] * n_questions
    return np.bincount(draws.ravel(), minlength=n_boot * n_questions).reshape(n_boot, n_questions)


def bootstrap_bradley_terry(counts: PairwiseCounts, ties: str = "half", n_boot: int = 1000,
                            seed: int | np.random.Generator = 0, level: float = 0.95,
                            alpha: float = 0.0, init: np.ndarray | None = None) -> BootstrapResult:
    """Question-clustered bootstrap of Bradley-Terry ``beta``: percentile intervals at ``level``.

    Replicate ``b`` draws question weights ``w_b ~ Multinomial(Q, 1/Q)`` and fits
    ``W*_b = sum_q w_bq W_q``; all replicates are fitted at once. The interval is
    ``[quantile((1-level)/2), quantile((1+level)/2)]`` of the replicates.
    """
    if not 0 < level < 1:
        raise InputError(f"level must be in (0, 1), not {level}")
    if n_boot < 1:
        raise InputError(f"n_boot must be positive, not {n_boot}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    m, pairs = counts.question_matrix(ties)
    n, nq = counts.n_systems, m.shape[0]
    chunk = max(1, min(n_boot, 20_000_000 // max(nq, len(pairs) * 4, 1), 4_000_000 // (n * n)))
    out = np.empty((n_boot, n))
    n_degenerate = 0
    for start in range(0, n_boot, chunk):
        k = min(chunk, n_boot - start)
        w = question_weights(rng, nq, k).astype(float)
        flat = np.asarray(w @ m) if not hasattr(m, "tocsc") else np.asarray((m.T @ w.T).T)
        W = np.zeros((k, n * n))
        W[:, pairs] = flat
        W = W.reshape(k, n, n)
        ok = strongly_connected(W)
        n_degenerate += int((~ok).sum())
        al = np.where(ok, alpha, max(alpha, DEGENERATE_ALPHA))
        out[start:start + k] = fit_bradley_terry_batch(W, al, init=init)
    if n_degenerate:
        warnings.warn(f"{n_degenerate} of {n_boot} bootstrap replicates were not strongly "
                      f"connected and were fitted with alpha={DEGENERATE_ALPHA}", RuntimeWarning,
                      stacklevel=2)
    lo, hi = np.quantile(out, [(1 - level) / 2, (1 + level) / 2], axis=0)
    return BootstrapResult(out, lo, hi, level, n_degenerate)


def rank_ub(ci_low: np.ndarray, ci_high: np.ndarray) -> np.ndarray:
    """Chatbot Arena's "Rank (UB)": 1 + number of systems whose lower bound exceeds my upper bound."""
    return 1 + (ci_low[None, :] > ci_high[:, None]).sum(axis=1)


# ---------------------------------------------------------------------------------------------
# Leaderboard
# ---------------------------------------------------------------------------------------------

def _nan_none(x: float) -> float | None:
    return None if x is None or not np.isfinite(x) else float(x)


@dataclass
class Leaderboard:
    """A fitted leaderboard. Matrices are indexed by ``systems`` (in order of first appearance).

    ``ci_low``/``ci_high`` bound ``beta`` at ``level`` (question-clustered bootstrap percentile
    interval); NaN without bootstrap. ``rank`` = 1 + number of systems with a larger ``beta``;
    ``rank_ub`` = 1 + number of systems whose ``ci_low`` exceeds this system's ``ci_high``.
    """

    systems: list[str]
    beta: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    decided: np.ndarray
    tie_counts: np.ndarray
    ties: str
    level: float
    n_boot: int
    seed: int | None
    n_questions: int
    n_none: int
    n_degenerate: int = 0
    alpha: float = 0.0
    boot: np.ndarray | None = None
    extra_columns: dict[str, np.ndarray] | None = None
    extra: dict[str, Any] | None = None

    @property
    def rank(self) -> np.ndarray:
        return 1 + (self.beta[None, :] > self.beta[:, None] + 1e-12).sum(axis=1)

    @property
    def rank_ub(self) -> np.ndarray:
        if self.n_boot == 0:
            return np.full(len(self.systems), np.nan)
        return rank_ub(self.ci_low, self.ci_high)

    @property
    def order(self) -> np.ndarray:
        return np.lexsort((np.arange(len(self.beta)), -self.beta))

    def _columns(self) -> dict[str, np.ndarray]:
        wins, losses = self.decided.sum(axis=1), self.decided.sum(axis=0)
        ties = self.tie_counts.sum(axis=1)
        cols = {"name": np.array(self.systems, dtype=object), "beta": self.beta,
                "ci_low": self.ci_low, "ci_high": self.ci_high, "strength": np.exp(self.beta),
                "rank": self.rank, "rank_ub": self.rank_ub, "n_comparisons": wins + losses + ties,
                "wins": wins, "losses": losses, "ties": ties}
        cols.update(self.extra_columns or {})
        return {k: np.asarray(v)[self.order] for k, v in cols.items()}

    @property
    def table(self):
        """DataFrame sorted by ``beta``: name, beta, ci_low, ci_high, strength, rank, rank_ub, ..."""
        import pandas as pd

        df = pd.DataFrame(self._columns())
        df["rank_ub"] = df["rank_ub"].astype("Int64") if self.n_boot else pd.array(
            [pd.NA] * len(df), dtype="Int64")
        return df.reset_index(drop=True)

    def _frame(self, m: np.ndarray):
        import pandas as pd

        return pd.DataFrame(m, index=pd.Index(self.systems, name="system"), columns=self.systems)

    def predicted_matrix(self) -> np.ndarray:
        """``P[i, j] = sigma(beta_i - beta_j)``; NaN on the diagonal."""
        p = _expit(self.beta[:, None] - self.beta[None, :])
        np.fill_diagonal(p, np.nan)
        return p

    def win_rate_matrix(self) -> np.ndarray:
        """Empirical share won by i against j (Equal = 1/2 under ``ties='half'``); NaN if never met."""
        t = self.tie_counts if self.ties == "half" else 0 * self.tie_counts
        den = self.decided + self.decided.T + t
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, (self.decided + 0.5 * t) / np.where(den > 0, den, 1), np.nan)

    def count_matrix(self) -> np.ndarray:
        """Number of non-None judgments between i and j (ties included)."""
        return self.decided + self.decided.T + self.tie_counts

    @property
    def predicted_win(self):
        return self._frame(self.predicted_matrix())

    @property
    def win_rate(self):
        return self._frame(self.win_rate_matrix())

    @property
    def counts(self):
        return self._frame(self.count_matrix())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: ``systems`` rows (best first) plus the matrices and run facts."""
        cols = self._columns()
        rows = []
        for k in range(len(self.systems)):
            row = {}
            for name, col in cols.items():
                v = col[k]
                if name == "name":
                    row[name] = str(v)
                elif name in ("rank", "rank_ub", "rank_lc", "n_comparisons", "wins", "losses",
                              "ties"):
                    row[name] = None if not np.isfinite(v) else int(v)
                else:
                    row[name] = _nan_none(v)
            rows.append(row)

        def nested(m: np.ndarray) -> dict:
            return {a: {b: _nan_none(m[i, j]) for j, b in enumerate(self.systems) if i != j}
                    for i, a in enumerate(self.systems)}

        out = {"systems": rows, "level": self.level, "interval": "question-clustered bootstrap "
               f"percentile, {self.level:.0%}" if self.n_boot else "none (no bootstrap)",
               "n_boot": self.n_boot, "seed": self.seed, "ties": self.ties,
               "n_judgments": int(self.count_matrix().sum() / 2), "n_excluded_none": self.n_none,
               "n_questions": self.n_questions, "n_degenerate_replicates": self.n_degenerate,
               "alpha": self.alpha, "predicted_win": nested(self.predicted_matrix()),
               "win_rate": nested(self.win_rate_matrix()), "counts": nested(self.count_matrix())}
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


def leaderboard(records: Any, ties: str = "half", n_boot: int = 1000, seed: int = 0,
                level: float = 0.95, alpha: float = 0.0) -> Leaderboard:
    """Bradley-Terry leaderboard with question-clustered bootstrap intervals at ``level``.

    ``records``: (question_id, system_a, system_b, verdict) tuples, a DataFrame with those columns,
    or a :class:`PairwiseCounts`. ``ties='half'`` counts Equal as half a win each, ``'drop'``
    ignores it; ``None`` verdicts are excluded. ``n_boot=0`` skips the bootstrap.
    """
    _check_ties(ties)
    counts = _prepare(records)
    W = counts.win_matrix(ties)
    if W.sum() <= 0:
        raise InputError("no decided comparisons left (all verdicts None or dropped ties)")
    beta = fit_bradley_terry(W, alpha, systems=counts.systems)
    decided, t = counts.outcome_matrices()
    n = counts.n_systems
    lo = hi = np.full(n, np.nan)
    boot, n_deg = None, 0
    if n_boot:
        res = bootstrap_bradley_terry(counts, ties, n_boot, seed, level, alpha, init=beta)
        lo, hi, boot, n_deg = res.ci_low, res.ci_high, res.beta, res.n_degenerate
    return Leaderboard(list(counts.systems), beta, lo, hi, decided.astype(float), t.astype(float),
                       ties, level, n_boot, seed, len(counts.questions), counts.n_none, n_deg,
                       alpha, boot)


# ---------------------------------------------------------------------------------------------
# Length control (Bradley-Terry with an answer-length covariate)
# ---------------------------------------------------------------------------------------------

def length_feature(length_a: np.ndarray, length_b: np.ndarray) -> np.ndarray:
    """Chatbot-Arena-style normalised length difference ``x = (len_a - len_b) / (len_a + len_b)``."""
    la, lb = np.asarray(length_a, float), np.asarray(length_b, float)
    tot = la + lb
    return np.where(tot > 0, (la - lb) / np.where(tot > 0, tot, 1.0), 0.0)


def fit_bt_covariate_batch(a: np.ndarray, b: np.ndarray, x: np.ndarray, y: np.ndarray,
                           weights: np.ndarray, n: int, alpha: float = 0.0, tol: float = 1e-9,
                           max_iter: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Bradley-Terry with one covariate, for a batch of row-weight vectors (shape (B, R)).

    ``P(a_r beats b_r) = sigma(beta_a - beta_b + gamma x_r)``; maximises
    ``sum_r w_r [y_r log sigma(eta_r) + (1 - y_r) log sigma(-eta_r)] - alpha/2 ||beta||^2``
    (``y = 1/2`` for a tie counted half) by damped Newton with the sum-to-zero gauge on ``beta``.
    Returns ``(beta (B, n) centred, gamma (B,))``.
    """
    from scipy import sparse

    R = len(a)
    G = sparse.csr_matrix((np.r_[np.ones(R), -np.ones(R)], (np.r_[np.arange(R), np.arange(R)],
                                                           np.r_[a, b])), shape=(R, n))
    Pm = sparse.csr_matrix((np.ones(R), (np.arange(R), a * n + b)), shape=(R, n * n))
    wt = np.atleast_2d(np.asarray(weights, float))
    B = wt.shape[0]
    theta = np.zeros((B, n + 1))
    gauge = np.zeros((n + 1, n + 1))
    gauge[:n, :n] = 1.0 / n
    ridge = np.r_[np.full(n, alpha), 0.0]

    def objective(th: np.ndarray, w: np.ndarray) -> np.ndarray:
        eta = th[:, a] - th[:, b] + th[:, n:] * x
        ll = (w * (y * _log_expit(eta) + (1 - y) * _log_expit(-eta))).sum(axis=1)
        return ll - 0.5 * (ridge * th * th).sum(axis=1)

    active = np.arange(B)
    for _ in range(max_iter):
        th, w = theta[active], wt[active]
        eta = th[:, a] - th[:, b] + th[:, n:] * x
        sig = _expit(eta)
        r, s = w * (y - sig), w * sig * (1 - sig)
        g = np.concatenate([np.asarray((G.T @ r.T).T), (r @ x)[:, None]], axis=1) - ridge * th
        C = np.asarray((Pm.T @ s.T).T).reshape(-1, n, n)
        C = C + C.transpose(0, 2, 1)
        H = np.zeros((len(active), n + 1, n + 1)) + gauge
        H[:, :n, :n] -= C
        H[:, np.arange(n), np.arange(n)] += C.sum(axis=2)
        hbg = np.asarray((G.T @ (s * x).T).T)
        H[:, :n, n], H[:, n, :n] = hbg, hbg
        H[:, n, n] = s @ (x * x)
        H += np.diag(ridge)
        d = np.linalg.solve(H, g[..., None])[..., 0]
        small = (np.linalg.norm(g, axis=1) <= tol) | (np.abs(d).max(axis=1) <= 1e-12)
        f0 = objective(th, w)
        t = np.ones(len(active))
        for _ in range(60):
            worse = (objective(th + t[:, None] * d, w) < f0 - 1e-13 * np.abs(f0)) & ~small
            if not worse.any():
                break
            t[worse] *= 0.5
        theta[active] = th + t[:, None] * d
        active = active[~small]
        if active.size == 0:
            beta = theta[:, :n] - theta[:, :n].mean(axis=1, keepdims=True)
            return beta, theta[:, n]
    raise ConvergenceError(f"length-controlled fit did not converge in {max_iter} iterations")


def leaderboard_length_controlled(records: Any, ties: str = "half", n_boot: int = 1000,
                                  seed: int = 0, level: float = 0.95,
                                  alpha: float = 0.0) -> Leaderboard:
    """Leaderboard with length-adjusted strengths beside the plain ones (Arena's style control).

    ``records``: a DataFrame (or tuples) with ``question_id, system_a, system_b, verdict,
    length_a, length_b``. Fits ``P(a beats b) = sigma(beta_a - beta_b + gamma x)`` with ``x`` from
    :func:`length_feature`; adds columns ``beta_lc, ci_low_lc, ci_high_lc, rank_lc`` and the
    length coefficient ``gamma`` with its interval (same bootstrap, level ``level``).
    """
    import pandas as pd

    cols = ["question_id", "system_a", "system_b", "verdict", "length_a", "length_b"]
    df = records if hasattr(records, "columns") else pd.DataFrame(list(records), columns=cols)
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise InputError(f"length control needs column(s): {', '.join(missing)}")
    lengths = df[["length_a", "length_b"]].apply(pd.to_numeric, errors="coerce").to_numpy(float)
    bad = np.flatnonzero(~np.isfinite(lengths).all(axis=1) | (lengths < 0).any(axis=1))
    if bad.size:
        raise InputError("length_a/length_b must be non-negative numbers", line=int(bad[0]) + 2)
    board = leaderboard(df[cols[:4]], ties, n_boot, seed, level, alpha)
    verdicts = np.array([_CODE[parse_verdict(v)] for v in df["verdict"]])
    keep = (verdicts != NONE) & ((verdicts != EQUAL) | (ties == "half"))
    sidx = {s: i for i, s in enumerate(board.systems)}
    a = np.array([sidx[s] for s in df["system_a"][keep]], np.int64)
    b = np.array([sidx[s] for s in df["system_b"][keep]], np.int64)
    y = np.select([verdicts[keep] == A_WINS, verdicts[keep] == B_WINS], [1.0, 0.0], 0.5)
    x = length_feature(lengths[keep, 0], lengths[keep, 1])
    if np.all(x == x[0]):
        raise InputError("length control needs answers of different lengths")
    n = len(board.systems)
    beta, gamma = fit_bt_covariate_batch(a, b, x, y, np.ones((1, len(a))), n, alpha)
    lo_b = hi_b = np.full(n, np.nan)
    g_ci: list[float | None] = [None, None]
    if n_boot:
        qcodes, qs = pd.factorize(df["question_id"][keep])
        rng = np.random.default_rng(seed)
        chunk = max(1, 5_000_000 // max(len(a), 1))
        boots, gboots = [], []
        for start in range(0, n_boot, chunk):
            k = min(chunk, n_boot - start)
            w = question_weights(rng, len(qs), k)[:, qcodes].astype(float)
            bb, gg = fit_bt_covariate_batch(a, b, x, y, w, n, max(alpha, 0.0))
            boots.append(bb)
            gboots.append(gg)
        bb, gg = np.concatenate(boots), np.concatenate(gboots)
        q = [(1 - level) / 2, (1 + level) / 2]
        lo_b, hi_b = np.quantile(bb, q, axis=0)
        g_ci = [float(v) for v in np.quantile(gg, q)]
    board.extra_columns = {"beta_lc": beta[0], "ci_low_lc": lo_b, "ci_high_lc": hi_b,
                           "rank_lc": 1 + (beta[0][None, :] > beta[0][:, None] + 1e-12).sum(1)}
    board.extra = {"length_coefficient": float(gamma[0]), "length_coefficient_ci": g_ci,
                   "length_feature": "(length_a - length_b) / (length_a + length_b)"}
    return board

"""Which (question, pair of systems) to judge: the full design, both orders, adaptive selection.

Full design: ``c`` questions sampled with a seed, every pair of the ``n`` systems judged on each,
``c * n(n-1)/2`` judge calls (twice that with both orders). The order shown (A first) is drawn per
item from a seed derived from the rater, question, pair and experiment seed, so it is random with
respect to the systems yet reproducible, and stored as ``order_shown``.

Adaptive design (:class:`AdaptiveDesign`): judge next the (question, pair) that most reduces the
variance of the *ranking-relevant* differences of the Bradley-Terry fit. With MAP strengths
``beta`` (prior N(0, 1/alpha)), Fisher information ``H = diag(C 1) - C + alpha I`` where
``C_ij = N_ij p_ij p_ji``, and covariance ``S = H^-1``, the difference ``d_kl = beta_k - beta_l``
has variance ``v_kl = S_kk + S_ll - 2 S_kl`` and is weighted by how uncertain its order is,

.. math:: r_{kl} = 2\\Phi\\left(-|d_{kl}| / \\sqrt{v_{kl}}\right)

(1 when the two intervals coincide, about 0.05 when they are 1.96 standard errors apart), so the
objective ``sum_{k<l} r_kl v_kl`` is dominated by neighbouring systems whose intervals overlap.
One more comparison of ``i, j`` adds ``w e e^T`` to ``H`` (``e = e_i - e_j``, ``w = p_ij p_ji``
times the smoothed share of informative, non-``None`` verdicts seen for that pair); by
Sherman-Morrison ``S' = S - w S e e^T S / (1 + w e^T S e)``, so the expected reduction is

.. math:: G_{ij} = \frac{w \\sum_{k<l} r_{kl} (e_{kl}^T S e)^2}{1 + w\\, e^T S e}.

A batch is chosen greedily (``S`` updated after each pick, weights fixed for the batch); a share
``explore`` of each batch (default 10%, at least one item when the batch has 5 or more) goes to
pairs drawn uniformly at random, so an early wrong estimate cannot starve a pair forever. Within a
pair, questions are taken in a seeded random order. (An earlier rule minimised the plug-in
expected number of mis-ordered pairs ``U(S) = sum_{i<j} Phi(-|beta_i - beta_j| / sd_ij)``; that
objective is flat where two estimates coincide, so it neglected exactly the closest pairs; ``docs/pipeline.md``
compares both on ``benchmarks/adaptive.py``.)
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from core.errors import ConfigError
from core.stats.bradley_terry import fit_bradley_terry_batch
from core.store.judgments import PairwiseVerdict


@dataclass(frozen=True)
class Comparison:
    """One judge call: ``system_a`` is shown first; ``order_shown`` is ``'ab'`` when that is the
    canonically (alphabetically) first system of the pair, else ``'ba'``."""

    question_id: str
    system_a: str
    system_b: str
    order_shown: str

    @property
    def pair(self) -> tuple[str, str]:
        """The canonical (sorted) pair."""
        return tuple(sorted((self.system_a, self.system_b)))  # type: ignore[return-value]


def n_calls(c: int, n: int, both_orders: bool = False) -> int:
    """Judge calls of the full design: ``c * n(n-1)/2``, doubled with both orders."""
    return c * n * (n - 1) // 2 * (2 if both_orders else 1)


def sample_questions(question_ids: Sequence[str], c: int = 200, seed: int = 0) -> list[str]:
    """``c`` question ids drawn without replacement with ``seed`` (all of them if fewer),
    returned in their original order."""
    ids = list(dict.fromkeys(question_ids))
    if c <= 0:
        raise ConfigError(f"c must be positive, got {c}")
    if c >= len(ids):
        return ids
    chosen = set(random.Random(seed).sample(ids, c))
    return [q for q in ids if q in chosen]


def item_seed(*parts: object) -> int:
    """A 64-bit seed derived from the parts (sha256), stable across runs and platforms."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def order_for(rater: str, question_id: str, first: str, second: str, seed: int = 0) -> str:
    """``'ab'`` or ``'ba'`` for the canonical pair ``(first, second)`` (sorted), seeded per item."""
    lo, hi = sorted((first, second))
    return "ab" if item_seed(rater, question_id, lo, hi, seed) % 2 == 0 else "ba"


def shown(question_id: str, pair: tuple[str, str], order: str) -> Comparison:
    """The comparison of canonical ``pair`` shown in ``order``."""
    lo, hi = sorted(pair)
    a, b = (lo, hi) if order == "ab" else (hi, lo)
    return Comparison(question_id, a, b, order)


def full_design(
    question_ids: Iterable[str],
    systems: Sequence[str],
    *,
    rater: str = "",
    seed: int = 0,
    both_orders: bool = False,
) -> list[Comparison]:
    """Every pair of ``systems`` on every question; one seeded order, or both orders."""
    names = sorted(dict.fromkeys(systems))
    if len(names) < 2:
        raise ConfigError("a tournament needs at least two systems")
    out = []
    for q in question_ids:
        for pair in itertools.combinations(names, 2):
            if both_orders:
                out += [shown(q, pair, "ab"), shown(q, pair, "ba")]
            else:
                out.append(shown(q, pair, order_for(rater, q, *pair, seed=seed)))
    return out


def canonical_verdict(comp: Comparison, verdict: str | None) -> str | None:
    """A verdict relative to the canonical pair: the winning system's name, ``Equal``, ``None``."""
    if verdict in (PairwiseVerdict.A, PairwiseVerdict.B):
        return comp.system_a if verdict == PairwiseVerdict.A else comp.system_b
    return verdict


def fit_strengths(W: np.ndarray, alpha: float) -> np.ndarray:
    """MAP Bradley-Terry log-strengths from win matrix ``W`` under an N(0, 1/alpha) prior."""

    strengths: np.ndarray = fit_bradley_terry_batch(np.asarray(W, float)[None], alpha)[0]
    return strengths


class AdaptiveDesign:
    """Chooses the next (question, pair) where it most reduces the variance of the ranking-relevant
    differences (module docstring); ``explore`` is the share of each batch drawn at random."""

    def __init__(
        self,
        systems: Sequence[str],
        question_ids: Sequence[str],
        *,
        seed: int = 0,
        alpha: float = 0.05,
        explore: float = 0.1,
    ) -> None:
        self.systems = sorted(dict.fromkeys(systems))
        if len(self.systems) < 2:
            raise ConfigError("a tournament needs at least two systems")
        self.index = {s: i for i, s in enumerate(self.systems)}
        self.alpha = alpha
        if not 0.0 <= explore <= 1.0:
            raise ConfigError(f"explore must be a share in [0, 1], got {explore}")
        self.explore = explore
        self._rng = np.random.default_rng(item_seed("adaptive-explore", seed))
        n = len(self.systems)
        self.W = np.zeros((n, n))
        self.seen = np.zeros((n, n))  # all verdicts, None included
        self.informative = np.zeros((n, n))  # verdicts other than None
        rng = random.Random(seed)
        self._queue: dict[tuple[str, str], list[str]] = {}
        for pair in itertools.combinations(self.systems, 2):
            qs = list(question_ids)
            rng.shuffle(qs)
            self._queue[pair] = qs

    @property
    def remaining(self) -> int:
        """(question, pair) items not chosen yet."""
        return sum(len(v) for v in self._queue.values())

    def observe(self, question_id: str, pair: tuple[str, str], winner: str | None) -> None:
        """Record a verdict for canonical ``pair``: the winner's name, ``'Equal'`` or ``'None'``.

        An unparsed reply (``winner=None``) counts as seen and uninformative.
        """
        lo, hi = sorted(pair)
        i, j = self.index[lo], self.index[hi]
        self.seen[i, j] += 1
        self.seen[j, i] += 1
        q = self._queue.get((lo, hi))
        if q and question_id in q:
            q.remove(question_id)
        if winner in (None, PairwiseVerdict.NONE):
            return
        self.informative[i, j] += 1
        self.informative[j, i] += 1
        if winner == PairwiseVerdict.EQUAL:
            self.W[i, j] += 0.5
            self.W[j, i] += 0.5
        elif winner == lo:
            self.W[i, j] += 1
        elif winner == hi:
            self.W[j, i] += 1
        else:
            raise ConfigError(f"winner {winner!r} is not in pair {pair}")

    def strengths(self) -> np.ndarray:
        """Current MAP log-strengths (in ``self.systems`` order)."""
        return fit_strengths(self.W, self.alpha)

    def _covariance(self, beta: np.ndarray) -> np.ndarray:
        p = 1.0 / (1.0 + np.exp(-(beta[:, None] - beta[None, :])))
        N = self.W + self.W.T
        C = N * p * p.T
        H = np.diag(C.sum(axis=1)) - C + self.alpha * np.eye(len(beta))
        return np.linalg.inv(H)

    def next(self, k: int = 1) -> list[tuple[str, tuple[str, str]]]:
        """Up to ``k`` items ``(question_id, canonical pair)`` to judge next (greedy batch)."""
        beta = self.strengths()
        S = self._covariance(beta)
        n = len(beta)
        p = 1.0 / (1.0 + np.exp(-(beta[:, None] - beta[None, :])))
        rate = (self.informative + 1.0) / (self.seen + 1.25)  # smoothed share of non-None
        pairs = list(self._queue)
        ij = np.array([(self.index[a], self.index[b]) for a, b in pairs])
        E = np.zeros((len(pairs), n))
        E[np.arange(len(pairs)), ij[:, 0]] = 1.0
        E[np.arange(len(pairs)), ij[:, 1]] = -1.0
        w = p[ij[:, 0], ij[:, 1]] * p[ij[:, 1], ij[:, 0]] * rate[ij[:, 0], ij[:, 1]]
        var = np.maximum(np.einsum("pi,ij,pj->p", E, S, E), 1e-12)
        d = np.abs(E @ beta)
        relevance = 2.0 * ndtr(-d / np.sqrt(var))
        left = {pair: len(qs) for pair, qs in self._queue.items()}
        n_explore = max(1, int(round(k * self.explore))) if k >= 5 and self.explore > 0 else 0
        picks: list[int] = []
        for step in range(k):
            open_ = np.array([left[pr] > 0 for pr in pairs])
            if not open_.any():
                break
            if step < n_explore:
                choice = int(self._rng.choice(np.flatnonzero(open_)))
            else:
                V = E @ S  # row p: S e_p
                proj = V @ E.T  # [p, q] = e_q^T S e_p
                gain = w * (relevance[None, :] * proj**2).sum(axis=1) / (1.0 + w * np.diag(proj))
                gain[~open_] = -np.inf
                choice = int(np.argmax(gain))
            Se = S @ E[choice]
            S = S - w[choice] * np.outer(Se, Se) / (1.0 + w[choice] * E[choice] @ Se)
            left[pairs[choice]] -= 1
            picks.append(choice)
        out: list[tuple[str, tuple[str, str]]] = []
        taken: dict[tuple[str, str], int] = {}
        for choice in picks:
            pair = pairs[choice]
            out.append((self._queue[pair][taken.get(pair, 0)], pair))
            taken[pair] = taken.get(pair, 0) + 1
        return out

"""Agreement by label scale (issue 32): weighted (quadratic) kappa and Krippendorff's alpha with
the ordinal or interval metric for ordered labels; Gwet's AC1 and the labels' prevalence beside
Cohen's kappa, and why kappa can be near 0 at high raw agreement.

Labels are text; ``labels`` gives the scale's order (ordinal: lowest first). Pure numpy.

- Weighted kappa (Cohen 1968): ``kappa_w = 1 - sum w_ij O_ij / sum w_ij E_ij`` over the two
  raters' joint counts ``O`` and the product of their margins ``E``; quadratic weights
  ``w_ij = (i - j)^2`` (positions on the scale), as scikit-learn's ``weights="quadratic"``.
- Krippendorff's alpha (Krippendorff 2011): the coincidence matrix
  ``o_ck = sum_u (c-k pairs in unit u) / (m_u - 1)`` over units with ``m_u >= 2`` values,
  ``n_c = sum_k o_ck``, ``alpha = 1 - (n - 1) sum o_ck d_ck / sum n_c n_k d_ck`` with the
  metric ``d``: nominal ``1[c != k]``; interval ``(v_c - v_k)^2`` (``v``: the label's number,
  else its rank); ordinal ``(sum_{g=c..k} n_g - (n_c + n_k) / 2)^2``.
- Gwet's AC1 (Gwet 2008) for two raters: ``(p_a - p_e) / (1 - p_e)`` with
  ``p_e = sum_k pi_k (1 - pi_k) / (q - 1)``, ``pi_k`` the mean of the two raters' shares of
  label ``k`` and ``q`` the number of labels. Its chance agreement is small when one label
  dominates, where Cohen's ``p_e = sum_k p_ak p_bk`` is large: one rater answering one label
  95 % of the time gives kappa near 0 at 95 % agreement (the kappa paradox), AC1 near 0.95.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from core.errors import InputError
from core.stats.alt_test_metrics import ordinal_values

LEVELS = ("nominal", "ordinal", "interval")


def _codes(a: Sequence[str], b: Sequence[str], labels: Sequence[str]) -> tuple[np.ndarray, ...]:
    """Positions of ``a`` and ``b`` in ``labels`` (InputError for a label outside them)."""
    if len(a) != len(b):
        raise InputError(f"rating lists differ in length ({len(a)} vs {len(b)})")
    if not a:
        raise InputError("no item rated by both raters")
    index = {x: i for i, x in enumerate(labels)}
    unknown = sorted({x for x in (*a, *b) if x not in index})
    if unknown:
        raise InputError(f"labels outside the scale: {', '.join(map(repr, unknown))}")
    return np.array([index[x] for x in a]), np.array([index[x] for x in b])


def _joint(a: Sequence[str], b: Sequence[str], labels: Sequence[str]) -> np.ndarray:
    """The two raters' joint proportions, ``labels`` x ``labels``."""
    ca, cb = _codes(a, b, labels)
    k = len(labels)
    counts = np.bincount(ca * k + cb, minlength=k * k).reshape(k, k).astype(float)
    out: np.ndarray = counts / counts.sum()
    return out


def weighted_kappa(
    a: Sequence[str], b: Sequence[str], labels: Sequence[str], weights: str = "quadratic"
) -> float:
    """Cohen's weighted kappa of two raters' labels on the ordered scale ``labels``
    (``quadratic`` or ``linear`` weights on the positions). NaN when the expected
    disagreement is 0 (both raters always gave one and the same label)."""
    p = _joint(a, b, labels)
    i = np.arange(len(labels))
    diff = np.abs(i[:, None] - i[None, :]).astype(float)
    if weights == "quadratic":
        w = diff**2
    elif weights == "linear":
        w = diff
    else:
        raise InputError(f"weights must be quadratic or linear, got {weights!r}")
    expected = np.outer(p.sum(axis=1), p.sum(axis=0))
    denominator = float((w * expected).sum())
    if denominator == 0.0:
        return float("nan")
    return 1.0 - float((w * p).sum()) / denominator


def gwet_ac1(a: Sequence[str], b: Sequence[str], labels: Sequence[str]) -> float:
    """Gwet's AC1 of two raters over the ``labels`` of the scale (module docstring)."""
    if len(labels) < 2:
        raise InputError("AC1 needs a scale of at least 2 labels")
    p = _joint(a, b, labels)
    agreement = float(np.trace(p))
    pi = (p.sum(axis=1) + p.sum(axis=0)) / 2
    chance = float((pi * (1 - pi)).sum()) / (len(labels) - 1)
    return (agreement - chance) / (1 - chance)


def prevalence(values: Iterable[str], labels: Sequence[str] = ()) -> dict[str, float]:
    """Each label's share of ``values`` (every label of ``labels`` listed, most common first,
    ties in scale order)."""
    counts = Counter(values)
    total = sum(counts.values())
    if not total:
        return {}
    order = list(labels) + sorted(x for x in counts if x not in labels)
    rank = {x: i for i, x in enumerate(order)}
    return {x: counts.get(x, 0) / total for x in sorted(order, key=lambda x: (-counts[x], rank[x]))}


def _distances(level: str, labels: Sequence[str], n_c: np.ndarray) -> np.ndarray:
    """The metric ``d_ck`` of Krippendorff's alpha over ``labels``."""
    k = len(labels)
    if level == "nominal":
        out: np.ndarray = 1.0 - np.eye(k)
        return out
    if level == "interval":
        v = np.array([ordinal_values(labels)[x] for x in labels])
        out = (v[:, None] - v[None, :]) ** 2
        return out
    if level == "ordinal":
        cum = np.concatenate(([0.0], np.cumsum(n_c)))
        lo = np.minimum.outer(np.arange(k), np.arange(k))
        hi = np.maximum.outer(np.arange(k), np.arange(k))
        between = cum[hi + 1] - cum[lo]
        out = (between - (n_c[:, None] + n_c[None, :]) / 2) ** 2
        return out
    raise InputError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")


def krippendorff_alpha(
    units: Mapping[object, Sequence[str]] | Sequence[Sequence[str]],
    labels: Sequence[str],
    level: str = "nominal",
) -> float:
    """Krippendorff's alpha of the labels each unit (item) got, any number of raters per unit,
    with the ``nominal``, ``ordinal`` or ``interval`` metric on the scale ``labels`` (module
    docstring). NaN when no unit has two labels or every pairable label is the same."""
    values = list(units.values()) if isinstance(units, Mapping) else list(units)
    index = {x: i for i, x in enumerate(labels)}
    k = len(labels)
    o = np.zeros((k, k))
    for given in values:
        m = len(given)
        if m < 2:
            continue
        unknown = [x for x in given if x not in index]
        if unknown:
            raise InputError(f"labels outside the scale: {', '.join(map(repr, unknown))}")
        c = np.bincount([index[x] for x in given], minlength=k).astype(float)
        o += (np.outer(c, c) - np.diag(c)) / (m - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    if n < 2:
        return float("nan")
    d = _distances(level, labels, n_c)
    expected = float((np.outer(n_c, n_c) * d).sum())
    if expected == 0.0:
        return float("nan")
    return 1.0 - float(n - 1) * float((o * d).sum()) / expected


def kappa_paradox(
    agreement: float, kappa: float, ac1: float, shares: Mapping[str, float]
) -> str | None:
    """Why kappa is low although the raters mostly agree, in words (None when it is not):
    raw agreement of at least 0.8, kappa below 0.4 and one label at least 80 % of the labels."""
    if not shares or not np.isfinite(kappa):
        return None
    top, share = next(iter(shares.items()))
    if agreement < 0.8 or kappa >= 0.4 or share < 0.8:
        return None
    return (
        f"Kappa is {kappa:.2f} although the raters agree on {agreement:.0%} of the items because "
        f"{top!r} makes up {share:.0%} of the labels: agreeing on it is what chance alone would "
        f"give, so kappa credits almost nothing (the kappa paradox). Gwet's AC1, whose chance "
        f"agreement stays small when one label dominates, is {ac1:.2f}; read the disagreements "
        "on the rarer labels before trusting either."
    )

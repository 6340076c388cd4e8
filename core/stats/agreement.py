"""Agreement between raters: percent agreement, confusion, Cohen's kappa (with a large-sample
interval), Fleiss' kappa, Krippendorff's alpha, pairwise agreement and self-consistency.

Labels are any hashable values; ``None``/NaN means "not rated". Pure numpy/pandas, vectorised
(labels are dictionary-encoded once, then counted with ``numpy.bincount``); randomness is passed in;
every interval carries its ``level``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from statistics import NormalDist
from typing import Any, TypeAlias

import numpy as np
import pandas as pd

from core.errors import InputError
from core.stats.significance import Interval

#: One rater's labels over items: a list, tuple, array or Series (None / NaN = not rated).
Ratings: TypeAlias = "Sequence[Any] | np.ndarray | pd.Series"


def _objects(values: Any) -> np.ndarray:
    """A 1-D object array of ``values`` (a list, Series or array)."""
    if isinstance(values, (pd.Series, pd.Index)):
        out: np.ndarray = values.to_numpy(dtype=object)
        return out
    arr = np.empty(len(values), dtype=object)
    arr[:] = list(values)
    return arr


def _missing_mask(arr: np.ndarray) -> np.ndarray:
    """Element-wise "not rated": None or a float NaN."""
    return np.fromiter(
        (v is None or (isinstance(v, float) and v != v) for v in arr), bool, len(arr)
    )


def _pairs(a: Ratings, b: Ratings) -> tuple[np.ndarray, np.ndarray]:
    xa, xb = _objects(a), _objects(b)
    if len(xa) != len(xb):
        raise InputError(f"rating lists differ in length ({len(xa)} vs {len(xb)})")
    keep = ~(_missing_mask(xa) | _missing_mask(xb))
    if not keep.any():
        raise InputError("no item rated by both raters")
    return xa[keep], xb[keep]


def _encode(
    a: np.ndarray, b: np.ndarray, labels: Sequence[Any] | None = None
) -> tuple[np.ndarray, np.ndarray, list[Any]]:
    """Codes of ``a`` and ``b`` into ``labels`` (default: their labels sorted by ``str``)."""
    raw, found = pd.factorize(np.concatenate([a, b]))
    uniq = list(found)
    names = list(labels) if labels is not None else sorted(set(uniq), key=str)
    index = {lab: i for i, lab in enumerate(names)}
    unknown = [u for u in uniq if u not in index]
    if unknown:
        raise InputError(f"label {unknown[0]!r} not in labels {names}")
    lut = np.array([index[u] for u in uniq], dtype=np.int64)
    codes = lut[raw]
    return codes[: len(a)], codes[len(a) :], names


def percent_agreement(a: Ratings, b: Ratings) -> float:
    """Share of items (rated by both) with the same label: ``p_o = (1/n) sum_i [a_i = b_i]``."""
    xa, xb = _pairs(a, b)
    return float(np.mean(xa == xb))


def confusion(a: Ratings, b: Ratings, labels: Sequence[Any] | None = None) -> pd.DataFrame:
    """Confusion matrix: rows = labels of ``a``, columns = labels of ``b`` (items rated by both)."""
    ia, ib, labels = _encode(*_pairs(a, b), labels)
    k = len(labels)
    m = np.bincount(ia * k + ib, minlength=k * k).reshape(k, k).astype(int)
    return pd.DataFrame(m, index=pd.Index(labels, name="a"), columns=pd.Index(labels, name="b"))


def _kappa_from_matrix(m: np.ndarray) -> float:
    n = m.sum()
    po = np.trace(m) / n
    pe = (m.sum(axis=1) * m.sum(axis=0)).sum() / (n * n)
    return float((po - pe) / (1 - pe)) if pe < 1 else float("nan")


def cohen_kappa(a: Ratings, b: Ratings, labels: Sequence[Any] | None = None) -> float:
    """Cohen's kappa ``(p_o - p_e) / (1 - p_e)``, ``p_e = sum_k p_a(k) p_b(k)``.

    NaN when ``p_e = 1`` (both raters always gave the same single label).
    """
    return _kappa_from_matrix(confusion(a, b, labels).to_numpy())


#: Fewest items for which :func:`cohen_kappa_ci` states an interval. Chosen by the coverage
#: simulation of ``tests/stats/test_kappa_coverage.py`` (2 to 4 labels, true kappa 0 to 0.9):
#: from 20 items on the stated 95 % interval covers the true kappa in 0.86 or more of the samples
#: in every setting tried (mean 0.93); at 10-15 items the worst setting falls to 0.79-0.83.
KAPPA_CI_MIN_ITEMS = 20


def _fce_variance(m: np.ndarray) -> float:
    """Fleiss, Cohen & Everitt (1969) large-sample variance of Cohen's kappa from counts ``m``.

    With cell shares ``p_ij``, margins ``p_i.``, ``p_.j``, ``p_o``, ``p_e`` and ``k`` the kappa:
    ``Var = [sum_i p_ii (1 - (p_i. + p_.i)(1 - k))^2
    + (1 - k)^2 sum_{i != j} p_ij (p_.i + p_j.)^2 - (k - p_e (1 - k))^2] / (n (1 - p_e)^2)``
    (statsmodels' ``cohens_kappa(...).var_kappa``). NaN when ``p_e = 1``.
    """
    n = float(m.sum())
    p = m / n
    r, c = p.sum(axis=1), p.sum(axis=0)
    po, pe = float(np.trace(p)), float((r * c).sum())
    if pe >= 1:
        return float("nan")
    k = (po - pe) / (1 - pe)
    diag = float((np.diag(p) * (1 - (r + c) * (1 - k)) ** 2).sum())
    off = p.copy()
    np.fill_diagonal(off, 0.0)
    cross = (1 - k) ** 2 * float((off * (c[:, None] + r[None, :]) ** 2).sum())
    return max(diag + cross - (k - pe * (1 - k)) ** 2, 0.0) / (n * (1 - pe) ** 2)


def cohen_kappa_ci(
    a: Ratings,
    b: Ratings,
    n_boot: int = 1000,
    seed: int | np.random.Generator = 0,
    level: float = 0.95,
) -> Interval:
    """Cohen's kappa with a large-sample interval at ``level`` (see :func:`cohen_kappa_ci_counts`).

    ``n_boot`` and ``seed`` are accepted for callers written for the former bootstrap interval;
    the interval is analytic and uses neither.
    """
    if not 0 < level < 1 or n_boot < 1:
        raise InputError("need 0 < level < 1 and n_boot >= 1")
    ia, ib, labels = _encode(*_pairs(a, b))
    k = len(labels)
    counts = np.bincount(ia * k + ib, minlength=k * k).reshape(k, k)
    return cohen_kappa_ci_counts(counts, n_boot, seed, level)


def cohen_kappa_ci_counts(
    counts: np.ndarray,
    n_boot: int = 1000,
    seed: int | np.random.Generator = 0,
    level: float = 0.95,
) -> Interval:
    """Cohen's kappa and its interval from the ``k x k`` confusion counts of the two raters (rows
    the first rater's labels, columns the second's, in one label order).

    Interval: ``kappa +- z_{(1+level)/2} * SE`` cut to ``[-1, 1]``, where ``SE`` is the larger of
    the Fleiss-Cohen-Everitt standard error (:func:`_fce_variance`) of the observed table and of
    the table with 1/2 added to every cell of the labels used. The second guards the boundary:
    when every item agrees (or a cell is empty by chance) the plug-in SE is 0 and the interval
    would claim certainty; the half-count keeps it as wide as a few items warrant (a percentile
    bootstrap fails there too: all its replicates agree, or are undefined and were dropped).
    Below :data:`KAPPA_CI_MIN_ITEMS` items, or when kappa is undefined (``p_e = 1``), the bounds
    are NaN: too few items for a stated interval. ``n_boot`` and ``seed`` are not used (kept for
    callers of the former bootstrap).
    """
    if not 0 < level < 1 or n_boot < 1:
        raise InputError("need 0 < level < 1 and n_boot >= 1")
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    if counts.ndim != 2 or counts.shape[0] != counts.shape[1] or n == 0 or (counts < 0).any():
        raise InputError("need a square table of non-negative counts with at least one item")
    estimate = _kappa_from_matrix(counts)
    if n < KAPPA_CI_MIN_ITEMS or np.isnan(estimate):
        return Interval(estimate, float("nan"), float("nan"), level)
    half = _half_width(counts, level)
    return Interval(estimate, max(-1.0, estimate - half), min(1.0, estimate + half), level)


def _half_width(counts: np.ndarray, level: float) -> float:
    """``z * SE`` of :func:`cohen_kappa_ci_counts` (the guarded Fleiss-Cohen-Everitt SE)."""
    used = (counts.sum(axis=0) + counts.sum(axis=1)) > 0
    table = counts[np.ix_(used, used)].astype(float)
    se = float(np.sqrt(max(_fce_variance(table), _fce_variance(table + 0.5))))
    return NormalDist().inv_cdf((1 + level) / 2) * se


def cohen_kappa_ci_clustered(
    a: Ratings, b: Ratings, clusters: Sequence[Any], level: float = 0.95
) -> Interval:
    """Cohen's kappa of pooled ratings of which several may concern one item (``clusters[i]``
    names the item of rating pair ``i``), with :func:`cohen_kappa_ci_counts`' interval widened by
    the design effect of the items.

    Influence of pair ``i`` (labels ``x``, ``y``; row margins ``r``, column margins ``c``):
    ``IF_i = ([x = y] - p_o) / (1 - p_e) + (p_o - 1)(c_x + r_y - 2 p_e) / (1 - p_e)^2``, so
    ``sum_i IF_i^2 / n^2`` is the Fleiss-Cohen-Everitt variance. Item-clustered:
    ``V_cl = sum_g (sum_{i in g} IF_i)^2 / n^2``; the half-width is multiplied by
    ``sqrt(max(1, V_cl / V_iid))`` (by ``sqrt(n / items)`` when ``V_iid = 0``). No interval under
    :data:`KAPPA_CI_MIN_ITEMS` distinct items.
    """
    xa, xb = _objects(a), _objects(b)
    groups = _objects(clusters)
    if not (len(xa) == len(xb) == len(groups)) or len(xa) == 0:
        raise InputError("need as many clusters as rating pairs, and at least one pair")
    ia, ib, labels = _encode(xa, xb)
    k, n = len(labels), len(ia)
    counts = np.bincount(ia * k + ib, minlength=k * k).reshape(k, k)
    g, _ = pd.factorize(groups)
    items = int(g.max()) + 1
    base = cohen_kappa_ci_counts(counts, level=level)
    if items < KAPPA_CI_MIN_ITEMS:
        return Interval(base.estimate, float("nan"), float("nan"), level)
    if np.isnan(base.low):
        return base
    p = counts / n
    r, c = p.sum(axis=1), p.sum(axis=0)
    po, pe = float(np.trace(p)), float((r * c).sum())
    infl = (ia == ib).astype(float) - po
    infl = infl / (1 - pe) + (po - 1) * (c[ia] + r[ib] - 2 * pe) / (1 - pe) ** 2
    v_iid = float((infl**2).sum())
    v_cl = float((np.bincount(g, weights=infl, minlength=items) ** 2).sum())
    deff = v_cl / v_iid if v_iid > 0 else n / items
    half = _half_width(counts, level) * float(np.sqrt(max(1.0, deff)))
    est = base.estimate
    return Interval(est, max(-1.0, est - half), min(1.0, est + half), level)


def _long(df: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in ("item_id", "rater", "verdict") if c not in df.columns]
    if missing:
        raise InputError(f"missing column(s): {', '.join(missing)}")
    out = df[["item_id", "rater", "verdict"]].dropna()
    if out.empty:
        raise InputError("no ratings")
    return out


def ratings_matrix(df: pd.DataFrame) -> pd.DataFrame:
    """Long ``item_id, rater, verdict`` rows -> raters x items matrix (NaN = not rated).

    A rater who rated an item twice keeps the last label.
    """
    d = _long(df).drop_duplicates(["item_id", "rater"], keep="last")
    return d.pivot(index="rater", columns="item_id", values="verdict")


def fleiss_kappa(table_or_items: Any) -> float:
    """Fleiss' kappa from an items x categories count table or long ``item_id, rater, verdict`` rows.

    ``P_i = (sum_j n_ij^2 - n_i) / (n_i (n_i - 1))``, ``P_bar = mean_i P_i``,
    ``p_j = sum_i n_ij / sum_i n_i``, ``P_e = sum_j p_j^2``, ``kappa = (P_bar - P_e) / (1 - P_e)``.
    Items may have different numbers of ratings (missing labels); items with fewer than two are
    left out. With equal ``n_i`` this is Fleiss (1971).
    """
    if isinstance(table_or_items, pd.DataFrame) and "rater" in table_or_items.columns:
        d = _long(table_or_items)
        table = pd.crosstab(d["item_id"], d["verdict"]).to_numpy(dtype=float)
    else:
        table = np.asarray(table_or_items, dtype=float)
    if table.ndim != 2 or (table < 0).any():
        raise InputError("Fleiss' kappa needs an items x categories table of counts")
    ni = table.sum(axis=1)
    table, ni = table[ni >= 2], ni[ni >= 2]
    if len(table) == 0:
        raise InputError("Fleiss' kappa needs items with at least two ratings")
    p_i = ((table * table).sum(axis=1) - ni) / (ni * (ni - 1))
    pj = table.sum(axis=0) / ni.sum()
    pe = float((pj * pj).sum())
    return float((p_i.mean() - pe) / (1 - pe)) if pe < 1 else float("nan")


def krippendorff_alpha_nominal(reliability: Any) -> float:
    """Krippendorff's alpha for nominal labels; ``reliability`` is raters x items, NaN = missing.

    Coincidences ``o_ck = sum_u (number of c-k pairs in unit u) / (m_u - 1)`` over units with
    ``m_u >= 2`` values; ``n_c = sum_k o_ck``, ``n = sum_c n_c``;
    ``alpha = 1 - (n - 1) sum_{c != k} o_ck / sum_{c != k} n_c n_k``.
    """
    if isinstance(reliability, pd.DataFrame):
        reliability = reliability.to_numpy(dtype=object)
    r = np.asarray(reliability, dtype=object)
    if r.ndim != 2:
        raise InputError("reliability data must be a raters x items matrix")
    flat = r.T.ravel()  # unit-major
    present = ~_missing_mask(flat)
    codes, uniq = pd.factorize(flat[present])
    uniq = list(uniq)
    labels = sorted(set(uniq), key=str)
    if len(labels) == 0:
        raise InputError("no ratings")
    index = {lab: i for i, lab in enumerate(labels)}
    k, n_units = len(labels), r.shape[1]
    unit = np.flatnonzero(present) // max(r.shape[0], 1)
    lut = np.array([index[u] for u in uniq], dtype=np.int64)
    counts = np.bincount(unit * k + lut[codes], minlength=n_units * k).reshape(n_units, k)
    return krippendorff_alpha_nominal_counts(counts)


def krippendorff_alpha_nominal_counts(counts: Any) -> float:
    """:func:`krippendorff_alpha_nominal` from a units x categories table of counts (how many
    raters gave each label to each unit), which is all it depends on."""
    counts = np.asarray(counts)
    if counts.ndim != 2 or (counts < 0).any():
        raise InputError("Krippendorff's alpha needs a units x categories table of counts")
    m = counts.sum(axis=1)
    counts, m = counts[m >= 2].astype(float), m[m >= 2]
    scaled = counts / (m - 1)[:, None]
    o = counts.T @ scaled - np.diag(scaled.sum(axis=0))  # sum_u (c c^T - diag c) / (m_u - 1)
    nc = o.sum(axis=1)
    n = nc.sum()
    if n == 0:
        raise InputError("Krippendorff's alpha needs items with at least two ratings")
    expected = n * n - (nc * nc).sum()
    if expected == 0:
        return float("nan")
    return float(1 - (n - 1) * (o.sum() - np.trace(o)) / expected)


def pairwise_agreement(df: pd.DataFrame) -> pd.DataFrame:
    """Every pair of raters: ``n`` items both rated, percent agreement, Cohen's kappa."""
    m = ratings_matrix(df)
    raters = list(m.index)
    labels, rated = m.to_numpy(dtype=object), m.notna().to_numpy()
    rows = []
    for i, ra in enumerate(raters):
        for j, rb in enumerate(raters[i + 1 :], start=i + 1):
            both = rated[i] & rated[j]
            if not both.any():
                rows.append(
                    {
                        "rater_a": ra,
                        "rater_b": rb,
                        "n": 0,
                        "agreement": np.nan,
                        "cohen_kappa": np.nan,
                    }
                )
                continue
            a, b = labels[i][both], labels[j][both]
            rows.append(
                {
                    "rater_a": ra,
                    "rater_b": rb,
                    "n": int(both.sum()),
                    "agreement": percent_agreement(a, b),
                    "cohen_kappa": cohen_kappa(a, b),
                }
            )
    return pd.DataFrame(rows, columns=["rater_a", "rater_b", "n", "agreement", "cohen_kappa"])


def self_consistency(
    first: Mapping[Any, Any] | pd.Series, second: Mapping[Any, Any] | pd.Series
) -> dict[str, Any]:
    """One rater judged the same items twice (two runs): agreement and kappa over shared items.

    ``first``/``second`` map item id -> label. For both presentation orders of pairwise verdicts use
    :func:`position_inconsistency`, which first maps verdicts to the systems they name.
    """
    first, second = dict(first), dict(second)
    shared = [i for i in first if i in second]
    a = _objects([first[i] for i in shared])
    b = _objects([second[i] for i in shared])
    keep = ~(_missing_mask(a) | _missing_mask(b))
    if not keep.any():
        raise InputError("the two runs share no rated item")
    a, b = a[keep], b[keep]
    return {
        "n": int(keep.sum()),
        "agreement": percent_agreement(a, b),
        "cohen_kappa": cohen_kappa(a, b),
    }

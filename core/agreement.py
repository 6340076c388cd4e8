"""Rater agreement and rater biases: percent agreement, Cohen's / Fleiss' kappa, Krippendorff's alpha,
self-consistency, position inconsistency, self-preference and length bias.

Labels are any hashable values; ``None``/NaN means "not rated". Pure numpy/pandas; randomness is
passed in; every interval carries its ``level``.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from core.errors import InputError
from core.stats import Interval, wilson_ci


def _is_missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and v != v)


def _pairs(a: Sequence, b: Sequence) -> tuple[list, list]:
    a, b = list(a), list(b)
    if len(a) != len(b):
        raise InputError(f"rating lists differ in length ({len(a)} vs {len(b)})")
    keep = [(x, y) for x, y in zip(a, b) if not _is_missing(x) and not _is_missing(y)]
    if not keep:
        raise InputError("no item rated by both raters")
    return [x for x, _ in keep], [y for _, y in keep]


def percent_agreement(a: Sequence, b: Sequence) -> float:
    """Share of items (rated by both) with the same label: ``p_o = (1/n) sum_i [a_i = b_i]``."""
    a, b = _pairs(a, b)
    return float(np.mean([x == y for x, y in zip(a, b)]))


def confusion(a: Sequence, b: Sequence, labels: Sequence | None = None) -> pd.DataFrame:
    """Confusion matrix: rows = labels of ``a``, columns = labels of ``b`` (items rated by both)."""
    a, b = _pairs(a, b)
    labels = list(labels) if labels is not None else sorted(set(a) | set(b), key=str)
    index = {lab: i for i, lab in enumerate(labels)}
    unknown = [v for v in a + b if v not in index]
    if unknown:
        raise InputError(f"label {unknown[0]!r} not in labels {labels}")
    m = np.zeros((len(labels), len(labels)), dtype=int)
    np.add.at(m, ([index[x] for x in a], [index[y] for y in b]), 1)
    return pd.DataFrame(m, index=pd.Index(labels, name="a"), columns=pd.Index(labels, name="b"))


def _kappa_from_matrix(m: np.ndarray) -> float:
    n = m.sum()
    po = np.trace(m) / n
    pe = (m.sum(axis=1) * m.sum(axis=0)).sum() / (n * n)
    return float((po - pe) / (1 - pe)) if pe < 1 else float("nan")


def cohen_kappa(a: Sequence, b: Sequence, labels: Sequence | None = None) -> float:
    """Cohen's kappa ``(p_o - p_e) / (1 - p_e)``, ``p_e = sum_k p_a(k) p_b(k)``.

    NaN when ``p_e = 1`` (both raters always gave the same single label).
    """
    return _kappa_from_matrix(confusion(a, b, labels).to_numpy())


def cohen_kappa_ci(a: Sequence, b: Sequence, n_boot: int = 1000,
                   seed: int | np.random.Generator = 0, level: float = 0.95) -> Interval:
    """Cohen's kappa with a bootstrap percentile interval at ``level`` (items resampled).

    Replicates with undefined kappa (``p_e = 1``) are left out of the quantiles.
    """
    if not 0 < level < 1 or n_boot < 1:
        raise InputError("need 0 < level < 1 and n_boot >= 1")
    a, b = _pairs(a, b)
    labels = sorted(set(a) | set(b), key=str)
    idx = {lab: i for i, lab in enumerate(labels)}
    k = len(labels)
    cell = np.array([idx[x] * k + idx[y] for x, y in zip(a, b)])
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    draws = cell[rng.integers(0, len(cell), size=(n_boot, len(cell)))]
    mats = np.stack([np.bincount(r, minlength=k * k) for r in draws]).reshape(n_boot, k, k)
    n = len(cell)
    po = np.trace(mats, axis1=1, axis2=2) / n
    pe = (mats.sum(axis=2) * mats.sum(axis=1)).sum(axis=1) / (n * n)
    with np.errstate(invalid="ignore", divide="ignore"):
        reps = np.where(pe < 1, (po - pe) / (1 - pe), np.nan)
    lo, hi = np.nanquantile(reps, [(1 - level) / 2, (1 + level) / 2])
    return Interval(cohen_kappa(a, b), float(lo), float(hi), level)


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
    labels = sorted({v for v in r.ravel() if not _is_missing(v)}, key=str)
    if len(labels) == 0:
        raise InputError("no ratings")
    idx = {lab: i for i, lab in enumerate(labels)}
    k = len(labels)
    o = np.zeros((k, k))
    for col in r.T:
        counts = np.bincount([idx[v] for v in col if not _is_missing(v)], minlength=k)
        m = counts.sum()
        if m < 2:
            continue
        o += (np.outer(counts, counts) - np.diag(counts)) / (m - 1)
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
    rows = []
    for i, ra in enumerate(raters):
        for rb in raters[i + 1:]:
            both = m.loc[ra].notna() & m.loc[rb].notna()
            if not both.any():
                rows.append({"rater_a": ra, "rater_b": rb, "n": 0, "agreement": np.nan,
                             "cohen_kappa": np.nan})
                continue
            a, b = list(m.loc[ra][both]), list(m.loc[rb][both])
            rows.append({"rater_a": ra, "rater_b": rb, "n": int(both.sum()),
                         "agreement": percent_agreement(a, b), "cohen_kappa": cohen_kappa(a, b)})
    return pd.DataFrame(rows, columns=["rater_a", "rater_b", "n", "agreement", "cohen_kappa"])


def self_consistency(first: Mapping | pd.Series, second: Mapping | pd.Series) -> dict[str, Any]:
    """One rater judged the same items twice (two runs): agreement and kappa over shared items.

    ``first``/``second`` map item id -> label. For both presentation orders of pairwise verdicts use
    :func:`position_inconsistency`, which first maps verdicts to the systems they name.
    """
    first, second = dict(first), dict(second)
    shared = [i for i in first if i in second and not _is_missing(first[i])
              and not _is_missing(second[i])]
    if not shared:
        raise InputError("the two runs share no rated item")
    a, b = [first[i] for i in shared], [second[i] for i in shared]
    return {"n": len(shared), "agreement": percent_agreement(a, b),
            "cohen_kappa": cohen_kappa(a, b)}


def _canonical(df: pd.DataFrame) -> pd.DataFrame:
    """Add ``pair`` (sorted system names), ``first`` (system shown first) and ``winner``
    (the system named by the verdict, or ``Equal`` / ``None``)."""
    from core.ranking import parse_verdict

    need = ["question_id", "system_a", "system_b", "verdict"]
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise InputError(f"missing column(s): {', '.join(missing)}")
    d = df.dropna(subset=["verdict"]).copy()
    v = d["verdict"].map(parse_verdict)
    d["winner"] = np.select([v == "A", v == "B"], [d["system_a"], d["system_b"]], v)
    d["pair"] = [tuple(sorted(p)) for p in zip(d["system_a"], d["system_b"])]
    d["first"] = d["system_a"]
    if "rater" not in d.columns:
        d["rater"] = ""
    return d


def position_inconsistency(df: pd.DataFrame) -> pd.DataFrame:
    """Per rater: pairs judged in both presentation orders and how often the verdicts disagree.

    After mapping each verdict to the system it names, a (question, pair) is consistent when both
    orders name the same winner (or both say Equal / both None). ``first_shown_share`` is, among
    inconsistent pairs where both verdicts were A/B, the share where the first-shown answer won
    both times (1 = pure position bias towards the first slot, 0 = towards the second).
    """
    d = _canonical(df)
    rows = []
    for rater, g in d.groupby("rater", sort=True):
        n = incons = first_both = decided_both = 0
        for _, h in g.groupby(["question_id", "pair"], sort=False):
            orders = h.drop_duplicates("first", keep="last")
            if len(orders) != 2:
                continue
            n += 1
            (w1, f1), (w2, f2) = zip(orders["winner"], orders["first"])
            if w1 != w2:
                incons += 1
                if w1 in orders["pair"].iloc[0] and w2 in orders["pair"].iloc[0]:
                    decided_both += 1
                    first_both += int(w1 == f1 and w2 == f2)
        rows.append({"rater": rater, "n_pairs": n, "inconsistent": incons,
                     "inconsistency_rate": incons / n if n else np.nan,
                     "first_shown_share": first_both / decided_both if decided_both else np.nan})
    return pd.DataFrame(rows)


def _family(f: Mapping | Callable, key: str) -> str:
    try:
        return str(f(key) if callable(f) else f[key])
    except (KeyError, TypeError):
        raise InputError(f"no family given for {key!r}") from None


def self_preference(df: pd.DataFrame, rater_family: Mapping | Callable,
                    system_family: Mapping | Callable, reference: str | Sequence[str]) -> pd.DataFrame:
    """Rater family x answer family table (the Long-Span QA paper's 2x2 design).

    Each non-reference judgment is matched with the reference rater's verdict on the same
    question and system pair (verdicts mapped to the system they name, so order does not matter).
    Answer family = the family of both systems, or ``mixed``. Per cell: ``n``, agreement and
    Cohen's kappa with the reference, and for mixed pairs ``own_family_share`` (decided verdicts
    naming the rater's own family) beside ``reference_own_family_share`` on the same items.
    """
    d = _canonical(df)
    refs = {reference} if isinstance(reference, str) else set(reference)
    ref = d[d["rater"].isin(refs)].drop_duplicates(["question_id", "pair"], keep="last")
    if ref.empty:
        raise InputError(f"no judgments by the reference rater(s) {sorted(refs)}")
    ref_winner = {(q, p): w for q, p, w in zip(ref["question_id"], ref["pair"], ref["winner"])}
    rows = []
    for _, r in d[~d["rater"].isin(refs)].iterrows():
        key = (r["question_id"], r["pair"])
        if key not in ref_winner:
            continue
        fams = {_family(system_family, s) for s in r["pair"]}
        rfam = _family(rater_family, r["rater"])
        own = [s for s in r["pair"] if _family(system_family, s) == rfam]
        rows.append({"rater_family": rfam, "answer_family": fams.pop() if len(fams) == 1
                     else "mixed", "winner": r["winner"], "reference": ref_winner[key],
                     "own": own[0] if len(own) == 1 else None, "pair": r["pair"]})
    if not rows:
        raise InputError("no judgment shares a question and pair with the reference")
    m = pd.DataFrame(rows)
    out = []
    for (rf, af), g in m.groupby(["rater_family", "answer_family"], sort=True):
        row = {"rater_family": rf, "answer_family": af, "n": len(g),
               "agreement": percent_agreement(g["winner"], g["reference"]),
               "cohen_kappa": cohen_kappa(g["winner"], g["reference"])}
        has_own = g["own"].notna().to_numpy()
        dec = g[np.array([w in p for w, p in zip(g["winner"], g["pair"])]) & has_own]
        refdec = g[np.array([w in p for w, p in zip(g["reference"], g["pair"])]) & has_own]
        row["own_family_share"] = float((dec["winner"] == dec["own"]).mean()) if len(dec) else np.nan
        row["reference_own_family_share"] = (float((refdec["reference"] == refdec["own"]).mean())
                                             if len(refdec) else np.nan)
        out.append(row)
    return pd.DataFrame(out)


def length_bias(df: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Per rater: share of decided pairs (A or B, unequal lengths) won by the longer answer.

    With a Wilson interval at ``level`` and a two-sided exact binomial test of share = 1/2.
    """
    from scipy.stats import binomtest

    from core.ranking import parse_verdict

    need = ["verdict", "length_a", "length_b"]
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise InputError(f"missing column(s): {', '.join(missing)}")
    d = df.dropna(subset=need).copy()
    if "rater" not in d.columns:
        d["rater"] = ""
    v = d["verdict"].map(parse_verdict)
    la, lb = d["length_a"].astype(float), d["length_b"].astype(float)
    d = d[v.isin(["A", "B"]) & (la != lb)]
    longer_won = (v[d.index] == "A") == (la[d.index] > lb[d.index])
    rows = []
    for rater, idx in d.groupby("rater", sort=True).groups.items():
        k, n = int(longer_won[idx].sum()), len(idx)
        ci = wilson_ci(k, n, level)
        rows.append({"rater": rater, "n_decided": n, "longer_wins": k, "share": k / n,
                     "ci_low": ci.low, "ci_high": ci.high, "level": level,
                     "pvalue": float(binomtest(k, n, 0.5).pvalue)})
    return pd.DataFrame(rows, columns=["rater", "n_decided", "longer_wins", "share", "ci_low",
                                       "ci_high", "level", "pvalue"])

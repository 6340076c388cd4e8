"""Rater biases over pairwise verdicts: position inconsistency, self-preference, length bias.

Verdicts are mapped to the system they name (:func:`core.stats.pairwise_counts.parse_verdict`), so the order
shown does not matter. Pure numpy/pandas/scipy; every interval carries its ``level``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from core.errors import InputError
from core.stats.agreement import _missing_mask, cohen_kappa, percent_agreement
from core.stats.pairwise_counts import parse_verdict
from core.stats.significance import wilson_ci


def _parse_verdicts(values: pd.Series) -> np.ndarray:
    """:func:`core.stats.pairwise_counts.parse_verdict` of each value, parsed once per distinct value."""

    codes, uniq = pd.factorize(values.to_numpy(dtype=object), use_na_sentinel=False)
    parsed = np.array([parse_verdict(u) for u in uniq] or [""], dtype=object)
    out: np.ndarray = parsed[codes]
    return out


def _coded(df: pd.DataFrame) -> dict[str, Any]:
    """Pairwise judgments (non-null verdict) as integer codes.

    ``a``, ``b``, ``winner`` share one code space (``labels``): ``winner`` is the system named by
    the verdict, or ``Equal`` / ``None``. ``lo``/``hi`` are the pair's systems in sorted order of
    their names, ``q`` the question code and ``rater`` the rater code in sorted order
    (``raters``); -1 marks a missing question id or rater. ``frame`` is the kept rows.
    """
    need = ["question_id", "system_a", "system_b", "verdict"]
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise InputError(f"missing column(s): {', '.join(missing)}")
    d = df.dropna(subset=["verdict"])
    v = _parse_verdicts(d["verdict"])
    sa, sb = d["system_a"].to_numpy(dtype=object), d["system_b"].to_numpy(dtype=object)
    if _missing_mask(sa).any() or _missing_mask(sb).any():
        raise InputError("missing system name in system_a/system_b")
    winner = np.select([v == "A", v == "B"], [sa, sb], v)
    n = len(d)
    codes, uniq = pd.factorize(np.concatenate([sa, sb, winner]))
    ca, cb, cw = codes[:n], codes[n : 2 * n], codes[2 * n :]
    used = np.unique(np.concatenate([ca, cb]))
    rank = np.zeros(len(uniq), dtype=np.int64)
    rank[used[sorted(range(len(used)), key=lambda k: uniq[used[k]])]] = np.arange(len(used))
    lo = np.where(rank[ca] <= rank[cb], ca, cb)
    q = pd.factorize(d["question_id"].to_numpy(dtype=object))[0]
    if "rater" in d.columns:
        rater, found = pd.factorize(d["rater"].to_numpy(dtype=object), sort=True)
        raters: list[Any] = list(found)
    else:
        rater, raters = np.zeros(n, dtype=np.int64), ([""] if n else [])
    return {
        "a": ca,
        "b": cb,
        "winner": cw,
        "lo": lo,
        "hi": ca + cb - lo,
        "q": q,
        "rater": rater,
        "raters": raters,
        "labels": list(uniq),
        "frame": d,
    }


def position_inconsistency(df: pd.DataFrame) -> pd.DataFrame:
    """Per rater: pairs judged in both presentation orders and how often the verdicts disagree.

    After mapping each verdict to the system it names, a (question, pair) is consistent when both
    orders name the same winner (or both say Equal / both None). ``first_shown_share`` is, among
    inconsistent pairs where both verdicts were A/B, the share where the first-shown answer won
    both times (1 = pure position bias towards the first slot, 0 = towards the second).
    The latest verdict per (rater, question, pair, first-shown system) counts.
    """
    c = _coded(df)
    nr = len(c["raters"])
    if nr == 0:
        return pd.DataFrame([])
    ok = (c["rater"] >= 0) & (c["q"] >= 0)
    keys = pd.DataFrame({k: c[k][ok] for k in ("rater", "q", "lo", "hi", "a")})
    last = ~keys.duplicated(keep="last").to_numpy()
    rows = np.flatnonzero(ok)[last]
    group = keys[last].groupby(["rater", "q", "lo", "hi"], sort=False).ngroup().to_numpy()
    both_orders = np.bincount(group)[group] == 2
    rows, group = rows[both_orders], group[both_orders]
    rows = rows[np.argsort(group, kind="stable")]  # the two orders side by side
    r1, r2 = rows[0::2], rows[1::2]
    w1, w2, f1, f2 = c["winner"][r1], c["winner"][r2], c["a"][r1], c["a"][r2]
    decided1 = (w1 == c["a"][r1]) | (w1 == c["b"][r1])
    decided2 = (w2 == c["a"][r2]) | (w2 == c["b"][r2])
    incons = w1 != w2
    decided_both = incons & decided1 & decided2
    first_both = decided_both & (w1 == f1) & (w2 == f2)
    rater = c["rater"][r1]
    n, bad, dec, fst = (
        np.bincount(rater, x.astype(np.int64), nr).astype(np.int64)
        for x in (np.ones(len(rater), bool), incons, decided_both, first_both)
    )
    out = [
        {
            "rater": c["raters"][k],
            "n_pairs": int(n[k]),
            "inconsistent": int(bad[k]),
            "inconsistency_rate": bad[k] / n[k] if n[k] else np.nan,
            "first_shown_share": fst[k] / dec[k] if dec[k] else np.nan,
        }
        for k in range(nr)
    ]
    return pd.DataFrame(out)


def _family(
    f: Mapping[str, str] | Callable[[str], str], key: str, strict: bool = True
) -> str | None:
    """The family of ``key``; without one an :class:`InputError` (or ``None`` if not strict)."""
    try:
        return str(f(key) if callable(f) else f[key])
    except (KeyError, TypeError):
        if strict:
            raise InputError(f"no family given for {key!r}") from None
        return None


def self_preference(
    df: pd.DataFrame,
    rater_family: Mapping[str, str] | Callable[[str], str],
    system_family: Mapping[str, str] | Callable[[str], str],
    reference: str | Sequence[str],
) -> pd.DataFrame:
    """Rater family x answer family table (the Long-Span QA paper's 2x2 design).

    Each non-reference judgment is matched with the reference rater's (latest) verdict on the same
    question and system pair (verdicts mapped to the system they name, so order does not matter).
    Answer family = the family of both systems, or ``mixed``. Per cell: ``n``, agreement and
    Cohen's kappa with the reference, and for mixed pairs ``own_family_share`` (decided verdicts
    naming the rater's own family) beside ``reference_own_family_share`` on the same items.
    """
    c = _coded(df)
    d = c["frame"]
    refs = {reference} if isinstance(reference, str) else set(reference)
    rater = (
        d["rater"].to_numpy(dtype=object)
        if "rater" in d.columns
        else np.full(len(d), "", dtype=object)
    )
    is_ref = pd.Series(rater).isin(refs).to_numpy()
    if not is_ref.any():
        raise InputError(f"no judgments by the reference rater(s) {sorted(refs)}")
    n_lab = len(c["labels"])
    key = ((c["q"].astype(np.int64) + 1) * n_lab + c["lo"]) * n_lab + c["hi"]
    ref = pd.Series(c["winner"][is_ref], index=key[is_ref])
    ref = ref[~ref.index.duplicated(keep="last")]
    other = np.flatnonzero(~is_ref)
    pos = ref.index.get_indexer(key[other])
    rows, ref_code = other[pos >= 0], ref.to_numpy()[pos[pos >= 0]]
    if not rows.size:
        raise InputError("no judgment shares a question and pair with the reference")
    labels = np.array(c["labels"] + [None], dtype=object)
    lo, hi, win = c["lo"][rows], c["hi"][rows], c["winner"][rows]
    sys_codes = np.unique(np.concatenate([lo, hi]))
    sys_fam = np.full(n_lab, None, dtype=object)
    sys_fam[sys_codes] = [_family(system_family, k, False) for k in labels[sys_codes]]
    r_codes, r_uniq = pd.factorize(rater[rows], use_na_sentinel=False)
    r_fam = np.array([_family(rater_family, k, False) for k in r_uniq], dtype=object)[r_codes]
    fam_lo, fam_hi = sys_fam[lo], sys_fam[hi]
    failed = np.stack([fam_lo == None, fam_hi == None, r_fam == None], axis=1)  # noqa: E711
    if failed.any():  # the first lookup that fails, in order
        k = int(np.flatnonzero(failed.any(axis=1))[0])
        _family(system_family, labels[lo[k]])
        _family(system_family, labels[hi[k]])
        _family(rater_family, rater[rows][k])
    own_lo, own_hi = fam_lo == r_fam, fam_hi == r_fam
    own = np.where(own_lo ^ own_hi, np.where(own_lo, lo, hi), -1)
    m = pd.DataFrame(
        {
            "rater_family": r_fam,
            "answer_family": np.where(fam_lo == fam_hi, fam_lo, "mixed"),
            "winner": labels[win],
            "reference": labels[ref_code],
        }
    )
    decided = ((win == lo) | (win == hi)) & (own >= 0)
    ref_decided = ((ref_code == lo) | (ref_code == hi)) & (own >= 0)
    out = []
    groups: Any = m.groupby(["rater_family", "answer_family"]).indices  # (rf, af) -> rows
    for (rf, af), idx in sorted(groups.items()):
        row = {
            "rater_family": rf,
            "answer_family": af,
            "n": len(idx),
            "agreement": percent_agreement(m["winner"].iloc[idx], m["reference"].iloc[idx]),
            "cohen_kappa": cohen_kappa(m["winner"].iloc[idx], m["reference"].iloc[idx]),
        }
        dec, rdec = idx[decided[idx]], idx[ref_decided[idx]]
        row["own_family_share"] = float((win[dec] == own[dec]).mean()) if len(dec) else np.nan
        row["reference_own_family_share"] = (
            float((ref_code[rdec] == own[rdec]).mean()) if len(rdec) else np.nan
        )
        out.append(row)
    return pd.DataFrame(out)


def length_bias(df: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Per rater: share of decided pairs (A or B, unequal lengths) won by the longer answer.

    With a Wilson interval at ``level`` and a two-sided exact binomial test of share = 1/2.
    """
    from scipy.stats import binomtest

    need = ["verdict", "length_a", "length_b"]
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise InputError(f"missing column(s): {', '.join(missing)}")
    d = df.dropna(subset=need).copy()
    if "rater" not in d.columns:
        d["rater"] = ""
    v = pd.Series(_parse_verdicts(d["verdict"]), index=d.index)
    la, lb = d["length_a"].astype(float), d["length_b"].astype(float)
    d = d[v.isin(["A", "B"]) & (la != lb)]
    longer_won = (v[d.index] == "A") == (la[d.index] > lb[d.index])
    rows = []
    for rater, idx in d.groupby("rater", sort=True).groups.items():
        k, n = int(longer_won[idx].sum()), len(idx)
        ci = wilson_ci(k, n, level)
        rows.append(
            {
                "rater": rater,
                "n_decided": n,
                "longer_wins": k,
                "share": k / n,
                "ci_low": ci.low,
                "ci_high": ci.high,
                "level": level,
                "pvalue": float(binomtest(k, n, 0.5).pvalue),
            }
        )
    return pd.DataFrame(
        rows,
        columns=[
            "rater",
            "n_decided",
            "longer_wins",
            "share",
            "ci_low",
            "ci_high",
            "level",
            "pvalue",
        ],
    )

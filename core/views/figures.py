"""Analysis views: the Agreement page's tables and plotly figures (the Leaderboard page's are
in :mod:`core.views.leaderboard_figures`, imported evaluations' in :mod:`core.views.agreement_view`).

Data come from the store (effective labels only: a row superseded by another is ignored), the
statistics from :mod:`core.stats`, :mod:`core.stats` and :mod:`core.stats.significance`. Every figure has a
title, axis labels and hover text with the numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from core.stats.agreement import (
    cohen_kappa_ci_counts,
    confusion,
    fleiss_kappa,
    krippendorff_alpha_nominal_counts,
    self_consistency,
)
from core.stats.rater_bias import position_inconsistency
from core.store.verdict_reads import SUMMARY_KEYS, verdict_summary
from core.views.agreement_view import is_slot

if TYPE_CHECKING:  # sqlite_utils imports pandas: loaded only when a database is opened
    import sqlite_utils

# ------------------------------------------------------------------------------------------
# Agreement
# ------------------------------------------------------------------------------------------


_SWAP = {"A": "B", "B": "A"}


def _canonical(verdict: pd.Series, swap: pd.Series) -> pd.Series:
    """Pairwise verdicts translated to the canonical (sorted) system order where ``swap``."""
    return verdict.where(~swap, verdict.map(_SWAP).fillna(verdict))


def verdict_frame(
    db: sqlite_utils.Database, kind: str = "pairwise", raters: Sequence[str] | None = None
) -> pd.DataFrame:
    """Effective parsed verdicts (of ``raters`` only, when given), one row per rater and item as
    shown (:func:`core.store.verdict_reads.verdict_summary`): ``item_id, question_id, rater,
    rater_kind, verdict, first_verdict, n, pair, system_a, system_b, shown_verdict, position,
    judgment_id``.

    ``verdict``/``shown_verdict``/``judgment_id`` are the rater's latest verdict on the item in
    that order, ``first_verdict`` the earliest, ``n`` how many. Pairwise items are (question,
    canonically sorted pair) and ``verdict``/``first_verdict`` are translated to that canonical
    order (``A`` = the alphabetically first system wins), so raters who saw different orders are
    comparable; ``shown_verdict`` keeps the latest verdict as given and ``position`` the system
    shown first. Absolute items are (question, system, criterion).
    """
    df = pd.DataFrame.from_records(
        verdict_summary(db, kind, raters),
        columns=[
            "rater",
            "rater_kind",
            *SUMMARY_KEYS[kind],
            "n",
            "first_id",
            "first_verdict",
            "judgment_id",
            "verdict",
        ],
    )
    df["shown_verdict"] = df["verdict"]
    if kind == "pairwise":
        swap = df["system_a"] > df["system_b"]
        first = df["system_a"].where(~swap, df["system_b"])
        second = df["system_b"].where(~swap, df["system_a"])
        df["verdict"] = _canonical(df["verdict"], swap)
        df["first_verdict"] = _canonical(df["first_verdict"], swap)
        df["pair"] = first + " vs " + second
        df["item_id"] = df["question_id"] + "|" + first + "|" + second
        df["position"] = df["system_a"]
    else:
        df["pair"] = df["system"]
        df["item_id"] = df["question_id"] + "|" + df["system"] + "|" + df["criterion"]
        df["system_a"], df["system_b"] = df["system"], None
        df["position"] = ""
    return df[
        [
            "item_id",
            "question_id",
            "rater",
            "rater_kind",
            "verdict",
            "first_verdict",
            "n",
            "pair",
            "system_a",
            "system_b",
            "shown_verdict",
            "position",
            "judgment_id",
        ]
    ]


def latest_per_rater(frame: pd.DataFrame) -> pd.DataFrame:
    """One verdict per (item, rater): the latest."""
    return frame.sort_values("judgment_id").drop_duplicates(["item_id", "rater"], keep="last")


def paired(frame: pd.DataFrame, rater_a: str, rater_b: str) -> pd.DataFrame:
    """Items both raters labelled: ``item_id, question_id, pair, a, b``."""
    one = latest_per_rater(frame)
    a = one[one["rater"] == rater_a][["item_id", "question_id", "pair", "verdict"]]
    b = one[one["rater"] == rater_b][["item_id", "verdict"]]
    return a.merge(b, on="item_id", suffixes=("_a", "_b")).rename(
        columns={"verdict_a": "a", "verdict_b": "b"}
    )


def pair_agreement(both: pd.DataFrame, seed: int = 0, n_boot: int = 500) -> dict[str, Any]:
    """Percent agreement and Cohen's kappa with its 95% bootstrap interval (items resampled) of
    the ``a`` and ``b`` labels of ``both`` (:func:`_coded_agreement` of their codes)."""
    if len(both) == 0:
        return {"n": 0, "agreement": None, "kappa": None, "kappa_low": None, "kappa_high": None}
    a, b = both["a"].astype(str).tolist(), both["b"].astype(str).tolist()
    code = {label: i for i, label in enumerate(sorted(set(a) | set(b)))}
    return _coded_agreement(
        np.array([code[x] for x in a], np.int64),
        np.array([code[x] for x in b], np.int64),
        n_boot=n_boot,
        seed=seed,
    )


def _comparison(ra: str, rb: str) -> str:
    return " vs ".join(sorted((ra.split(":")[0], rb.split(":")[0]), reverse=True))


def _coded_agreement(ca: np.ndarray, cb: np.ndarray, n_boot: int = 500, seed: int = 0) -> dict:
    """Percent agreement and Cohen's kappa with its 95% bootstrap interval of two raters' label
    codes over their common items (codes into one label list sorted by text, as
    :func:`core.stats.agreement.cohen_kappa_ci` orders them), from the confusion counts."""
    present = np.unique(np.concatenate([ca, cb]))
    k = len(present)
    ia, ib = np.searchsorted(present, ca), np.searchsorted(present, cb)
    counts = np.bincount(ia * k + ib, minlength=k * k).reshape(k, k)
    ci = cohen_kappa_ci_counts(counts, n_boot=n_boot, seed=seed)
    out: dict[str, Any] = {
        "n": len(ca),
        "agreement": float(np.mean(ca == cb)),
        "kappa": None if np.isnan(ci.estimate) else ci.estimate,
        "kappa_low": None,
        "kappa_high": None,
    }
    if np.isfinite(ci.low):
        out["kappa_low"], out["kappa_high"] = ci.low, ci.high
    return out


def agreement_table(one: pd.DataFrame) -> pd.DataFrame:
    """Every pair of raters over their common items: n, agreement, kappa and its interval, from
    the latest verdict of each rater per item (``one``: :func:`latest_per_rater`). One items x
    raters matrix of label codes serves every pair."""
    wide = one.pivot(index="item_id", columns="rater", values="verdict")
    labels = sorted(set(one["verdict"].astype(str).tolist()))
    code = {label: i for i, label in enumerate(labels)}
    codes = {r: wide[r].map(code).fillna(-1).to_numpy(dtype=np.int64) for r in wide.columns}
    raters = sorted(one["rater"].unique())
    out = []
    for i, ra in enumerate(raters):
        for rb in raters[i + 1 :]:
            if is_slot(ra) or is_slot(rb):  # anonymous slots are not people: no Cohen's kappa
                continue
            both = (codes[ra] >= 0) & (codes[rb] >= 0)
            if both.any():
                out.append(
                    {
                        "rater_a": ra,
                        "rater_b": rb,
                        "comparison": _comparison(ra, rb),
                        **_coded_agreement(codes[ra][both], codes[rb][both]),
                    }
                )
    return pd.DataFrame(
        out,
        columns=[
            "rater_a",
            "rater_b",
            "comparison",
            "n",
            "agreement",
            "kappa",
            "kappa_low",
            "kappa_high",
        ],
    )


def by_system_pair(both: pd.DataFrame) -> pd.DataFrame:
    """Agreement of two raters (their :func:`paired` items) broken down by system pair (or
    system, for absolute items)."""
    out = [{"pair": pair, **pair_agreement(part)} for pair, part in both.groupby("pair")]
    return pd.DataFrame(out, columns=["pair", "n", "agreement", "kappa", "kappa_low", "kappa_high"])


def confusion_figure(both: pd.DataFrame, rater_a: str, rater_b: str) -> go.Figure:
    """Heatmap of the confusion counts of two raters (rows ``rater_a``, columns ``rater_b``)."""

    m = confusion(both["a"].tolist(), both["b"].tolist())
    labels = [str(x) for x in m.index]
    fig = go.Figure(
        go.Heatmap(
            z=m.to_numpy(),
            x=[str(c) for c in m.columns],
            y=labels,
            colorscale="Blues",
            texttemplate="%{z}",
            colorbar={"title": "items"},
            hovertemplate=rater_a
            + " = %{y}<br>"
            + rater_b
            + " = %{x}<br>items = %{z}<extra></extra>",
        )
    )
    fig.update_layout(
        title=f"Confusion: {rater_a} (rows) vs {rater_b} (columns), n = {len(both)}",
        xaxis_title=rater_b,
        yaxis_title=rater_a,
        yaxis={"autorange": "reversed"},
    )
    return fig


def inter_annotator(one: pd.DataFrame, rater_kind: str = "human") -> dict[str, Any]:
    """Fleiss' kappa and Krippendorff's alpha (nominal) among raters of one kind, over the items
    at least two of them labelled (``one``: the latest verdict per rater and item,
    :func:`latest_per_rater`). Both depend only on how many raters gave each label to each
    item: one items x labels table of counts serves both."""

    one = one[one["rater_kind"] == rater_kind]
    multi = one[one.groupby("item_id")["rater"].transform("size") >= 2]
    out: dict[str, Any] = {
        "raters": int(one["rater"].nunique()),
        "items": int(multi["item_id"].nunique()),
        "fleiss_kappa": None,
        "krippendorff_alpha": None,
    }
    if out["items"]:
        items = np.unique(multi["item_id"].to_numpy(dtype=object).astype(str))
        labels = sorted({str(v) for v in multi["verdict"]})
        unit = np.searchsorted(items, multi["item_id"].to_numpy(dtype=object).astype(str))
        label = np.searchsorted(np.array(labels), multi["verdict"].astype(str).to_numpy())
        k = len(labels)
        counts = np.bincount(unit * k + label, minlength=len(items) * k).reshape(len(items), k)
        fk = fleiss_kappa(counts)
        ka = krippendorff_alpha_nominal_counts(counts)
        out["fleiss_kappa"] = None if np.isnan(fk) else fk
        out["krippendorff_alpha"] = None if np.isnan(ka) else ka
    return out


def consistency(frame: pd.DataFrame) -> pd.DataFrame:
    """Per rater: self-consistency (an item judged again in the same order: first vs latest
    verdict) and position-swap inconsistency (:func:`core.stats.rater_bias.position_inconsistency`,
    over the latest verdict per order)."""

    out = []
    pairwise = frame[frame["system_b"].notna()]
    pos = (
        position_inconsistency(pairwise.assign(verdict=pairwise["shown_verdict"]))
        if len(pairwise)
        else pd.DataFrame(columns=["rater"])
    )
    pos = pos.set_index("rater") if len(pos) else pos
    for rater, part in frame.groupby("rater"):
        rep = part[part["n"] >= 2]
        row = {
            "rater": rater,
            "repeated items": len(rep),
            "self-consistency": None,
            "self kappa": None,
            "items in both orders": 0,
            "position inconsistency": None,
        }
        if len(rep):
            key = rep["item_id"] + "|" + rep["position"]
            key = key.tolist()
            sc = self_consistency(
                dict(zip(key, rep["first_verdict"].tolist(), strict=True)),
                dict(zip(key, rep["verdict"].tolist(), strict=True)),
            )
            row["self-consistency"], row["self kappa"] = sc["agreement"], sc["cohen_kappa"]
        if len(pos) and rater in pos.index:
            row["items in both orders"] = int(pos.loc[rater, "n_pairs"])
            rate = pos.loc[rater, "inconsistency_rate"]
            row["position inconsistency"] = None if np.isnan(rate) else float(rate)
        out.append(row)
    return pd.DataFrame(
        out,
        columns=[
            "rater",
            "repeated items",
            "self-consistency",
            "self kappa",
            "items in both orders",
            "position inconsistency",
        ],
    )


def disagreements(both: pd.DataFrame, rater_a: str, rater_b: str, limit: int = 500) -> pd.DataFrame:
    """Items (of :func:`paired`) on which the two raters disagree, to open in Browse."""
    diff = both[both["a"] != both["b"]].head(limit)
    return diff.rename(columns={"a": rater_a, "b": rater_b}).reset_index(drop=True)


def agreement_overview(db: sqlite_utils.Database, kind: str = "pairwise") -> dict[str, Any]:
    """What the Agreement page's first tab shows: the raters, every rater pair's agreement and
    Fleiss' kappa / Krippendorff's alpha among annotators and among auto-raters."""
    frame = verdict_frame(db, kind)
    one = latest_per_rater(frame)
    return {
        "raters": sorted(frame["rater"].unique()),
        "n_verdicts": int(frame["n"].sum()),
        "table": agreement_table(one),
        "humans": inter_annotator(one, "human"),
        "autos": inter_annotator(one, "auto"),
    }


def consistency_view(db: sqlite_utils.Database, kind: str = "pairwise") -> pd.DataFrame:
    """Per rater self-consistency and position-swap inconsistency (:func:`consistency`) of the
    verdicts of ``kind``."""
    return consistency(verdict_frame(db, kind))


def rater_pair_view(
    db: sqlite_utils.Database, kind: str, rater_a: str, rater_b: str
) -> dict[str, Any]:
    """Two raters: their common items, agreement by system pair, the disagreements (only the
    two raters' verdicts are read)."""
    both = paired(verdict_frame(db, kind, raters=[rater_a, rater_b]), rater_a, rater_b)
    return {
        "both": both,
        "overall": pair_agreement(both),
        "by_pair": by_system_pair(both),
        "disagreements": disagreements(both, rater_a, rater_b),
    }

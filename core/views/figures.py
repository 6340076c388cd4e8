"""Analysis views: the Agreement page's tables and plotly figures (the Leaderboard page's are
in :mod:`core.views.leaderboard_figures`, imported evaluations' in :mod:`core.views.agreement_view`).

Data come from the store (effective labels only: a row superseded by another is ignored), the
statistics from :mod:`core.stats`. Which verdicts two or more raters are compared on is the rule of
:mod:`core.stats.agreement_units` (applied in :mod:`core.views.agreement_pairs`): an item judged in
both presentation orders by one of the compared raters is compared in each order. Every figure has
a title, axis labels and hover text with the numbers.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from core.corpus.evaluation_ratings import is_slot
from core.stats.agreement import confusion, self_consistency
from core.stats.rater_bias import position_inconsistency
from core.views.agreement_pairs import (
    InterAnnotator,
    PairAgreement,
    agreement_table,
    inter_annotator,
    pair_agreement,
    paired,
    verdict_frame,
)
from core.views.text import chart_template_text, inert_figure

if TYPE_CHECKING:
    from core.store.engine import Database

# ------------------------------------------------------------------------------------------
# Agreement
# ------------------------------------------------------------------------------------------


def by_system_pair(both: pd.DataFrame) -> pd.DataFrame:
    """Agreement of two raters (their shared units,
    :func:`core.views.agreement_pairs.paired`) broken down by system pair (or system, for
    absolute items)."""
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
            hovertemplate=chart_template_text(rater_a)
            + " = %{y}<br>"
            + chart_template_text(rater_b)
            + " = %{x}<br>items = %{z}<extra></extra>",
        )
    )
    fig.update_layout(
        title=f"Confusion: {rater_a} (rows) vs {rater_b} (columns), n = {len(both)}",
        xaxis_title=rater_b,
        yaxis_title=rater_a,
        yaxis={"autorange": "reversed"},
    )
    return inert_figure(fig)


def consistency(frame: pd.DataFrame) -> pd.DataFrame:
    """Per rater: self-consistency (an item judged again in the same order: first vs latest
    verdict) and position-swap inconsistency (:func:`core.stats.rater_bias.position_inconsistency`,
    over the latest verdict per order). Anonymous slots are left out: a slot is not a person
    (which rating is slot 1 depends on the file order), so it has no consistency of its own."""

    out = []
    frame = frame[~frame["rater"].map(is_slot).astype(bool)]
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
            key = (rep["item_id"] + "|" + rep["position"]).tolist()
            sc = self_consistency(
                dict(zip(key, rep["first_verdict"].tolist(), strict=True)),
                dict(zip(key, rep["verdict"].tolist(), strict=True)),
            )
            row["self-consistency"], row["self kappa"] = sc["agreement"], sc["cohen_kappa"]
        if len(pos) and rater in pos.index:
            cells: Any = pos.loc[rater]  # one row: a Series of numbers
            row["items in both orders"] = int(cells["n_pairs"])
            rate = float(cells["inconsistency_rate"])
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
    diff = both[both["a"] != both["b"]].head(limit).drop(columns="item_id")  # a JSON key
    return diff.rename(columns={"a": rater_a, "b": rater_b}).reset_index(drop=True)


class AgreementOverview(TypedDict):
    """The Agreement page's first tab (:func:`agreement_overview`)."""

    raters: list[str]
    n_verdicts: int
    table: pd.DataFrame  # every rater pair's agreement
    humans: InterAnnotator  # among annotators (:func:`inter_annotator`)
    autos: InterAnnotator  # among auto-raters


def agreement_overview(db: Database, kind: str = "pairwise") -> AgreementOverview:
    """What the Agreement page's first tab shows: the raters, every rater pair's agreement and
    Fleiss' kappa / Krippendorff's alpha among annotators and among auto-raters."""
    frame = verdict_frame(db, kind)
    return {
        "raters": sorted(frame["rater"].unique()),
        "n_verdicts": int(frame["n"].sum()),
        "table": agreement_table(frame),
        "humans": inter_annotator(frame, "human"),
        "autos": inter_annotator(frame, "auto"),
    }


def consistency_view(db: Database, kind: str = "pairwise") -> pd.DataFrame:
    """Per rater self-consistency and position-swap inconsistency (:func:`consistency`) of the
    verdicts of ``kind``."""
    return consistency(verdict_frame(db, kind))


class RaterPairView(TypedDict):
    """Two raters compared (:func:`rater_pair_view`)."""

    both: pd.DataFrame  # their shared units (:func:`core.views.agreement_pairs.paired`)
    overall: PairAgreement
    by_pair: pd.DataFrame  # agreement by system pair (:func:`by_system_pair`)
    disagreements: pd.DataFrame  # (:func:`disagreements`)


#: What a pair of systems reads while pairs of its question are in the viewer's queue.
HIDDEN_NAMES = "names hidden (pairs of this question are in your queue)"


def rater_pair_view(
    db: Database,
    kind: str,
    rater_a: str,
    rater_b: str,
    *,
    hide_items: Collection[str] = (),
    hide_questions: Collection[str] = (),
    hide_names: Collection[str] = (),
) -> RaterPairView:
    """Two raters: their shared units (:func:`core.views.agreement_pairs.paired`), agreement
    overall and by system pair, the disagreements (only the two raters' verdicts are read).
    Left out of all of it (:func:`core.views.blind.agreement_detail`): the items ``hide_items``
    (``item_id``s, :func:`core.views.agreement_pairs.unit_key`) and every item of the questions
    ``hide_questions``; the systems' names of the questions ``hide_names`` read "names hidden"."""
    both = paired(verdict_frame(db, kind, raters=[rater_a, rater_b]), rater_a, rater_b)
    if hide_items or hide_questions:
        gone = both["item_id"].isin(list(hide_items)) | both["question_id"].isin(
            list(hide_questions)
        )
        both = both[~gone].reset_index(drop=True)
    if hide_names:
        masked = both["question_id"].isin(list(hide_names))
        both.loc[masked, "pair"] = HIDDEN_NAMES
        both.loc[masked, "shown_first"] = ""
        both.loc[masked, "item_id"] = ""  # its JSON names the systems
    return {
        "both": both,
        "overall": pair_agreement(both),
        "by_pair": by_system_pair(both),
        "disagreements": disagreements(both, rater_a, rater_b),
    }

"""Agreement over the units of :mod:`core.stats.agreement_units`: the rater-pair table, Fleiss'
kappa and Krippendorff's alpha per rater kind, and two raters' shared units ("Two raters in
detail", ``agreement --from-db``).

Input is a verdict frame (:func:`verdict_frame`: one row per rater, item and
shown order, canonical labels). One items x raters x orders array of label codes serves every
statistic; which verdicts are compared is decided by :func:`core.stats.agreement_units.agreement_units`
for exactly the raters compared (two for a pair, every rater of a kind for Fleiss/alpha).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np
import pandas as pd

from core.annotation.gold import derived_voters
from core.corpus.evaluation_ratings import is_slot
from core.stats.agreement import (
    cohen_kappa_ci_counts,
    fleiss_kappa,
    krippendorff_alpha_nominal_counts,
)
from core.stats.agreement_units import MISSING, paired_units, unit_label_counts
from core.store.accounts import excluded_names
from core.store.judgments import JudgmentKind, RaterKind
from core.store.verdict_reads import SUMMARY_KEYS, verdict_summary

if TYPE_CHECKING:
    from core.store.engine import Database

#: The one-sentence statement of the unit rule (the Agreement page's caption and the docs).
UNIT_RULE = (
    "An item is a question and a pair of systems, verdicts read relative to the pair in "
    "alphabetical order; when one of the raters compared judged it in both presentation orders, "
    "each order is an item of its own (a rater counts in the order(s) it saw), otherwise each "
    "rater's one verdict counts whichever order it saw."
)


class PairAgreement(TypedDict):
    """Two raters' agreement over their common units (:func:`coded_agreement`)."""

    n: int
    agreement: float | None
    kappa: float | None
    kappa_low: float | None
    kappa_high: float | None


TABLE_COLUMNS = [
    "rater_a",
    "rater_b",
    "comparison",
    "n",
    "agreement",
    "kappa",
    "kappa_low",
    "kappa_high",
]


_SWAP = {"A": "B", "B": "A"}


def _canonical(verdict: pd.Series, swap: pd.Series) -> pd.Series:
    """Pairwise verdicts translated to the canonical (sorted) system order where ``swap``."""
    return verdict.where(~swap, verdict.map(_SWAP).fillna(verdict))


def verdict_frame(
    db: Database, kind: str = "pairwise", raters: Sequence[str] | None = None
) -> pd.DataFrame:
    """Effective parsed verdicts (of ``raters`` only, when given), one row per rater and item as
    shown (:func:`core.store.verdict_reads.verdict_summary`): ``item_id, question_id, rater,
    rater_kind, verdict, first_verdict, n, pair, system_a, system_b, shown_verdict, position,
    judgment_id, first, second, order``.

    ``verdict``/``shown_verdict``/``judgment_id`` are the rater's latest verdict on the item in
    that order, ``first_verdict`` the earliest, ``n`` how many. Pairwise items are (question,
    canonically sorted pair) and ``verdict``/``first_verdict`` are translated to that canonical
    order (``A`` = the alphabetically first system wins), so raters who saw different orders are
    comparable; ``shown_verdict`` keeps the latest verdict as given and ``position`` the system
    shown first; ``first``/``second`` are the sorted systems and ``order`` 0 when ``first`` was
    shown first, else 1. Absolute items are (question, system, criterion), ``order`` 0.
    """
    left_out = {f"human:{n}" for n in excluded_names(db)}
    df = pd.DataFrame.from_records(
        [r for r in verdict_summary(db, kind, raters) if r[0] not in left_out],
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
    if kind == JudgmentKind.PAIRWISE:
        swap = df["system_a"] > df["system_b"]
        first = df["system_a"].where(~swap, df["system_b"])
        second = df["system_b"].where(~swap, df["system_a"])
        df["verdict"] = _canonical(df["verdict"], swap)
        df["first_verdict"] = _canonical(df["first_verdict"], swap)
        df["pair"] = first + " vs " + second
        df["item_id"] = _json_keys(df["question_id"], first, second)
        df["position"] = df["system_a"]
        df["first"], df["second"] = first, second
        df["order"] = swap.astype(np.int64)
    else:
        df["pair"] = df["system"]
        df["item_id"] = _json_keys(df["question_id"], df["system"], df["criterion"])
        df["system_a"], df["system_b"] = df["system"], None
        df["position"] = ""
        df["first"], df["second"], df["order"] = df["system"], None, 0
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
            "first",
            "second",
            "order",
        ]
    ]


class Codes:
    """A verdict frame as label codes: ``codes[item, rater, order]`` (:data:`MISSING` where
    none), the ``items`` (``item_id, question_id, pair, first, second`` per item, sorted by id),
    the ``raters`` (sorted) and the ``labels`` (sorted by text)."""

    def __init__(self, frame: pd.DataFrame, raters: Sequence[str] | None = None) -> None:
        if raters is not None:
            frame = frame[frame["rater"].isin(list(raters))]
        item, item_ids = pd.factorize(frame["item_id"], sort=True)
        rater, names = pd.factorize(frame["rater"], sort=True)
        text = frame["verdict"].astype(str)
        label, labels = pd.factorize(text, sort=True)
        self.raters: list[str] = [str(r) for r in names]
        self.labels: list[str] = [str(x) for x in labels]
        order = frame["order"].to_numpy(dtype=np.int64)
        self.codes = np.full((len(item_ids), len(self.raters), 2), MISSING, dtype=np.int16)
        self.codes[item, rater, order] = label
        self.seen: np.ndarray = np.any(self.codes >= 0, axis=2)
        first = frame.drop_duplicates("item_id").set_index("item_id").reindex(item_ids)
        self.items = pd.DataFrame(
            {
                "item_id": np.asarray(item_ids, dtype=object),
                "question_id": first["question_id"].to_numpy(dtype=object),
                "pair": first["pair"].to_numpy(dtype=object),
                "first": first["first"].to_numpy(dtype=object),
                "second": first["second"].to_numpy(dtype=object),
            }
        )

    def pair(self, i: int, j: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Raters ``i`` and ``j``'s shared units: ``(pairs, item, order)``
        (:func:`core.stats.agreement_units.paired_units`) over the items both labelled."""
        both = np.flatnonzero(self.seen[:, i] & self.seen[:, j])
        pairs, item, order = paired_units(self.codes[both][:, [i, j], :])
        return pairs, both[item], order


def coded_agreement(
    ca: np.ndarray, cb: np.ndarray, n_boot: int = 500, seed: int = 0
) -> PairAgreement:
    """Percent agreement and Cohen's kappa with its 95% large-sample interval of two raters' label
    codes over their common units (codes into one label list sorted by text, as
    :func:`core.stats.agreement.cohen_kappa_ci` orders them), from the confusion counts."""
    if len(ca) == 0:
        return {"n": 0, "agreement": None, "kappa": None, "kappa_low": None, "kappa_high": None}
    present = np.unique(np.concatenate([ca, cb]))
    k = len(present)
    ia, ib = np.searchsorted(present, ca), np.searchsorted(present, cb)
    counts = np.bincount(ia * k + ib, minlength=k * k).reshape(k, k)
    ci = cohen_kappa_ci_counts(counts, n_boot=n_boot, seed=seed)
    out: PairAgreement = {
        "n": len(ca),
        "agreement": float(np.mean(ca == cb)),
        "kappa": None if np.isnan(ci.estimate) else ci.estimate,
        "kappa_low": None,
        "kappa_high": None,
    }
    if np.isfinite(ci.low):
        out["kappa_low"], out["kappa_high"] = ci.low, ci.high
    return out


def pair_agreement(both: pd.DataFrame, seed: int = 0, n_boot: int = 500) -> PairAgreement:
    """Percent agreement and Cohen's kappa with its 95% large-sample interval (not a bootstrap) of
    the ``a`` and ``b`` labels of ``both`` (:func:`coded_agreement` of their codes)."""
    a, b = both["a"].astype(str).tolist(), both["b"].astype(str).tolist()
    code = {label: i for i, label in enumerate(sorted(set(a) | set(b)))}
    return coded_agreement(
        np.array([code[x] for x in a], np.int64),
        np.array([code[x] for x in b], np.int64),
        n_boot=n_boot,
        seed=seed,
    )


def _comparison(ra: str, rb: str) -> str:
    return " vs ".join(sorted((ra.split(":")[0], rb.split(":")[0]), reverse=True))


def agreement_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Every pair of raters (anonymous slots left out) over their shared units: n, agreement,
    kappa and its interval."""
    c = Codes(frame)
    out = []
    for i, ra in enumerate(c.raters):
        for j in range(i + 1, len(c.raters)):
            rb = c.raters[j]
            if is_slot(ra) or is_slot(rb):  # anonymous slots are not people: no Cohen's kappa
                continue
            pairs, _, _ = c.pair(i, j)
            if len(pairs):
                out.append(
                    {
                        "rater_a": ra,
                        "rater_b": rb,
                        "comparison": _comparison(ra, rb),
                        **coded_agreement(pairs[:, 0], pairs[:, 1]),
                    }
                )
    return pd.DataFrame(out, columns=TABLE_COLUMNS)


class InterAnnotator(TypedDict):
    """Agreement among the raters of one kind (:func:`inter_annotator`); None without units."""

    raters: int
    items: int
    fleiss_kappa: float | None
    krippendorff_alpha: float | None


def inter_annotator(frame: pd.DataFrame, rater_kind: str = "human") -> InterAnnotator:
    """Fleiss' kappa and Krippendorff's alpha (nominal) among the raters of one kind over their
    units with at least two labels (units decided for all of them at once). Both depend only on
    how many raters gave each label to each unit: one units x labels table serves both. Among
    people, a derived rater (the majority of a slot group:
    :func:`core.annotation.gold.derived_voters`) is not an annotator and is left out."""
    frame = frame[frame["rater_kind"] == rater_kind]
    if rater_kind == RaterKind.HUMAN:
        frame = frame[~frame["rater"].isin(_derived(frame))]
    c = Codes(frame)
    counts = unit_label_counts(c.codes, len(c.labels))
    out: InterAnnotator = {
        "raters": len(c.raters),
        "items": len(counts),
        "fleiss_kappa": None,
        "krippendorff_alpha": None,
    }
    if len(counts):
        fk = fleiss_kappa(counts)
        ka = krippendorff_alpha_nominal_counts(counts)
        out["fleiss_kappa"] = None if np.isnan(fk) else float(fk)
        out["krippendorff_alpha"] = None if np.isnan(ka) else float(ka)
    return out


def paired(frame: pd.DataFrame, rater_a: str, rater_b: str) -> pd.DataFrame:
    """The units two raters share: ``item_id, question_id, pair, shown_first, a, b``;
    ``shown_first`` is the system shown first when the item is split by order (else empty)."""
    cols = ["item_id", "question_id", "pair", "shown_first", "a", "b"]
    c = Codes(frame, [rater_a, rater_b])
    if rater_a not in c.raters or rater_b not in c.raters:
        return pd.DataFrame(columns=cols)
    pairs, item, order = c.pair(c.raters.index(rater_a), c.raters.index(rater_b))
    labels = np.array(c.labels, dtype=object)
    rows = c.items.iloc[item].reset_index(drop=True)
    shown = np.where(order == 0, rows["first"], np.where(order == 1, rows["second"], ""))
    return pd.DataFrame(
        {
            "item_id": rows["item_id"],
            "question_id": rows["question_id"],
            "pair": rows["pair"],
            "shown_first": shown,
            "a": labels[pairs[:, 0]] if len(pairs) else [],
            "b": labels[pairs[:, 1]] if len(pairs) else [],
        },
        columns=cols,
    )


def _derived(frame: pd.DataFrame) -> list[str]:
    """The human raters of ``frame`` that are derived from others' labels (``human:NAME``)."""
    labels: dict[str, dict[str, str]] = {}
    for rater, item, verdict in zip(frame["rater"], frame["item_id"], frame["verdict"]):
        labels.setdefault(str(rater).removeprefix("human:"), {})[item] = str(verdict)
    return [f"human:{n}" for n in derived_voters(labels)]


def _json_keys(*columns: Any) -> list[str]:
    """Item ids as JSON lists of the columns' values (names may hold any punctuation)."""
    return [unit_key(*t) for t in zip(*columns)]


def unit_key(*parts: Any) -> str:
    """The ``item_id`` of a verdict frame's item: the JSON list of its parts (pairwise: the
    question and the sorted systems; absolute: question, system, criterion)."""
    return json.dumps(list(parts), ensure_ascii=False)

"""The report's data (:func:`core.views.rater_report.assemble.report_data`) as tables for the
app's *Rater validation* page: plain text and numbers, shown with ``st.dataframe`` (never as
Markdown or HTML)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from core.views.numbers import interval, num
from core.views.rater_report.records import Comparison, RaterReport, RaterSection, Share

#: The compare table's columns: (header, key of :func:`compare_row`, format of
#: :func:`core.views.numbers.num`, or None for text).
COMPARE_COLUMNS = (
    ("auto-rater", "rater", None),
    ("verdict", "status", None),
    ("advantage probability", "advantage_prob", ".3f"),
    ("winning rate", "winning_rate", ".0%"),
    ("items", "items", "d"),
    ("annotators", "annotators", None),
    ("rater's kappa vs gold", "gold_kappa", ".3f"),
    ("people's kappa vs gold", "people_gold_kappa", ".3f"),
    ("USD per verdict", "usd_per_verdict", ".5f"),
)


def compare_frame(data: RaterReport) -> pd.DataFrame:
    """The auto-raters ranked by advantage probability, with readable headers and every figure
    as text (:func:`core.views.numbers.num`: a missing one is "–", never "None")."""
    compared: Sequence[Mapping[str, Any]] = data["compare"]  # read by the columns' keys
    rows = [
        {
            "rank": str(i + 1),
            **{
                head: num(r.get(key), fmt) if fmt else ("–" if r.get(key) is None else r[key])
                for head, key, fmt in COMPARE_COLUMNS
            },
        }
        for i, r in enumerate(compared)
    ]
    return pd.DataFrame(rows, columns=["rank", *(head for head, _, _ in COMPARE_COLUMNS)])


def humans_frame(sec: RaterSection) -> pd.DataFrame:
    """The alt-test's per-human rows (empty without a test result): the rater's advantage over
    the person's items beside the person's own advantage."""
    alt = sec["alt"]
    frame = pd.DataFrame(
        alt["humans"] if alt else [],
        columns=["name", "items", "advantage", "human_advantage", "p_value", "rejected"],
    ).rename(
        columns={
            "name": "human",
            "advantage": "rater's advantage",
            "human_advantage": "person's own advantage",
            "p_value": "p-value",
            "rejected": "beaten",
        }
    )
    # p-values span many orders of magnitude: shown as text in scientific notation
    frame["p-value"] = [f"{p:.3g}" for p in frame["p-value"]]
    return frame


def agreement_frame(sec: RaterSection) -> pd.DataFrame:
    """Gold, each person and each crowd aggregate, and the people's pairs (the ceiling)."""
    ag = sec["agreement"]
    if ag is None:  # another task: its agreement is on its own scale (scale_rows)
        return pd.DataFrame()
    rows: list[dict[str, object]] = [{"compared with": "gold", **_kappa(ag["gold"])}]
    rows.append(
        {
            "compared with": "people vs gold (same pairs)",
            "items": ag["gold"]["items"],
            "kappa": ag["gold"].get("people_kappa"),
            "interval": "",
            "agreement": None,
            "agreement interval": "",
            "note": "the people's kappa on the pairs the rater is scored on",
        }
    )
    rows += [{"compared with": p["name"], **_kappa(p)} for p in ag["people"]]
    for c in ag["crowd"]:
        w = c["with_ties"]
        rows.append(
            {
                "compared with": f"{c['name']} (order shown)",
                "items": w["n"],
                "kappa": w["kappa"],
                "interval": interval(w["kappa_low"], w["kappa_high"]),
                "agreement": w["agreement"],
                "agreement interval": "",
                "note": "",
            }
        )
    rows += [
        {"compared with": f"ceiling: {c['a']} vs {c['b']}", **_kappa(c)} for c in ag["ceiling"]
    ]
    return pd.DataFrame(rows)


def _kappa(row: Comparison) -> dict[str, object]:
    return {
        "items": row["items"],
        "kappa": row["kappa"],
        "interval": row["interval"],
        "agreement": row["agreement"],
        "agreement interval": interval(row["agreement_low"], row["agreement_high"], ".0%"),
        "note": row["note"],
    }


def group_frame(sec: RaterSection) -> pd.DataFrame:
    """Agreement with the people's majority by question type, category or document."""
    ag = sec["agreement"]
    if ag is None:  # another task: no side-by-side groups
        return pd.DataFrame()
    grp = ag["by_group"]
    return pd.DataFrame(
        [{grp["grouping"]: r["group"], **_kappa(r)} for r in grp["rows"]],
    )


def bias_rows(sec: RaterSection) -> list[tuple[str, Share, Share | None]]:
    """``(measure, the rater's share, the people's share or None)`` of each bias of a section
    (none off side-by-side); a share has ``share``, ``low``, ``high`` (95% Wilson interval)
    and ``n``."""
    b = sec["biases"]
    if b is None:
        return []
    pos, ln, ties, sp = b["position"], b["length"], b["ties"], b["self_preference"]
    rows: list[tuple[str, Share, Share | None]] = [
        ("position: both orders disagree", pos["both_orders"], None),
        ("position: first-shown wins", pos["first_shown"], pos["people_first_shown"]),
        ("length: longer wins", ln["rater"], ln["people"]),
        ("ties: Equal", ties["rater"]["Equal"], ties["people"]["Equal"]),
        ("ties: None", ties["rater"]["None"], ties["people"]["None"]),
    ]
    if sp["applies"]:
        rows.append((f"self-preference ({sp['family']})", sp["rater"], sp["people"]))
    return rows


def bias_frame(sec: RaterSection) -> pd.DataFrame:
    """Each bias share of the rater and of the people, with its Wilson interval."""
    out = []
    for name, mine, theirs in bias_rows(sec):
        out.append(
            {
                "measure": name,
                "rater": mine["share"],
                "rater interval": interval(mine["low"], mine["high"], ".0%"),
                "rater n": mine["n"],
                "people": theirs["share"] if theirs else None,
                "people interval": interval(theirs["low"], theirs["high"], ".0%") if theirs else "",
                "people n": theirs["n"] if theirs else None,
            }
        )
    return pd.DataFrame(out)


def needed_frame(sec: RaterSection) -> pd.DataFrame:
    """The simulation per number of items: the majority decision, the share of plausible
    populations in which it holds and the share of samples passing."""
    n = sec["needed"]
    rows = (
        []
        if n is None or "error" in n
        else [
            {
                "items": int(k),
                "decision": n["decision"][k],
                "holds in": float(n["stability"][k]),
                "share passing": float(n["pass_probability"][k]),
            }
            for k in sorted(n["stability"])
        ]
    )
    return pd.DataFrame(rows, columns=["items", "decision", "holds in", "share passing"])

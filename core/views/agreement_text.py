"""Agreement figures as people read them: "0.41 [0.20, 0.62]", "too few items" at tiny n."""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from core.stats.agreement import KAPPA_CI_MIN_ITEMS

#: Below this many common items a kappa (and its interval) is not shown.
MIN_ITEMS = 5
COHEN_VS_FLEISS = (
    "**Cohen's kappa** compares two raters on the items *both* labelled, with each rater's own "
    "label frequencies as chance. **Fleiss' kappa** pools every rater of the group on every "
    "item with 2+ labels and uses one shared label distribution as chance. So for the same "
    "two people they differ whenever the two use the labels at different rates (Cohen "
    "credits each rater's habits, Fleiss does not) or when Fleiss also counts items the pair "
    "did not share; on few items both swing widely."
)


def _missing(x: float | None) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def kappa_text(
    kappa: float | None,
    low: float | None = None,
    high: float | None = None,
    n: int | None = None,
) -> str:
    """``"0.41 [0.20, 0.62]"`` (the 95% interval in brackets), ``"too few items (n = 3)"``
    below :data:`MIN_ITEMS`, no interval below ``KAPPA_CI_MIN_ITEMS``, ``"-"`` when undefined."""
    if n is not None and n < MIN_ITEMS:
        return f"too few items (n = {n})"
    if _missing(kappa):
        return "-"
    if _missing(low) or _missing(high):
        if n is not None and n < KAPPA_CI_MIN_ITEMS:
            return f"{kappa:.2f} (no interval under {KAPPA_CI_MIN_ITEMS} items)"
        return f"{kappa:.2f}"
    return f"{kappa:.2f} [{low:.2f}, {high:.2f}]"


def kappa_metric(
    kappa: float | None, low: float | None, high: float | None, n: int | None
) -> tuple[str, str]:
    """Cohen's kappa as a metric's short value and the line under it (a metric cuts a long
    value): ``("0.41", "95% interval [0.20, 0.62]")``, ``("too few", "n = 3 items; kappa from
    5")``, ``("0.67", "no interval under 20 items")``, ``("-", "undefined ...")``. The same
    cases as :func:`kappa_text`."""
    if n is not None and n < MIN_ITEMS:
        return "too few", f"n = {n} items; kappa from {MIN_ITEMS}"
    if _missing(kappa):
        return "-", "undefined (one label only, on both sides)"
    if _missing(low) or _missing(high):
        if n is not None and n < KAPPA_CI_MIN_ITEMS:
            return f"{kappa:.2f}", f"no interval under {KAPPA_CI_MIN_ITEMS} items"
        return f"{kappa:.2f}", ""
    return f"{kappa:.2f}", f"95% interval [{low:.2f}, {high:.2f}]"


def readable_agreement(table: pd.DataFrame) -> pd.DataFrame:
    """The pairwise agreement table with one ``kappa [95% CI]`` text column instead of the raw
    ``kappa`` / ``kappa_low`` / ``kappa_high`` columns."""
    if not len(table):
        return table
    out = table.drop(columns=[c for c in ("kappa", "kappa_low", "kappa_high") if c in table])
    out.insert(
        len(out.columns),
        "kappa [95% CI]",
        [
            kappa_text(r.get("kappa"), r.get("kappa_low"), r.get("kappa_high"), int(r["n"]))
            for r in table.to_dict("records")
        ],
    )
    return out


def _people(a: str, b: str) -> int:
    return a.startswith("human:") + b.startswith("human:")


def default_pair(
    raters: list[str], shared: Mapping[tuple[str, str], int] | None = None
) -> tuple[str, str | None]:
    """The default Rater A and Rater B: two people when there are two, else a person and the
    first other rater (an auto-rater only when no second person exists).

    With ``shared`` ((rater, rater) -> items both labelled), the pair is chosen among the pairs
    that share items, by the same preference and then by the most items shared, with the person
    as Rater A."""
    linked = [
        (2 - _people(a, b), -n, a, b)
        for (a, b), n in (shared or {}).items()
        if n > 0 and a in raters and b in raters and a != b
    ]
    if linked:
        _, _, a, b = min(linked)
        return (b, a) if b.startswith("human:") and not a.startswith("human:") else (a, b)
    humans = [r for r in raters if r.startswith("human:")]
    a = humans[0] if humans else raters[0]
    others = [r for r in raters if r != a]
    other_humans = [r for r in others if r.startswith("human:")]
    rest = other_humans or others
    return a, (rest[0] if rest else None)

"""The report's bias section: position (both orders), length, self-preference and ties, each
with a 95% Wilson interval, the auto-rater beside the people it is compared with.

- Position: over pairs the rater judged in both orders, the share whose two verdicts name
  different winners (:func:`core.stats.rater_bias.position_inconsistency`); and over all its
  decided verdicts (A or B), the share won by the answer shown first (1/2 = no preference).
- Length: over decided verdicts on answers of unequal length (words), the share won by the
  longer one (:func:`core.stats.rater_bias.length_bias`; 1/2 = no preference).
- Self-preference: when the rater's model family (the judge's model, else its name) is one of
  the systems' families, over decided verdicts on pairs with exactly one such answer, the share
  won by it, beside the people's share on the same pairs.
- Ties: the share of ``Equal`` and of ``None`` verdicts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from core.annotation.pairwise import split_pair_key
from core.stats.rater_bias import length_bias, position_inconsistency
from core.stats.significance import wilson_ci
from core.store.answers import answer_texts
from core.store.judgments import PairwiseVerdict
from core.store.setups import get_judge, get_system
from core.views.agreement_pairs import verdict_frame
from core.views.rater_report.records import (
    BiasSection,
    LengthBias,
    PositionBias,
    SelfPreference,
    Share,
)

if TYPE_CHECKING:
    from core.store.engine import Database


def share(k: int, n: int) -> Share:
    """``k / n`` with its 95% Wilson interval (all None when ``n = 0``)."""
    if n <= 0:
        return {"k": 0, "n": 0, "share": None, "low": None, "high": None}
    ci = wilson_ci(int(k), int(n))
    return {"k": int(k), "n": int(n), "share": k / n, "low": ci.low, "high": ci.high}


def model_family(model: str) -> str:
    """A model id or rater name reduced to its family: provider prefix, date suffix and
    parenthetical dropped, lower case, letters and digits only (``prd:gpt-4:20230520``,
    ``gpt-4 (PRD)`` and ``openai:gpt-4`` are all ``gpt4``)."""
    text = re.sub(r"\(.*?\)", "", model.removeprefix("auto:")).strip()
    parts = [p for p in text.split(":") if p]
    if len(parts) >= 2:
        text = parts[1]
    elif parts:
        text = parts[0]
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _position(frame: pd.DataFrame, rater: str, people: list[str]) -> PositionBias:
    pos = position_inconsistency(frame.assign(verdict=frame["shown_verdict"]))
    row = pos[pos["rater"] == rater] if len(pos) else pos
    n = int(row["n_pairs"].iloc[0]) if len(row) else 0
    bad = int(row["inconsistent"].iloc[0]) if len(row) else 0

    def first_wins(part: pd.DataFrame) -> Share:
        decided = part[part["shown_verdict"].isin(["A", "B"])]
        return share(int((decided["shown_verdict"] == PairwiseVerdict.A).sum()), len(decided))

    return {
        "both_orders": share(bad, n),
        "first_shown": first_wins(frame[frame["rater"] == rater]),
        "people_first_shown": first_wins(frame[frame["rater"].isin(people)]),
    }


def _length(
    frame: pd.DataFrame,
    texts: Mapping[tuple[str, str], tuple[int, str]],
    rater: str,
    people: list[str],
) -> LengthBias:
    def words(qid: str, system: str) -> float:
        found = texts.get((qid, system))
        return float(len(found[1].split())) if found else np.nan

    d = frame.assign(
        verdict=frame["shown_verdict"],
        length_a=[words(q, s) for q, s in zip(frame["question_id"], frame["system_a"])],
        length_b=[words(q, s) for q, s in zip(frame["question_id"], frame["system_b"])],
        rater=np.where(frame["rater"] == rater, "rater", "people"),
    )
    table = length_bias(d).set_index("rater") if len(d) else pd.DataFrame()
    found = {}
    for who in ("rater", "people"):
        if who in table.index:
            cells: Any = table.loc[who]  # one row: a Series of counts
            found[who] = share(int(cells["longer_wins"]), int(cells["n_decided"]))
        else:
            found[who] = share(0, 0)
    return {"rater": found["rater"], "people": found["people"]}


def _self_preference(
    db: Database, rater: str, mine: Mapping[str, str], humans: Mapping[str, Mapping[str, str]]
) -> SelfPreference:
    judge = get_judge(db, rater.removeprefix("auto:"))
    family = model_family(judge.model if judge and judge.model else rater)
    systems = {s for key in mine for s in split_pair_key(key)[1:]}
    fam = {}
    for s in systems:
        row = get_system(db, s)
        fam[s] = model_family(row.model if row and row.model else s)
    own = sorted(s for s in systems if fam[s] == family)
    out: SelfPreference = {"family": family, "own_systems": own, "applies": bool(own)}
    if not own:
        return out

    def own_share(labels: Iterable[tuple[str, str]]) -> Share:
        k = n = 0
        for key, label in labels:
            _, first, second = split_pair_key(key)
            if (first in own) == (second in own) or label not in ("first", "second"):
                continue
            n += 1
            k += (first if label == "first" else second) in own
        return share(k, n)

    mixed = [k for k in mine if (split_pair_key(k)[1] in own) != (split_pair_key(k)[2] in own)]
    out["rater"] = own_share(mine.items())
    wanted = set(mixed)
    out["people"] = own_share(  # every person's label on each mixed item counts once
        (k, v) for m in humans.values() for k, v in m.items() if k in wanted
    )
    return out


def _ties(
    mine: Mapping[str, str], humans: Mapping[str, Mapping[str, str]]
) -> dict[str, dict[str, Share]]:
    theirs = [v for m in humans.values() for v in m.values()]
    mine_v = list(mine.values())
    return {
        who: {t: share(sum(v == t for v in values), len(values)) for t in ("Equal", "None")}
        for who, values in (("rater", mine_v), ("people", theirs))
    }


def bias_section(
    db: Database,
    rater: str,
    mine: Mapping[str, str],
    humans: Mapping[str, Mapping[str, str]],
) -> BiasSection:
    """Position, length, self-preference and ties of ``rater`` beside the compared humans."""
    people = [f"human:{n}" for n in humans]
    frame = verdict_frame(db, "pairwise", raters=[rater, *people])
    frame = frame[frame["system_b"].notna()]
    return {
        "position": _position(frame, rater, people),
        "length": _length(frame, answer_texts(db), rater, people),
        "self_preference": _self_preference(db, rater, mine, humans),
        "ties": _ties(mine, humans),
    }

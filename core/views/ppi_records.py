"""The records of the people + judge ranking (:mod:`core.views.ppi_ranking` and
:mod:`core.views.ppi_strengths` build them; ``rank --method ppi --json`` prints them, the
Leaderboard's People + judge tab and the rater report read them). Keys named ``lambda`` (a Python
keyword) make the functional ``TypedDict`` form necessary."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class WinEstimate(TypedDict):
    """One system's win probability one way (people only, judge only or combined)."""

    estimate: float
    interval: list[float]  # [low, high]
    rank_set: list[int]  # [best, worst] possible rank
    rank: int  # the point estimate's rank


class PpiSystem(WinEstimate):
    """One system: the combined estimate, and the people's and the judge's alone."""

    name: str
    people: WinEstimate
    judge: WinEstimate
    judge_rank_outside: bool  # the judge's own rank falls outside the combined rank-set
    n_both: int  # battles judged by both
    n_judge_only: int


class Strength(TypedDict):
    """One system's centred Bradley-Terry log-strength one way, with its interval."""

    strength: float
    interval: list[float]  # [low, high]


class StrengthSystem(Strength):
    """One system's strengths: combined, people's alone, judge's alone (None when not finite)."""

    name: str
    people: Strength
    judge: Strength | None


#: The Bradley-Terry block (:func:`core.views.ppi_strengths.strengths_block`): every key but
#: ``why`` when measured, ``why`` alone when not (a system that wins or loses every battle).
StrengthsBlock = TypedDict(
    "StrengthsBlock",
    {
        "lambda": NotRequired[float],
        "scale": NotRequired[str],
        "interval": NotRequired[str],
        "systems": NotRequired[list[StrengthSystem]],
        "judge_why": NotRequired[str],  # why the judge's alone are missing ("" when present)
        "why": NotRequired[str],
    },
)


class PeopleNeeded(TypedDict):
    """How many more people's verdicts would narrow the widest rank-set to ``target`` ranks."""

    target: int
    more: int | None  # None: no number does
    share: float
    curve: dict[str, float]  # more verdicts (as text, JSON keys) -> share of simulations
    sentence: str


#: ``rank --method ppi --json`` (:func:`core.views.ppi_ranking.people_judge_ranking`).
PpiRanking = TypedDict(
    "PpiRanking",
    {
        "method": str,
        "estimand": str,
        "systems": list[PpiSystem],
        "lambda": float,
        "alpha": float,
        "level": float,
        "interval": str,
        "cluster": str | None,
        "n_boot": int,
        "n_questions": int,
        "ties": str,
        "people": list[str],
        "judge": str,
        "n_both": int,
        "n_judge_only": int,
        "n_people_unpaired": int,
        "effective_people": float,
        "judge_outside": list[str],
        "widest_rank_set": int,
        "warnings": list[str],
        "bt": StrengthsBlock,
        "people_needed": NotRequired[PeopleNeeded],
    },
)

#: What a judge is worth for ranking (:func:`core.views.ppi_ranking.judge_worth`): ``why`` ""
#: and the figures, or ``why`` and the sentence alone when it cannot be measured.
JudgeWorth = TypedDict(
    "JudgeWorth",
    {
        "why": str,
        "sentence": str,
        "n_both": NotRequired[int],
        "n_judge_only": NotRequired[int],
        "lambda": NotRequired[float],
        "effective_people": NotRequired[float],
        "ratio": NotRequired[float],
        "judge_outside": NotRequired[list[str]],
    },
)

#: One row of a side-by-side table of the three ways (:func:`core.views.ppi_ranking.ppi_table`,
#: :func:`core.views.ppi_strengths.strengths_table`): column heading -> cell.
TableRow = dict[str, str | float | bool | None]

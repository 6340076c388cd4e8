"""RankingSettings: one frozen value for the five settings of a Bradley-Terry leaderboard."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pytest

from core.errors import InputError
from core.stats.bradley_terry import bootstrap_bradley_terry
from core.stats.leaderboard import leaderboard
from core.stats.pairwise_counts import PairwiseCounts
from core.stats.ranking_settings import DEFAULT_RANKING, RankingSettings

# four questions: many bootstrap replicates are not strongly connected (fitted with a prior)
pytestmark = pytest.mark.filterwarnings("ignore:.*not strongly connected:RuntimeWarning")

RECORDS = [
    ("q1", "x", "y", "A"),
    ("q1", "y", "z", "A"),
    ("q2", "x", "z", "Equal"),
    ("q2", "z", "x", "A"),
    ("q3", "x", "y", "B"),
    ("q3", "y", "z", "None"),
    ("q4", "z", "y", "B"),
    ("q4", "x", "z", "A"),
]


def test_defaults_are_the_documented_ones_and_the_value_is_frozen_and_hashable() -> None:
    s = RankingSettings()
    assert (s.ties, s.n_boot, s.seed, s.level, s.alpha) == ("half", 1000, 0, 0.95, 0.0)
    assert s == DEFAULT_RANKING and hash(s) == hash(RankingSettings())
    assert RankingSettings(n_boot=200) != s
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.n_boot = 5  # type: ignore[misc]  # the point: a frozen value refuses assignment
    assert s.with_alpha(0.5) == RankingSettings(alpha=0.5) and s.alpha == 0.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"ties": "third"}, "ties must be 'half' or 'drop'"),
        ({"n_boot": -1}, "n_boot must be a whole number >= 0"),
        ({"n_boot": 2.5}, "n_boot must be a whole number >= 0"),
        ({"n_boot": True}, "n_boot must be a whole number >= 0"),
        ({"level": 1.0}, "level must be in (0, 1)"),
        ({"level": 0.0}, "level must be in (0, 1)"),
        ({"alpha": -0.1}, "alpha must be a finite number >= 0"),
        ({"alpha": math.inf}, "alpha must be a finite number >= 0"),
    ],
)
def test_bad_settings_are_one_input_error(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        RankingSettings(**kwargs)


def test_the_fit_carries_and_reports_its_settings() -> None:
    settings = RankingSettings(ties="drop", n_boot=30, seed=7, level=0.9, alpha=0.2)
    board = leaderboard(RECORDS, settings)
    assert board.settings is settings
    out = board.to_dict()
    assert (out["ties"], out["n_boot"], out["seed"], out["level"], out["alpha"]) == (
        "drop",
        30,
        7,
        0.9,
        0.2,
    )
    assert out["interval"] == "question-clustered bootstrap percentile, 90%"


def test_each_setting_changes_the_fit_it_should() -> None:
    base = RankingSettings(n_boot=40, seed=1, alpha=0.1)
    ref = leaderboard(RECORDS, base)
    assert np.array_equal(leaderboard(RECORDS, base).ci_low, ref.ci_low)  # same value: same numbers
    drop = leaderboard(RECORDS, dataclasses.replace(base, ties="drop"))
    assert not np.allclose(drop.beta, ref.beta)  # the Equal verdict no longer counts
    reseeded = leaderboard(RECORDS, dataclasses.replace(base, seed=2))
    assert np.allclose(reseeded.beta, ref.beta) and not np.allclose(reseeded.ci_low, ref.ci_low)
    narrower = leaderboard(RECORDS, dataclasses.replace(base, level=0.5))
    assert np.all(narrower.ci_high - narrower.ci_low <= ref.ci_high - ref.ci_low + 1e-12)
    stronger = leaderboard(RECORDS, dataclasses.replace(base, alpha=5.0))
    assert np.abs(stronger.beta).max() < np.abs(ref.beta).max()  # the prior shrinks to 0


def test_bootstrap_takes_the_same_value_as_the_leaderboard() -> None:
    settings = RankingSettings(n_boot=25, seed=3, alpha=0.1)
    counts = PairwiseCounts.from_records(RECORDS)
    res = bootstrap_bradley_terry(counts, settings)
    board = leaderboard(RECORDS, settings)
    assert res.beta.shape == (25, 3) and res.level == 0.95
    assert board.boot is not None and res.ci_low.shape == board.ci_low.shape
    with pytest.raises(InputError, match="n_boot must be positive"):
        bootstrap_bradley_terry(counts, RankingSettings(n_boot=0))

"""The bootstrap's question weights (core/stats/bradley_terry.py): a refit with the same seed
and questions (a live leaderboard after one more verdict on a known question) reuses the last
draws instead of drawing them again, with the same replicates; other seeds, question counts or
draws too large to keep are drawn afresh, chunk by chunk."""

from __future__ import annotations

import numpy as np
import pytest

from core.stats import bradley_terry as bt
from core.stats.pairwise_counts import PairwiseCounts
from core.stats.ranking_settings import RankingSettings


@pytest.fixture(autouse=True)
def no_kept_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bt, "_LAST_WEIGHTS", None)


def counted_draws(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    draw = bt.question_weights

    def counting(rng: np.random.Generator, n_questions: int, n_boot: int) -> np.ndarray:
        calls.append(n_boot)
        return draw(rng, n_questions, n_boot)

    monkeypatch.setattr(bt, "question_weights", counting)
    return calls


def records(n_questions: int, seed: int = 3) -> PairwiseCounts:
    rng = np.random.default_rng(seed)
    return PairwiseCounts.from_records(
        [
            (f"q{k}", *(f"s{x}" for x in rng.choice(6, 2, replace=False)), v)
            for k, v in enumerate(rng.choice(["A", "B", "Equal"], n_questions))
        ]
    )


def test_weights_are_the_seeded_draws_chunk_by_chunk() -> None:
    kept = tuple(bt.replicate_weights(7, 40, 10, 4, True))
    rng = np.random.default_rng(7)
    expected = [bt.question_weights(rng, 40, k) for k in (4, 4, 2)]
    assert [w.shape for w in kept] == [(4, 40), (4, 40), (2, 40)]
    assert all(np.array_equal(a, b) and a.dtype == np.float32 for a, b in zip(kept, expected))
    assert bt.replicate_weights(7, 40, 10, 4, True) is kept  # the same draws, not redrawn
    assert not kept[0].flags.writeable


def test_a_refit_after_one_more_verdict_reuses_the_draws(monkeypatch) -> None:
    calls = counted_draws(monkeypatch)
    counts = records(300)
    settings = RankingSettings(n_boot=60, seed=4)
    first = bt.bootstrap_bradley_terry(counts, settings)
    assert calls
    calls.clear()
    counts.add("q5", "s0", "s1", "A")  # a known question: the same questions to draw from
    again = bt.bootstrap_bradley_terry(counts, settings)
    assert calls == []
    monkeypatch.setattr(bt, "_LAST_WEIGHTS", None)
    fresh = bt.bootstrap_bradley_terry(counts, settings)
    assert calls and np.array_equal(again.beta, fresh.beta)
    assert not np.array_equal(first.beta, again.beta)  # the new verdict counts
    calls.clear()
    bt.bootstrap_bradley_terry(counts, RankingSettings(n_boot=60, seed=5))
    assert calls  # another seed: drawn


def test_draws_too_large_to_keep_are_drawn_as_used(monkeypatch) -> None:
    calls = counted_draws(monkeypatch)
    monkeypatch.setattr(bt, "CACHED_CELLS", 100)
    drawn = bt.replicate_weights(1, 40, 10, 4, False)
    assert calls == []  # lazily, one chunk at a time
    assert [w.shape[0] for w in drawn] == [4, 4, 2] and calls == [4, 4, 2]
    assert bt._LAST_WEIGHTS is None

"""The live leaderboard's incremental parts equal a full recomputation (issue 37): the netted
rows merged in as verdicts arrive (:class:`core.views.net_rows.NetRows`) are
:func:`core.views.net_rows.net_rows` of everything, and a :class:`LiveLeaderboard` refreshed after
each batch of new, superseding and new-system verdicts shows what a fresh one shows."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
from browser_support import build_fixture_db

from core.stats.pairwise_counts import PairwiseCounts
from core.store.connection import transaction
from core.store.database import open_db
from core.store.judgments import JudgmentKind, NewJudgment, RaterKind, insert_judgment
from core.views.leaderboard import (
    PAGE_RANKING,
    LiveLeaderboard,
    fit_pairwise,
    group_counts,
    system_groups,
)
from core.views.net_rows import NetRows, net_rows

SYSTEMS = ["fixture-a", "fixture-b", "fixture-c"]
VERDICTS = ["A", "B", "Equal", "None"]


def _same(got: tuple[np.ndarray, ...], want: tuple[np.ndarray, ...]) -> None:
    assert len(got) == len(want) == 5
    for x, y in zip(got, want, strict=True):
        assert np.array_equal(x, y)


def test_merged_rows_equal_the_rows_of_everything() -> None:
    rng = random.Random(7)
    counts, merged, added = PairwiseCounts(), NetRows(), []
    _same(merged(counts), net_rows(counts))  # empty
    systems = ["s0", "s1", "s2"]
    for batch in range(40):
        if batch in (10, 25):
            systems.append(f"s{len(systems)}")  # a new system: the key's radix changes
        for _ in range(rng.randint(1, 30)):
            a, b = rng.sample(systems, 2)
            row = (f"q{rng.randint(0, 20)}", a, b, rng.choice(VERDICTS))
            counts.add(*row)
            added.append(row)
        for _ in range(rng.randint(0, 5)):  # withdrawn (superseded) verdicts
            counts.remove(*added.pop(rng.randrange(len(added))))
        _same(merged(counts), net_rows(counts))
    assert len(net_rows(counts)[0]) > 0
    _same(NetRows()(counts), net_rows(counts))  # a fresh one reads everything at once
    other = PairwiseCounts.from_records(added)
    _same(merged(other), net_rows(other))  # another aggregate: starts over


def _verdict(rng: random.Random, rater: str, supersedes: int | None = None) -> NewJudgment:
    a, b = rng.sample(SYSTEMS, 2)
    return NewJudgment(
        kind=JudgmentKind.PAIRWISE,
        question_id=f"gen-{rng.randint(0, 3)}",
        rater=rater,
        rater_kind=RaterKind.HUMAN,
        criterion="better",
        system_a=a,
        system_b=b,
        order_shown="ab",
        verdict=rng.choice(VERDICTS),
        supersedes=supersedes,
    )


def _shown(result) -> tuple:
    board = result.leaderboard
    fit = None if board is None else (board.systems, board.beta.round(9).tolist())
    fit_ci = None if board is None else (board.ci_low.round(9).tolist(), board.n_questions)
    return (result.groups, result.group, result.n_none, result.n_unlinked, result.why, fit, fit_ci)


def test_live_leaderboard_refreshed_equals_a_full_recomputation(db_path) -> None:
    build_fixture_db(db_path)
    rng = random.Random(3)
    db = open_db(db_path)
    try:
        live = LiveLeaderboard()
        live.view(db)
        mine: dict[int, NewJudgment] = {}
        for batch in range(6):
            with transaction(db):
                for _ in range(rng.randint(1, 8)):
                    new = _verdict(rng, f"human:p{batch % 2}")
                    mine[insert_judgment(db, new)] = new
                if batch % 2:  # a changed verdict supersedes an earlier one of its rater
                    old = rng.choice(sorted(mine))
                    new = replace(mine.pop(old), verdict=rng.choice(VERDICTS), supersedes=old)
                    mine[insert_judgment(db, new)] = new
            if batch == 4:
                new = replace(_verdict(rng, "human:p1"), system_b="new-sys")
                mine[insert_judgment(db, new)] = new  # a system the board has not seen
            incremental = live.view(db)
            assert _shown(incremental) == _shown(LiveLeaderboard().view(db))
        assert incremental.last_id == max(mine)
    finally:
        db.close()


def test_a_group_counted_with_weights_fits_as_with_repeated_rows() -> None:
    """``group_counts`` keeps one row per distinct comparison weighted by its count instead of
    repeating it: every count and the fit (estimates and bootstrap interval) are the same."""
    rng = random.Random(11)
    counts = PairwiseCounts()
    for _ in range(400):
        a, b = rng.sample(["s0", "s1", "s2", "s3"], 2)
        counts.add(f"q{rng.randint(0, 30)}", a, b, rng.choice(VERDICTS))
    (group,), _ = system_groups(counts)
    weighted = group_counts(counts, group)
    q, a, b, o, k = net_rows(counts)
    local = np.array([group.systems.index(s) for s in counts.systems])
    repeated = PairwiseCounts.from_codes(
        *(np.repeat(q, k), list(counts.questions)),
        *(np.repeat(local[a], k), list(group.systems)),
        *(np.repeat(local[b], k), list(group.systems)),
        *(np.repeat(o, k), ["A", "B", "Equal", "None"]),
    )
    assert len(weighted.arrays()[0]) < len(repeated.arrays()[0]) and len(weighted) == len(repeated)
    assert np.array_equal(weighted.win_matrix(), repeated.win_matrix())
    for x, y in zip(weighted.question_matrix(), repeated.question_matrix(), strict=True):
        assert np.array_equal(x, y)
    fits = [fit_pairwise(c, PAGE_RANKING)[0] for c in (weighted, repeated)]
    assert np.array_equal(fits[0].beta, fits[1].beta)
    assert np.array_equal(fits[0].ci_low, fits[1].ci_low)
    assert np.array_equal(fits[0].ci_high, fits[1].ci_high)


def test_arrays_grow_in_place_and_keep_every_row() -> None:
    counts, rows = PairwiseCounts(), []
    for i in range(300):
        row = (f"q{i % 17}", f"s{i % 5}", f"s{(i + 1) % 5}", VERDICTS[i % 3])
        counts.add(*row)
        rows.append(row)
        if i % 7 == 0:
            earlier = [x.copy() for x in counts.arrays()]
            assert all(len(x) == len(earlier[0]) for x in earlier)
    again = PairwiseCounts.from_records(rows)
    for x, y in zip(counts.arrays(), again.arrays(), strict=True):
        assert np.array_equal(x, y)

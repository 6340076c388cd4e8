"""Bradley-Terry ranking: checked against choix, statsmodels and hand-derived values."""

from __future__ import annotations

import json
from pathlib import Path

import choix
import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from core.errors import InputError
from core.stats.bradley_terry import (
    bootstrap_bradley_terry,
    fit_bradley_terry,
    question_weights,
    strongly_connected,
)
from core.stats.leaderboard import leaderboard
from core.stats.length_control import leaderboard_length_controlled
from core.stats.pairwise_counts import NotIdentifiableError, PairwiseCounts, parse_verdict
from core.stats.ranking_settings import RankingSettings

DATA = Path(__file__).resolve().parents[1] / "data" / "bradley_terry"


def simulate(
    n_sys: int,
    n_q: int,
    rng: np.random.Generator,
    tie_rate: float = 0.2,
    none_rate: float = 0.0,
    beta: np.ndarray | None = None,
) -> tuple[list, np.ndarray]:
    """Every question compares every pair once; P(i beats j | decided) = sigma(beta_i - beta_j)."""
    beta = rng.normal(size=n_sys) if beta is None else beta
    recs = []
    for q in range(n_q):
        for i in range(n_sys):
            for j in range(i + 1, n_sys):
                u = rng.random()
                if u < none_rate:
                    v = "None"
                elif u < none_rate + tie_rate:
                    v = "Equal"
                else:
                    v = "A" if rng.random() < 1 / (1 + np.exp(beta[j] - beta[i])) else "B"
                a, b = (i, j) if rng.random() < 0.5 else (j, i)
                if a != i:
                    v = {"A": "B", "B": "A"}.get(v, v)
                recs.append((f"q{q}", f"s{a}", f"s{b}", v))
    return recs, beta - beta.mean()


def choix_pairs(recs: list, ties: str) -> list[tuple[int, int]]:
    """Data for choix: every decided verdict twice, a tie once each way (= half a win each)."""
    data = []
    for _, a, b, v in recs:
        i, j = int(a[1:]), int(b[1:])
        if v == "A":
            data += [(i, j)] * 2
        elif v == "B":
            data += [(j, i)] * 2
        elif v == "Equal" and ties == "half":
            data += [(i, j), (j, i)]
    return data


def by_index(board, n: int) -> np.ndarray:
    return np.array([board.beta[board.systems.index(f"s{i}")] for i in range(n)])


def test_parse_verdict() -> None:
    assert [
        parse_verdict(s) for s in ["a", " B ", "EQUAL", "none", "A is better", "b  IS better"]
    ] == ["A", "B", "Equal", "None", "A", "B"]
    for bad in ["tie", "", None, "C", 1]:
        with pytest.raises(InputError):
            parse_verdict(bad)


@pytest.mark.parametrize("name", ["testcase-pairwise-1.json", "testcase-pairwise-2.json"])
def test_choix_reference_cases(name: str) -> None:
    case = json.loads((DATA / name).read_text())
    n = case["n_items"]
    W = np.zeros((n, n))
    for w, l in case["data"]:
        W[w, l] += 1
    assert np.allclose(fit_bradley_terry(W), case["ml_est"], atol=1e-8)


@pytest.mark.parametrize("ties", ["half", "drop"])
def test_mle_matches_choix_and_statsmodels(ties: str) -> None:
    rng = np.random.default_rng(7)
    recs, _ = simulate(5, 40, rng)
    board = leaderboard(recs, RankingSettings(ties=ties, n_boot=0))
    beta = by_index(board, 5)
    ref = choix.opt_pairwise(5, choix_pairs(recs, ties), alpha=0.0, tol=1e-12)
    assert np.allclose(beta, ref - ref.mean(), atol=1e-6)
    # statsmodels: logistic regression on rows (x = e_a - e_b, reference system 0 dropped),
    # y = 1/2 for a tie under 'half', with frequency weights.
    X, y = [], []
    for _, a, b, v in recs:
        if v == "None" or (v == "Equal" and ties == "drop"):
            continue
        x = np.zeros(5)
        x[int(a[1:])], x[int(b[1:])] = 1, -1
        X.append(x[1:])
        y.append({"A": 1.0, "B": 0.0, "Equal": 0.5}[v])
    fit = sm.GLM(np.array(y), np.array(X), family=sm.families.Binomial()).fit(tol=1e-13)
    sm_beta = np.r_[0.0, fit.params]
    assert np.allclose(beta, sm_beta - sm_beta.mean(), atol=1e-6)


def test_gradient_is_zero_at_the_estimate() -> None:
    rng = np.random.default_rng(3)
    recs, _ = simulate(8, 30, rng)
    counts = PairwiseCounts.from_records(recs)
    W = counts.win_matrix("half")
    beta = fit_bradley_terry(W)
    # d/d beta_i of sum_ij W_ij log sigma(beta_i - beta_j) = sum_j W_ij - (W_ij + W_ji) p_ij
    p = 1 / (1 + np.exp(-(beta[:, None] - beta[None, :])))
    grad = W.sum(1) - ((W + W.T) * p).sum(1)
    assert np.linalg.norm(grad) <= 1e-9
    assert abs(beta.sum()) < 1e-12


def test_not_strongly_connected_is_an_error_or_a_warned_map_estimate() -> None:
    never_loses = [
        ("q1", "x", "y", "A"),
        ("q2", "y", "z", "A"),
        ("q3", "z", "y", "A"),
        ("q4", "x", "z", "A"),
    ]
    with pytest.raises(NotIdentifiableError, match="'x' never loses"):
        leaderboard(never_loses, RankingSettings(n_boot=0))
    groups = [
        ("q1", "a", "b", "A"),
        ("q2", "b", "a", "A"),
        ("q3", "c", "d", "A"),
        ("q4", "d", "c", "A"),
    ]
    with pytest.raises(NotIdentifiableError, match="never compared"):
        leaderboard(groups, RankingSettings(n_boot=0))
    # With a prior the MAP estimate is returned with a warning; choix's penalty is
    # alpha_choix * ||beta||^2, ours alpha/2 * ||beta||^2, so alpha_choix = alpha / 2.
    with pytest.warns(RuntimeWarning, match="not strongly connected"):
        board = leaderboard(never_loses, RankingSettings(n_boot=0, ties="half", alpha=0.5))
    data = [(0, 1), (1, 2), (2, 1), (0, 2)]
    ref = choix.opt_pairwise(3, data, alpha=0.25, tol=1e-12)
    assert np.allclose(board.beta, ref, atol=1e-6)


def test_strongly_connected_batch() -> None:
    cyc = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    chain = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])
    assert strongly_connected(np.stack([cyc, chain])).tolist() == [True, False]


@pytest.mark.filterwarnings("ignore:.*bootstrap replicates were not strongly connected")
def test_leaderboard_table_and_matrices_by_hand() -> None:
    # x beats y twice, y beats x once, one tie, one None (excluded), y-z: 1-1, z-x: z wins once,
    # x beats z once.
    recs = [
        ("q1", "x", "y", "A"),
        ("q1", "y", "x", "B"),
        ("q2", "y", "x", "A"),
        ("q2", "x", "y", "Equal"),
        ("q3", "x", "y", "None"),
        ("q3", "y", "z", "A"),
        ("q4", "z", "y", "A"),
        ("q4", "z", "x", "A"),
        ("q5", "x", "z", "A"),
    ]
    board = leaderboard(recs, RankingSettings(n_boot=200, seed=1))
    t = board.table.set_index("name")
    assert t.loc["x", "wins"] == 3 and t.loc["x", "losses"] == 2 and t.loc["x", "ties"] == 1
    assert t.loc["x", "n_comparisons"] == 6
    assert board.n_none == 1
    # win rate x vs y = (2 + 0.5) / 4 under half ties; counts 4
    assert board.win_rate.loc["x", "y"] == pytest.approx(2.5 / 4)
    assert board.counts.loc["x", "y"] == 4
    p = board.predicted_win
    bx, by = t.loc["x", "beta"], t.loc["y", "beta"]
    assert p.loc["x", "y"] == pytest.approx(np.exp(bx) / (np.exp(bx) + np.exp(by)))
    assert np.allclose(t["strength"], np.exp(t["beta"]))
    assert (t["ci_low"] <= t["beta"]).all() and (t["beta"] <= t["ci_high"]).all()
    # rank_ub = 1 + #systems whose ci_low is above my ci_high
    for name in t.index:
        expect = 1 + int((t["ci_low"] > t.loc[name, "ci_high"]).sum())
        assert t.loc[name, "rank_ub"] == expect
    out = json.loads(board.to_json())
    assert {"name", "beta", "ci_low", "ci_high", "rank"} <= set(out["systems"][0])
    assert out["level"] == 0.95


def test_dataframe_and_tuples_agree_and_incremental_add() -> None:
    rng = np.random.default_rng(11)
    recs, _ = simulate(4, 25, rng, none_rate=0.1)
    df = pd.DataFrame(recs, columns=["question_id", "system_a", "system_b", "verdict"])
    b1, b2 = (
        leaderboard(recs, RankingSettings(n_boot=50, seed=3)),
        leaderboard(df, RankingSettings(n_boot=50, seed=3)),
    )
    assert np.allclose(by_index(b1, 4), by_index(b2, 4), atol=1e-10)
    counts = PairwiseCounts.from_records(df.iloc[:-1])
    counts.add(*recs[-1])
    full = PairwiseCounts.from_records(recs)

    def named(c: PairwiseCounts) -> np.ndarray:
        order = [c.systems.index(f"s{i}") for i in range(4)]
        return c.win_matrix()[np.ix_(order, order)]

    assert np.allclose(named(counts), named(full))
    counts.add("q-new", "s0", "s1", "A")
    assert named(counts)[0, 1] == named(full)[0, 1] + 1
    counts.remove("q-new", "s0", "s1", "A")
    assert np.allclose(named(counts), named(full))


def test_bootstrap_replicate_matches_a_row_level_refit() -> None:
    """Replicate 0 equals choix refit on the raw rows, each weighted by its question's draw."""
    rng = np.random.default_rng(5)
    recs, _ = simulate(4, 30, rng, tie_rate=0.0)
    counts = PairwiseCounts.from_records(recs)
    res = bootstrap_bradley_terry(counts, RankingSettings(n_boot=3, seed=42))
    w = question_weights(np.random.default_rng(42), len(counts.questions), 3)[0]
    qpos = {q: k for k, q in enumerate(sorted(counts.questions, key=str))}  # rows by id
    data = []
    for q, a, b, v in recs:
        i, j = counts.systems.index(a), counts.systems.index(b)
        data += [(i, j) if v == "A" else (j, i)] * int(w[qpos[q]])
    ref = choix.opt_pairwise(4, data, alpha=0.0, tol=1e-12)
    assert np.allclose(res.beta[0], ref - ref.mean(), atol=1e-6)


def test_bootstrap_resamples_questions_not_rows() -> None:
    """Two raters agreeing on every judgment add no information: clustered CIs do not shrink."""
    rng = np.random.default_rng(9)
    recs, _ = simulate(4, 60, rng)
    doubled = recs + [(q + "", a, b, v) for q, a, b, v in recs]
    one = leaderboard(recs, RankingSettings(n_boot=300, seed=4))
    two = leaderboard(doubled, RankingSettings(n_boot=300, seed=4))
    assert np.allclose(one.ci_high - one.ci_low, two.ci_high - two.ci_low, atol=1e-9)
    assert (
        leaderboard(recs, RankingSettings(n_boot=300, seed=4)).ci_low.tolist()
        == one.ci_low.tolist()
    )


def test_bad_input() -> None:
    with pytest.raises(InputError, match="at least two systems"):
        leaderboard([("q1", "x", "y", "None")], RankingSettings(n_boot=0))
    with pytest.raises(InputError, match="at least two systems"):
        leaderboard([], RankingSettings(n_boot=0))
    with pytest.raises(InputError, match="itself"):
        leaderboard([("q1", "x", "x", "A")], RankingSettings(n_boot=0))
    with pytest.raises(InputError, match="unknown verdict"):
        leaderboard([("q1", "x", "y", "maybe")], RankingSettings(n_boot=0))
    with pytest.raises(InputError, match="ties"):
        leaderboard([("q1", "x", "y", "A")], RankingSettings(ties="third", n_boot=0))


def test_length_control_matches_statsmodels() -> None:
    rng = np.random.default_rng(2)
    recs, _ = simulate(4, 60, rng)
    rows = []
    for q, a, b, v in recs:
        la, lb = rng.integers(20, 200, size=2)
        if v in ("A", "B") and rng.random() < 0.3:  # longer answers win a bit more often
            v = "A" if la > lb else "B"
        rows.append((q, a, b, v, la, lb))
    df = pd.DataFrame(
        rows, columns=["question_id", "system_a", "system_b", "verdict", "length_a", "length_b"]
    )
    board = leaderboard_length_controlled(df, RankingSettings(n_boot=100, seed=0))
    X, y = [], []
    for _q, a, b, v, la, lb in rows:
        if v == "None":
            continue
        x = np.zeros(5)
        x[int(a[1:])], x[int(b[1:])] = 1, -1
        x[4] = (la - lb) / (la + lb)
        X.append(x[1:])
        y.append({"A": 1.0, "B": 0.0, "Equal": 0.5}[v])
    fit = sm.GLM(np.array(y), np.array(X), family=sm.families.Binomial()).fit(tol=1e-13)
    ref = np.r_[0.0, fit.params[:3]]
    t = board.table.set_index("name")
    ours = np.array([t.loc[f"s{i}", "beta_lc"] for i in range(4)])
    assert np.allclose(ours, ref - ref.mean(), atol=1e-6)
    assert board.extra["length_coefficient"] == pytest.approx(fit.params[3], abs=1e-6)
    lo, hi = board.extra["length_coefficient_ci"]
    assert lo < board.extra["length_coefficient"] < hi and lo > 0


def simulate_frame(
    truth: np.ndarray, n_q: int, rng: np.random.Generator, tie_rate: float = 0.1
) -> pd.DataFrame:
    """Vectorised :func:`simulate` (every pair once per question, random presentation order)."""
    i, j = np.triu_indices(len(truth), 1)
    i, j = np.tile(i, n_q), np.tile(j, n_q)
    q = np.repeat(np.arange(n_q), len(truth) * (len(truth) - 1) // 2)
    i_wins = rng.random(len(i)) < 1 / (1 + np.exp(truth[j] - truth[i]))
    tie = rng.random(len(i)) < tie_rate
    swap = rng.random(len(i)) < 0.5
    a, b = np.where(swap, j, i), np.where(swap, i, j)
    a_wins = i_wins != swap
    verdict = np.where(tie, "Equal", np.where(a_wins, "A", "B"))
    return pd.DataFrame(
        {
            "question_id": q.astype(str),
            "system_a": np.char.add("s", a.astype(str)),
            "system_b": np.char.add("s", b.astype(str)),
            "verdict": verdict,
        }
    )


def test_bootstrap_interval_coverage() -> None:
    """95% question-clustered percentile intervals cover the true centred beta 93-97% of the time.

    Ties occur at random (independent of strength) and are dropped, so the decided comparisons
    follow Bradley-Terry with the true beta exactly.
    """
    rng = np.random.default_rng(2024)
    truth = np.array([0.8, 0.3, 0.0, -0.4, -0.7])
    centred = truth - truth.mean()
    hits = []
    for _ in range(300):
        df = simulate_frame(truth, 200, rng)
        board = leaderboard(
            df, RankingSettings(ties="drop", n_boot=1000, seed=int(rng.integers(1 << 31)))
        )
        beta_true = np.array([centred[int(s[1:])] for s in board.systems])
        hits.append((board.ci_low <= beta_true) & (beta_true <= board.ci_high))
    coverage = float(np.mean(hits))
    assert 0.93 <= coverage <= 0.97, coverage


def test_store_leaderboard_is_incremental_and_honours_supersedes(db) -> None:
    from core.store.connection import utcnow
    from core.views.live_leaderboard import store_leaderboard

    now = utcnow()
    rng = np.random.default_rng(1)
    recs, _ = simulate(3, 20, rng, tie_rate=0.2, none_rate=0.1)
    for q in sorted({r[0] for r in recs}):
        db["questions"].insert(
            {"id": q, "question": "?", "origin": "imported", "created_at": now, "updated_at": now}
        )
    rows = [
        {
            "kind": "pairwise",
            "question_id": q,
            "rater": "human:a",
            "rater_kind": "human",
            "system_a": a,
            "system_b": b,
            "verdict": v,
            "status": "ok",
            "created_at": now,
        }
        for q, a, b, v in recs
    ]
    rows.append({**rows[0], "verdict": None, "status": "unparsed"})  # not counted
    rows.append({**rows[0], "kind": "absolute", "verdict": "yes"})  # not pairwise
    db["judgments"].insert_all(rows)
    live = store_leaderboard(db)
    ref = leaderboard(recs, RankingSettings(n_boot=0))
    assert np.allclose(
        by_index(live.leaderboard(RankingSettings(n_boot=0)), 3), by_index(ref, 3), atol=1e-10
    )
    # A correction: the first judgment is superseded by the opposite verdict.
    first = db.execute(
        "select id, question_id, system_a, system_b, verdict from judgments "
        "where kind='pairwise' and status='ok' order by id limit 1"
    ).fetchone()
    flipped = {"A": "B", "B": "A", "Equal": "A", "None": "A"}[first[4]]
    db["judgments"].insert({**rows[0], "verdict": flipped, "supersedes": first[0]})
    assert live.refresh(db) == 1
    fixed = [(recs[0][0], recs[0][1], recs[0][2], flipped)] + recs[1:]
    ref = leaderboard(fixed, RankingSettings(n_boot=0))
    assert np.allclose(
        by_index(live.leaderboard(RankingSettings(n_boot=0)), 3), by_index(ref, 3), atol=1e-10
    )
    assert live.refresh(db) == 0
    assert np.allclose(
        by_index(store_leaderboard(db).leaderboard(RankingSettings(n_boot=0)), 3),
        by_index(ref, 3),
        atol=1e-10,
    )


def test_bulk_first_load_equals_row_by_row_reading(db) -> None:
    """The first refresh builds the aggregate in bulk; a board that read every row one at a time
    (supersedes, withdrawals and 'None' verdicts included) holds the same counts, systems and
    questions in the same order, so a seeded bootstrap gives the same intervals."""
    from core.store.connection import utcnow
    from core.views.live_leaderboard import StoreLeaderboard

    now = utcnow()
    rng = np.random.default_rng(7)
    recs, _ = simulate(4, 30, rng, tie_rate=0.2, none_rate=0.1)
    for q in sorted({r[0] for r in recs}):
        db["questions"].insert(
            {"id": q, "question": "?", "origin": "imported", "created_at": now, "updated_at": now}
        )
    stepwise = StoreLeaderboard(rater_kind="human")
    stepwise.refresh(db)  # empty: the bulk path reads nothing, later reads are row by row
    base = {"kind": "pairwise", "rater_kind": "human", "status": "ok", "created_at": now}
    ids = []
    for i, (q, a, b, v) in enumerate(recs):
        row = {**base, "question_id": q, "rater": f"human:{i % 3}", "system_a": a}
        ids.append(db["judgments"].insert({**row, "system_b": b, "verdict": v}).last_pk)
        if i % 7 == 3:  # a correction of an earlier verdict of the same rater
            old = db["judgments"].get(ids[i - 3])
            db["judgments"].insert(
                {
                    **{k: old[k] for k in base},
                    **{k: old[k] for k in ("question_id", "rater")},
                    "system_a": old["system_a"],
                    "system_b": old["system_b"],
                    "verdict": "A" if old["verdict"] != "A" else "B",
                    "supersedes": old["id"],
                }
            )
        if i % 11 == 5:  # a withdrawal
            old = db["judgments"].get(ids[i])
            db["judgments"].insert(
                {
                    **{k: old[k] for k in ("kind", "rater_kind", "created_at", "question_id")},
                    "rater": old["rater"],
                    "system_a": old["system_a"],
                    "system_b": old["system_b"],
                    "status": "withdrawn",
                    "supersedes": old["id"],
                }
            )
        assert stepwise.refresh(db) >= 1
    # the narrow first read (filters in SQL) and the full one (a row filter in Python)
    for bulk in (
        StoreLeaderboard(rater_kind="human"),
        StoreLeaderboard(where=lambda row: row["rater_kind"] == "human"),
    ):
        bulk.refresh(db)
        assert bulk.last_id == stepwise.last_id
        assert bulk.counts.systems == stepwise.counts.systems
        assert bulk.counts.questions == stepwise.counts.questions
        assert bulk.counts.n_none == stepwise.counts.n_none
        assert np.array_equal(*(c.win_matrix() for c in (bulk.counts, stepwise.counts)))
        one, two = (b.leaderboard(RankingSettings(n_boot=200, seed=3)) for b in (bulk, stepwise))
        assert np.allclose(one.ci_low, two.ci_low) and np.allclose(one.ci_high, two.ci_high)
        assert bulk._active == stepwise._active


def test_bootstrap_does_not_depend_on_the_order_of_the_judgments() -> None:
    """Questions are resampled in the order of their ids: the same judgments in another order
    (another file order, another import order) give the same seeded interval."""
    rng = np.random.default_rng(11)
    recs, _ = simulate(4, 40, rng, tie_rate=0.2)
    shuffled = [recs[i] for i in rng.permutation(len(recs))]
    one = leaderboard(recs, RankingSettings(n_boot=60, seed=3)).table.set_index("name")
    two = (
        leaderboard(shuffled, RankingSettings(n_boot=60, seed=3))
        .table.set_index("name")
        .loc[one.index]
    )
    for col in ("beta", "ci_low", "ci_high"):
        assert np.allclose(one[col], two[col], rtol=0, atol=1e-9), col

"""core.stats against scikit-learn, statsmodels, krippendorff (real PRD Vicuna80 ratings)."""

from __future__ import annotations

import json
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score, confusion_matrix
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from core.errors import InputError
from core.stats.agreement import (
    cohen_kappa,
    cohen_kappa_ci,
    cohen_kappa_ci_counts,
    confusion,
    fleiss_kappa,
    krippendorff_alpha_nominal,
    krippendorff_alpha_nominal_counts,
    pairwise_agreement,
    percent_agreement,
    ratings_matrix,
    self_consistency,
)
from core.stats.rater_bias import length_bias, position_inconsistency, self_preference

DATA = Path(__file__).resolve().parents[1] / "data" / "pairwise_human_agreement"
LABEL = {1: "A", 2: "B", 3: "Equal"}


def human_items() -> pd.DataFrame:
    """Long rows: item = (file, question); rater = rating slot 1..3 (identities not given)."""
    rows = []
    for path in sorted(DATA.glob("*-human-reviewer_threeclass.jsonl")):
        slot: dict[int, int] = {}
        for line in path.read_text().splitlines():
            r = json.loads(line)
            slot[r["question_id"]] = slot.get(r["question_id"], 0) + 1
            rows.append(
                {
                    "item_id": f"{path.name.replace('-human-reviewer_threeclass.jsonl', '')}/"
                    f"{r['question_id']}",
                    "rater": f"slot{slot[r['question_id']]}",
                    "verdict": LABEL[r["score"]],
                }
            )
    return pd.DataFrame(rows)


def gpt4_items() -> pd.DataFrame:
    rows = []
    for path in sorted(DATA.glob("*-gpt4-reviewer-threeclass.jsonl")):
        key = path.name.replace("-gpt4-reviewer-threeclass.jsonl", "")
        for line in path.read_text().splitlines():
            r = json.loads(line)
            rows.append(
                {
                    "item_id": f"{key}/{r['question_id']}",
                    "rater": "gpt4",
                    "verdict": LABEL[int(r["score"])],
                }
            )
    return pd.DataFrame(rows)


def test_real_data_fleiss_and_krippendorff() -> None:
    df = human_items()
    m = ratings_matrix(df)  # 3 x items, complete
    assert m.shape[0] == 3 and m.notna().all().all()
    table, _ = aggregate_raters(m.T.to_numpy())
    assert fleiss_kappa(df) == pytest.approx(sm_fleiss(table, method="fleiss"), abs=1e-9)
    assert fleiss_kappa(table) == pytest.approx(sm_fleiss(table, method="fleiss"), abs=1e-9)
    codes = m.replace({"A": 0, "B": 1, "Equal": 2}).to_numpy(dtype=float)
    ref = krippendorff.alpha(reliability_data=codes, level_of_measurement="nominal")
    assert krippendorff_alpha_nominal(m) == pytest.approx(ref, abs=1e-9)


def test_krippendorff_with_missing_labels() -> None:
    m = ratings_matrix(human_items())
    rng = np.random.default_rng(0)
    holes = m.mask(rng.random(m.shape) < 0.25)
    codes = holes.replace({"A": 0, "B": 1, "Equal": 2}).to_numpy(dtype=float)
    ref = krippendorff.alpha(reliability_data=codes, level_of_measurement="nominal")
    assert krippendorff_alpha_nominal(holes) == pytest.approx(ref, abs=1e-9)
    assert krippendorff_alpha_nominal(codes) == pytest.approx(ref, abs=1e-9)


def test_fleiss_with_unequal_rater_counts_by_hand() -> None:
    # Item 1: labels (x, x, y) -> P_1 = (4 + 1 - 3) / 6 = 1/3; item 2: (x, x) -> P_2 = 1;
    # item 3: one rating -> left out. P_bar = 2/3; p_x = 4/5, p_y = 1/5; P_e = 0.68;
    # kappa = (2/3 - 0.68) / 0.32 = -1/24.
    table = [[2, 1], [2, 0], [1, 0]]
    assert fleiss_kappa(table) == pytest.approx(-1 / 24, abs=1e-12)


def test_cohen_and_confusion_match_sklearn() -> None:
    h = ratings_matrix(human_items()).loc["slot1"]
    g = gpt4_items().set_index("item_id")["verdict"]
    both = h.index.intersection(g.index)
    a, b = list(g[both]), list(h[both])
    assert len(both) > 100
    assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b), abs=1e-9)
    labels = ["A", "B", "Equal"]
    assert (confusion(a, b, labels).to_numpy() == confusion_matrix(a, b, labels=labels)).all()
    assert percent_agreement(a, b) == pytest.approx(np.mean(np.array(a) == np.array(b)))
    ci = cohen_kappa_ci(a, b, n_boot=500, seed=0)
    assert ci.low < ci.estimate < ci.high and ci.level == 0.95
    assert ci == cohen_kappa_ci(a, b, n_boot=500, seed=0)


def test_pairwise_agreement_and_missing_values() -> None:
    df = pd.DataFrame(
        {
            "item_id": [1, 2, 3, 1, 2, 4, 1, 3],
            "rater": ["x", "x", "x", "y", "y", "y", "z", "z"],
            "verdict": ["A", "B", "A", "A", "A", "B", "A", "A"],
        }
    )
    pw = pairwise_agreement(df).set_index(["rater_a", "rater_b"])
    assert pw.loc[("x", "y"), "n"] == 2 and pw.loc[("x", "y"), "agreement"] == 0.5
    assert pw.loc[("x", "z"), "n"] == 2 and pw.loc[("x", "z"), "agreement"] == 1.0
    assert percent_agreement(["A", None, "B"], ["A", "B", np.nan]) == 1.0
    with pytest.raises(InputError):
        percent_agreement([None], ["A"])


def test_self_consistency() -> None:
    res = self_consistency({1: "A", 2: "B", 3: "A", 4: "B"}, {1: "A", 2: "B", 3: "B", 5: "A"})
    # 3 shared items, 2 agree; kappa: p_o = 2/3, p_e = (2/3*1/3 + 1/3*2/3) = 4/9 -> 0.4
    assert res["n"] == 3 and res["agreement"] == pytest.approx(2 / 3)
    assert res["cohen_kappa"] == pytest.approx(0.4)


def test_position_inconsistency_by_hand() -> None:
    df = pd.DataFrame(
        [
            ("q1", "x", "y", "A", "r"),
            ("q1", "y", "x", "B", "r"),  # consistent: x both times
            ("q2", "x", "y", "A", "r"),
            ("q2", "y", "x", "A", "r"),  # inconsistent, first shown
            ("q3", "x", "y", "B", "r"),
            ("q3", "y", "x", "Equal", "r"),  # inconsistent, not decided
            ("q4", "x", "y", "A", "r"),  # one order only
        ],
        columns=["question_id", "system_a", "system_b", "verdict", "rater"],
    )
    row = position_inconsistency(df).iloc[0]
    assert row["n_pairs"] == 3 and row["inconsistent"] == 2
    assert row["inconsistency_rate"] == pytest.approx(2 / 3) and row["first_shown_share"] == 1.0


def test_self_preference_cells_by_hand() -> None:
    fam = {"g1": "gem", "g2": "gem", "o1": "gpt", "o2": "gpt"}
    raters = {"auto:gem-judge": "gem", "auto:gpt-judge": "gpt"}
    rows = []
    # mixed pair g1 vs o1 on q1..q4; human says g1, g1, o1, o1
    human = ["g1", "g1", "o1", "o1"]
    gem = ["g1", "g1", "g1", "o1"]  # prefers own family once against the human
    gpt = ["g1", "o1", "o1", "o1"]
    for k in range(4):
        for rater, w in (
            ("human:h", human[k]),
            ("auto:gem-judge", gem[k]),
            ("auto:gpt-judge", gpt[k]),
        ):
            rows.append((f"q{k}", "g1", "o1", "A" if w == "g1" else "B", rater))
    # same-family pair g1 vs g2 on q9: all agree
    for rater in ("human:h", "auto:gem-judge", "auto:gpt-judge"):
        rows.append(("q9", "g2", "g1", "A", rater))
    df = pd.DataFrame(rows, columns=["question_id", "system_a", "system_b", "verdict", "rater"])
    t = self_preference(df, raters, fam, reference="human:h").set_index(
        ["rater_family", "answer_family"]
    )
    assert t.loc[("gem", "mixed"), "n"] == 4
    assert t.loc[("gem", "mixed"), "agreement"] == 0.75
    assert t.loc[("gem", "mixed"), "own_family_share"] == 0.75
    assert t.loc[("gpt", "mixed"), "own_family_share"] == 0.75
    assert t.loc[("gem", "mixed"), "reference_own_family_share"] == 0.5
    assert t.loc[("gem", "gem"), "agreement"] == 1.0


def test_length_bias_by_hand() -> None:
    df = pd.DataFrame(
        {
            "rater": ["r"] * 6,
            "verdict": ["A", "A", "B", "B", "Equal", "A"],
            "length_a": [10, 5, 3, 9, 10, 4],
            "length_b": [5, 10, 9, 3, 2, 4],
        }
    )
    # decided with unequal lengths: rows 0-3; longer wins in rows 0 (A,10>5) and 2 (B, 9>3)
    row = length_bias(df).iloc[0]
    assert row["n_decided"] == 4 and row["longer_wins"] == 2 and row["share"] == 0.5
    assert row["ci_low"] < 0.5 < row["ci_high"] and row["pvalue"] == pytest.approx(1.0)


# -- plain-Python references (the loops the vectorised code replaced) ---------------------------


def _winner(a, b, v):
    v = {
        "a": "A",
        "b": "B",
        "equal": "Equal",
        "none": "None",
        "a is better": "A",
        "b is better": "B",
    }[v.strip().lower()]
    return a if v == "A" else b if v == "B" else v


def position_reference(rows) -> dict:
    """rater -> (n_pairs, inconsistent, decided_both, first_both), latest verdict per order."""
    rows, last = list(rows), {}
    for q, a, b, v, r in rows:
        last[(r, q, frozenset((a, b)), a)] = (_winner(a, b, v), a, {a, b})
    groups: dict = {}
    for (r, q, pair, _first), val in last.items():
        groups.setdefault((r, q, pair), []).append(val)
    out = {r: [0, 0, 0, 0] for *_, r in rows}
    for (r, _, _), vals in groups.items():
        if len(vals) != 2:
            continue
        (w1, f1, p), (w2, f2, _) = vals
        out[r][0] += 1
        if w1 != w2:
            out[r][1] += 1
            if w1 in p and w2 in p:
                out[r][2] += 1
                out[r][3] += int(w1 == f1 and w2 == f2)
    return out


def random_pairwise(seed: int, n: int = 3000) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    names = np.array([f"s{k}" for k in range(5)], dtype=object)
    i = rng.integers(0, 5, n)
    j = (i + rng.integers(1, 5, n)) % 5
    return pd.DataFrame(
        {
            "question_id": rng.integers(0, 60, n),
            "system_a": names[i],
            "system_b": names[j],
            "verdict": rng.choice(["A", "B", "Equal", "None", "b is better"], n),
            "rater": rng.choice(["r1", "r2", "human:h"], n),
        }
    )


@pytest.mark.parametrize("seed", range(4))
def test_position_inconsistency_matches_plain_python(seed: int) -> None:
    df = random_pairwise(seed)
    ref = position_reference(df.itertuples(index=False))
    got = position_inconsistency(df).set_index("rater")
    for r, (n, bad, dec, first) in ref.items():
        assert (got.loc[r, "n_pairs"], got.loc[r, "inconsistent"]) == (n, bad)
        assert got.loc[r, "inconsistency_rate"] == pytest.approx(bad / n)
        assert got.loc[r, "first_shown_share"] == pytest.approx(first / dec)


def test_self_preference_matches_plain_python() -> None:
    df = random_pairwise(7)
    fam = {"s0": "x", "s1": "y", "s2": "x", "s3": "y", "s4": "x"}
    rfam = {"r1": "x", "r2": "y"}
    ref_last = {}
    for q, a, b, v, r in df.itertuples(index=False):
        if r == "human:h":
            ref_last[(q, frozenset((a, b)))] = _winner(a, b, v)
    cells: dict = {}
    for q, a, b, v, r in df.itertuples(index=False):
        key = (q, frozenset((a, b)))
        if r == "human:h" or key not in ref_last:
            continue
        af = fam[a] if fam[a] == fam[b] else "mixed"
        own = [s for s in (a, b) if fam[s] == rfam[r]]
        cells.setdefault((rfam[r], af), []).append(
            (_winner(a, b, v), ref_last[key], own[0] if len(own) == 1 else None, {a, b})
        )
    got = self_preference(df, rfam, fam, "human:h").set_index(["rater_family", "answer_family"])
    assert sorted(got.index) == sorted(cells)
    for key, items in cells.items():
        assert got.loc[key, "n"] == len(items)
        assert got.loc[key, "agreement"] == pytest.approx(np.mean([w == r for w, r, *_ in items]))
        assert got.loc[key, "cohen_kappa"] == pytest.approx(
            cohen_kappa_score([w for w, *_ in items], [r for _, r, *_ in items])
        )
        mine = [w == o for w, _, o, p in items if o is not None and w in p]
        if mine:
            assert got.loc[key, "own_family_share"] == pytest.approx(np.mean(mine))


def test_self_consistency_matches_sklearn_on_random_runs() -> None:
    rng = np.random.default_rng(3)
    first = {k: rng.choice(["A", "B", "Equal", None]) for k in range(5000)}
    second = {k: rng.choice(["A", "B", "Equal"]) for k in range(0, 6000, 2)}
    shared = [k for k in first if k in second and first[k] is not None]
    a, b = [first[k] for k in shared], [second[k] for k in shared]
    res = self_consistency(first, second)
    assert res["n"] == len(shared)
    assert res["agreement"] == pytest.approx(np.mean(np.array(a) == np.array(b)), abs=1e-12)
    assert res["cohen_kappa"] == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)


def test_cohen_kappa_ci_matches_an_item_resampling_bootstrap() -> None:
    """Multinomial cell counts = resampling items: same interval as a direct sklearn bootstrap
    (Monte Carlo error of 4,000 replicates each, ~0.01 on the endpoints)."""
    rng = np.random.default_rng(8)
    a = rng.choice(["A", "B", "Equal"], 400, p=[0.45, 0.4, 0.15])
    b = np.where(rng.random(400) < 0.6, a, rng.choice(["A", "B", "Equal"], 400))
    ci = cohen_kappa_ci(list(a), list(b), n_boot=4000, seed=1)
    idx = np.random.default_rng(2).integers(0, 400, size=(4000, 400))
    reps = [cohen_kappa_score(a[k], b[k]) for k in idx]
    lo, hi = np.quantile(reps, [0.025, 0.975])
    assert ci.estimate == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    assert ci.low == pytest.approx(lo, abs=0.02) and ci.high == pytest.approx(hi, abs=0.02)


def test_counts_entry_points_match_the_package_and_the_label_level_functions() -> None:
    """Krippendorff's alpha from a units x labels count table against the ``krippendorff``
    package (real PRD ratings with holes); Cohen's kappa interval from confusion counts against
    the label-level function (same seed: the same interval) and scikit-learn's kappa."""
    m = ratings_matrix(human_items())
    holes = m.mask(np.random.default_rng(1).random(m.shape) < 0.3)
    codes = holes.replace({"A": 0, "B": 1, "Equal": 2}).to_numpy(dtype=float)
    counts = np.stack([np.nansum(codes == c, axis=0) for c in (0, 1, 2)], axis=1)
    ref = krippendorff.alpha(reliability_data=codes, level_of_measurement="nominal")
    assert krippendorff_alpha_nominal_counts(counts) == pytest.approx(ref, abs=1e-9)
    rng = np.random.default_rng(2)
    a = rng.choice(["A", "B", "Equal"], 300, p=[0.45, 0.4, 0.15])
    b = np.where(rng.random(300) < 0.6, a, rng.choice(["A", "B", "Equal"], 300))
    labels = ["A", "B", "Equal"]
    table = confusion_matrix(a, b, labels=labels)
    got = cohen_kappa_ci_counts(table, n_boot=400, seed=5)
    assert got == cohen_kappa_ci(list(a), list(b), n_boot=400, seed=5)
    assert got.estimate == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    with pytest.raises(InputError):
        cohen_kappa_ci_counts(np.zeros((2, 2)))

"""EXAM scores, the CAR Y3 importer, the tie-breaking correlation and the CAR reproduction."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy.stats import kendalltau, spearmanr

from core.errors import InputError
from core.exam.bank import import_car_bank
from core.exam.car_repro import parse_car_results, reproduce_car
from core.exam.scores import exam_scores, leaderboard_correlation, mean_se
from core.store.exam_bank import bank_questions

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "demo" / "exam" / "car-results"
SHARED = Path("/work/shared/data/exam_trec_car_y3/flan-t5-exam-appendix/car-y3-genq.jsonl")


# --- scores -----------------------------------------------------------------------------------


def toy():
    """Two queries: q1 has 4 questions (a-d), q2 has 2 (e, f).

    gold answers a, b (q1) and e (q2); s1 answers a, b, c (q1) and nothing in q2 (article, 0);
    s2 has no article for q2 and answers a (q1).
    """
    correct = {
        ("_gold_", "q1"): {"a", "b"},
        ("_gold_", "q2"): {"e"},
        ("s1", "q1"): {"a", "b", "c"},
        ("s2", "q1"): {"a"},
    }
    has = {("_gold_", "q1"), ("_gold_", "q2"), ("s1", "q1"), ("s1", "q2"), ("s2", "q1")}
    return exam_scores(correct, {"q1": 4, "q2": 2}, ["_gold_", "s1", "s2"], has)


def test_exam_hand_computed():
    by = {r.system: r for r in toy()}
    # EXAM: gold (2/4 + 1/2)/2 = 0.5; s1 (3/4 + 0)/2 = 0.375; s2 (1/4 + 0)/2 = 0.125
    assert by["_gold_"].exam == pytest.approx(0.5)
    assert by["s1"].exam == pytest.approx(0.375)
    assert by["s2"].exam == pytest.approx(0.125)
    # SE = sd(ddof=1)/sqrt(2): s1 values (0.75, 0): sd = 0.75/sqrt(2) -> SE = 0.375
    assert by["s1"].exam_se == pytest.approx(0.375)
    assert by["_gold_"].exam_se == pytest.approx(0.0)
    # pool: q1 union {a,b,c} (3), q2 union {e} (1): s1 = (3/3 + 0/1)/2 = 0.5, s2 = (1/3)/2
    assert by["s1"].n_exam_pool == pytest.approx(0.5)
    assert by["s2"].n_exam_pool == pytest.approx(1 / 6)
    assert by["_gold_"].n_exam_pool == pytest.approx((2 / 3 + 1) / 2)
    assert [r.system for r in toy()] == ["_gold_", "s1", "s2"]


def test_n_exam_above_one_against_gold():
    by = {r.system: r for r in toy()}
    # s1: q1 (3/4)/(2/4) = 1.5, q2 0/(1/2) = 0 -> mean 0.75; on q1 alone it exceeds 1.
    assert by["s1"].n_exam_gold == pytest.approx(0.75)
    only_q1 = {
        r.system: r
        for r in exam_scores(
            {("_gold_", "q1"): {"a", "b"}, ("s1", "q1"): {"a", "b", "c"}},
            {"q1": 4},
            ["_gold_", "s1"],
        )
    }
    assert only_q1["s1"].n_exam_gold == pytest.approx(1.5) and only_q1["s1"].n_exam_gold > 1
    assert only_q1["_gold_"].n_exam_gold == pytest.approx(1.0)


def test_skipped_query_scores_zero_and_gold_zero_queries_left_out():
    by = {r.system: r for r in toy()}
    assert by["s2"].per_query == {"q1": 0.25, "q2": 0.0}  # no article for q2 -> 0
    assert by["s2"].n_articles == 1 and by["s2"].n_queries == 2
    # gold answers nothing in q3: n-EXAM(gold) averages over q1 only.
    rows = {
        r.system: r
        for r in exam_scores(
            {("_gold_", "q1"): {"a"}, ("s", "q1"): {"a"}, ("s", "q3"): {"x"}},
            {"q1": 2, "q3": 1},
            ["_gold_", "s"],
        )
    }
    assert rows["s"].n_queries_gold == 1 and rows["s"].n_exam_gold == pytest.approx(1.0)
    assert rows["s"].exam == pytest.approx((0.5 + 1.0) / 2)
    with pytest.raises(InputError):
        exam_scores({}, {"q": 0}, ["s"])


def test_mean_se_edge_cases():
    assert mean_se([]) == (0.0, 0.0)
    assert mean_se([0.3]) == (0.3, 0.0)


# --- correlation ------------------------------------------------------------------------------


def test_plain_correlation_matches_scipy():
    a = {"s1": 0.9, "s2": 0.5, "s3": 0.5, "s4": 0.1, "s5": 0.7}
    b = {"s1": 3.0, "s2": 1.0, "s3": 2.0, "s4": 0.0, "s5": 4.0}
    names = sorted(a)
    c = leaderboard_correlation(a, b)
    assert c["spearman"] == pytest.approx(
        spearmanr([a[s] for s in names], [b[s] for s in names])[0]
    )
    assert c["kendall"] == pytest.approx(
        kendalltau([a[s] for s in names], [b[s] for s in names])[0]
    )


def test_float_noise_is_a_tie_not_an_order():
    # Two Bradley-Terry strengths from identical records differ only in the last bits.
    a = {"s1": 0.625, "s2": 0.1875, "s3": 0.0625, "s4": 0.0}
    bt = {"s1": 4.44, "s2": 1.91, "s3": -3.1719039732623933, "s4": -3.1719039732623955}
    c = leaderboard_correlation(a, bt)
    exact = [4.44, 1.91, -3.17, -3.17]
    names = ["s1", "s2", "s3", "s4"]
    assert c["spearman"] == pytest.approx(spearmanr([a[s] for s in names], exact)[0])
    assert c["kendall"] == pytest.approx(kendalltau([a[s] for s in names], exact)[0])
    assert c["spearman"] < 1.0


def test_tie_breaking_correlation_against_scipy_fixed_seeds():
    # s2 and s3 are within one SE of each other (0.50 vs 0.48, SE 0.05); the others are apart.
    a = {"s1": 0.9, "s2": 0.50, "s3": 0.48, "s4": 0.1, "s5": 0.7}
    se = {s: 0.05 for s in a}
    ref = {"s1": 5.0, "s2": 2.0, "s3": 3.0, "s4": 1.0, "s5": 4.0}
    names = sorted(a)
    truth = [ref[s] for s in names]
    # The two ways of breaking the tie, each scored by scipy on explicit rankings.
    outcomes = []
    for order in ({"s2": 0.50, "s3": 0.48}, {"s2": 0.48, "s3": 0.50}):
        x = [order.get(s, a[s]) for s in names]
        outcomes.append((spearmanr(x, truth)[0], kendalltau(x, truth)[0]))
    for seed in (0, 1, 7):
        c = leaderboard_correlation(a, ref, se=se, repeats=10, seed=seed)
        again = leaderboard_correlation(a, ref, se=se, repeats=10, seed=seed)
        assert c["spearman_ties"] == again["spearman_ties"]  # seeded: reproducible
        mixes = [(k * outcomes[0][0] + (10 - k) * outcomes[1][0]) / 10 for k in range(11)]
        k = min(range(11), key=lambda i: abs(mixes[i] - c["spearman_ties"]))
        assert c["spearman_ties"] == pytest.approx(mixes[k])
        assert c["kendall_ties"] == pytest.approx(
            (k * outcomes[0][1] + (10 - k) * outcomes[1][1]) / 10
        )
    # With SEs too small to tie anything, the result is scipy's on the raw scores.
    c = leaderboard_correlation(a, ref, se={s: 1e-6 for s in a}, repeats=10, seed=0)
    assert c["spearman_ties"] == pytest.approx(spearmanr([a[s] for s in names], truth)[0])
    assert c["kendall_ties"] == pytest.approx(kendalltau([a[s] for s in names], truth)[0])
    with pytest.raises(InputError):
        leaderboard_correlation({"a": 1, "b": 2}, {"a": 1, "b": 2})


# --- CAR Y3 importer --------------------------------------------------------------------------


def _line(**kw):
    rec = {
        "query_id": "tqa2:L_1",
        "query_text": "rocks / minerals",
        "qid": "q1",
        "question": "What is a mineral?",
        "choices": None,
        "correctKey": None,
        "correct": None,
        "facet_id": "T_1",
    }
    rec.update(kw)
    return json.dumps(rec)


def test_car_importer_free_text_and_multiple_choice(db, tmp_path):
    path = tmp_path / "bank.jsonl"
    path.write_text(
        "\n".join(
            [
                _line(),
                _line(
                    qid="q2",
                    query_id="tqa2:L_2",
                    question="Which rock is igneous?",
                    choices={"a": "granite", "b": "limestone"},
                    correctKey="a",
                    correct="granite",
                ),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    res = import_car_bank(db, path, bank_id="b")
    assert res == {"bank_id": "b", "n_queries": 2, "n_questions": 2, "n_blank_skipped": 0}
    qs = {q.qid: q for q in bank_questions(db, "b")}
    assert qs["q1"].choices is None and qs["q1"].facet_id == "T_1"
    assert qs["q2"].choices == {"a": "granite", "b": "limestone"}
    assert qs["q2"].correct_key == "a"
    texts = {r["query_id"]: r["query_text"] for r in db["exam_queries"].rows}
    assert texts["tqa2:L_1"] == "rocks"
    # exam questions never enter the questions table (no system reads them)
    assert db["questions"].count == 0


@pytest.mark.parametrize(
    "bad, message",
    [
        ("{not json", "not valid JSON"),
        (_line(question=None), "missing or empty field 'question'"),
        (_line(qid=""), "missing or empty field 'qid'"),
        (_line(qid="q9", choices={"a": "x", "b": "y"}, correctKey="c"), "'correctKey'"),
        (_line(), "duplicate qid"),
        ("[1, 2]", "expected a JSON object"),
        (_line(query_text=5), "field 'query_text' must be a string or null"),
        (_line(facet_id=["T_1"]), "field 'facet_id' must be a string or null"),
        (_line(correct={"a": 1}), "field 'correct' must be a string or null"),
        (json.dumps({"query_id": "q", "facet_id": "T", "items": 5}), "'items' must be a list"),
        (json.dumps({"query_id": "q", "facet_id": "T", "items": [5]}), "every 'items' entry"),
    ],
)
def test_car_importer_malformed_line_writes_nothing(db, tmp_path, bad, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(_line() + "\n" + bad + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        import_car_bank(db, path, bank_id="bad")
    assert err.value.line == 2 and str(path) in str(err.value) and message in str(err.value)
    assert db["exam_questions"].count == 0 and db["exam_banks"].count == 0


def test_bundled_sample_imports(db):
    res = import_car_bank(db, ROOT / "demo" / "exam" / "car-y3-genq-sample.jsonl")
    assert res["n_queries"] == 4 and res["n_questions"] == 200


@pytest.mark.skipif(not SHARED.is_file(), reason="shared CAR Y3 data not present")
def test_full_shared_bank_counts(db):
    res = import_car_bank(db, SHARED, bank_id="full")
    # SOURCE.md: 8893 lines, 132 query ids; 16 of the lines have a blank question (one qid).
    assert res["n_questions"] == 8893 - 16 and res["n_queries"] == 132
    assert res["n_blank_skipped"] == 16


@pytest.mark.skipif(not SHARED.is_file(), reason="shared CAR Y3 data not present")
def test_full_shared_bank_with_one_malformed_line_writes_nothing(db, tmp_path):
    lines = SHARED.read_text(encoding="utf-8").split("\n")
    lines[6999] = lines[6999][: len(lines[6999]) // 2]  # line 7000 cut in half
    path = tmp_path / "car-y3-genq.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(InputError) as err:
        import_car_bank(db, path)
    assert err.value.line == 7000 and "line 7000" in str(err.value)
    assert "\n" not in str(err.value)  # one line
    assert db["exam_questions"].count == 0 and db["exam_banks"].count == 0


# --- CAR reproduction -------------------------------------------------------------------------


def test_reproduce_car_matches_published_tables():
    result = reproduce_car(RESULTS)
    by = {(r["table"].split(" [")[0], r["measure"]): r for r in result}
    genq = by[("leaderboard-car-genq-self-rating-4", "exam")]
    assert genq["spearman"] == pytest.approx(0.869, abs=5e-4) == genq["spearman_table"]
    assert genq["kendall"] == pytest.approx(0.687, abs=5e-4)
    assert genq["n_systems"] == 16
    # Every recomputed value is within 0.015 of the published one (rounded scores add ties).
    for r in result:
        if r["spearman_table"] is not None:
            assert abs(r["spearman"] - r["spearman_table"]) < 0.015, r
            assert abs(r["kendall"] - r["kendall_table"]) < 0.015, r
    orig = [r for r in result if r["measure"].startswith("orig-EXAM")]
    assert len(orig) == 1 and orig[0]["spearman"] == pytest.approx(0.739, abs=5e-4)


def test_car_results_parser_rejects_bad_number(tmp_path):
    path = tmp_path / "x.tsv"
    path.write_text(
        "method\texam\t+/-\texam-std\torig_TREC_leaderboard_rank\n"
        "A\t0.5\t+/-\t0.01\t1\nB\tzero\t+/-\t0.01\t2\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as err:
        parse_car_results(path)
    assert err.value.line == 3
    blocks = parse_car_results(RESULTS / "qrel-leaderboard-car-genq-self-rating.tsv")
    assert len(blocks) == 5 and blocks[0].implied["exam"]["spearman"] == pytest.approx(0.85)

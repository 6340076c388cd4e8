"""EXAM end to end: offline graders, scripted-model grading, derived banks, BT tie-in, demo, CLI."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from bound_sql import sql_rows

from core.corpus.sentences import best_token_f1
from core.errors import ConfigError, InputError
from core.exam.articles import GOLD, pool_article, store_article
from core.exam.bank import derive_bank, import_car_bank
from core.exam.bt_correlation import correlate_with_bradley_terry
from core.exam.grading import grade_bank
from core.exam.lexical import choose_answer, index_article, lexical_answerability
from core.exam.replies import parse_choice, parse_rating
from core.exam.scores import run_scores
from core.exam.workflow import build_demo
from core.store.connection import utcnow
from core.store.database import open_db
from core.views.exam import (
    answered_frame,
    car_reproduction_frame,
    correlation_frame,
    leaderboard_frame,
    runs_frame,
)

ROOT = Path(__file__).resolve().parents[2]
ARTICLE = (
    "Granite is an igneous rock that forms when magma cools slowly underground. "
    "Limestone is a sedimentary rock made of calcium carbonate from shells. "
    "Marble forms when limestone is changed by heat and pressure."
)


# --- offline baselines ------------------------------------------------------------------------


def test_mc_baseline_picks_supported_choice_and_abstains():
    idx = index_article(ARTICLE, sentences=1)
    d = choose_answer(
        idx,
        "Which rock forms when magma cools?",
        {"a": "limestone made of shells", "b": "granite", "c": "basalt"},
    )
    assert d.key == "b" and d.margin > 0 and d.scores["c"] == 0
    none = choose_answer(idx, "What is the capital of France?", {"a": "Paris", "b": "Lyon"})
    assert none.key is None  # no choice term in the article


def test_lexical_answerability_grade():
    idx = index_article(ARTICLE)
    # content terms {granit, igneous, rock} all in one window -> coverage 1 -> grade 5
    assert lexical_answerability(idx, "Is granite an igneous rock?") == (5, 1.0)
    # {capit, franc} none -> 0
    assert lexical_answerability(idx, "What is the capital of France?")[0] == 0
    assert lexical_answerability(index_article(""), "granite?") == (0, 0.0)


def test_token_f1_and_parsers():
    # pred {granite, igneous} vs gold {granite, is, igneous, rock}: P=1, R=0.5 -> F1 = 2/3
    assert best_token_f1("granite igneous", ["Granite is an igneous rock", "x"]) == pytest.approx(
        2 / 3
    )
    assert best_token_f1("", ["a"]) == 0.0
    assert parse_rating('{"rating": 4, "answer": "granite"}') == (4, "granite")
    assert parse_rating("RATING: 2\nANSWER: shells") == (2, "shells")
    assert parse_rating("I think it is fine")[0] is None
    assert parse_rating('{"rating": 7}')[0] is None
    assert parse_choice("b", ["a", "b"]) == "b" and parse_choice("(A) granite", ["a", "b"]) == "a"
    assert parse_choice("none", ["a", "b"]) is None


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("It is a hard one, but the answer is B", "b"),  # the article "a" is not key a
        ("A hard one.", None),
        ("The answer is a city", None),
        ("the answer is B because the article says so", None),
        ("answer is a, or maybe the answer is b", None),  # two keys named: never guess
        ("I think b", None),
        ("B.", "b"),
        ("b) granite", "b"),
        ("Answer: (c).", "c"),
    ],
)
def test_parse_choice_reads_only_an_explicit_key(reply, expected):
    assert parse_choice(reply, ["a", "b", "c"]) == expected


def test_pool_article_budget_and_order():
    pool = ["Granite is igneous.", "Shells make limestone.", "Granite granite magma cools."]
    text = pool_article(pool, "granite magma", budget_tokens=100)
    assert text == "Granite is igneous.\n\nGranite granite magma cools."  # pool order kept
    from core.corpus.documents import count_tokens

    best = count_tokens(pool[2])  # the best passage alone fills this budget
    assert pool_article(pool, "granite magma", budget_tokens=best) == pool[2]
    # too small for the best one: it is skipped and a smaller, lower-ranked one fills in
    assert count_tokens(pool[0]) < best
    assert pool_article(pool, "granite magma", budget_tokens=best - 1) == pool[0]
    assert pool_article(pool, "volcano", budget_tokens=100) is None


# --- grading runs -----------------------------------------------------------------------------


def _bank(db, tmp_path):
    lines = [
        {
            "query_id": "q1",
            "query_text": "rocks",
            "qid": "mc1",
            "question": "Which rock forms when magma cools?",
            "choices": {"a": "limestone", "b": "granite"},
            "correctKey": "b",
            "correct": "granite",
            "facet_id": "",
        },
        {
            "query_id": "q1",
            "query_text": "rocks",
            "qid": "ft1",
            "question": "Is granite an igneous rock?",
            "choices": None,
            "correctKey": None,
            "correct": None,
            "facet_id": "",
        },
        {
            "query_id": "q2",
            "query_text": "oceans",
            "qid": "ft2",
            "question": "What are tides?",
            "choices": None,
            "correctKey": None,
            "correct": None,
            "facet_id": "",
        },
    ]
    path = tmp_path / "bank.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    import_car_bank(db, path, bank_id="toy")
    store_article(db, "toy", "q1", "good", ARTICLE, kind="imported")
    store_article(db, "toy", "q1", "bad", "Oceans are large bodies of salt water.", kind="imported")


def test_offline_grading_run(db, tmp_path):
    _bank(db, tmp_path)
    run = grade_bank(db, "toy")  # self-rating, threshold 4
    by = {r.system: r for r in run_scores(db, run)}
    # good: q1 2/2 (mc by key, free text grade 5), q2 no article -> 0 => EXAM 0.5
    assert by["good"].exam == pytest.approx(0.5) and by["good"].per_query["q2"] == 0.0
    assert by["bad"].exam == pytest.approx(0.0)
    grades = list(
        db.query(
            "select status, answer from exam_grades where question_id = "
            "'toy::mc1' order by article_id"
        )
    )
    assert grades[0]["answer"] == "b" and grades[1]["status"] == "abstained"
    frame = answered_frame(db, run, "q1")
    assert sorted(frame["good"]) == ["yes", "yes, rated 5 of 5"]  # mc by key; free text rated 5
    assert set(frame["bad"]) == {"no", "no, rated 0 of 5"}
    assert len(runs_frame(db)) == 1
    # re-running replaces the run's grades instead of doubling them
    grade_bank(db, "toy")
    assert db["exam_grades"].count == 4


def test_scripted_model_grading_counts_unparsed(db, tmp_path):
    from core.llm.scripted import set_script

    _bank(db, tmp_path)

    def reply(req):
        if req.task == "exam_answer_mc":
            return "b" if "Granite" in req.context else "none"
        if "Granite" in req.context:
            return '{"rating": 5, "answer": "yes"}'
        return "no idea"  # unparsable self-rating

    set_script("exam-qa", reply)
    run = grade_bank(db, "toy", qa_model="scripted:exam-qa")
    rows = {(r["article_id"], r["question_id"]): r for r in db["exam_grades"].rows}
    statuses = sorted(r["status"] for r in rows.values())
    assert statuses == ["ok", "ok", "unparsed", "unparsed"]
    assert all(r["correct"] is None for r in rows.values() if r["status"] == "unparsed")
    assert all(r["prompt_hash"] for r in rows.values())
    by = {r.system: r for r in run_scores(db, run)}
    assert by["good"].exam == pytest.approx(0.5) and by["bad"].exam == 0.0
    with pytest.raises(ConfigError):
        grade_bank(db, "toy", verification="vibes")


def test_ground_truth_lexical_on_derived_bank(db):
    now = utcnow()
    db["documents"].insert(
        {
            "id": "book",
            "title": "Rocks",
            "kind": "book",
            "source": "file",
            "text": ARTICLE,
            "n_chars": len(ARTICLE),
            "n_tokens": 40,
            "sha256": "x",
            "created_at": now,
            "updated_at": now,
        }
    )
    for i, (q, a) in enumerate(
        [
            ("What kind of rock is granite?", "an igneous rock"),
            ("What is limestone made of?", "calcium carbonate from shells"),
            ("Who wrote the book?", "nobody"),
        ]
    ):
        db["questions"].insert(
            {
                "id": f"g{i}",
                "document_id": "book",
                "question": q,
                "answers": json.dumps([a]),
                "origin": "generated",
                "created_at": now,
                "updated_at": now,
            }
        )
    res = derive_bank(db, "book")
    assert res["n_questions"] == 3
    with pytest.raises(InputError):
        derive_bank(db, "book", origin="narrativeqa")
    store_article(db, res["bank_id"], "book", "s", ARTICLE, kind="imported")
    run = grade_bank(db, res["bank_id"], verification="ground_truth")
    grades = sql_rows(db, "select score, correct from exam_grades where run_id = :run", run=run)
    assert len(grades) == 3 and all(g["score"] is not None for g in grades)
    assert {g["correct"] for g in grades} <= {0, 1}


def test_exam_vs_bradley_terry(db):
    now = utcnow()
    db["documents"].insert(
        {
            "id": "book",
            "title": "Rocks",
            "kind": "book",
            "source": "file",
            "text": ARTICLE,
            "n_chars": 1,
            "n_tokens": 1,
            "sha256": "x",
            "created_at": now,
            "updated_at": now,
        }
    )
    for i in range(6):
        db["questions"].insert(
            {
                "id": f"g{i}",
                "document_id": "book",
                "question": f"q{i}",
                "answers": "[]",
                "origin": "generated",
                "created_at": now,
                "updated_at": now,
            }
        )
    bank = derive_bank(db, "book")["bank_id"]
    quality = {"s1": "granite " * 5, "s2": "granite " * 3, "s3": "granite", "s4": "shells"}
    for s, text in quality.items():
        store_article(db, bank, "book", s, text, kind="generated")
    from core.llm.scripted import set_script

    # the scripted Q/A rates question i answerable when the article repeats 'granite' > i times
    set_script(
        "exam-bt",
        lambda r: json.dumps(
            {
                "rating": 5 if r.context.count("granite") > int(r.fields["question"][1:]) else 1,
                "answer": "",
            }
        ),
    )
    run = grade_bank(db, bank, qa_model="scripted:exam-bt")
    # side-by-side verdicts agreeing with the order s1 > s2 > s3 > s4, with a few upsets
    verdicts = []
    order = ["s1", "s2", "s3", "s4"]
    for qi in range(6):
        for i in range(4):
            for j in range(i + 1, 4):
                upset = (qi + i + j) % 5 == 0
                verdicts.append((f"g{qi}", order[i], order[j], "B" if upset else "A"))
    for q, a, b, v in verdicts:
        db["judgments"].insert(
            {
                "kind": "pairwise",
                "question_id": q,
                "rater": "auto:test",
                "rater_kind": "auto",
                "system_a": a,
                "system_b": b,
                "verdict": v,
                "created_at": now,
            }
        )
    out = correlate_with_bradley_terry(db, run, "book", n_boot=50)
    assert out["n_systems"] == 4
    assert out["exam"]["s1"] > out["exam"]["s2"] > out["exam"]["s3"] >= out["exam"]["s4"]
    assert out["spearman"] > 0.7 and -1 <= out["kendall_ties"] <= 1
    frame = correlation_frame(db, run, bt_document="book")
    assert "Bradley-Terry (side by side)" in set(frame["reference"])
    row = frame[
        (frame["reference"] == "Bradley-Terry (side by side)") & (frame["measure"] == "EXAM")
    ].iloc[0]
    assert row["Spearman"] == pytest.approx(out["spearman"])
    # one query: the EXAM side is tied by its binomial SE, as in correlate_with_bradley_terry
    from core.exam.bt_correlation import bradley_terry_reference
    from core.exam.scores import leaderboard_correlation

    beta, bse = bradley_terry_reference(db, "book", seed=0)
    same = leaderboard_correlation(out["exam"], beta, se=out["exam_se"], reference_se=bse)
    assert row["Spearman (SE ties)"] == pytest.approx(same["spearman_ties"])


# --- demo, views, CLI -------------------------------------------------------------------------


def test_demo_is_fast_and_orders_systems(db):
    start = time.process_time()  # CPU seconds: a budget that holds on a busy machine
    res = build_demo(db, ROOT / "demo")
    assert time.process_time() - start < 20
    scores = dict(res["leaderboard"])
    assert scores[GOLD] >= scores["bm25-pool-200"] >= scores["bm25-pool-60"] > 0
    board = leaderboard_frame(db, res["run_id"])
    assert {"EXAM", "EXAM SE", "n-EXAM (gold)", "n-EXAM (pool)", "ROUGE-1 F1"} <= set(board)
    assert board.loc[board["system"] == GOLD, "n-EXAM (gold)"].item() == pytest.approx(1.0)
    corr = correlation_frame(db, res["run_id"])
    assert set(corr["reference"]) == {"ROUGE-1 F1 vs gold"}
    grades = "select id, article_id, question_id, answer from exam_grades order by id"
    graded, calls = db.execute(grades).fetchall(), db["llm_calls"].count
    build_demo(db, ROOT / "demo")  # idempotent: the same bank and articles keep their grades
    assert db["exam_banks"].count == 1
    assert db.execute(grades).fetchall() == graded and db["llm_calls"].count == calls


def test_cli_commands(db_path, tmp_path, capsys):
    from core.__main__ import main

    assert main(["--db", str(db_path), "exam", "demo"]) == 0
    run = "exam:car-y3-sample:offline:self_rating:2"
    assert main(["--db", str(db_path), "exam", "scores", run, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert rows[0]["system"] == GOLD
    ref = tmp_path / "ref.csv"
    ref.write_text("system,score\nbm25-pool-200,3\nbm25-pool-60,2\nlead-pool-200,1\n")
    assert main(["--db", str(db_path), "exam", "correlate", run, "--reference", str(ref)]) == 0
    assert "reference leaderboard" in capsys.readouterr().out
    assert main(["--db", str(db_path), "exam", "reproduce-car"]) == 0
    assert "0.869" in capsys.readouterr().out
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query_id": "q"}\n')
    assert main(["--db", str(db_path), "exam", "import-bank", str(bad)]) == 2
    assert "line 1" in capsys.readouterr().err
    assert len(car_reproduction_frame()) >= 10


def test_article_builders_never_see_the_exam(db):
    from core.corpus.documents import upsert_document
    from core.exam.articles import generate_articles, lead_article, retrieval_article
    from core.llm.scripted import set_script

    book = "\n\n".join(
        [ARTICLE, "Tides are caused by the Moon's gravity.", "Waves carry energy across the ocean."]
        * 3
    )
    upsert_document(db, "book", book, kind="book", source="file", title="Rocks and seas")
    now = utcnow()
    db["questions"].insert(
        {
            "id": "g1",
            "document_id": "book",
            "question": "SECRET what is granite?",
            "answers": '["igneous rock"]',
            "origin": "generated",
            "created_at": now,
            "updated_at": now,
        }
    )
    bank = derive_bank(db, "book")["bank_id"]
    seen = []

    def writer(req):
        seen.append(req.prompt + req.context)
        return "An overview: granite is an igneous rock; tides follow the Moon."

    set_script("exam-writer", writer)
    assert generate_articles(db, bank, "writer", "scripted:exam-writer", budget_tokens=200) == 1
    assert seen and not any("SECRET" in s for s in seen)  # the exam stays held out
    assert "Rocks and seas" in seen[0]
    assert "granite" in retrieval_article(db, "book", "granite magma", 200).lower()
    assert lead_article(db, "book", 10_000).startswith("Granite")
    with pytest.raises(InputError):
        store_article(db, bank, "book", "x", "   ", kind="imported")
    with pytest.raises(InputError):
        store_article(db, bank, "no-such-query", "x", "text", kind="imported")


# --- audit additions: configuration errors, model rater, ROUGE-1, leaderboard columns ----------


def _derived(db):
    now = utcnow()
    db["documents"].insert(
        {
            "id": "book",
            "title": "Rocks",
            "kind": "book",
            "source": "file",
            "text": ARTICLE,
            "n_chars": len(ARTICLE),
            "n_tokens": 40,
            "sha256": "x",
            "created_at": now,
            "updated_at": now,
        }
    )
    for i, (q, a) in enumerate(
        [
            ("What kind of rock is granite?", "an igneous rock"),
            ("What is limestone made of?", "calcium carbonate"),
            ("Who wrote the book?", "nobody"),
        ]
    ):
        db["questions"].insert(
            {
                "id": f"g{i}",
                "document_id": "book",
                "question": q,
                "answers": json.dumps([a]),
                "origin": "generated",
                "created_at": now,
                "updated_at": now,
            }
        )
    bank = derive_bank(db, "book")["bank_id"]
    store_article(db, bank, "book", "s", ARTICLE, kind="imported")
    return bank


def test_default_threshold_is_four_and_bad_settings_fail(db, tmp_path):
    _bank(db, tmp_path)
    run = grade_bank(db, "toy")
    assert db["exam_runs"].get(run)["threshold"] == 4.0 and run.endswith(":4")
    with pytest.raises(ConfigError, match="out of range"):
        grade_bank(db, "toy", threshold=7)
    with pytest.raises(ConfigError, match="out of range"):
        grade_bank(db, "toy", verification="ground_truth", threshold=1.5)
    with pytest.raises(ConfigError, match="ground_truth"):
        grade_bank(db, "toy", rater_model="scripted:x")
    with pytest.raises(ConfigError, match="the offline Q/A system is 'offline'"):
        grade_bank(db, "toy", qa_model="offline:mc-bm25")
    # the CAR-style bank has no reference answers: a ground-truth run is refused, not all-zero
    with pytest.raises(ConfigError, match="reference answer"):
        grade_bank(db, "toy", verification="ground_truth")


def test_ground_truth_rater_model_decides_and_unparsed_is_counted(db):
    from core.llm.scripted import set_script

    bank = _derived(db)
    seen = []

    def rater(req):
        seen.append(req)
        if req.task == "answer":
            return {
                "What kind of rock is granite?": "igneous rock",
                "What is limestone made of?": "shells",
            }.get(req.fields["question"], "dunno")
        assert req.task == "match_reference"
        if "granite" in req.fields["question"]:
            return '{"verdict": "yes"}'
        if "limestone" in req.fields["question"]:
            return '{"verdict": "no"}'
        return "cannot say"

    set_script("exam-gt", rater)
    run = grade_bank(
        db,
        bank,
        qa_model="scripted:exam-gt",
        verification="ground_truth",
        rater_model="scripted:exam-gt",
    )
    got = {
        r["question_id"].split("::")[1]: (r["correct"], r["status"])
        for r in sql_rows(
            db, "select question_id, correct, status from exam_grades where run_id = :run", run=run
        )
    }
    assert got == {"g0": (1, "ok"), "g1": (0, "ok"), "g2": (None, "unparsed")}
    raters = {
        r["question_id"].split("::")[1]: r["rater"]
        for r in sql_rows(
            db, "select question_id, rater from exam_grades where run_id = :run", run=run
        )
    }
    assert raters == {"g0": "scripted:exam-gt", "g1": "scripted:exam-gt", "g2": "scripted:exam-gt"}
    refs = [r.fields["references"] for r in seen if r.task == "match_reference"]
    assert ["an igneous rock"] in refs  # the derived reference answers
    board = leaderboard_frame(db, run)
    row = board[board["system"] == "s"].iloc[0]
    assert row["EXAM"] == pytest.approx(1 / 3) and row["unparsed/errors"] == 1
    # one query: the binomial per-question SE sqrt(p(1-p)/n) is given, labelled
    assert row["EXAM SE (per question, binomial)"] == pytest.approx(((1 / 3) * (2 / 3) / 3) ** 0.5)


def test_rouge1_against_gold_and_missing_article_scores_zero(db, tmp_path):
    from rouge_score import rouge_scorer

    from core.exam.scores import rouge1_scores

    _bank(db, tmp_path)
    gold = "Granite is an igneous rock. Tides follow the Moon."
    store_article(db, "toy", "q1", GOLD, gold, kind="gold")
    store_article(db, "toy", "q2", GOLD, "Tides are caused by the Moon.", kind="gold")
    scores = rouge1_scores(db, "toy")
    ref = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True)
    f1 = ref.score(gold, ARTICLE)["rouge1"].fmeasure
    # 'good' has an article for q1 only: (f1 + 0) / 2
    assert scores["good"][0] == pytest.approx(f1 / 2) and 0 < f1 < 1
    assert scores["good"][1] == pytest.approx(f1 / 2)  # sd(f1, 0)/sqrt(2) = f1/2
    run = grade_bank(db, "toy")
    board = leaderboard_frame(db, run)
    assert board["EXAM SE (per question, binomial)"].isna().all()  # two queries: not given
    assert set(board["n-EXAM (gold) queries"]) <= {0, 1, 2}


def test_cli_bad_inputs_are_one_line_errors(db_path, tmp_path, capsys):
    from core.__main__ import main

    assert main(["--db", str(db_path), "exam", "demo"]) == 0
    capsys.readouterr()
    base = ["--db", str(db_path), "exam"]
    assert (
        main([*base, "articles", "car-y3-sample", "x", "--jsonl", str(tmp_path / "none.jsonl")])
        == 2
    )
    assert "no such file" in capsys.readouterr().err
    bad = tmp_path / "arts.jsonl"
    bad.write_text('{"query_id": "tqa2:L_0016", "text": "Rocks."}\n{"query_id": 3}\n')
    assert main([*base, "articles", "car-y3-sample", "x", "--jsonl", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and len(err.strip().splitlines()) == 1
    assert db_rows(db_path, "select count(*) from exam_articles where system = 'x'") == 0
    assert main([*base, "grade", "car-y3-sample", "--threshold", "9"]) == 2
    assert "out of range" in capsys.readouterr().err
    run = "exam:car-y3-sample:offline:self_rating:2"
    assert main([*base, "scores", run]) == 0
    assert "can exceed 1" in capsys.readouterr().out
    one = ROOT / "demo" / "exam" / "car-results" / "leaderboard-car-genq-self-rating-4.tsv"
    assert main([*base, "reproduce-car", str(one)]) == 0
    out = capsys.readouterr().out
    assert "0.869" in out and "official TREC" in out
    assert main([*base, "reproduce-car", str(tmp_path / "nowhere")]) == 2
    assert "no such folder" in capsys.readouterr().err


def db_rows(db_path, sql):
    db = open_db(db_path)
    try:
        return db.execute(sql).fetchone()[0]
    finally:
        db.close()


def test_grading_with_unusable_replies_says_so_and_exits_3(db_path, tmp_path, capsys):
    """A Q/A model whose replies the grader cannot read (here every one) used to leave a `done`
    run, exit 0 and a leaderboard of zeros; the run is `failed` now, with one error line."""
    from core.__main__ import main
    from core.llm.scripted import set_script

    db = open_db(db_path)
    _bank(db, tmp_path)
    db.conn.close()
    set_script("exam-mute", lambda req: "Hard to say; the passage is interesting.")
    base = ["--db", str(db_path), "exam", "grade", "toy", "--qa-model", "scripted:exam-mute"]
    capsys.readouterr()
    assert main(base) == 3
    out, err = capsys.readouterr()
    run = "exam:toy:scripted:exam-mute:self_rating:4"
    assert out.strip() == f"run {run}"
    assert err.strip().splitlines() == [
        f"error: exam run {run}: system bad 2/2 grades unparsed or failed (100%); "
        f"system good 2/2 grades unparsed or failed (100%) > max_failure_share 20%; "
        f"see `exam scores {run}`"
    ]
    assert db_rows(db_path, f"select status from runs where id = '{run}'") == "failed"
    # a tolerant limit lets the same run pass (nothing is graded again: the grades are stored)
    assert main([*base, "--max-failure-share", "1"]) == 0
    assert db_rows(db_path, f"select status from runs where id = '{run}'") == "done"


def test_generated_articles_that_fail_say_so_and_exit_3(db_path, capsys):
    """`exam articles --generate` with a model whose replies are empty (or failed) dropped them
    without a count: "0 articles stored", exit 0. Now they are counted and the command exits 3
    past --max-failure-share; a rerun with a working model writes the missing articles."""
    from core.__main__ import main
    from core.corpus.documents import upsert_document
    from core.llm.scripted import set_script

    db = open_db(db_path)
    upsert_document(db, "book", ARTICLE, kind="book", source="file", title="Rocks")
    now = utcnow()
    db["questions"].insert(
        {
            "id": "g1",
            "document_id": "book",
            "question": "What kind of rock is granite?",
            "answers": '["igneous rock"]',
            "origin": "generated",
            "created_at": now,
            "updated_at": now,
        }
    )
    bank = derive_bank(db, "book")["bank_id"]
    db.conn.close()
    state = {"ok": False}
    set_script("exam-blank", lambda req: "An overview of rocks." if state["ok"] else "  ")
    argv = ["--db", str(db_path), "exam", "articles", bank, "w"]
    capsys.readouterr()
    assert main([*argv, "--generate", "scripted:exam-blank"]) == 3
    out, err = capsys.readouterr()
    assert out.strip() == f"0 articles stored for system w in bank {bank}"
    assert err.strip().splitlines() == [
        "error: exam articles: scripted:exam-blank 1/1 replies failed or empty (100%) > "
        "max_failure_share 20%; a rerun asks again for the missing articles"
    ]
    state["ok"] = True
    assert main([*argv, "--generate", "scripted:exam-blank"]) == 0
    assert capsys.readouterr().out.strip() == f"1 articles stored for system w in bank {bank}"

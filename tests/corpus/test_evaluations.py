"""import-answers / import-judgments: plain files and the prd-vicuna80, mt-bench, arena layouts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from db_content import database_digest

from core.__main__ import main
from core.corpus.evaluation_layouts import majority, read_judgments
from core.corpus.evaluations import read_answers, store_evaluation
from core.errors import InputError
from core.store.database import open_db

DATA = Path(__file__).parent / "data" / "evaluations"


def judgments(db, where: str = "true") -> list[dict]:
    return [
        dict(r)
        for r in db.query(
            "select question_id, rater, rater_kind, kind, system, system_a, system_b, verdict, "
            f"order_shown, supersedes, answer_a_id, rationale from judgments where {where} order by id"
        )
    ]


def test_import_answers_creates_questions_systems_and_is_idempotent(db):
    first = store_evaluation(db, read_answers(DATA / "answers.csv"))
    assert first["answers"] == {"inserted": 4, "unchanged": 0, "updated": 0}
    assert first["questions"]["inserted"] == 2 and first["systems"]["inserted"] == 2
    q = {r["id"]: r["question"] for r in db.query("select id, question from questions")}
    assert q == {"q1": "What is the capital of France?", "q2": ""}
    models = dict(db.execute("select name, model from systems").fetchall())
    assert models == {"alpha": "openai:gpt-4o", "beta": "imported:beta"}
    again = store_evaluation(db, read_answers(DATA / "answers.csv"))
    assert again["answers"] == {"inserted": 0, "unchanged": 4, "updated": 0}
    assert again["questions"] == {"inserted": 0, "unchanged": 2, "updated": 0}


def test_plain_judgments_slots_raters_and_unknown_questions(db):
    store_evaluation(db, read_answers(DATA / "answers.csv"))
    counts = store_evaluation(db, read_judgments(DATA / "judgments.csv"))
    assert counts["judgments"] == {"inserted": 6, "unchanged": 0, "updated": 0}
    assert counts["questions"]["inserted"] == 1  # q3, known only from a verdict
    assert db.execute("select question from questions where id = 'q3'").fetchone()[0] == (
        "A question only the verdicts know"
    )
    rows = judgments(db)
    humans = sorted((r["rater"], r["verdict"]) for r in rows if r["question_id"] == "q1")[2:]
    # three slots of one item; which rating fills which slot does not follow the file's rows
    assert [r for r, _ in humans] == [f"human:anonymous#{k}" for k in (1, 2, 3)]
    assert sorted(v for _, v in humans) == ["A", "A", "Equal"]
    swapped = rows[1]
    assert (swapped["system_a"], swapped["verdict"], swapped["order_shown"]) == ("beta", "B", "ba")
    assert rows[0]["answer_a_id"] is not None and rows[0]["rationale"] == "alpha is right"
    assert rows[-1]["verdict"] == "None" and rows[-1]["answer_a_id"] is None
    again = store_evaluation(db, read_judgments(DATA / "judgments.csv"))
    assert again["judgments"] == {"inserted": 0, "unchanged": 6, "updated": 0}


def test_slots_do_not_follow_the_file_row_order(init_location, tmp_path):
    """The same anonymous ratings in any row order fill the same slots (and re-importing either
    file changes nothing)."""
    rows = [
        {
            "question_id": f"q{q}",
            "system_a": "x",
            "system_b": "y",
            "rater": "human:crowd#",
            "verdict": v,
        }
        for q in range(12)
        for v in ("A", "B", "Equal", "A")
    ]
    stored = []
    for name, found in (("one", rows), ("two", rows[::-1])):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in found), encoding="utf-8")
        d = open_db(init_location(name))
        try:
            store_evaluation(d, read_judgments(path))
            stored.append(
                sorted((r["question_id"], r["rater"], r["verdict"]) for r in judgments(d))
            )
            again = store_evaluation(d, read_judgments(path))
            assert again["judgments"]["inserted"] == again["judgments"]["updated"] == 0
        finally:
            d.close()
    assert stored[0] == stored[1]
    firsts = {v for q, r, v in stored[0] if r == "human:crowd#1"}
    assert len(firsts) > 1  # slot 1 is not always the same label


def test_absolute_verdicts_need_a_rater(db):
    with pytest.raises(InputError, match="line 1.*no rater"):
        read_judgments(DATA / "absolute.jsonl")
    store_evaluation(db, read_judgments(DATA / "absolute.jsonl", rater="auto:autoais-x"))
    rows = judgments(db)
    assert [(r["kind"], r["system"], r["verdict"]) for r in rows] == [
        ("absolute", "alpha", "yes"),
        ("absolute", "beta", "no"),
    ]


def test_changed_verdict_supersedes_the_old_one(db, tmp_path):
    store_evaluation(db, read_judgments(DATA / "judgments.csv"))
    changed = tmp_path / "changed.csv"
    changed.write_text(
        "question_id,system_a,system_b,verdict,rater,rationale\n"
        "q1,alpha,beta,B,auto:judge-x,changed my mind\n"
    )
    counts = store_evaluation(db, read_judgments(changed))
    assert counts["judgments"] == {"inserted": 0, "unchanged": 0, "updated": 1}
    latest = judgments(db, "rater = 'auto:judge-x' and system_a = 'alpha'")
    assert latest[-1]["supersedes"] is not None and latest[-1]["verdict"] == "B"


@pytest.mark.parametrize(
    ("path", "rater", "message"),
    [
        ("judgments_bad_verdict.csv", None, r"line 3, column 'verdict': unknown verdict 'maybe'"),
        ("answers_bad.csv", None, r"line 3, column 'system': empty value"),
        ("judgments.csv", None, None),
    ],
)
def test_bad_input_is_one_error_line_and_leaves_the_database_unchanged(
    db_path, capsys, path, rater, message
):
    dbfile = db_path
    assert main(["--db", str(dbfile), "import-answers", str(DATA / "answers.csv")]) == 0
    before = database_digest(dbfile)
    capsys.readouterr()
    command = "import-answers" if path.startswith("answers") else "import-judgments"
    args = ["--db", str(dbfile), command, str(DATA / path)]
    if message is None:  # a bad --rater
        args += ["--rater", "judge-without-kind"]
        message = "must be auto:NAME or human:NAME"
    assert main(args) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:")
    assert any(part in err[0] for part in message.split(".*")) or message in err[0]
    assert database_digest(dbfile) == before


def test_duplicate_named_verdict_is_an_error(db, tmp_path):
    dup = tmp_path / "dup.csv"
    dup.write_text(
        "question_id,system_a,system_b,verdict,rater\nq,a,b,A,human:bob\nq,a,b,B,human:bob\n"
    )
    with pytest.raises(InputError, match="line 3.*second verdict of human:bob.*line 2"):
        store_evaluation(db, read_judgments(dup))
    assert db.execute("select count(*) from judgments").fetchone()[0] == 0


def test_cli_json_counts(db_path, capsys):
    dbfile = str(db_path)
    args = ["--db", dbfile, "import-judgments", str(DATA / "judgments.csv"), "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["judgments"] == {"inserted": 6, "unchanged": 0, "updated": 0}
    assert set(out) == {"questions", "systems", "answers", "judgments"}
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["judgments"]["unchanged"] == 6


def test_prd_layout(db):
    counts = store_evaluation(db, read_judgments(DATA / "prd_vicuna80", "prd-vicuna80"))
    assert counts["answers"]["inserted"] == 4 and counts["questions"]["inserted"] == 2
    rows = judgments(db)
    gpt4 = [r for r in rows if r["rater"] == "auto:gpt-4 (PRD)"]
    assert len(gpt4) == 4 and {(r["system_a"], r["system_b"]) for r in gpt4} == {
        ("gpt4", "gpt35"),
        ("gpt35", "gpt4"),
    }
    assert all(r["answer_a_id"] for r in gpt4) and all(r["rationale"] for r in gpt4)
    slots = sorted(r["rater"] for r in rows if r["rater"].startswith("human:prd-crowd#"))
    assert (
        slots == ["human:prd-crowd#1"] * 2 + ["human:prd-crowd#2"] * 2 + ["human:prd-crowd#3"] * 2
    )
    maj = [
        (r["question_id"], r["system_a"], r["verdict"]) for r in rows if "majority" in r["rater"]
    ]
    assert sorted(maj) == [("vicuna80-1", "gpt4", "A"), ("vicuna80-2", "gpt35", "B")]
    again = store_evaluation(db, read_judgments(DATA / "prd_vicuna80", "prd-vicuna80"))
    assert again["judgments"]["inserted"] == 0 and again["answers"]["unchanged"] == 4


def test_majority_needs_more_than_half_of_two_or_more():
    assert majority(["A"]) is None
    assert majority(["A", "B", "Equal"]) is None
    assert majority(["A", "B", "A"]) == "A"
    assert majority(["A", "B"]) is None


def test_mt_bench_layouts(db):
    store_evaluation(db, read_judgments(DATA / "mt_bench_human.jsonl", "mt-bench"))
    rows = judgments(db)
    assert [(r["question_id"], r["rater"], r["verdict"]) for r in rows] == [
        ("81", "human:expert_0", "A"),
        ("81-turn2", "human:expert_0", "Equal"),
        ("81", "human:author_2", "B"),
        ("82", "auto:gpt4_pair", "B"),
    ]
    store_evaluation(db, read_judgments(DATA / "mt_bench_gpt4_pair.jsonl", "mt-bench"))
    pair = judgments(db, "rater = 'auto:gpt-4/pair-v2'")
    assert [(r["question_id"], r["system_a"], r["verdict"]) for r in pair] == [
        ("81", "gpt-4", "A"),
        # g2 saw llama-13b (model_2) first; FastChat names g2's winner as model_1/model_2
        ("81", "llama-13b", "A"),
        ("82", "gpt-4", "Equal"),
        ("82", "llama-13b", "B"),
    ]


@pytest.mark.parametrize("name", ["arena.json", "arena.jsonl"])
def test_arena_layout(db, name):
    store_evaluation(db, read_judgments(DATA / name, "arena"))
    rows = judgments(db)
    assert rows[0]["rater"] == "human:arena_user_1" and rows[0]["verdict"] == "A"
    assert rows[1]["verdict"] == "None"  # tie (bothbad)
    if name == "arena.json":
        assert [r["question_id"] for r in rows[2:]] == ["arena-3", "arena-4"]
        assert [r["rater"] for r in rows[2:]] == ["human:arena#1", "human:arena#1"]
        assert rows[3]["verdict"] == "Equal"


def test_unknown_winner_is_line_numbered(tmp_path):
    bad = tmp_path / "b.jsonl"
    bad.write_text(
        '{"model_a": "x", "model_b": "y", "winner": "model_a"}\n\n'
        '{"model_a": "x", "model_b": "y", "winner": "both"}\n'
    )
    with pytest.raises(InputError, match="line 3, column 'winner': unknown winner 'both'"):
        read_judgments(bad, "arena")

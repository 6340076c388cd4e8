"""Answering failures speak like judging failures: an answering server killed mid-run makes `run`
exit 3 with one `error:` line and status `failed`; a partial failure under `max_failure_share`
is a warning, and the systems are compared on the questions all of them answered. Questions:
accepted and edited by default; unreviewed ones only when the file says so (then a warning);
an interrupted run is a warning too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from llm_servers import FakeServer
from qa_fixtures import seed

from core.__main__ import main
from core.errors import ConfigError, InputError
from core.llm.catalog import configure, reset_configuration
from core.llm.registry import clear_instances
from core.pipeline.experiment import run_experiment
from core.pipeline.report import report
from core.store.database import open_db

KEY = "sk-answer-failures-0123456789abcdefXYZ"
EXPERIMENT = """
name = "answering"
seed = 1
c = 10
{extra}
[data]
origin = "narrativeqa"
{data}
[[systems]]
name = "loopback-full"
kind = "full"
model = "openai:gpt-4o-mini"

[[systems]]
name = "extractive-full"
kind = "full"
model = "offline:extractive"

[[judges]]
name = "ais-lexical"
kind = "autoais"
model = "offline:lexical"
context = "full"

[[judges]]
name = "sbs-lexical"
kind = "side_by_side"
model = "offline:lexical"
context = "full"
"""


def _setup(tmp_path: Path, db_path: Path | str, extra: str = "", data: str = "") -> Path:
    db = open_db(db_path)
    seed(db)
    db.conn.close()
    exp = tmp_path / "answering.toml"
    exp.write_text(EXPERIMENT.format(extra=extra, data=data), encoding="utf-8")
    return exp


@pytest.fixture
def dying(monkeypatch):
    """An answering server that dies after its first reply (one try per call, no backoff)."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("WORKBENCH_LLM_CACHE", raising=False)
    with FakeServer() as srv:
        srv.die_after = 1
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url + "/v1")
        configure("openai", max_attempts=2, backoff_base_s=0.01, backoff_max_s=0.02)
        clear_instances()
        yield srv
    reset_configuration()
    clear_instances()


def test_answering_server_killed_mid_run_exits_3_with_one_line(dying, tmp_path, db_path, capsys):
    exp = _setup(tmp_path, db_path)
    code = main(["--db", str(db_path), "run", str(exp), "--no-progress"])
    out = capsys.readouterr()
    assert dying.died.is_set()  # it really died mid-run (after one reply)
    assert code == 3, out
    assert len(out.err.strip().splitlines()) == 1, out.err  # exactly one line on stderr
    line = out.err.strip()
    assert line.startswith("error: experiment answering: answering: system loopback-full ")
    assert "1/2 answers failed (50%) > max_failure_share 20%" in line

    db = open_db(db_path)
    status = db.execute("select status from experiments").fetchone()[0]
    runs = db.execute("select status from runs where kind = 'experiment'").fetchall()
    judged = db.execute("select count(*) from judgments").fetchone()[0]
    assert (status, runs, judged) == ("failed", [("failed",)], 0)  # broken answers not judged
    rep = report(db, "answering")
    assert rep["status"] == "failed"
    assert rep["answer_failures"]["loopback-full"] == {"n": 2, "failed": 1, "share": 0.5}
    assert any(
        w.startswith("answering: system loopback-full: 1 of 2 answers failed (50%)")
        and "over max_failure_share" in w
        for w in rep["warnings"]
    )
    assert main(["--db", str(db_path), "report", "answering"]) == 0
    assert "warning: answering: system loopback-full" in capsys.readouterr().out


def test_malformed_replies_fail_the_answering_stage(dying, tmp_path, db_path, capsys):
    dying.die_after = None
    dying.plan = ["ok"] + ["nonjson"] * 4  # one reply, then a proxy's HTML page as JSON
    exp = _setup(tmp_path, db_path)
    assert main(["--db", str(db_path), "run", str(exp), "--no-progress"]) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "answering: system loopback-full 1/2 answers failed (50%)" in err


def test_partial_answering_failure_warns_and_compares_on_shared_questions(
    dying, tmp_path, db_path, capsys
):
    exp = _setup(tmp_path, db_path, extra="max_failure_share = 0.5")
    assert main(["--db", str(db_path), "run", str(exp), "--no-progress", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["answers"] == {"answered": 3, "errors": 1}
    db = open_db(db_path)
    failed_q = db.execute(
        "select question_id from answers where status = 'error' and system = 'loopback-full'"
    ).fetchone()[0]
    kept_q = ({"q1", "q2"} - {failed_q}).pop()
    rep = report(db, "answering")
    assert rep["status"] == "done"
    assert rep["comparison"] == {
        "questions": [kept_q],
        "left_out": {"loopback-full": [failed_q]},
        "skipped": {},
    }
    # both systems rated on the one question both answered, though the other has two answers
    assert {r["system"]: r["n"] for r in rep["accuracy"]["ais-lexical"]} == {
        "loopback-full": 1,
        "extractive-full": 1,
    }
    stored = db.execute(
        "select count(*) from judgments where rater = 'auto:ais-lexical'"
    ).fetchone()[0]
    assert stored == 3  # judged were all three answers; the report leaves one out
    assert rep["ranking"]["sbs-lexical"]["n_questions"] <= 1
    warns = rep["warnings"]
    assert any(
        w.startswith("answering: system loopback-full: 1 of 2 answers failed") for w in warns
    )
    assert not any("over max_failure_share" in w for w in warns)
    assert any(
        w.startswith("systems compared on the 1 of 2 questions all of them answered")
        and f"system loopback-full has no answer to 1: {failed_q}" in w
        for w in warns
    )


OFFLINE = EXPERIMENT.replace('model = "openai:gpt-4o-mini"', 'model = "offline:extractive"')


def _offline(tmp_path: Path, db_path: Path | str, data: str = "") -> tuple[object, Path]:
    exp = _setup(tmp_path, db_path)
    exp.write_text(OFFLINE.format(extra="", data=data), encoding="utf-8")
    return open_db(db_path), exp


def test_interrupted_run_is_a_warning(tmp_path, db_path):
    db, exp = _offline(tmp_path, db_path)
    run_experiment(db, exp, progress=False)
    db.execute("update experiments set status = 'interrupted'")
    warns = report(db, "answering")["warnings"]
    assert warns[0].startswith("run interrupted: the results are partial")
    db.execute("update experiments set status = 'done'")
    assert not any("interrupted" in w for w in report(db, "answering")["warnings"])


def test_questions_are_reviewed_ones_unless_the_file_says_so(tmp_path, db_path):
    db, exp = _offline(tmp_path, db_path)
    db.execute("update questions set status = 'pending' where id = 'q1'")
    db.execute(
        "insert into questions (id, document_id, context_document_id, context_kind, "
        "question, answers, origin, status, created_at, updated_at) select 'q3', "
        "document_id, context_document_id, context_kind, question || ' again', answers, "
        "origin, 'discarded', created_at, updated_at from questions where id = 'q2'"
    )
    db.execute(
        "insert into questions (id, document_id, context_document_id, context_kind, "
        "question, answers, origin, status, created_at, updated_at) select 'q4', "
        "document_id, context_document_id, context_kind, question || ' no', answers, "
        "origin, 'rejected', created_at, updated_at from questions where id = 'q2'"
    )
    assert run_experiment(db, exp, progress=False)["questions"] == 1  # q2 only
    rep = report(db, "answering")
    assert rep["question_statuses"]["unreviewed"] == 0
    assert not any("unreviewed" in w for w in rep["warnings"])

    exp.write_text(OFFLINE.format(extra="", data="include_unreviewed = true"), encoding="utf-8")
    assert run_experiment(db, exp, progress=False)["questions"] == 2  # q1 and q2
    rep = report(db, "answering")
    assert "unreviewed questions: 1" in rep["warnings"]
    assert not any(w.startswith(("rejected", "discarded")) for w in rep["warnings"])

    exp.write_text(OFFLINE.format(extra="", data='status = ["accepted", "rejected"]'), "utf-8")
    assert run_experiment(db, exp, progress=False)["questions"] == 2  # q2 and q4, said so
    assert "rejected questions: 1" in report(db, "answering")["warnings"]


def test_listed_unreviewed_question_ids_and_a_double_filter_are_errors(tmp_path, db_path):
    db, exp = _offline(tmp_path, db_path, data='question_ids = ["q1", "q2"]')
    db.execute("update questions set status = 'pending' where id = 'q1'")
    with pytest.raises(InputError, match="question_ids q1 have status pending"):
        run_experiment(db, exp, progress=False)
    assert db.execute("select count(*) from answers").fetchone()[0] == 0  # nothing written
    exp.write_text(
        OFFLINE.format(extra="", data='include_unreviewed = true\nstatus = ["pending"]'), "utf-8"
    )
    with pytest.raises(ConfigError, match="both 'status' and 'include_unreviewed'"):
        run_experiment(db, exp, progress=False)


def test_a_system_skipping_by_design_is_listed_not_left_out(tmp_path, db_path, capsys):
    db, exp = _offline(tmp_path, db_path)
    exp.write_text(
        OFFLINE.format(extra="", data="")
        + '\n[[systems]]\nname = "no-oracle"\nkind = "oracle"\nsuffix = "#missing"\n'
        'if_missing = "skip"\nmodel = "offline:extractive"\n',
        encoding="utf-8",
    )
    run_experiment(db, exp, progress=False)
    rep = report(db, "answering")
    assert rep["comparison"] == {
        "questions": ["q1", "q2"],  # the others are still compared on both questions
        "left_out": {},
        "skipped": {"no-oracle": ["q1", "q2"]},
    }
    assert not any("compared on" in w for w in rep["warnings"])
    db.conn.close()
    assert main(["--db", str(db_path), "report", "answering"]) == 0
    assert 'note: no-oracle skips 2 questions by design (if_missing = "skip"' in (
        capsys.readouterr().out
    )

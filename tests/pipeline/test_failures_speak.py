"""Failures that speak: a judge that breaks the verdict contract makes `run` exit 3 with
warnings; a killed run is shown `interrupted` and the next run resumes it; thin intervals are
flagged."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bound_sql import run_sql
from llm_servers import FakeServer, openai_reply
from qa_fixtures import seed

from core.__main__ import main
from core.llm.catalog import reset_configuration
from core.llm.registry import clear_instances
from core.pipeline.experiment import list_experiments
from core.pipeline.report import report
from core.store.database import open_db
from core.store.runs import mark_dead_runs, pid_alive, start_run

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-failures-test-0123456789abcdefXYZ"
EXPERIMENT = """
name = "contract"
seed = 1
c = 10
{extra}
[data]
origin = "narrativeqa"

[[systems]]
name = "extractive-full"
kind = "full"
model = "offline:extractive"

[[judges]]
name = "ais-loopback"
kind = "autoais"
model = "openai:gpt-4o-mini"
context = "full"
"""


def _setup(tmp_path: Path, db_path: Path | str, extra: str = "") -> Path:
    db = open_db(db_path)
    seed(db)
    db.conn.close()
    exp = tmp_path / "contract.toml"
    exp.write_text(EXPERIMENT.format(extra=extra), encoding="utf-8")
    return exp


def _off_contract() -> tuple:
    """A well-formed chat reply whose text ignores the verdict contract (no JSON, no verdict)."""
    payload = openai_reply({"messages": [{"role": "user", "content": "x"}]})
    payload["choices"][0]["message"]["content"] = "Hard to say; the passage is interesting."
    return ("status", 200, {}, payload)


@pytest.fixture
def loopback(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("WORKBENCH_LLM_CACHE", raising=False)
    with FakeServer() as srv:
        srv.sticky[""] = _off_contract()
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url + "/v1")
        clear_instances()
        yield srv
    reset_configuration()
    clear_instances()


def test_judge_breaking_the_contract_exits_3_with_warnings(loopback, tmp_path, db_path, capsys):
    exp = _setup(tmp_path, db_path)
    code = main(["--db", str(db_path), "run", str(exp), "--no-progress"])
    out = capsys.readouterr()
    assert code == 3, out
    errors = [line for line in out.err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "ais-loopback 2/2 verdicts unparsed or failed (100%)" in errors[0]
    assert "max_failure_share 20%" in errors[0]
    assert loopback.calls  # the judge really was asked

    assert main(["--db", str(db_path), "report", "contract", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["status"] == "failed"
    assert any("unparsed or failed (100%)" in w for w in rep["warnings"])
    assert any("no usable verdicts" in w for w in rep["warnings"])
    assert main(["--db", str(db_path), "report", "contract"]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0].startswith("warning: judge ais-loopback")


def test_a_tolerant_max_failure_share_lets_the_run_pass(loopback, tmp_path, db_path, capsys):
    exp = _setup(tmp_path, db_path, extra="max_failure_share = 1.0")
    assert main(["--db", str(db_path), "run", str(exp), "--no-progress"]) == 0


def test_too_few_questions_flag_the_interval(db):
    from core.pipeline.trust import TOO_FEW, report_warnings

    rep = {
        "accuracy": {
            "ais": [{"system": "s", "n": 2, "n_questions": 2, "too_few": True}],
        },
        "ranking": {"sbs": {"too_few": True, "n_questions": 1, "systems": []}},
    }
    warns = report_warnings(rep)
    assert sum(TOO_FEW in w for w in warns) == 2


def test_dead_process_run_is_interrupted(db):
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    run_id = start_run(db, "experiment", "x", {})
    run_sql(db, "update runs set pid = :pid where id = :id", pid=child.pid, id=run_id)
    assert not pid_alive(child.pid) and pid_alive(os.getpid())
    assert mark_dead_runs(db) == [run_id]
    assert db["runs"].get(run_id)["status"] == "interrupted"
    mine = start_run(db, "experiment", "y", {})  # this process: alive, left running
    assert mark_dead_runs(db) == []
    assert db["runs"].get(mine)["status"] == "running"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_killed_run_is_reported_interrupted_and_resumes(monkeypatch, tmp_path, db_path, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("WORKBENCH_LLM_CACHE", raising=False)
    exp = _setup(tmp_path, db_path, extra="max_failure_share = 1.0")
    with FakeServer() as slow:
        slow.hold_after(0)  # the judge never answers before the kill
        env = {
            **os.environ,
            "OPENAI_BASE_URL": slow.url + "/v1",
            "PYTHONPATH": str(ROOT),
        }
        child = subprocess.Popen(
            [sys.executable, "-m", "core", "--db", str(db_path), "run", str(exp), "--no-progress"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 60
        while not slow.calls and time.monotonic() < deadline:
            assert child.poll() is None, child.stderr.read().decode()[-2000:]
            time.sleep(0.05)
        assert slow.calls, "the child never reached the judge"
        child.send_signal(signal.SIGKILL)
        child.wait()
    raw = open_db(db_path, migrate=False)  # not marking dead runs: still "running"
    try:
        assert raw.execute("select status from experiments").fetchone()[0] == "running"
        n_answers = raw.execute("select count(*) from answers").fetchone()[0]
    finally:
        raw.close()
    assert n_answers == 2

    assert main(["--db", str(db_path), "experiments", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[0]["status"] == "interrupted"
    assert [r["status"] for r in listed[0]["runs"]] == ["interrupted"]
    killed = report(open_db(db_path), "contract")
    assert killed["status"] == "interrupted"
    assert killed["warnings"][0].startswith("run interrupted: the results are partial")

    with FakeServer() as fast:
        fast.sticky[""] = _off_contract()
        monkeypatch.setenv("OPENAI_BASE_URL", fast.url + "/v1")
        clear_instances()
        assert main(["--db", str(db_path), "run", str(exp), "--no-progress", "--json"]) == 0
        summary = json.loads(capsys.readouterr().out)
        assert summary["resumed_from"] == listed[0]["runs"][0]["id"]
        assert summary["answers"]["answered"] == 0  # the stored answers were kept
        assert len(fast.calls) == 2  # only the judge calls the killed run never finished
    reset_configuration()
    clear_instances()
    db = open_db(db_path)
    runs = list_experiments(db)[0]["runs"]
    assert [r["status"] for r in runs] == ["done", "interrupted"]


CUT_SYSTEM = """
name = "cut"
seed = 1
c = 10
[data]
origin = "narrativeqa"

[[systems]]
name = "reasoner-full"
kind = "full"
model = "openai:gpt-4o-mini"

[[judges]]
name = "ais-lexical"
kind = "autoais"
model = "offline:lexical"
context = "full"
"""


def test_an_empty_answer_cut_at_the_token_limit_is_a_failed_answer(
    monkeypatch, tmp_path, db_path, capsys
):
    """A reasoning model whose thinking uses the whole ``max_tokens`` replies with no text and
    finish_reason ``length``: that was stored as an abstention and the run passed (accuracy 0);
    it is a failed answer now, and the run says so (exit 3)."""
    payload = openai_reply({"messages": [{"role": "user", "content": "x"}]})
    payload["choices"][0]["message"]["content"] = ""
    payload["choices"][0]["finish_reason"] = "length"
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("WORKBENCH_LLM_CACHE", raising=False)
    with FakeServer() as srv:
        srv.sticky[""] = ("status", 200, {}, payload)
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url + "/v1")
        clear_instances()
        try:
            _setup(tmp_path, db_path)
            exp = tmp_path / "cut.toml"
            exp.write_text(CUT_SYSTEM, encoding="utf-8")
            code = main(["--db", str(db_path), "run", str(exp), "--no-progress"])
        finally:
            reset_configuration()
            clear_instances()
    err = capsys.readouterr().err
    assert code == 3, err
    assert "system reasoner-full 2/2 answers failed (100%)" in err
    db = open_db(db_path)
    try:
        got = run_sql(db, "select status, text, error from answers where system = 'reasoner-full'")
        got = [tuple(r) for r in got.fetchall()]
    finally:
        db.conn.close()
    assert (
        got
        == [
            (
                "error",
                "",
                "empty reply cut at the token limit (finish_reason length); raise the "
                "system's max_tokens",
            )
        ]
        * 2
    )

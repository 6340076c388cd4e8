"""The key-free demo: built from the bundled data, every stage has rows, every page renders on it,
the shipped offline experiment runs and reports through the CLI on it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pg_server import module_backend  # noqa: F401  (fixture: one backend per module)
from spacy_once import extraction_once, shared_folder
from streamlit.testing.v1 import AppTest

from core.cli.demo import build_demo, summary_text
from core.store.connection import rows, table_counts
from core.store.database import open_db
from core.store.runs import recent_runs
from core.store.settings import all_settings

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["app.py", *sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("[0-9]*.py"))]


@pytest.fixture(scope="module")
def demo_db(module_db_location, tmp_path_factory) -> Path | str:
    """The full demo, built once per backend for the module's tests (the entities of each book,
    spaCy's NER in them, shared with the other tests that read it in the session:
    :func:`spacy_once.extraction_once`)."""
    path = module_db_location("demo")
    db = open_db(path)
    try:
        with extraction_once(shared_folder(tmp_path_factory)):
            build_demo(db)
    finally:
        db.conn.close()
    return path


def test_demo_fills_every_stage(demo_db):
    db = open_db(demo_db)
    try:
        origins = {
            r["origin"]: r["n"]
            for r in rows(db, "select origin, count(*) n from questions group by origin")
        }
        assert origins["narrativeqa"] == 92 and origins["generated"] > 0 and origins["xrag"] > 0
        gen = rows(db, "select provenance from questions where origin = 'generated' limit 1")[0]
        assert gen["provenance"]["model"] == "baseline:entity-cooccurrence"
        assert db["answers"].count > 0 and db["disputes"].count > 0
        kinds = {r["kind"] for r in rows(db, "select distinct kind from judgments")}
        assert kinds == {"absolute", "pairwise"}
        assert db["exam_grades"].count > 0 and db["xrag_results"].count > 0
        # The demo's systems are offline baselines, named as such.
        # systems made here are offline baselines; imported ones (PRD) carry their source prefix
        assert all(
            r["model"].startswith(("offline:", "prd:"))
            for r in rows(db, "select model from systems")
        )
        # Two annotations per item: two people meet on the same items (agreement, adjudication).
        assert all_settings(db)["annotations_per_item"] == 2
    finally:
        db.conn.close()


def test_demo_rebuild_is_idempotent(demo_db, module_db_location):
    """A re-run with nothing changed changes nothing (issue 34): every table keeps its row count,
    no question is re-stamped, and no ``runs`` or ``llm_calls`` rows are added (every call is
    answered from the cache), so the Overview's runs and cost stay as they were."""
    db = open_db(module_db_location("again", copy_of=demo_db))
    try:
        stamps = "select id, updated_at from questions order by id"
        before, stamped = table_counts(db), db.execute(stamps).fetchall()
        runs = [r.id for r in recent_runs(db, 1000)]
        summary = build_demo(db)
        after = table_counts(db)
        assert db.execute(stamps).fetchall() == stamped
        assert [r.id for r in recent_runs(db, 1000)] == runs
    finally:
        db.conn.close()
    assert before["runs"] > 0 and before["llm_calls"] > 0
    assert {t: n for t, n in after.items() if before.get(t) != n} == {}
    assert summary["narrativeqa"]["result"]["questions_unchanged"] == 92
    text = summary_text("demo.db", 1.0, before, after)
    assert text.startswith("Demo database ready: demo.db (nothing changed: ")


def test_demo_summary_says_what_was_built_where_to_open_it_and_where_to_start(demo_db):
    """The closing lines of ``make run``'s first build: short, for a person, no ids or floats."""
    db = open_db(demo_db)
    try:
        after = table_counts(db)
    finally:
        db.conn.close()
    text = summary_text("data/workbench.db", 312.4, {}, after)
    lines = text.splitlines()
    assert len(lines) <= 6 and max(map(len, lines)) <= 120
    assert lines[0].startswith("Demo database ready: data/workbench.db (added ")
    assert lines[0].endswith("; 312 s).")
    assert (
        f"{after['questions']:,} questions" in text and f"{after['judgments']:,} judgments" in text
    )
    assert "http://127.0.0.1:8501" in text and "make run" in text
    assert "Start on: Overview" in text and "demo --json" in text
    assert not re.search(r"\d\.\d{4}", text) and "{" not in text


def test_the_offline_experiment_through_the_cli(demo_db, module_db_location):
    """The shipped offline experiment on the bundled NarrativeQA demo, through the CLI, as its own
    process: ``run experiments/demo_offline.toml`` on a copy of the demo (whose build ran that file
    with the same ``run_experiment``, from scratch; the CLI resumes it) exits 0, and ``report``
    says what the run found, as JSON and as text."""
    db_path = module_db_location("cli", copy_of=demo_db)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def cli(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "core", "--db", str(db_path), *argv],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    run = cli("run", "experiments/demo_offline.toml", "--no-progress")
    assert run.returncode == 0, run.stderr
    out = cli("report", "demo_offline", "--json")
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    board = rep["ranking"]["sbs-lexical"]["systems"]
    assert len(board) == 4 and all(r["ci_low"] <= r["beta"] <= r["ci_high"] for r in board)
    assert board[-1]["name"] == "extractive/none"  # the closed-book baseline abstains
    assert rep["disputes"]["n"] > 0
    assert rep["accuracy"]["autoais-lexical"][0]["ci_high"] is not None
    # issue 36: the report says what offline scores can and cannot show
    scope = " ".join(rep["offline_scope"])
    assert "offline systems (" in scope and "offline judges (" in scope
    assert "cannot show how well a model reads a long book" in scope
    assert rep["span"]["evidence"] >= rep["span"]["evidence_at_ends"]  # the spread, reported
    text = cli("report", "demo_offline")
    assert "Bradley-Terry ranking by sbs-lexical" in text.stdout
    assert "note: offline scores can rank retrieval set-ups" in text.stdout


@pytest.mark.parametrize("path", PAGES)
def test_every_page_renders_on_demo_db(demo_db, path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(demo_db))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params["name"] = "demo-viewer"  # open mode: the demo has no accounts
    at.run()
    if path != "app.py":
        at.switch_page(path)
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def test_the_demos_benchmark_exports_and_loads_as_a_dataset(demo_db, tmp_path, monkeypatch):
    """Issue 35, on the demo itself: its accepted questions export; every config loads with
    Hugging Face ``datasets`` offline (``load_dataset(DIR, CONFIG)`` and
    ``load_dataset("json", data_dir=...)``) and with pandas; ``croissant.json`` validates and
    yields every record in ``mlcroissant``; the card's per-rater decision is the Rater
    validation page's."""
    import socket

    import datasets
    import mlcroissant as mlc
    import pandas as pd
    from cli_run import run_cli

    from core.views.rater_epsilon import stored_choice
    from core.views.rater_report.assemble import TASK, report_for_choice

    def refuse(*args, **kwargs):
        raise AssertionError("a loader tried the network")

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    out = tmp_path / "bench"
    code, _, err = run_cli(["--db", str(demo_db), "export", "benchmark", "--out", str(out)])
    assert code == 0, err
    card = (out / "README.md").read_text(encoding="utf-8")
    head = _yaml_header(card)
    configs = [c["config_name"] for c in head["configs"]]
    assert "questions" in configs and "verdicts" in configs
    cache = str(tmp_path / "cache")
    croissant = mlc.Dataset(jsonld=out / "croissant.json")
    assert not croissant.metadata.ctx.issues.errors
    for config in configs:
        lines = sum(
            len(f.read_text(encoding="utf-8").splitlines()) for f in (out / config).glob("*.jsonl")
        )
        assert datasets.load_dataset(str(out), config, cache_dir=cache)["train"].num_rows == lines
        plain = datasets.load_dataset("json", data_dir=str(out / config), cache_dir=cache)
        assert plain["train"].num_rows == lines
        frame = pd.concat(
            pd.read_json(f, lines=True) for f in sorted((out / config).glob("*.jsonl"))
        )
        assert len(frame) == lines
        assert sum(1 for _ in croissant.records(config)) == lines, config
    questions = pd.read_json(out / "questions" / "questions.jsonl", lines=True)
    assert set(questions["status"]) <= {"accepted", "edited"} and len(questions) > 100
    assert all(isinstance(a, list) for a in questions["answers"])
    _reimports_whole(out, tmp_path / "fresh.db")
    db = open_db(demo_db)
    try:
        page = report_for_choice(db, stored_choice(db, TASK).text)
    finally:
        db.close()
    assert page["compare"]
    for row in page["compare"]:
        assert f"| {row['rater']} | {row['status']} |" in card


def _yaml_header(card: str) -> dict:
    """The card's YAML header: one ``key: value`` per line, values in JSON's flow syntax (which
    is YAML too)."""
    import json

    head = card.split("---\n")[1]
    return {k: json.loads(v) for k, v in (line.split(": ", 1) for line in head.splitlines())}


def _reimports_whole(out: Path, fresh: Path) -> None:
    """``import-questions`` of the exported questions into a fresh database (its documents from
    the export; a text the licence kept back is a placeholder) gives back every question with
    its text, short answers and document, the open questions without one (Vicuna-80) too."""
    import json

    from cli_run import run_cli

    from core.corpus.documents import upsert_document
    from core.store.questions import get_question

    def lines(path: Path) -> list[dict]:
        return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]

    db = open_db(fresh)
    try:
        for doc in lines(out / "documents" / "documents.jsonl"):
            text = doc["text"] or "placeholder: the text travels by its pointer"
            upsert_document(db, doc["id"], text, kind=doc["kind"], source=doc["source"])
    finally:
        db.close()
    exported = lines(out / "questions" / "questions.jsonl")
    assert any(q["document_id"] is None for q in exported)  # Vicuna-80: open questions
    code, _, err = run_cli(
        ["--db", str(fresh), "import-questions", str(out / "questions" / "questions.jsonl")]
    )
    assert code == 0, err
    db = open_db(fresh)
    try:
        for row in exported:
            stored = get_question(db, row["id"])
            assert stored is not None, row["id"]
            assert (stored.question, stored.answers, stored.document_id) == (
                row["question"],
                row["answers"],
                row["document_id"],
            )
    finally:
        db.close()

"""Experiments: dry run, reruns, and bad input before any request (the shipped offline demo
experiment through the CLI: tests/pipeline/test_demo.py)."""

import json
from pathlib import Path

import pytest
from bound_sql import sql_rows
from db_content import snapshot
from qa_fixtures import seed

from core.errors import ConfigError, ContextTooLongError, InputError
from core.llm import catalog
from core.llm.scripted import call_count, set_script
from core.pipeline.experiment import run_experiment
from core.pipeline.report import report
from core.store.connection import table_counts

ROOT = Path(__file__).resolve().parents[2]


def config(**over):
    """A small scripted experiment over the seeded story."""
    cfg = {
        "name": "t",
        "seed": 1,
        "c": 10,
        "data": {"origin": "narrativeqa"},
        "systems": [
            {"name": "s-none", "kind": "none", "model": "scripted:ans"},
            {"name": "s-full", "kind": "full", "model": "scripted:ans"},
        ],
        "judges": [
            {
                "name": "ais",
                "kind": "autoais",
                "model": "scripted:judge",
                "context": "rag",
                "tokens": 900,
            },
            {
                "name": "sbs",
                "kind": "side_by_side",
                "model": "scripted:judge",
                "context": "none",
                "both_orders": True,
            },
        ],
    }
    cfg.update(over)
    return cfg


def scripts():
    set_script("ans", lambda r: "Orion." if r.context else "I don't know.")

    def judge(r):
        if r.task == "support":
            return json.dumps(
                {
                    "verdict": "yes" if "Orion" in r.fields["answer"] else "no",
                    "evidence": ["a telescope named Orion"],
                }
            )
        a, b = r.fields["answer_a"], r.fields["answer_b"]
        return json.dumps({"verdict": "A" if "Orion" in a else "B" if "Orion" in b else "None"})

    set_script("judge", judge)


def test_scripted_experiment_runs_reports_and_resumes(db):
    seed(db)
    scripts()
    summary = run_experiment(db, config(), progress=False)
    assert summary["answers"] == {"answered": 4, "errors": 0}
    assert summary["judges"]["sbs"]["judged"] == 4  # 2 questions x 1 pair x 2 orders
    rep = report(db, "t")
    acc = {r["system"]: r for r in rep["accuracy"]["ais"]}
    assert acc["s-full"]["accuracy"] == 1.0 and acc["s-none"]["accuracy"] == 0.0
    assert acc["s-full"]["ci_low"] < 1.0 and acc["s-full"]["interval"] == "Wilson"
    board = rep["ranking"]["sbs"]
    assert board["systems"][0]["name"] == "s-full"
    assert rep["position_consistency"]["sbs"]["n_pairs"] == 2
    # seeded questions store no span fraction: counted as missing, none flagged
    assert rep["span"]["n"] == 0 and rep["span"]["missing"] == 2 and rep["span"]["flagged"] == 0
    assert rep["offline_scope"] == []  # no offline baseline: nothing to qualify
    n_calls = call_count("judge")
    again = run_experiment(db, config(), progress=False)
    assert again["answers"]["answered"] == 0 and call_count("judge") == n_calls


def test_adaptive_tournament_spends_its_budget_and_resumes(db):
    seed(db)
    scripts()
    cfg = config(
        systems=[
            {"name": "s-none", "kind": "none", "model": "scripted:ans"},
            {"name": "s-full", "kind": "full", "model": "scripted:ans"},
            {"name": "s-rag", "kind": "rag", "model": "scripted:ans"},
        ],
        judges=[
            {"name": "sbs", "kind": "side_by_side", "model": "scripted:judge", "context": "none"}
        ],
        tournament={"design": "adaptive", "budget": 0.5, "batch": 2},
    )
    summary = run_experiment(db, cfg, progress=False)
    # full design: 2 questions x 3 pairs = 6 calls; budget 0.5 -> 3
    assert summary["judges"]["sbs"]["judged"] == 3
    n = call_count("judge")
    again = run_experiment(db, cfg, progress=False)
    assert again["judges"]["sbs"]["judged"] == 0 and call_count("judge") == n
    assert len(list(db.query("select id from judgments where rater = 'auto:sbs'"))) == 3


def test_report_of_a_shared_rater_counts_only_its_own_systems(db):
    seed(db)
    scripts()
    run_experiment(db, config(), progress=False)
    other = config(
        name="t2",
        systems=[
            {"name": "s-none", "kind": "none", "model": "scripted:ans"},
            {"name": "s-rag", "kind": "rag", "model": "scripted:ans"},
        ],
    )
    run_experiment(db, other, progress=False)
    rep = report(db, "t2")
    assert rep["raters"]["ais"]["n"] == 4  # 2 questions x 2 systems, not 3 systems
    assert rep["raters"]["sbs"]["n"] == 4  # 2 questions x 1 pair x 2 orders
    assert rep["position_consistency"]["sbs"]["n_pairs"] == 2


def test_dry_run_sends_and_writes_nothing(db):
    seed(db)
    scripts()
    before = table_counts(db)
    plan = run_experiment(db, config(), dry_run=True, progress=False)
    assert plan["answer_calls"] == 4
    assert plan["judge_calls"] == 2 * 2 + 2 * 2  # absolute: 2 systems; sbs: 1 pair x 2
    assert plan["input_tokens"] > 0
    assert table_counts(db) == before and call_count("ans") == 0


@pytest.mark.parametrize(
    "change, error, match",
    [
        (
            {"systems": [{"name": "x", "kind": "psychic", "model": "scripted:ans"}]},
            ConfigError,
            "unknown system kind",
        ),
        (
            {"judges": [{"name": "j", "kind": "vibes", "model": "scripted:judge"}]},
            ConfigError,
            "unknown judge kind",
        ),
        (
            {
                "systems": [
                    {"name": "x", "kind": "none", "model": "nosuch:model"},
                    {"name": "y", "kind": "none", "model": "scripted:ans"},
                ]
            },
            ConfigError,
            "unknown model",
        ),
        (
            {
                "systems": [
                    {"name": "x", "kind": "none", "model": "openai:gpt-4o"},
                    {"name": "y", "kind": "none", "model": "scripted:ans"},
                ]
            },
            ConfigError,
            "no key",
        ),
        ({"data": {"documents": ["no-such-book"]}}, InputError, "no questions"),
        ({"tournament": {"judges": ["ais"]}}, ConfigError, "not a pairwise judge"),
    ],
)
def test_bad_input_fails_before_any_request_and_writes_nothing(
    db, db_path, monkeypatch, change, error, match
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("WORKBENCH_ENV_FILE", "/nonexistent/.env")
    seed(db)
    scripts()
    before = table_counts(db)
    raw = _file_bytes(db, db_path)
    with pytest.raises(error, match=match):
        run_experiment(db, config(**change), progress=False)
    assert table_counts(db) == before and _file_bytes(db, db_path) == raw
    assert call_count("ans") == 0 and call_count("judge") == 0


def _file_bytes(db, db_path) -> object:
    """The database file's bytes after folding the WAL in (a checkpoint changes no content); on
    PostgreSQL every row of every table (:func:`db_content.snapshot`)."""
    return snapshot(db, db_path)


@pytest.mark.parametrize(
    "change, error, match",
    [
        # an offline baseline name that does not exist
        (
            {
                "systems": [
                    {"name": "x", "kind": "none", "model": "offline:nonexistent"},
                    {"name": "y", "kind": "none", "model": "scripted:ans"},
                ]
            },
            ConfigError,
            "unknown offline baseline",
        ),
        # a baseline asked for a task it does not implement (the extractive answerer as a judge)
        (
            {"judges": [{"name": "ais", "kind": "autoais", "model": "offline:extractive"}]},
            ConfigError,
            "needs a real model",
        ),
        # a scripted model with no script
        (
            {"judges": [{"name": "ais", "kind": "autoais", "model": "scripted:never-set"}]},
            ConfigError,
            "no script",
        ),
    ],
)
def test_bad_model_fails_before_any_write_byte_identical(db, db_path, change, error, match):
    seed(db)
    scripts()
    before = _file_bytes(db, db_path)
    with pytest.raises(error, match=match):
        run_experiment(db, config(**change), progress=False)
    with pytest.raises(error, match=match):
        run_experiment(db, config(**change), dry_run=True, progress=False)
    assert _file_bytes(db, db_path) == before
    assert call_count("ans") == 0 and call_count("judge") == 0


def test_changed_setup_under_a_stored_name_fails_before_any_write(db, db_path):
    seed(db)
    scripts()
    run_experiment(db, config(), progress=False)
    n_ans, n_judge = call_count("ans"), call_count("judge")
    before = _file_bytes(db, db_path)
    changed = config(
        systems=[
            {"name": "s-none", "kind": "rag", "model": "scripted:ans"},
            {"name": "s-full", "kind": "full", "model": "scripted:ans"},
        ]
    )
    with pytest.raises(ConfigError, match="'s-none' is already stored with another"):
        run_experiment(db, changed, progress=False)
    judge_changed = config(
        judges=[{"name": "ais", "kind": "autoais", "model": "scripted:judge", "context": "full"}]
    )
    with pytest.raises(ConfigError, match="judge 'ais' is already stored with another"):
        run_experiment(db, judge_changed, progress=False)
    assert _file_bytes(db, db_path) == before
    assert (call_count("ans"), call_count("judge")) == (n_ans, n_judge)


def test_dry_run_of_a_finished_run_plans_nothing(db, db_path):
    seed(db)
    scripts()
    run_experiment(db, config(), progress=False)
    before = _file_bytes(db, db_path)
    plan = run_experiment(db, config(), dry_run=True, progress=False)
    assert plan["answer_calls"] == 0 and plan["judge_calls"] == 0 and plan["cost_usd"] == 0
    assert _file_bytes(db, db_path) == before


def test_missing_book_and_window_fail_first(db, db_path):
    seed(db)
    scripts()
    from core.store.connection import utcnow

    now = utcnow()
    db["documents"].insert(
        {
            "id": "gone",
            "kind": "story-missing",
            "source": "narrativeqa",
            "text": "",
            "n_chars": 0,
            "n_tokens": 0,
            "sha256": "",
            "created_at": now,
            "updated_at": now,
        }
    )
    db.execute(
        "update questions set document_id = 'gone', context_document_id = 'gone' where id = 'q2'"
    )
    before = table_counts(db)
    raw = _file_bytes(db, db_path)
    with pytest.raises(InputError, match="not in the store"):
        run_experiment(db, config(), progress=False)
    assert _file_bytes(db, db_path) == raw
    db.execute(
        "update questions set document_id = 's1', context_document_id = 's1' where id = 'q2'"
    )
    catalog.configure("scripted", default_context_window=1500)
    try:
        with pytest.raises(ContextTooLongError):
            run_experiment(db, config(), progress=False)
    finally:
        catalog.reset_configuration("scripted")
    assert table_counts(db) == before and call_count("ans") == 0


def test_toml_syntax_error(tmp_path, db, db_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[[systems]\nkind = "none"\n', encoding="utf-8")
    before = _file_bytes(db, db_path)
    with pytest.raises(InputError, match="line 2, column 10: TOML syntax error"):
        run_experiment(db, bad)
    assert _file_bytes(db, db_path) == before
    with pytest.raises(InputError, match="no such experiment file"):
        run_experiment(db, tmp_path / "missing.toml")


def test_shipped_experiments_parse():
    from core.pipeline.config import load_experiment

    for path in sorted((ROOT / "experiments").glob("*.toml")):
        exp = load_experiment(path)
        assert exp.systems and exp.judges, path


def test_shipped_experiments_can_share_one_database():
    """A system or judge name used by several shipped experiments means one setup in all of
    them; else the second experiment run on the same database stops with 'already stored with
    another configuration' (the rater-bias illustration after the demo, for instance)."""
    from core.pipeline.config import load_experiment

    systems, judges = {}, {}
    for path in sorted((ROOT / "experiments").glob("*.toml")):
        exp = load_experiment(path)
        for s in exp.systems:
            setup = (s.model, s.context, s.params(), s.prompt)
            assert systems.setdefault(s.name, (setup, path.name))[0] == setup, (s.name, path.name)
        for j in exp.judges:
            setup = (j.kind, j.model, j.context, j.params())
            assert judges.setdefault(j.name, (setup, path.name))[0] == setup, (j.name, path.name)


def test_offline_rater_bias_2x2_runs_without_keys(db, monkeypatch):
    """experiments/rater_bias_offline.toml: the 2x2 report (agreement and kappa per rater family x
    answer family) on the demo data with offline answerers and raters; labelled an illustration."""
    from core.corpus.narrativeqa import import_narrativeqa
    from core.pipeline.config import read_toml

    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    path = ROOT / "experiments" / "rater_bias_offline.toml"
    assert "NOT evidence about LLM self-preference" in path.read_text()
    import_narrativeqa(db, ROOT / "demo" / "narrativeqa")
    cfg = {**read_toml(path), "c": 10}
    run_experiment(db, cfg, progress=False)
    rep = report(db, "rater_bias_offline")
    cells = rep["rater_bias"]["absolute"]
    fams = {"lex-1s", "sim-3s"}
    assert {(c["rater_family"], c["answer_family"]) for c in cells} == {
        (r, a) for r in fams for a in fams
    }
    for c in cells:
        assert c["n"] > 0 and 0 <= c["agreement"] <= 1 and "cohen_kappa" in c
    pair_cells = rep["rater_bias"]["pairwise"]
    assert {c["answer_family"] for c in pair_cells} == fams | {"mixed"}
    assert all("own_family_share" in c for c in pair_cells)
    # the two answerer families really differ: three sentences vs one
    lengths = {
        fam: [
            len(r["text"].split())
            for r in sql_rows(
                db,
                "select text from answers where system like :system",
                system=f"extractive-{fam}/%",
            )
        ]
        for fam in ("1s", "3s")
    }
    assert sum(lengths["3s"]) / len(lengths["3s"]) > 1.5 * sum(lengths["1s"]) / len(lengths["1s"])


def test_a_lookalike_system_or_judge_name_is_refused_before_any_write(db, db_path):
    """A new name with the confusable skeleton of a different stored one (Cyrillic 'о' in
    's-nоne', Cyrillic 'а' in 'аis') is refused before any request or write, with both names;
    --allow-lookalike (``allow_lookalike``) runs it."""
    seed(db)
    scripts()
    run_experiment(db, config(), progress=False)
    calls = (call_count("ans"), call_count("judge"))
    before = _file_bytes(db, db_path)
    system = {"name": "s-n\u043ene", "kind": "none", "model": "scripted:ans"}
    systems = [system, {"name": "s-full", "kind": "full", "model": "scripted:ans"}]
    with pytest.raises(
        InputError, match="system 's-n\u043ene' looks like the different system 's-none'"
    ):
        run_experiment(db, config(name="t2", systems=systems), progress=False)
    judge = {"name": "\u0430is", "kind": "autoais", "model": "scripted:judge", "context": "rag"}
    with pytest.raises(InputError, match="rater 'auto:\u0430is' looks like .*'auto:ais'"):
        run_experiment(db, config(name="t3", judges=[judge]), progress=False)
    assert _file_bytes(db, db_path) == before
    assert (call_count("ans"), call_count("judge")) == calls
    done = run_experiment(
        db, config(name="t2", systems=systems), progress=False, allow_lookalike=True
    )
    assert call_count("ans") > calls[0], done

"""Epsilon the paper's way round (experts 0.2, skilled annotators 0.15, crowd workers 0.1):
``--annotators`` beside ``--epsilon`` on every alt-test command, the choice remembered per task
(and refused, writing nothing, unless an admin makes it), the same guidance in the docs, the
``--help`` texts and the report, and the report's decision over epsilon 0 to 0.3 with the chosen
epsilon marked."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rater_report_fixture import RATER, build_report_db
from test_rater_validation import imported, pair_rows

from core.__main__ import main
from core.annotation.identity import sign_in_open, sign_in_token
from core.annotation.rater_epsilon import remember_epsilon
from core.cli.validation_commands import ANNOTATORS
from core.errors import AccessError, InputError
from core.stats.alt_test_epsilon import (
    ANNOTATOR_WORDS,
    EPSILON_BY_ANNOTATORS,
    EPSILON_GRID,
    EPSILON_GUIDANCE,
    Annotators,
)
from core.store.accounts import create_account
from core.store.database import open_db
from core.views.rater_epsilon import stored_choice
from core.views.rater_report.assemble import report_data
from core.views.rater_validation import validate_rater
from core.views.report_html import report_html

ROOT = Path(__file__).resolve().parents[2]


def _squeezed(text: str) -> str:
    """``text`` without any white space (argparse wraps help text, also at hyphens)."""
    return "".join(text.split())


def _json(capsys, dbfile: str, command: str, *extra: str) -> dict:
    capsys.readouterr()
    assert main(["--db", dbfile, command, "--rater", "auto:judge", "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def noisy_db(tmp_path, init_location) -> str:
    return imported(tmp_path, init_location, "noisy", pair_rows(seed=3, n=60, rater_acc=0.75))


def test_annotators_give_the_papers_epsilon(noisy_db, capsys):
    db = open_db(noisy_db)
    try:
        for kind, eps in (("experts", 0.2), ("skilled", 0.15), ("crowd", 0.1)):
            out = _json(capsys, noisy_db, "validate-rater", "--annotators", kind)
            want = validate_rater(db, "auto:judge", epsilon=eps)
            assert out["epsilon"] == eps
            assert out["epsilon_choice"] == f"{eps:g} ({ANNOTATOR_WORDS[Annotators(kind)]})"
            assert (out["winning_rate"], out["passed"]) == (want["winning_rate"], want["passed"])
        number = _json(capsys, noisy_db, "validate-rater", "--epsilon", "0.12")
        assert (number["epsilon"], number["epsilon_choice"]) == (0.12, "0.12 (a chosen number)")
        default = _json(capsys, noisy_db, "validate-rater")  # nothing chosen: experts
        assert (default["epsilon"], default["epsilon_choice"]) == (0.2, "0.2 (experts)")
        capsys.readouterr()
        assert (
            main(
                [
                    "--db",
                    noisy_db,
                    "validate-rater",
                    "--rater",
                    "auto:judge",
                    "--annotators",
                    "crowd",
                ]
            )
            == 0
        )
        assert "(epsilon 0.1 (crowd workers), q 0.05)" in capsys.readouterr().out
        items = _json(capsys, noisy_db, "validation-items", "--annotators", "crowd", "--sims", "5")
        assert "epsilon 0.1," in items["method"]
    finally:
        db.close()


def test_the_choice_is_remembered_per_task_and_is_every_commands_default(noisy_db, capsys):
    db = open_db(noisy_db)
    try:
        assert stored_choice(db, "side-by-side").text == "experts"
        remember_epsilon(db, sign_in_open(db, "ann"), "side-by-side", "crowd")
        remember_epsilon(db, sign_in_open(db, "ann"), "absolute", "0.125")
        assert stored_choice(db, "side-by-side").epsilon == 0.1
        assert stored_choice(db, "absolute").words == "0.125 (a chosen number)"
        out = _json(capsys, noisy_db, "validate-rater")
        assert (out["epsilon"], out["epsilon_choice"]) == (0.1, "0.1 (crowd workers)")
        items = _json(capsys, noisy_db, "validation-items", "--sims", "5")
        assert "epsilon 0.1," in items["method"]
        given = _json(capsys, noisy_db, "validate-rater", "--annotators", "skilled")
        assert given["epsilon"] == 0.15  # given on the command line: that, not the stored one
        data = report_data(db, n_sim=5, n_boot=50)
        assert (data["epsilon"], data["epsilon_choice"]) == (0.1, "0.1 (crowd workers)")
        assert "at epsilon = 0.1 (crowd workers)" in data["raters"][0]["verdict"]["sentence"]
    finally:
        db.close()


def test_only_an_admin_chooses_and_bad_input_writes_nothing(db):
    with pytest.raises(InputError, match="experts, skilled, crowd"):
        remember_epsilon(db, sign_in_open(db, "ann"), "side-by-side", "amateurs")
    with pytest.raises(InputError, match="task"):
        remember_epsilon(db, sign_in_open(db, "ann"), " ", "crowd")
    create_account(db, "root", "admin")
    bob = sign_in_token(db, create_account(db, "bob"))
    with pytest.raises(AccessError, match="admin"):
        remember_epsilon(db, bob, "side-by-side", "crowd")
    with pytest.raises(AccessError):
        remember_epsilon(db, None, "side-by-side", "crowd")
    assert stored_choice(db, "side-by-side").text == "experts"
    assert not db.execute("select * from settings where key like 'alt_test_epsilon%'").fetchall()


@pytest.mark.parametrize("command", ["validate-rater", "validation-items", "rater-report"])
def test_help_says_the_papers_table(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = _squeezed(capsys.readouterr().out)
    assert _squeezed(EPSILON_GUIDANCE) in text
    assert "--annotators" in text and "--epsilon" in text
    assert ANNOTATORS == tuple(Annotators)  # the CLI's literal list is the enum


@pytest.mark.parametrize("doc", ["docs/rater-validation.md", "docs/statistics.md"])
def test_docs_give_the_papers_table(doc):
    text = (ROOT / doc).read_text()
    for kind, eps in EPSILON_BY_ANNOTATORS.items():
        row = rf"\|\s*{re.escape(ANNOTATOR_WORDS[kind])}[^|\n]*\|\s*{eps:g}\s*\|\s*`{kind}`\s*\|"
        assert re.search(row, text), (doc, kind)  # who, epsilon, the CLI's --annotators value
    flat = " ".join(text.split())
    for wrong in ("0.1 to 0.15", "0.1-0.15", "0.2 when the people are crowd", "crowd or skilled"):
        assert wrong not in flat, (doc, wrong)


@pytest.fixture
def report_db(db_path):
    build_report_db(db_path)
    db = open_db(db_path)
    yield db
    db.close()


def test_the_report_shows_the_decision_over_epsilon(report_db):
    data = report_data(report_db, [RATER], annotators="crowd", n_sim=5, n_boot=50)
    (sec,) = data["raters"]
    assert data["epsilon"] == 0.1 and EPSILON_GUIDANCE in data["epsilon_text"]
    curve = sec["sensitivity"]
    assert [p["epsilon"] for p in curve] == list(EPSILON_GRID)  # 0.1 is on the grid
    for point in curve:
        want = validate_rater(report_db, RATER, epsilon=point["epsilon"])
        assert (point["winning_rate"], point["advantage_prob"], point["passed"]) == (
            want["winning_rate"],
            want["advantage_prob"],
            want["passed"],
        )
    rates = [p["winning_rate"] for p in curve]
    assert rates == sorted(rates)
    page = report_html(data)
    assert "The decision over epsilon" in page
    (chart,) = re.findall(r"<svg[^>]*>(?:(?!</svg>).)*data-marker=\"0\.1\".*?</svg>", page)
    assert "chosen epsilon 0.1" in chart and chart.count("<polyline") == 3  # 2 lines + 50 %
    assert "Chosen: 0.1 (crowd workers)" in page
    assert EPSILON_GUIDANCE in page


def test_a_chosen_number_off_the_grid_is_marked_and_computed(report_db):
    data = report_data(report_db, [RATER], epsilon=0.125, n_sim=5, n_boot=50)
    (sec,) = data["raters"]
    epsilons = [p["epsilon"] for p in sec["sensitivity"]]
    assert 0.125 in epsilons and len(epsilons) == len(EPSILON_GRID) + 1
    assert 'data-marker="0.125"' in report_html(data)
    assert "0.125 (a chosen number)" in sec["verdict"]["sentence"]

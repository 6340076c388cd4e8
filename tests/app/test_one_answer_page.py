"""One answer everywhere: ``validate-rater``, ``validation-items``, ``rater-report`` and the Rater
validation page compare an auto-rater with the same humans, on the same items, reach the same
decision and say the same one sentence about whom (:func:`core.views.rater_validation.
choose_annotators`), on a store like the demo's: an imported crowd of anonymous slots (no named
person) beside their derived majority."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browser_support import unescaped
from rater_report_fixture import CROWD, PEOPLE, RATER, build_report_db
from streamlit.testing.v1 import AppTest

from core.__main__ import main

ROOT = Path(__file__).resolve().parents[2]
PAGE = "pages/12_Rater_validation.py"


def cli_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    capsys.readouterr()
    code = main(list(args))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    out: dict[str, Any] = json.loads(captured.out)
    return out


def answers(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    """The people, items, decision and sentence of the three commands."""
    validate = cli_json(capsys, "--db", db, "validate-rater", "--rater", RATER, "--json", *extra)
    items = cli_json(
        capsys,
        *("--db", db, "validation-items", "--rater", RATER, "--json", "--sims", "10", *extra),
    )
    report = cli_json(
        capsys,
        *("--db", db, "rater-report", "--rater", RATER, "--json", "--simulations", "10"),
        *("--out", str(tmp_path / "r.html"), *extra),
    )
    (sec,) = report["raters"]
    return {"validate": validate, "items": items, "report": sec}


def open_page() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["name"] = "alice"
    at.run()
    at.switch_page(PAGE)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("people", [CROWD, PEOPLE], ids=["crowd-slots", "named-people"])
def test_three_commands_and_the_page_give_one_answer(
    db_path, tmp_path, monkeypatch, capsys, people
):
    build_report_db(db_path, people=people, majority=True)
    db = str(db_path)
    got = answers(db, tmp_path, capsys)
    validate, items, sec = got["validate"], got["items"], got["report"]
    humans = [h["name"] for h in validate["humans"]]
    assert humans == [f"human:{p}" for p in people]  # never the derived crowd-majority
    sentence = validate["annotators_text"]
    slots = people == CROWD
    assert validate["annotators"] == ("anonymous slots" if slots else "people")
    assert ("No named person labelled these items" in sentence) is slots
    # the same people, items, decision and sentence in every command
    assert items["annotators_text"] == sec["annotators_text"] == sentence
    assert items["annotators"] == sec["annotators"] == validate["annotators"]
    assert [h["name"] for h in sec["alt"]["humans"]] == humans
    assert items["current"] == sec["alt"]["items"] == validate["items"] == 40
    assert sec["alt"]["passed"] == validate["passed"]
    assert sec["verdict"]["status"] == ("passes" if validate["passed"] else "fails")
    # the text output says the sentence too
    capsys.readouterr()
    assert main(["--db", db, "validate-rater", "--rater", RATER]) == 0
    assert sentence in capsys.readouterr().out
    # the page: the same sentence, decision, items and people
    monkeypatch.setenv("WORKBENCH_DB", db)
    monkeypatch.delenv("WORKBENCH_ACCESS_CODE", raising=False)
    at = open_page()
    assert sentence in [unescaped(c.value) for c in at.caption]
    shown = [unescaped(m.value) for m in (*at.success, *at.error)]
    assert len(shown) == 1 and shown[0] == sec["verdict"]["sentence"]
    assert ("passes" in shown[0]) is validate["passed"] and "on 40 items" in shown[0]
    frames = [d.value for d in at.dataframe if "person's own advantage" in d.value.columns]
    assert len(frames) == 1 and list(frames[0]["human"]) == humans


def test_people_only_refuses_the_slots_in_every_command(db_path, tmp_path, capsys):
    build_report_db(db_path, people=CROWD)
    db = str(db_path)
    for command in ("validate-rater", "validation-items"):
        capsys.readouterr()
        assert main(["--db", db, command, "--rater", RATER, "--people-only"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "the 3 anonymous crowd slots that did" in err[0], err
    report = cli_json(
        capsys,
        *("--db", db, "rater-report", "--rater", RATER, "--json", "--simulations", "10"),
        *("--out", str(tmp_path / "r.html"), "--people-only"),
    )
    (sec,) = report["raters"]
    assert sec["alt"] is None and sec["verdict"]["status"] == "not enough data"
    assert "the 3 anonymous crowd slots that did are left out" in sec["annotators_text"]

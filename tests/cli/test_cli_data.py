"""CLI: every command has --help; status, export and the quick demo work end to end."""

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.__main__ import build_parser, main

ROOT = Path(__file__).resolve().parents[2]


def _commands():
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return sorted(action.choices)


def test_foundation_commands_registered():
    assert {
        "import-narrativeqa",
        "import-book",
        "import-questions",
        "status",
        "export",
        "demo",
    } <= set(_commands())


@pytest.mark.parametrize("command", _commands())
def test_every_command_has_help(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    assert "usage:" in capsys.readouterr().out


def run(db_path, *args):
    return subprocess.run(
        [sys.executable, "-m", "core", "--db", str(db_path), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )


def test_import_status_export(new_db_location, tmp_path, demo_dir):
    db_path = new_db_location("w")
    assert run(db_path, "init").returncode == 0  # only init and demo create a database
    r = run(db_path, "import-narrativeqa", str(demo_dir / "narrativeqa"), "--split", "test")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1])["questions_inserted"] == 48
    status = json.loads(run(db_path, "status", "--json").stdout)
    assert status["tables"]["questions"] == 48
    assert status["questions_by_origin"] == {"narrativeqa": 48}
    out = run(db_path, "export", "questions")
    records = list(csv.DictReader(io.StringIO(out.stdout)))
    assert len(records) == 48 and json.loads(records[0]["answers"])
    target = tmp_path / "q.jsonl"
    assert (
        run(db_path, "export", "questions", "--format", "jsonl", "-o", str(target)).returncode == 0
    )
    assert len(target.read_text(encoding="utf-8").splitlines()) == 48
    bad = run(db_path, "export", "nope")
    assert bad.returncode == 2 and "no table or view 'nope'" in bad.stderr


def test_import_book_cli(new_db_location, tmp_path):
    book = tmp_path / "story.txt"
    book.write_text("Once.\n\nTwice.", encoding="utf-8")
    db_path = new_db_location("w")
    assert run(db_path, "init").returncode == 0
    r = run(db_path, "import-book", str(book), "--title", "Story")
    assert r.returncode == 0 and "inserted" in r.stdout and "'Story'" in r.stdout
    missing = run(db_path, "import-book", str(tmp_path / "none.txt"))
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_demo_quick(new_db_location):
    db_path = new_db_location("demo")
    r = run(db_path, "demo", "--quick")
    assert r.returncode == 0, r.stderr
    status = json.loads(run(db_path, "status", "--json").stdout)
    assert status["tables"]["questions"] >= 92
    assert status["tables"]["documents"] >= 96


def test_global_cache_flags_set_the_llm_cache_mode(new_db_location, capsys):
    from core.llm.engine import cache_mode, set_cache_mode

    db_path = str(new_db_location("c"))
    try:
        assert main(["--db", db_path, "init"]) == 0
        assert main(["--db", db_path, "--refresh", "status"]) == 0
        assert cache_mode() == "refresh"
        assert main(["--db", db_path, "--no-cache", "status"]) == 0
        assert cache_mode() == "off"
    finally:
        set_cache_mode(None)
    with pytest.raises(SystemExit):
        main(["--no-cache", "--refresh", "status"])

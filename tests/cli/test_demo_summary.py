"""``demo`` ends with a short summary for a person (what is built, where to open it, which page
to start on; the JSON with ``--json``), reports each step on stderr, and a re-run with nothing
changed changes nothing (issue 34). A tiny demo folder with ``--quick`` keeps it fast; the full
demo's re-run is checked in tests/pipeline/test_demo.py."""

from __future__ import annotations

import json
from pathlib import Path

from cli_run import run_cli

from core.store.connection import table_counts
from core.store.database import open_db


def tiny_demo(root: Path) -> Path:
    """A demo folder: one NarrativeQA question on a summary and one short book."""
    nqa = root / "narrativeqa"
    (nqa / "third_party" / "wikipedia").mkdir(parents=True)
    (nqa / "documents.csv").write_text(
        "document_id,set,kind,story_url,story_file_size,wiki_url,wiki_title,"
        "story_word_count,story_start,story_end\nd1,test,gutenberg,u,1,w,Book One,10,a,b\n",
        encoding="utf-8",
    )
    (nqa / "qaps.csv").write_text(
        "document_id,set,question,answer1,answer2,question_tokenized,answer1_tokenized,"
        "answer2_tokenized\nd1,test,Who began it?,Anna,Anna did,,,\n",
        encoding="utf-8",
    )
    (nqa / "third_party" / "wikipedia" / "summaries.csv").write_text(
        "document_id,set,summary,summary_tokenized\nd1,test,Anna starts a story.,\n",
        encoding="utf-8",
    )
    (root / "books").mkdir()
    (root / "books" / "tale.txt").write_text("A Tale\n\nAnna began it. Bob ended it.\n")
    return root


def stored(db_path: Path) -> tuple[dict[str, int], list[tuple[str, str]]]:
    db = open_db(db_path)
    try:
        stamps = [(r["id"], r["updated_at"]) for r in db.query("select * from questions")]
        return table_counts(db), sorted(stamps)
    finally:
        db.close()


def test_demo_prints_a_summary_for_a_person_and_a_rerun_changes_nothing(tmp_path):
    db_path, demo = tmp_path / "demo.db", tiny_demo(tmp_path / "demo")
    argv = ["--db", str(db_path), "demo", "--quick", "--demo-dir", str(demo)]
    code, out, err = run_cli(argv)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) <= 6 and "{" not in out  # a summary, not a JSON dump
    assert lines[0].startswith(f"Demo database ready: {db_path} (added ")
    assert "1 question" in out and "http://127.0.0.1:8501" in out
    assert any(line.startswith("Start on: Overview") for line in lines)
    assert f"python -m core --db {db_path} demo --json" in out
    # one progress line per step on stderr (no bars: not a terminal)
    steps = [line for line in err.splitlines() if line.startswith("demo: ")]
    assert [s.split(" ...")[0] for s in steps] == [
        "demo: 1/3 NarrativeQA sample",
        "demo: 2/3 bundled book",
        "demo: 3/3 PRD Vicuna-80 answers and reviews",
    ]
    assert all(s.endswith(" s") and " done in " in s for s in steps)
    before = stored(db_path)

    code, out, err = run_cli(argv)
    assert code == 0, err
    assert "nothing changed: the database already held this demo" in out.splitlines()[0]
    assert stored(db_path) == before  # every table's count, and no question re-stamped

    code, out, err = run_cli([*argv, "--json"])
    assert code == 0, err
    summary = json.loads(out)
    assert list(summary) == ["narrativeqa", "books", "prd_vicuna80"]
    assert summary["narrativeqa"]["result"]["questions_unchanged"] == 1

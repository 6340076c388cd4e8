"""``import-book --split-stories``: a story collection becomes one document per story."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.__main__ import main
from core.corpus.books import import_stories
from core.corpus.gutenberg import clean_gutenberg
from core.corpus.stories import find_stories
from core.errors import InputError
from core.generation.entity_store import build_entities, get_entities
from core.store.database import open_db
from core.store.documents import get_document

DATA = Path(__file__).resolve().parents[1] / "data" / "entity_repair"
COLLECTION = DATA / "story_collection.txt"
TITLES = ["The Ferryman's Daughter", "A Lantern at Millbrook", "The Winter Fair"]


def test_contents_list_titles_found_as_headings():
    body = clean_gutenberg(COLLECTION.read_text(encoding="utf-8")).body
    stories = find_stories(body)
    assert [s.title for s in stories] == TITLES
    first = body[stories[0].start : stories[0].end]
    assert first.startswith("THE FERRYMAN'S DAUGHTER\n") and "CONTENTS" not in first
    assert first.rstrip().endswith("saved the ferry between them.")
    assert body[stories[-1].start : stories[-1].end].rstrip().endswith("stall at the fair.")


def test_headings_without_a_contents_list():
    text = (
        "A FEW TALES\n\nPREFACE\n\nWritten on a wet spring.\n\n"
        "I. The Mill\n\nThe mill stood still.\n\nIt was old.\n\n"
        "II. The Weir\n\nThe weir was loud.\n\n"
        "CHAPTER I\n\nNot a story heading.\n"
    )
    stories = find_stories(text)
    # "A FEW TALES" is a capitals heading too: the rule takes every heading it allows.
    assert [s.title for s in stories] == ["A Few Tales", "The Mill", "The Weir"]
    assert "CHAPTER I" in text[stories[-1].start : stories[-1].end]


def test_a_novel_with_chapters_has_no_stories():
    novel = "CHAPTER I\n\nIt began.\n\nCHAPTER II\n\nIt went on.\n\nTHE END\n"
    assert find_stories(novel) == []
    assert find_stories((DATA / "patronymic_novel.txt").read_text(encoding="utf-8")) == []


def test_each_story_is_a_document_and_entities_stay_within_it(db):
    reports = import_stories(db, COLLECTION)
    ids = [r["id"] for r in reports]
    assert ids == [
        "book:story-collection-s01",
        "book:story-collection-s02",
        "book:story-collection-s03",
    ]
    doc = get_document(db, ids[2])
    assert doc.title == "Tales of the Two Rivers: The Winter Fair"
    assert doc.author == "Ada Fenwick" and doc.kind == "book"
    assert doc.metadata["book_id"] == "book:story-collection"
    assert (doc.metadata["story"], doc.metadata["stories"]) == (3, 3)
    assert get_document(db, "book:story-collection") is None  # the whole book is not stored
    tops = {}
    for i in (0, 2):
        build_entities(db, ids[i], method="regex")
        tops[i] = [e.name for e in get_entities(db, ids[i])]
    # Two Marthas in two stories: each story's Martha is its own entity.
    assert tops[0][0] == "Martha Quill" and "Martha Bell" not in tops[0]
    assert "Martha Bell" in tops[2] and "Martha Quill" not in tops[2]


def test_cli_split_stories_and_refusal(new_db_location, capsys):
    db = str(new_db_location("t"))
    assert main(["--db", db, "init"]) == 0
    code = main(["--db", db, "import-book", str(COLLECTION), "--split-stories", "--id", "tales"])
    out = capsys.readouterr().out
    assert code == 0 and "tales-s01" in out and "'Tales of the Two Rivers: The Winter Fair'" in out
    code = main(["--db", db, "import-book", str(DATA / "patronymic_novel.txt"), "--split-stories"])
    err = capsys.readouterr().err
    assert code == 2 and "no stories found" in err and err.startswith("error: ")
    assert main(["--db", db, "documents", "--json"]) == 0
    listed = [d["id"] for d in json.loads(capsys.readouterr().out)]
    assert listed == ["tales-s01", "tales-s02", "tales-s03"]
    database = open_db(db)
    try:
        with pytest.raises(InputError, match="no stories found"):
            import_stories(database, DATA / "etext_novel.txt")
    finally:
        database.close()

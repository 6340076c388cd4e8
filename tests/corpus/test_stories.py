"""``import-book --split-stories``: a story collection becomes one document per story."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.__main__ import main
from core.corpus.books import import_stories
from core.corpus.gutenberg import clean_gutenberg
from core.corpus.stories import find_stories, read_stories
from core.errors import InputError
from core.generation.entity_store import build_entities, get_entities
from core.store.database import open_db
from core.store.documents import get_document

DATA = Path(__file__).resolve().parents[1] / "data" / "entity_repair"
COLLECTION = DATA / "story_collection.txt"
TITLES = ["The Ferryman's Daughter", "A Lantern at Millbrook", "The Winter Fair"]
#: Real text (issue 36): Dubliners, PG #2814, UTF-8 edition: the header, the Contents of fifteen
#: stories and the headings and openings of four of them (tests/data/unseen_books/SOURCE.md).
DUBLINERS = (
    Path(__file__).resolve().parents[1] / "data" / "unseen_books" / "dubliners_utf8_stories.txt"
)


def _dubliners(tmp_path: Path | None = None, typo: bool = False) -> str | Path:
    """The Dubliners excerpt's body; with ``typo`` its Contents says "Couterparts" where the
    heading says COUNTERPARTS (as the edition the issue read does); with ``tmp_path`` the
    whole file written there (a path to import)."""
    raw = DUBLINERS.read_text(encoding="utf-8")
    if typo:
        raw = raw.replace("\nCOUNTERPARTS\n\nCLAY\n", "\nCouterparts\n\nCLAY\n")
        assert "Couterparts" in raw
    if tmp_path is None:
        return clean_gutenberg(raw).body
    path = tmp_path / "dubliners.txt"
    path.write_text(raw, encoding="utf-8")
    return path


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


def test_a_heading_that_differs_from_its_contents_entry_wins_and_is_named():
    # The Contents' "Couterparts" is written nowhere: the story used to vanish into the one
    # before it (A Little Cloud held both), silently.
    stories, warnings = read_stories(str(_dubliners(typo=True)))
    assert [s.title for s in stories] == [
        "The Sisters",
        "A Little Cloud",
        "Counterparts",
        "The Dead",
    ]
    cloud = stories[1]
    body = str(_dubliners(typo=True))
    assert "Farrington" not in body[cloud.start : cloud.end]
    assert warnings[0] == (
        "the Contents lists 'Couterparts' but the heading in the text reads 'COUNTERPARTS': "
        "the heading is used"
    )


def test_the_story_count_is_checked_against_the_contents():
    stories, warnings = read_stories(str(_dubliners()))
    assert len(stories) == 4
    assert warnings == [
        "the Contents lists 15 stories but 4 were found as headings in the text; not found: "
        "'AN ENCOUNTER', 'ARABY', 'EVELINE', 'AFTER THE RACE', 'TWO GALLANTS', ..."
    ]
    whole, none = read_stories(clean_gutenberg(COLLECTION.read_text(encoding="utf-8")).body)
    assert len(whole) == 3 and none == []  # every entry found, as written


def test_cli_warns_of_a_contents_mismatch_and_suggests_splitting_a_collection(
    new_db_location, tmp_path, capsys
):
    db = str(new_db_location("t"))
    assert main(["--db", db, "init"]) == 0
    path = str(_dubliners(tmp_path, typo=True))
    assert main(["--db", db, "import-book", path, "--split-stories", "--id", "dub"]) == 0
    captured = capsys.readouterr()
    assert "dub-s03" in captured.out and "'Dubliners: Counterparts'" in captured.out
    assert "warning: dub-s01: the Contents lists 'Couterparts' but the heading" in captured.err
    assert main(["--db", db, "import-book", path, "--id", "whole"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("warning: whole: this looks like a collection of 4 stories")
    assert "import it with --split-stories" in err
    assert main(["--db", db, "import-book", str(DATA / "patronymic_novel.txt")]) == 0
    assert capsys.readouterr().err == ""  # a novel gets no such hint


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


#: Real text, the other header style (issue 36): *The Adventures of Sherlock Holmes*, PG #1661, the
#: gutenbergbooks/1661 copy (tests/data/unseen_books/SOURCE.md): a "Contents" list of twelve
#: numbered title-case entries ("I.     A Scandal in Bohemia"), numbered headings in capitals
#: ("I. A SCANDAL IN BOHEMIA"), a part numeral "I." alone on a line inside the first story, an
#: indented first paragraph in the second; two stories kept.
HOLMES = DUBLINERS.parent / "sherlock_holmes_stories.txt"


def test_numbered_title_case_contents_and_numbered_capital_headings():
    text = clean_gutenberg(HOLMES.read_text(encoding="utf-8")).body
    stories, warnings = read_stories(text)
    assert [s.title for s in stories] == ["A Scandal in Bohemia", "The Red-Headed League"]
    first, second = (text[s.start : s.end] for s in stories)
    assert first.startswith("I. A SCANDAL IN BOHEMIA\n") and "\nI.\n" in first  # not a story
    assert first.rstrip().endswith("title of _the_ woman.") and "Contents" not in first
    assert second.startswith("II. THE RED-HEADED LEAGUE\n") and "Red-Headed League" not in first
    assert warnings == [
        "the Contents lists 12 stories but 2 were found as headings in the text; not found: "
        "'A Case of Identity', 'The Boscombe Valley Mystery', 'The Five Orange Pips', "
        "'The Man with the Twisted Lip', 'The Adventure of the Blue Carbuncle', ..."
    ]


#: Real text, the newest Project Gutenberg layout (issue 36): *Dubliners*, PG #2814, "Most
#: recently updated: May 21, 2021", header ended by "*** START OF THE PROJECT GUTENBERG EBOOK
#: DUBLINERS ***", a "cover" line, a "Contents" list in title case, headings in capitals; five
#: stories kept (tests/data/unseen_books/SOURCE.md). *A Painful Case* holds a newspaper
#: paragraph whose own lines, alone and in capitals, repeat the story's title.
DUBLINERS_2021 = DUBLINERS.parent / "dubliners_2021_couples.txt"
STORIES_2021 = ["An Encounter", "The Boarding House", "A Painful Case", "A Mother", "The Dead"]


def test_the_newest_gutenberg_layout_splits_into_its_stories_by_their_headings():
    book = clean_gutenberg(DUBLINERS_2021.read_text(encoding="utf-8"))
    assert book.had_header and (book.title, book.author) == ("Dubliners", "James Joyce")
    assert "PROJECT GUTENBERG" not in book.body.upper() and "Credits:" not in book.body
    stories, warnings = read_stories(book.body)
    assert [s.title for s in stories] == STORIES_2021
    case = book.body[stories[2].start : stories[2].end]
    # "     A PAINFUL CASE" inside the story (the newspaper's headline) starts no story
    assert case.startswith("A PAINFUL CASE\n") and "\n     A PAINFUL CASE\n" in case
    assert case.rstrip().endswith("No blame attached to anyone.")
    assert book.body[stories[3].start :].startswith("A MOTHER\n")
    # the Contents and the headings agree in this edition: only the count is warned about
    assert warnings == [
        "the Contents lists 15 stories but 5 were found as headings in the text; not found: "
        "'The Sisters', 'Araby', 'Eveline', 'After the Race', 'Two Gallants', ..."
    ]


def test_cli_split_stories_of_the_newest_layout(new_db_location, capsys):
    db = str(new_db_location("t"))
    assert main(["--db", db, "init"]) == 0
    path = str(DUBLINERS_2021)
    assert main(["--db", db, "import-book", path, "--split-stories", "--id", "dub"]) == 0
    captured = capsys.readouterr()
    assert "'Dubliners: A Painful Case'" in captured.out and "dub-s05" in captured.out
    assert "warning: dub-s01: the Contents lists 15 stories but 5 were found" in captured.err
    assert main(["--db", db, "documents", "--json"]) == 0
    docs = json.loads(capsys.readouterr().out)
    assert [d["title"] for d in docs] == [f"Dubliners: {t}" for t in STORIES_2021]
    assert main(["--db", db, "import-book", path, "--id", "whole"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("warning: whole: this looks like a collection of 5 stories")

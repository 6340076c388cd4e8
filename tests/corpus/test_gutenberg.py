"""Gutenberg clean-up over every header/footer generation (fixtures + the real shared files)."""

import subprocess
import sys
from pathlib import Path

import pytest

from core.corpus.books import import_book
from core.corpus.documents import read_text_file
from core.corpus.gutenberg import clean_gutenberg

FIXTURES = Path(__file__).parent / "data" / "gutenberg"
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"

# file -> (title, author, first words of the body, last words of the body)
STYLES = {
    "etext_1990s_small_print_call_of_the_wild.txt": (
        "The Call of the Wild",
        "Jack London",
        "The Call of the Wild",
        "there were other",
    ),
    "ebook_2003_fields_no_start_persuasion.txt": (
        "Persuasion",
        "Jane Austen",
        "Persuasion",
        "settled in Cheshire;",
    ),
    "ebook_2005_nospace_mary.txt": ("Mary: A Fiction", "Mary Wollstonecraft", "MARY,", "marriage."),
    "ebook_2008_this_enoch_soames.txt": (
        "Enoch Soames: A Memory of the Eighteen-nineties",
        "Max Beerbohm",
        "Enoch Soames",
        "in due course that I",
    ),
    "ebook_2008_boxed_note_jewish_state.txt": (
        "The Jewish State",
        "Theodor Herzl",
        "THE\nJEWISH STATE",
        "Death of Theodor Herzl.",
    ),
    "ebook_2010_possessive_cask.txt": (
        "The Cask of Amontillado",
        "Edgar Allan Poe",
        "The Cask of Amontillado",
        "_In pace requiescat!_",
    ),
    "ebook_2021_modern_les_miserables.txt": (
        "Les Misérables",
        "Victor Hugo",
        "LES MISÉRABLES",
        "when day is gone.]",
    ),
}
BOILERPLATE = [
    "Project Gutenberg",
    "PROJECT GUTENBERG",
    "SMALL PRINT",
    "Produced by",
    "prepared by",
    "Transcriber",
    "Transcribed from",
    "This file should be named",
    "Typographical errors corrected",
    "Release Date",
]


@pytest.mark.parametrize("name", sorted(STYLES))
def test_each_header_style(name):
    title, author, first, last = STYLES[name]
    g = clean_gutenberg(read_text_file(FIXTURES / name))
    assert (g.title, g.author) == (title, author)
    assert g.had_header and g.language == "English"
    assert g.body.startswith(first), g.body[:200]
    assert g.body.endswith(last), g.body[-200:]
    for phrase in BOILERPLATE:
        assert phrase not in g.body, phrase
    assert g.removed and g.removed[0].startswith("header")


def test_every_fixture_is_covered():
    assert {p.name for p in FIXTURES.glob("*.txt")} == set(STYLES)


def test_footer_without_start_marker_still_cut():
    text = "Chapter 1\n\nHe left.\n\nEnd of the Project Gutenberg EBook of Gone, by A. Writer\n\nlicence"
    g = clean_gutenberg(text)
    assert g.body == "Chapter 1\n\nHe left." and (g.title, g.author) == ("Gone", "A. Writer")


def test_plain_text_untouched():
    text = "Title: not a header\n\nThe Project Gutenberg of my heart.\n\nThe end."
    g = clean_gutenberg(text)
    assert g.body == text and not g.had_header and g.title == "" and g.removed == []


def _shared_books():
    files = sorted((SHARED / "narrativeqa" / "stories").glob("*.txt"))
    files += sorted((SHARED / "gutenberg").glob("pg*.txt"))
    return files


@pytest.mark.skipif(not _shared_books(), reason="shared data folder not present")
@pytest.mark.parametrize("path", _shared_books(), ids=lambda p: p.name[:12])
def test_real_files_have_no_boilerplate(path):
    raw = read_text_file(path)
    g = clean_gutenberg(raw)
    if "Project Gutenberg" in raw[:300]:  # (Sun Tzu has a "Preface to the PG Etext")
        assert g.had_header and g.title and g.author, path.name
    head, tail = g.body[:4000], g.body[-4000:]
    if not g.had_header:  # no PG header at all (Sun Tzu's own preface names the PG etext)
        assert g.body == raw.strip("\n\r\t \ufeff")
        return
    for phrase in ["Project Gutenberg", "PROJECT GUTENBERG", "Produced by", "This file should be"]:
        assert phrase not in head and phrase not in tail, (path.name, phrase)
    assert len(g.body) > 0.8 * len(raw) - 25000


def test_reimport_with_new_metadata_says_updated(db, tmp_path):
    book = tmp_path / "wild_huntress.txt"
    book.write_text((FIXTURES / "ebook_2003_fields_no_start_persuasion.txt").read_text())
    first = import_book(db, book)
    assert (first["status"], first["title"], first["author"]) == (
        "inserted",
        "Persuasion",
        "Jane Austen",
    )
    again = import_book(db, book, title="Persuasion (1818)", author="J. Austen")
    assert again["status"] == "updated" and again["metadata_changed"] == ["title", "author"]
    assert not again["text_changed"]
    row = db["documents"].get(first["id"])
    assert (row["title"], row["author"]) == ("Persuasion (1818)", "J. Austen")
    assert import_book(db, book, title="Persuasion (1818)", author="J. Austen")["status"] == (
        "unchanged"
    )


def test_cli_reimport_prints_what_changed(new_db_location, tmp_path):
    book = tmp_path / "novel.txt"
    book.write_text((FIXTURES / "ebook_2010_possessive_cask.txt").read_text())
    db = str(new_db_location("x"))
    subprocess.run([sys.executable, "-m", "core", "--db", db, "init"], check=True)
    run = [sys.executable, "-m", "core", "--db", db, "import-book", str(book)]
    subprocess.run(run, check=True, capture_output=True, text=True)
    out = subprocess.run(
        [*run, "--title", "The Cask"], check=True, capture_output=True, text=True
    ).stdout
    assert out.startswith("updated") and "(title changed)" in out, out

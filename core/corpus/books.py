"""Plain-text books: one file or every ``.txt`` file of a folder."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.corpus.documents import upsert_document
from core.corpus.gutenberg import clean_gutenberg
from core.corpus.names import check_name
from core.corpus.stories import require_stories
from core.corpus.tabular import check_text_value, read_document_text
from core.errors import InputError
from core.store.connection import transaction

if TYPE_CHECKING:  # sqlite_utils imports pandas: loaded only when a database is opened
    import sqlite_utils

LANGUAGE_CODES = {
    "english": "en",
    "french": "fr",
    "german": "de",
    "spanish": "es",
    "chinese": "zh",
    "arabic": "ar",
    "italian": "it",
}


def book_id_for(path: Path) -> str:
    """Default document id of a book file: ``book:<slug of the file name>``."""
    slug = re.sub(r"[^a-z0-9]+", "-", path.stem.lower()).strip("-")
    return f"book:{slug or 'untitled'}"


def import_book(
    db: sqlite_utils.Database,
    path: str | Path,
    *,
    doc_id: str | None = None,
    title: str | None = None,
    author: str | None = None,
) -> dict[str, Any]:
    """Import one UTF-8 book (Gutenberg header/footer stripped; title/author read from it).

    Returns the :func:`core.corpus.documents.upsert_document` report plus ``title`` and ``author``.
    """
    return _import(db, path, doc_id, title, author, split_stories=False)[0]


def import_stories(
    db: sqlite_utils.Database,
    path: str | Path,
    *,
    doc_id: str | None = None,
    title: str | None = None,
    author: str | None = None,
) -> list[dict[str, Any]]:
    """Import a story collection as one document per story (:mod:`core.corpus.stories`):
    ``<id>-s01``, ``-s02``, ... titled ``Book: Story``, whose metadata names the book
    (``book_id``, ``book_title``, ``story``, ``story_title``, ``stories``); the whole book is
    not stored, so entities and questions stay within a story. One report per story;
    ``InputError`` (nothing written) when no stories are found."""
    return _import(db, path, doc_id, title, author, split_stories=True)


def _import(
    db: sqlite_utils.Database,
    path: str | Path,
    doc_id: str | None,
    title: str | None,
    author: str | None,
    *,
    split_stories: bool,
) -> list[dict[str, Any]]:
    path = Path(path)
    if doc_id is not None:
        check_name(doc_id, "document id", column="--id")
    for option, value in (("--title", title), ("--author", author)):
        if value is not None:
            check_text_value(value, path, None, option)
    raw = read_document_text(path)
    cleaned = clean_gutenberg(raw)
    if not cleaned.body.strip():
        raise InputError("book has no text after removing the Gutenberg header", path=str(path))
    doc_id = doc_id or book_id_for(path)
    stored = db.execute("select title, author from documents where id = ?", [doc_id]).fetchone()
    # Explicit values win, then the file's header, then what an earlier import stored.
    final_title = title or cleaned.title or (stored[0] if stored else "") or path.stem
    final_author = author or cleaned.author or (stored[1] if stored else "")
    language = (
        LANGUAGE_CODES.get(cleaned.language.split()[0].lower(), "en") if cleaned.language else "en"
    )
    metadata = {
        "file": path.name,
        "gutenberg_header": cleaned.had_header,
        "gutenberg_removed": cleaned.removed,
    }
    parts = [(doc_id, final_title, cleaned.body, metadata)]
    if split_stories:
        stories = require_stories(cleaned.body, str(path))
        parts = [
            (
                check_name(f"{doc_id}-s{n:02d}", "story document id", column="--id"),
                f"{final_title}: {story.title}",
                cleaned.body[story.start : story.end].strip(),
                {
                    **metadata,
                    "book_id": doc_id,
                    "book_title": final_title,
                    "story": n,
                    "story_title": story.title,
                    "stories": len(stories),
                },
            )
            for n, story in enumerate(stories, start=1)
        ]
    out = []
    with transaction(db):
        for part_id, part_title, text, meta in parts:
            result = upsert_document(
                db,
                part_id,
                text,
                kind="book",
                source="file",
                title=part_title,
                author=final_author,
                language=language,
                metadata=meta,
            )
            out.append({**result, "title": part_title, "author": final_author})
    return out


def import_books(
    db: sqlite_utils.Database, path: str | Path, *, split_stories: bool = False
) -> list[dict[str, Any]]:
    """Import a single file, or every ``*.txt`` file in a folder (sorted by name); with
    ``split_stories`` every file is a story collection (:func:`import_stories`).

    A folder import validates every file before writing any: one bad file fails the whole call.
    """
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() == ".txt" and p.is_file())
        if not files:
            raise InputError("no .txt files in folder", path=str(path))
        for file in files:  # validate all first: decode errors name the file
            read_document_text(file)

        with transaction(db):
            return [
                r
                for f in files
                for r in _import(db, f, None, None, None, split_stories=split_stories)
            ]
    if not path.exists():
        raise InputError("no such file or folder", path=str(path))
    return _import(db, path, None, None, None, split_stories=split_stories)

"""Plain-text books: one file or every ``.txt`` file of a folder."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.corpus.documents import upsert_document
from core.corpus.gutenberg import clean_gutenberg
from core.corpus.names import check_name
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
    path = Path(path)
    if doc_id is not None:
        doc_id = check_name(doc_id, "document id", column="--id")
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
    result = upsert_document(
        db,
        doc_id,
        cleaned.body,
        kind="book",
        source="file",
        title=final_title,
        author=final_author,
        language=language,
        metadata={
            "file": path.name,
            "gutenberg_header": cleaned.had_header,
            "gutenberg_removed": cleaned.removed,
        },
    )
    return {**result, "title": final_title, "author": final_author}


def import_books(db: sqlite_utils.Database, path: str | Path) -> list[dict[str, Any]]:
    """Import a single file, or every ``*.txt`` file in a folder (sorted by name).

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
            return [import_book(db, f) for f in files]
    if not path.exists():
        raise InputError("no such file or folder", path=str(path))
    return [import_book(db, path)]

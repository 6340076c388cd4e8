"""Plain-text books: one file or every ``.txt`` file of a folder."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.corpus.documents import check_replacement, upsert_document
from core.corpus.gutenberg import clean_gutenberg
from core.corpus.names import check_name
from core.corpus.stories import collection_hint, require_stories
from core.corpus.tabular import check_text_value, read_document_text
from core.errors import InputError
from core.store.documents import get_document

if TYPE_CHECKING:
    from core.store.engine import Database

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


# An HTML or XHTML page (a Gutenberg "Read online" file saved as .txt): a doctype, an XML
# declaration or an <html> tag before any text.
_MARKUP_START = re.compile(
    r"\s*(?:<\?xml\b[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html)\b", re.I | re.S
)


def _refuse_markup(text: str, path: str | Path) -> None:
    """``InputError`` when a book file is an HTML page, not plain text: its tags would be stored
    as the book's words (and become passages, entities and evidence)."""
    if _MARKUP_START.match(text[:4096]):
        raise InputError(
            "looks like an HTML page, not plain text (it starts with an <html> or <!DOCTYPE html> "
            "tag); save the book as plain text (Project Gutenberg: 'Plain Text UTF-8')",
            path=str(path),
        )


def prepare_book(
    db: Database,
    path: str | Path,
    *,
    doc_id: str | None = None,
    title: str | None = None,
    author: str | None = None,
    replace: bool = False,
) -> dict[str, Any]:
    """Read and check one UTF-8 book (Gutenberg header/footer stripped; title/author read from
    it) without writing: the keyword arguments of :func:`core.corpus.documents.upsert_document`
    plus ``orphaned`` and ``warnings`` (a book that looks like a story collection:
    :func:`core.corpus.stories.collection_hint`).

    A stored document of the same id of another kind or source (another importer's), or whose
    text would change while questions, answers or judgments hang on it, is refused unless
    ``replace`` (:func:`core.corpus.documents.check_replacement`); with ``replace``,
    ``orphaned`` counts what was made for the old text.
    """
    path = Path(path)
    if doc_id is not None:
        doc_id = check_name(doc_id, "document id", column="--id")
    for option, value in (("--title", title), ("--author", author)):
        if value is not None:
            check_text_value(value, path, None, option)
    raw = read_document_text(path)
    _refuse_markup(raw, path)
    cleaned = clean_gutenberg(raw)
    if not cleaned.body.strip():
        raise InputError("book has no text after removing the Gutenberg header", path=str(path))
    doc_id = doc_id or book_id_for(path)
    stored = get_document(db, doc_id)
    orphaned = _orphaned(db, doc_id, cleaned.body, path, replace)
    # Explicit values win, then the file's header, then what an earlier import stored.
    final_title = title or cleaned.title or (stored.title if stored else "") or path.stem
    final_author = author or cleaned.author or (stored.author if stored else "")
    language = (
        LANGUAGE_CODES.get(cleaned.language.split()[0].lower(), "en") if cleaned.language else "en"
    )
    return {
        "doc_id": doc_id,
        "text": cleaned.body,
        "kind": "book",
        "source": "file",
        "title": final_title,
        "author": final_author,
        "language": language,
        "metadata": {
            "file": path.name,
            "gutenberg_header": cleaned.had_header,
            "gutenberg_removed": cleaned.removed,
        },
        "orphaned": orphaned,
        "warnings": [hint] if (hint := collection_hint(cleaned.body)) else [],
    }


def _orphaned(db: Database, doc_id: str, text: str, path: Path, replace: bool) -> dict[str, int]:
    """:func:`core.corpus.documents.check_replacement` of a book's text under ``doc_id``."""
    return check_replacement(
        db,
        doc_id,
        text,
        kind="book",
        source="file",
        replace=replace,
        path=path,
        hint="another --id",
    )


def import_book(
    db: Database,
    path: str | Path,
    *,
    doc_id: str | None = None,
    title: str | None = None,
    author: str | None = None,
    progress: Callable[[int], None] | None = None,
    replace: bool = False,
) -> dict[str, Any]:
    """Import one book (:func:`prepare_book`) in short transactions, all or nothing to a reader
    (:func:`core.corpus.documents.upsert_document`; ``progress`` is its chunk callback).

    Returns the :func:`core.corpus.documents.upsert_document` report plus ``title``, ``author``,
    ``orphaned`` and ``warnings``.
    """
    book = prepare_book(db, path, doc_id=doc_id, title=title, author=author, replace=replace)
    return _store(db, book, progress)


def _store(
    db: Database, book: dict[str, Any], progress: Callable[[int], None] | None = None
) -> dict[str, Any]:
    book = dict(book)
    orphaned = book.pop("orphaned")
    warnings = book.pop("warnings", [])
    result = upsert_document(db, **book, progress=progress)
    return {
        **result,
        "title": book["title"],
        "author": book["author"],
        "orphaned": orphaned,
        "warnings": warnings,
    }


def prepare_stories(
    db: Database,
    path: str | Path,
    *,
    doc_id: str | None = None,
    title: str | None = None,
    author: str | None = None,
    replace: bool = False,
) -> list[dict[str, Any]]:
    """:func:`prepare_book` of a story collection, one document per story
    (:mod:`core.corpus.stories`): ``<id>-s01``, ``-s02``, ... titled ``Book: Story``, whose
    metadata names the book (``book_id``, ``book_title``, ``story``, ``story_title``,
    ``stories``). The whole book is not stored, so entities and questions stay within a story.
    ``InputError`` (nothing written) when no stories are found; each story id is checked for
    orphans like a book's (``replace``). The first story carries the ``warnings`` about the
    contents list (:func:`core.corpus.stories.read_stories`)."""
    book = prepare_book(db, path, doc_id=doc_id, title=title, author=author, replace=True)
    stories, warnings = require_stories(book["text"], str(path))
    out = []
    for n, story in enumerate(stories, start=1):
        part_id = check_name(f"{book['doc_id']}-s{n:02d}", "story document id", column="--id")
        text = book["text"][story.start : story.end].strip()
        out.append(
            {
                **book,
                "doc_id": part_id,
                "title": f"{book['title']}: {story.title}",
                "text": text,
                "metadata": {
                    **book["metadata"],
                    "book_id": book["doc_id"],
                    "book_title": book["title"],
                    "story": n,
                    "story_title": story.title,
                    "stories": len(stories),
                },
                "orphaned": _orphaned(db, part_id, text, Path(path), replace),
                "warnings": warnings if n == 1 else [],
            }
        )
    return out


def import_stories(
    db: Database,
    path: str | Path,
    *,
    doc_id: str | None = None,
    title: str | None = None,
    author: str | None = None,
    replace: bool = False,
) -> list[dict[str, Any]]:
    """Import a story collection (:func:`prepare_stories`): every story is read and checked
    before any is written, then each is stored in short transactions and appears at once. One
    report per story."""
    stories = prepare_stories(db, path, doc_id=doc_id, title=title, author=author, replace=replace)
    return [_store(db, story) for story in stories]


def import_books(
    db: Database,
    path: str | Path,
    replace: bool = False,
    split_stories: bool = False,
) -> list[dict[str, Any]]:
    """Import a single file, or every ``*.txt`` file in a folder (sorted by name); with
    ``split_stories`` every file is a story collection (:func:`prepare_stories`).

    A folder import reads and checks every file before writing any: one bad file fails the whole
    call and writes nothing. Each book (or story) is then stored in short transactions and
    appears at once (:func:`import_book`).
    """
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() == ".txt" and p.is_file())
        if not files:
            raise InputError("no .txt files in folder", path=str(path))
        for file in files:  # validate all first: decode errors name the file
            read_document_text(file)
    elif path.exists():
        files = [path]
    else:
        raise InputError("no such file or folder", path=str(path))
    books = [
        book
        for f in files
        for book in (
            prepare_stories(db, f, replace=replace)
            if split_stories
            else [prepare_book(db, f, replace=replace)]
        )
    ]
    return [_store(db, book) for book in books]

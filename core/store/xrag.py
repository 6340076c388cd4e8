"""XRAG tables ``article_pairs``, ``xrag_article_notes``, ``xrag_items`` and ``xrag_distractors``:
the only module with SQL on them (``xrag_results`` belongs to the evaluation).

Rows come back decoded (``shared_entities``, ``provenance``, ``metadata`` ... as JSON values) by
:func:`core.store.connection.rows`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from core.store.connection import dumps, placeholders, rows

if TYPE_CHECKING:
    from core.store.engine import Database

# ---------------------------------------------------------------------------------------------
# article_pairs
# ---------------------------------------------------------------------------------------------


def article_pairs(db: Database, status: str | None = "active") -> list[dict[str, Any]]:
    """Stored pairs, optionally only those with ``status``, by id."""
    sql = "select * from article_pairs" + (" where status = ?" if status else "") + " order by id"
    return rows(db, sql, [status] if status else [])


def set_pair_verdict(db: Database, pair: dict[str, Any]) -> None:
    """Record a model's verdict on the stored pair ``(article_a, article_b)``: its method,
    verdict, status and provenance (nothing happens when the pair is not stored)."""
    db.execute(
        "update article_pairs set method = ?, related = ?, status = ?, "
        "provenance = ? where article_a = ? and article_b = ?",
        [
            pair["method"],
            pair.get("related"),
            pair["status"],
            dumps(pair.get("provenance", {})),
            pair["article_a"],
            pair["article_b"],
        ],
    )


def add_pair(db: Database, pair: dict[str, Any], created_at: str) -> bool:
    """Insert a pair unless ``(article_a, article_b)`` is stored; True when inserted."""
    cur = db.execute(
        "insert or ignore into article_pairs (article_a, article_b, shared_entities, "
        "days_apart, method, related, status, provenance, created_at) "
        "values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            pair["article_a"],
            pair["article_b"],
            dumps(pair["shared_entities"]),
            pair["days_apart"],
            pair.get("method", "title-entities"),
            pair.get("related"),
            pair.get("status", "active"),
            dumps(pair.get("provenance", {})),
            created_at,
        ],
    )
    return cur.rowcount > 0


# ---------------------------------------------------------------------------------------------
# xrag_article_notes
# ---------------------------------------------------------------------------------------------


def article_notes(
    db: Database, article_id: str, kind: str, language: str = "en"
) -> list[dict[str, Any]]:
    """The notes (``summary`` or ``qa``) of an article in ``language``, in insertion order."""
    return rows(
        db,
        "select * from xrag_article_notes where article_id = ? and kind = ? "
        "and language = ? order by id",
        [article_id, kind, language],
    )


def translated_qa_notes(db: Database, article_id: str) -> list[dict[str, Any]]:
    """The single-step QA notes of an English article in other languages, by id."""
    return rows(
        db,
        "select * from xrag_article_notes where article_id = ? and kind = 'qa' "
        "and language != 'en' order by id",
        [article_id],
    )


def qa_note_sources(db: Database) -> list[dict[str, Any]]:
    """``article_id, language, provenance`` of every single-step QA note, by id."""
    return rows(
        db,
        "select article_id, language, provenance from xrag_article_notes where kind = 'qa' "
        "order by id",
    )


def add_article_note(db: Database, row: dict[str, Any]) -> None:
    """Insert one note row (``provenance`` as stored JSON text)."""
    db.table("xrag_article_notes").insert(row)


# ---------------------------------------------------------------------------------------------
# xrag_items (with their ``questions`` rows)
# ---------------------------------------------------------------------------------------------


def xrag_item_count(db: Database, pair_id: int, qtype: str) -> int:
    """Number of items of a pair and question type (any builder)."""
    return int(
        db.execute(
            "select count(*) from xrag_items where pair_id = ? and qtype = ?", [pair_id, qtype]
        ).fetchone()[0]
    )


def xrag_item_exists(db: Database, pair_id: int, *, builder: str, qtype: str | None = None) -> bool:
    """Whether ``builder`` made an item for the pair (of ``qtype`` when given)."""
    where, params = ["pair_id = ?", "builder = ?"], [pair_id, builder]
    if qtype is not None:
        where.append("qtype = ?")
        params.append(qtype)
    sql = f"select 1 from xrag_items where {' and '.join(where)} limit 1"
    return db.execute(sql, params).fetchone() is not None


def add_xrag_item(db: Database, row: dict[str, Any]) -> None:
    """Insert one ``xrag_items`` row (``sub_questions`` as stored JSON text)."""
    db.table("xrag_items").insert(row)


def english_xrag_questions(db: Database, statuses: Sequence[str]) -> list[dict[str, Any]]:
    """The English XRAG questions (those with an ``xrag_items`` row) whose status is one of
    ``statuses``, each with its item's ``pair_id`` and ``builder``, by id."""
    if not statuses:
        return []
    marks = placeholders(statuses)
    return rows(
        db,
        "select q.*, i.pair_id, i.builder from questions q join xrag_items i "
        f"on i.question_id = q.id where q.status in ({marks}) order by q.id",
        list(statuses),
    )


# ---------------------------------------------------------------------------------------------
# xrag_distractors
# ---------------------------------------------------------------------------------------------


def has_distractors(db: Database, pair_id: int) -> bool:
    """Whether distractors are stored for the pair."""
    found = db.execute("select 1 from xrag_distractors where pair_id = ? limit 1", [pair_id])
    return found.fetchone() is not None


def delete_distractors(db: Database, pair_id: int) -> None:
    """Remove the pair's stored distractors (before choosing them again)."""
    db.execute("delete from xrag_distractors where pair_id = ?", [pair_id])


def add_distractors(db: Database, new: Iterable[dict[str, Any]]) -> None:
    """Insert distractor rows (``pair_id, language, rank, document_id, english_id, score``)."""
    db.table("xrag_distractors").insert_all(new)


def pair_distractors(db: Database, pair_id: int, language: str = "en") -> list[dict[str, Any]]:
    """The stored distractors of a pair for ``language``, in rank order."""
    return rows(
        db,
        "select * from xrag_distractors where pair_id = ? and language = ? order by rank",
        [pair_id, language],
    )


def confirmed_pairs(db: Database, method: str) -> set[tuple[str, str]]:
    """``(article_a, article_b)`` of the stored pairs a model already said yes or no about
    (pairing ``method``)."""
    return {
        (r[0], r[1])
        for r in db.execute(
            "select article_a, article_b from article_pairs "
            "where method = ? and related is not null",
            [method],
        )
    }

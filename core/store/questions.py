"""Table ``questions``: the only module with SQL on it.

Rows come back decoded (``answers``, ``provenance``, ``metadata`` as JSON values) by
:func:`core.store.connection.rows`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from core.store.connection import placeholders, rows

if TYPE_CHECKING:
    from core.store.engine import Database

_COLUMN = re.compile(r"^[a-z_]+$")
#: Columns :func:`find_question_ids` may filter on by equality.
FILTER_COLUMNS = ("document_id", "entity_id", "qtype", "status", "origin")


def _columns(columns: Sequence[str] | None) -> str:
    if columns is None:
        return "*"
    for c in columns:
        if not _COLUMN.match(c):
            raise ValueError(f"not a questions column: {c!r}")
    return ", ".join(columns)


def get_question(
    db: Database, question_id: str, columns: Sequence[str] | None = None
) -> dict[str, Any] | None:
    """One question by id (or None)."""
    found = rows(db, f"select {_columns(columns)} from questions where id = ?", [question_id])
    return found[0] if found else None


def questions_by_id(
    db: Database, ids: Sequence[str], columns: Sequence[str] | None = None
) -> dict[str, dict[str, Any]]:
    """The questions with these ids (``columns`` of them, which must include ``id``; every
    column by default), keyed by id (unknown ids are absent; any number of ids)."""
    ids = list(ids)
    out: dict[str, dict[str, Any]] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        sql = f"select {_columns(columns)} from questions where id in ({placeholders(chunk)})"
        out.update((r["id"], r) for r in rows(db, sql, chunk))
    return out


def document_questions(
    db: Database,
    document_id: str,
    *,
    origin: str | None = None,
    statuses: Sequence[str] | None = None,
    exclude_status: str | None = None,
    columns: Sequence[str] | None = None,
    order: str = "id",
) -> list[dict[str, Any]]:
    """A document's questions, optionally of one ``origin`` and with a status in ``statuses``
    (or other than ``exclude_status``), ordered by ``id`` or ``created`` (creation time, id)."""
    where, params = ["document_id = ?"], [document_id]
    if origin is not None:
        where.append("origin = ?")
        params.append(origin)
    if statuses is not None:
        where.append(f"status in ({placeholders(statuses)})")
        params.extend(statuses)
    if exclude_status is not None:
        where.append("status != ?")
        params.append(exclude_status)
    by = {"id": "id", "created": "created_at, id"}[order]
    sql = f"select {_columns(columns)} from questions where {' and '.join(where)} order by {by}"
    return rows(db, sql, params)


def origin_questions(
    db: Database, origin: str, columns: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """Every question of ``origin``, by id."""
    return rows(
        db, f"select {_columns(columns)} from questions where origin = ? order by id", [origin]
    )


def find_question_ids(db: Database, filters: dict[str, Any], search: str = "") -> list[str]:
    """Ids of the questions equal on every given filter (:data:`FILTER_COLUMNS`; ``None`` / ``""``
    ignored) whose text contains ``search`` (or whose id is ``search``)."""
    where, params = ["1 = 1"], []
    for col, value in filters.items():
        if col not in FILTER_COLUMNS:
            raise ValueError(f"not a question filter: {col!r}")
        if value not in (None, ""):
            where.append(f"{col} = ?")
            params.append(value)
    if search.strip():
        where.append("(question like ? or id = ?)")
        params += [f"%{search.strip()}%", search.strip()]
    sql = f"select id from questions where {' and '.join(where)} order by id"
    return [r[0] for r in db.execute(sql, params)]


def distinct_values(db: Database, column: str) -> list[Any]:
    """The distinct non-empty values of a filter column (:data:`FILTER_COLUMNS`), sorted."""
    if column not in FILTER_COLUMNS:
        raise ValueError(f"not a question filter: {column!r}")
    return [
        r[0]
        for r in db.execute(
            f"select distinct {column} from questions where {column} is not null and "
            f"{column} != '' order by 1"
        )
    ]


def question_documents(db: Database) -> list[dict[str, Any]]:
    """(id, title) of the documents that have questions, by title."""
    return rows(
        db,
        "select distinct d.id, d.title from documents d join questions q "
        "on q.document_id = d.id order by d.title, d.id",
    )


def question_entities(db: Database) -> list[dict[str, Any]]:
    """(id, name) of the entities that have questions, by name."""
    return rows(
        db,
        "select distinct e.id, e.name from entities e join questions q on q.entity_id = e.id "
        "order by e.name",
    )


def referenced_entity_ids(db: Database) -> set[int]:
    """Entity ids some question is about."""
    return {
        int(r[0])
        for r in db.execute("select distinct entity_id from questions where entity_id is not null")
    }


def question_exists(db: Database, question_id: str) -> bool:
    """Whether a question with this id is stored."""
    return db.execute("select 1 from questions where id = ?", [question_id]).fetchone() is not None


def insert_question(db: Database, row: dict[str, Any]) -> None:
    """Insert one question row."""
    db.table("questions").insert(row)


def upsert_question(db: Database, row: dict[str, Any], on_insert: dict[str, Any]) -> bool:
    """Update the question ``row["id"]`` with ``row`` or, when new, insert ``row`` plus
    ``on_insert`` (e.g. ``created_at``). Returns True when inserted."""
    if question_exists(db, row["id"]):
        db.table("questions").update(row["id"], row)
        return False
    db.table("questions").insert({**row, **on_insert})
    return True


def generated_exists(
    db: Database, document_id: str, entity_id: int, model: str, prompt_hash: str
) -> bool:
    """Whether questions were generated on this document and entity by ``model`` with the prompt
    of ``prompt_hash``."""
    found = db.execute(
        "select 1 from questions where document_id = ? and entity_id = ? and origin = "
        "'generated' and json_extract(provenance, '$.model') = ? and "
        "json_extract(provenance, '$.prompt_hash') = ? limit 1",
        [document_id, entity_id, model, prompt_hash],
    ).fetchone()
    return found is not None


def counts_by_origin(db: Database) -> dict[str, int]:
    """Number of questions per origin."""
    return {
        r[0]: int(r[1])
        for r in db.execute("select origin, count(*) from questions group by origin order by 1")
    }


def review_summary_by_origin(db: Database) -> list[dict[str, Any]]:
    """Per origin: questions, pending, accepted (or edited) and rejected."""
    return rows(
        db,
        "select origin, count(*) questions, sum(status = 'pending') pending, "
        "sum(status in ('accepted', 'edited')) accepted, sum(status = 'rejected') rejected "
        "from questions group by origin order by origin",
    )


def pending_review_count(db: Database) -> int:
    """Questions waiting for a human review (NarrativeQA's own questions need none)."""
    return int(
        db.execute(
            "select count(*) from questions where status = 'pending' and origin != 'narrativeqa'"
        ).fetchone()[0]
    )


def question_counts_by_document(
    db: Database, origin: str, statuses: Sequence[str], document_kinds: Sequence[str]
) -> dict[str, int]:
    """Per document of one of ``document_kinds``: its questions of ``origin`` with a status in
    ``statuses``."""
    sql = (
        "select q.document_id, count(*) from questions q join documents d on d.id = q.document_id "
        f"where q.origin = ? and q.status in ({placeholders(statuses)}) and d.kind in "
        f"({placeholders(document_kinds)}) group by q.document_id"
    )
    return {r[0]: int(r[1]) for r in db.execute(sql, [origin, *statuses, *document_kinds])}


def generator_models(db: Database) -> set[str]:
    """Model ids named in the questions' provenance."""
    return {
        r[0]
        for r in db.execute("select distinct json_extract(provenance, '$.model') from questions")
        if r[0]
    }


def all_question_ids(db: Database) -> list[str]:
    """Every question id, sorted."""
    return [r[0] for r in db.execute("select id from questions order by id")]


def question_texts(db: Database, ids: Sequence[str]) -> dict[str, str]:
    """Question id -> its text, for ``ids`` (unknown ids are absent; any number of ids)."""
    return {qid: r["question"] for qid, r in questions_by_id(db, ids, ["id", "question"]).items()}


def child_questions(
    db: Database,
    parent_id: str,
    columns: Sequence[str] | None = None,
    *,
    origin: str | None = None,
) -> list[dict[str, Any]]:
    """The questions derived from ``parent_id`` (e.g. an XRAG question's translations, its
    other-language versions), optionally only of ``origin``, by id."""
    where, params = ["parent_id = ?"], [parent_id]
    if origin is not None:
        where.append("origin = ?")
        params.append(origin)
    sql = f"select {_columns(columns)} from questions where {' and '.join(where)} order by id"
    return rows(db, sql, params)


def root_questions(
    db: Database, origin: str, columns: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """The questions of ``origin`` that derive from no other (``parent_id`` null), by id."""
    return rows(
        db,
        f"select {_columns(columns)} from questions where origin = ? and parent_id is null "
        "order by id",
        [origin],
    )


def update_question(db: Database, question_id: str, updates: dict[str, Any]) -> None:
    """Set ``updates`` (column -> value; JSON columns as text, see
    :func:`core.store.connection.dumps`) on the question ``question_id``."""
    db.table("questions").update(question_id, updates)


def sample_question_ids(
    db: Database,
    equal: dict[str, Any] | None = None,
    any_of: dict[str, Sequence[Any]] | None = None,
) -> list[str]:
    """Ids (sorted) of the questions whose column equals each ``equal`` value and lies in each
    ``any_of`` list (empty values and lists are no filter): an experiment's ``[data]`` pool."""
    where, params = ["1 = 1"], []
    for col, value in (equal or {}).items():
        if value:
            where.append(f"{_columns([col])} = ?")
            params.append(value)
    for col, values in (any_of or {}).items():
        if values:
            where.append(f"{_columns([col])} in ({placeholders(values)})")
            params.extend(values)
    sql = f"select id from questions where {' and '.join(where)} order by id"
    return [r[0] for r in db.execute(sql, params)]


def all_question_texts(db: Database) -> dict[str, str]:
    """Every question's text, keyed by id."""
    return dict(db.execute("select id, question from questions").fetchall())


def set_question_text(db: Database, question_id: str, text: str, updated_at: str) -> None:
    """Replace the text of question ``question_id``."""
    db.execute(
        "update questions set question = ?, updated_at = ? where id = ?",
        [text, updated_at, question_id],
    )


def insert_questions(db: Database, new: Sequence[dict[str, Any]]) -> None:
    """Insert question rows (one batch statement per chunk)."""
    if new:
        db.table("questions").insert_all(new)


def document_dependents(db: Database, document_id: str) -> dict[str, int]:
    """How many questions are about ``document_id`` (as their document or their context), and how
    many answers and judgments those questions have: what replacing its text would orphan."""
    about = "select id from questions where document_id = ? or context_document_id = ?"
    found = {}
    for what, sql in (
        ("questions", f"select count(*) from ({about})"),
        ("answers", f"select count(*) from answers where question_id in ({about})"),
        ("judgments", f"select count(*) from judgments where question_id in ({about})"),
    ):
        found[what] = int(db.execute(sql, [document_id, document_id]).fetchone()[0])
    return found

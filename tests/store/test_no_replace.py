"""m0610 and m0670: INSERT OR REPLACE of an existing label is refused from a plain client (a plain
sqlite3 connection; on PostgreSQL a plain psycopg one: ``insert ... on conflict do update``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from bound_sql import run_sql
from contract_registry import contract_case
from qa_fixtures import seed

from core.store.connection import transaction, utcnow
from core.store.database import open_db


def seed_label_rows(db) -> dict[str, int]:
    """One judgment, one review and one dispute resolution by human:alice; their ids."""
    seed(db)
    now = utcnow()
    with transaction(db):
        run_sql(
            db,
            "insert into systems (name, model, context, created_at) values ('s', 'x:y', 'rag', :now)",
            now=now,
        )
        answer = run_sql(
            db,
            "insert into answers (question_id, system, text, created_at) "
            "values ('q1', 's', 'a', :now) returning id",
            now=now,
        ).fetchone()[0]
        judgment_ids = [
            run_sql(
                db,
                "insert into judgments (kind, question_id, rater, rater_kind, system, answer_id, "
                "verdict, created_at) values ('absolute', 'q1', :rater, :kind, 's', :answer, "
                "'yes', :now) returning id",
                rater=rater,
                kind=rater.split(":")[0],
                answer=answer,
                now=now,
            ).fetchone()[0]
            for rater in ("human:alice", "auto:x")
        ]
        review = run_sql(
            db,
            "insert into reviews (question_id, annotator, decision, created_at) "
            "values ('q1', 'alice', 'accept', :now) returning id",
            now=now,
        ).fetchone()[0]
        dispute = run_sql(
            db,
            "insert into disputes (question_id, answer_id, system, gt_judgment_id, "
            "ctx_judgment_id, gt_verdict, ctx_verdict, created_at) "
            "values ('q1', :answer, 's', :gt, :ctx, 'yes', 'no', :now) returning id",
            answer=answer,
            gt=judgment_ids[0],
            ctx=judgment_ids[1],
            now=now,
        ).fetchone()[0]
        resolution = run_sql(
            db,
            "insert into dispute_resolutions (dispute_id, annotator, resolution, created_at) "
            "values (:dispute, 'alice', 'ambiguous', :now) returning id",
            dispute=dispute,
            now=now,
        ).fetchone()[0]
        adjudication = run_sql(
            db,
            "insert into adjudications (task, item_key, label, adjudicator, created_at) "
            "values ('side-by-side', 'q1|a|b', 'first', 'carol', :now) returning id",
            now=now,
        ).fetchone()[0]
    return {
        "judgments": judgment_ids[0],
        "reviews": review,
        "dispute_resolutions": resolution,
        "adjudications": adjudication,
    }


class PlainClient:
    """A plain client of the database: ``sqlite3`` on the file, or ``psycopg`` on the URL (no
    project PRAGMAs, no project code, no SQL rewriting), autocommit."""

    def __init__(self, where: Path | str, backend: str) -> None:
        self.backend = backend
        if backend == "sqlite":
            self.conn: Any = sqlite3.connect(where)
            self.refused: tuple[type[Exception], ...] = (sqlite3.IntegrityError,)
            self.mark = "?"
        else:
            import psycopg

            self.conn = psycopg.connect(str(where), autocommit=True)
            self.refused = (psycopg.errors.RaiseException,)
            self.mark = "%s"

    def execute(self, sql: str, params: list[Any] | None = None) -> Any:
        return self.conn.execute(sql.replace("?", self.mark), params or [])

    def columns(self, table: str) -> list[str]:
        if self.backend == "sqlite":
            return [r[1] for r in self.conn.execute(f"pragma table_info({table})")]
        return [
            r[0]
            for r in self.execute(
                "select column_name from information_schema.columns where table_name = ? "
                "and table_schema = current_schema() order by ordinal_position",
                [table],
            )
        ]

    def replacing_statements(self, table: str, cols: list[str]) -> list[str]:
        """Statements (a mark for every column) that would overwrite the row with the same id."""
        names, marks = ", ".join(cols), ", ".join(self.mark for _ in cols)
        plain = f"into {table} ({names}) values ({marks})"
        if self.backend == "sqlite":
            return [f"{verb} {plain}" for verb in ("insert or replace", "replace", "insert")]
        sets = ", ".join(f"{c} = excluded.{c}" for c in cols if c != "id")
        return [f"insert {plain} on conflict (id) do update set {sets}", f"insert {plain}"]


@contract_case(open_db, transaction, utcnow)
def test_a_plain_client_cannot_replace_labels(db_path, backend):
    db = open_db(db_path)
    ids = seed_label_rows(db)
    db.close()
    conn = PlainClient(db_path, backend)  # a plain client: no project PRAGMAs, no project code
    before = {t: conn.execute(f"select * from {t} order by id").fetchall() for t in ids}
    for table, row_id in ids.items():
        cols = conn.columns(table)
        row = conn.execute(f"select * from {table} where id = ?", [row_id]).fetchone()
        values = list(row)
        for i, col in enumerate(cols):
            if col in ("verdict", "resolution", "annotator", "rater", "note", "comment", "label"):
                values[i] = "tampered"
        for statement in conn.replacing_statements(table, cols):
            with pytest.raises(conn.refused, match="append-only"):
                conn.conn.execute(statement, values)
        with pytest.raises(conn.refused, match="append-only"):
            conn.execute(f"update {table} set id = id where id = ?", [row_id])
        with pytest.raises(conn.refused, match="append-only"):
            conn.execute(f"delete from {table} where id = ?", [row_id])
    conn.conn.commit()
    after = {t: conn.execute(f"select * from {t} order by id").fetchall() for t in ids}
    assert after == before
    # a new row (new id) is still accepted: supersede, don't replace
    cols = [c for c in conn.columns("reviews") if c != "id"]
    conn.execute(
        f"insert into reviews ({', '.join(cols)}) select {', '.join(cols)} from reviews "
        "where id = ?",
        [ids["reviews"]],
    )
    assert conn.execute("select count(*) from reviews").fetchone()[0] == len(before["reviews"]) + 1
    conn.conn.close()

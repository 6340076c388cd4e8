"""m0610 and m0670: INSERT OR REPLACE of an existing label is refused from a plain sqlite3 connection."""

from __future__ import annotations

import sqlite3

import pytest

from core.store.connection import transaction, utcnow
from core.store.database import open_db
from tests.qa_fixtures import seed


def seed_label_rows(db) -> dict[str, int]:
    """One judgment, one review and one dispute resolution by human:alice; their ids."""
    seed(db)
    now = utcnow()
    with transaction(db):
        db.execute(
            "insert into systems (name, model, context, created_at) values ('s', 'x:y', 'rag', ?)",
            [now],
        )
        answer = db.execute(
            "insert into answers (question_id, system, text, created_at) values ('q1', 's', 'a', ?)",
            [now],
        ).lastrowid
        judgment_ids = [
            db.execute(
                "insert into judgments (kind, question_id, rater, rater_kind, system, answer_id, "
                "verdict, created_at) values ('absolute', 'q1', ?, ?, 's', ?, 'yes', ?)",
                [rater, rater.split(":")[0], answer, now],
            ).lastrowid
            for rater in ("human:alice", "auto:x")
        ]
        review = db.execute(
            "insert into reviews (question_id, annotator, decision, created_at) "
            "values ('q1', 'alice', 'accept', ?)",
            [now],
        ).lastrowid
        dispute = db.execute(
            "insert into disputes (question_id, answer_id, system, gt_judgment_id, "
            "ctx_judgment_id, gt_verdict, ctx_verdict, created_at) "
            "values ('q1', ?, 's', ?, ?, 'yes', 'no', ?)",
            [answer, *judgment_ids, now],
        ).lastrowid
        resolution = db.execute(
            "insert into dispute_resolutions (dispute_id, annotator, resolution, created_at) "
            "values (?, 'alice', 'ambiguous', ?)",
            [dispute, now],
        ).lastrowid
        adjudication = db.execute(
            "insert into adjudications (task, item_key, label, adjudicator, created_at) "
            "values ('side-by-side', 'q1|a|b', 'first', 'carol', ?)",
            [now],
        ).lastrowid
    return {
        "judgments": judgment_ids[0],
        "reviews": review,
        "dispute_resolutions": resolution,
        "adjudications": adjudication,
    }


def test_plain_sqlite3_cannot_replace_labels(tmp_path):
    path = tmp_path / "w.db"
    db = open_db(path)
    ids = seed_label_rows(db)
    db.close()
    conn = sqlite3.connect(path)  # a plain client: no project PRAGMAs, no project code
    before = {t: conn.execute(f"select * from {t} order by id").fetchall() for t in ids}
    for table, row_id in ids.items():
        cols = [r[1] for r in conn.execute(f"pragma table_info({table})")]
        row = conn.execute(f"select * from {table} where id = ?", [row_id]).fetchone()
        values = list(row)
        for i, col in enumerate(cols):
            if col in ("verdict", "resolution", "annotator", "rater", "note", "comment", "label"):
                values[i] = "tampered"
        marks = ", ".join("?" * len(cols))
        for verb in ("insert or replace", "replace", "insert"):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                conn.execute(f"{verb} into {table} ({', '.join(cols)}) values ({marks})", values)
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(f"update {table} set id = id where id = ?", [row_id])
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(f"delete from {table} where id = ?", [row_id])
    conn.commit()
    after = {t: conn.execute(f"select * from {t} order by id").fetchall() for t in ids}
    assert after == before
    # a new row (new id) is still accepted: supersede, don't replace
    table, row_id = "reviews", ids["reviews"]
    cols = [r[1] for r in conn.execute("pragma table_info(reviews)") if r[1] != "id"]
    conn.execute(
        f"insert into reviews ({', '.join(cols)}) select {', '.join(cols)} from reviews "
        "where id = ?",
        [row_id],
    )
    assert conn.execute("select count(*) from reviews").fetchone()[0] == len(before["reviews"]) + 1
    conn.close()

"""The XRAG tests' database of composed items (the bundled XRAG sample), on each backend: built
per test on SQLite; on PostgreSQL built once per session and copied per test
(:func:`pg_server.built_database`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pg_server import built_database

from core.store.connection import rows
from core.store.database import open_db, opened
from core.store.engine import Database
from core.xrag.articles import import_articles, pair_articles
from core.xrag.baseline import compose_baseline
from core.xrag.notes import import_single_qas


def _build(location: Path | str, demo_dir: Path) -> list[tuple[str, str]]:
    """The bundled XRAG sample composed into items; ``(id, origin)`` of every root question."""
    with opened(location) as db:
        import_articles(db, demo_dir / "xrag" / "articles.jsonl", source="xquad")
        import_single_qas(db, demo_dir / "xrag" / "qas.jsonl")
        pair_articles(db, min_shared=1)
        compose_baseline(db, per_pair=1)
        return [
            (r["id"], r["origin"])
            for r in rows(
                db, "select id, origin from questions where parent_id is null order by id"
            )
        ]


@pytest.fixture
def composed_xrag(
    backend: str, demo_dir: Path, request: pytest.FixtureRequest
) -> tuple[Database, list[tuple[str, str]], Path | str]:
    """``(db, roots, location)``: a fresh database of this test alone with the items, open (closed
    after the test), ``(id, origin)`` of its root questions by id, and where it is."""
    location, roots = built_database(
        request, "composed_xrag", lambda where: _build(where, demo_dir)
    )
    db = open_db(location)
    request.addfinalizer(db.close)
    return db, roots, location

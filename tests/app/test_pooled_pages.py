"""Opening a page on PostgreSQL costs no new connection (issue 33): a page run borrows one from
the process's pool (:mod:`core.store.pool`), never opens one. Counted: every connection the
pool's engine makes goes through :func:`core.store.pool.connect_psycopg`."""

from __future__ import annotations

from typing import Any

import pytest
from test_app_pages import fixture_db, ok, page  # noqa: F401  (fixture_db: a fixture)

from core.store import pool

#: Pages opened twice: once to warm the process's pool, then counted.
PAGES = ("app.py", "pages/6_Browse.py", "pages/4_Agreement.py", "pages/10_Adjudication.py")


@pytest.mark.parametrize("backend", ["postgresql"])  # the pool of PostgreSQL connections
def test_opening_pages_on_postgresql_opens_no_new_connection(
    fixture_db: tuple[Any, dict[str, Any]],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    opened: list[str] = []
    real = pool.connect_psycopg

    def counted(url: str) -> Any:
        opened.append(url)
        return real(url)

    monkeypatch.setattr(pool, "connect_psycopg", counted)
    for path in PAGES:
        ok(page(path))
    assert opened, "the first page runs open the pool's connections (the counter sees them)"
    opened.clear()
    for path in PAGES:
        ok(page(path))
    assert opened == [], f"{len(opened)} new connection(s) opened by a page run"

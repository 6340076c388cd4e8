"""A PostgreSQL server that fails during a command is one ``error:`` line, exit 2, as a failing
SQLite file is (issue 25): here a lock held by another client past the busy timeout."""

from __future__ import annotations

import pytest

from core.__main__ import main
from core.store.database import open_db


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_a_lock_held_past_the_busy_timeout_is_one_error_line(db_path, monkeypatch, capsys):
    import psycopg

    monkeypatch.setenv("WORKBENCH_BUSY_TIMEOUT", "0.3")  # seconds
    with psycopg.connect(str(db_path)) as holder:  # another client's open transaction
        holder.execute("lock table judgments in access exclusive mode")
        code = main(["--db", str(db_path), "status"])
        holder.rollback()
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: the PostgreSQL server failed"), err
    assert "lock timeout" in lines[0] and "Traceback" not in err
    db = open_db(db_path)  # the database is as it was and usable
    try:
        assert main(["--db", str(db_path), "status"]) == 0
    finally:
        db.close()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_a_sql_mistake_keeps_its_traceback(db_path):
    """Only operational failures become one line: a SQL error is a bug and is raised."""
    import psycopg

    from core.__main__ import is_server_error

    db = open_db(db_path)
    try:
        with pytest.raises(psycopg.errors.UndefinedTable) as caught:
            db.execute("select * from no_such_table")
    finally:
        db.close()
    assert not is_server_error(caught.value)

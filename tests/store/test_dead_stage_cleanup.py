"""A killed import's staged passages (issue 38): the stage of a process that died is removed the
next time the database is opened, not only when the same document is imported again; the stage
of a live import is left alone."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

from contract_registry import contract_case

from core.corpus.documents import upsert_document
from core.store.database import open_db


def _dead_pid() -> int:
    """The id of a process that has exited (and been reaped)."""
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(child.stdout)


def _stage(db, stage: str, document_id: str, rows: int) -> None:
    db.table("passage_stage").insert_all(
        {
            "stage": stage,
            "document_id": document_id,
            "idx": i,
            "start": 0,
            "end": 1,
            "text": "x",
            "n_tokens": 1,
        }
        for i in range(rows)
    )


def _stages(db) -> set[str]:
    return {r[0] for r in db.execute("select distinct stage from passage_stage")}


@contract_case(open_db)
def test_open_removes_the_stage_of_a_dead_import_only(db_path):
    db = open_db(db_path)
    upsert_document(db, "book:a", "A story.\n", kind="book", source="file", title="A")
    host = socket.gethostname()
    dead, live = f"{host}:{_dead_pid()}:deadbeef0000", f"{host}:{os.getpid()}:live00000000"
    other_host = f"elsewhere-{host}:{_dead_pid()}:farfarfar000"
    _stage(db, dead, "book:new", 2500)  # more than one delete chunk
    _stage(db, live, "book:other", 3)
    _stage(db, other_host, "book:third", 3)
    db.close()
    db = open_db(db_path)  # e.g. the next command, or the next page run of the app
    try:
        assert _stages(db) == {live, other_host}  # another host's process cannot be checked
        assert db.execute("select count(*) from passages").fetchone()[0] >= 1  # book:a kept
    finally:
        db.close()


@contract_case(open_db)
def test_open_marks_a_dead_run_and_skips_the_bookkeeping_when_nothing_is_left(db_path, monkeypatch):
    """Every open checks in its one schema statement whether a run of this host is marked
    running or a stage is left (issue 33: fewer round trips a page run); the dead-run and
    dead-stage bookkeeping runs only then, and still marks a dead process's run."""
    from core.store import database, runs

    open_db(db_path).close()  # this process now knows the database's schema
    called: list[str] = []
    for name in ("mark_dead_runs", "drop_dead_stages"):
        real = getattr(database, name)
        monkeypatch.setattr(
            database, name, lambda db, _real=real, _name=name: called.append(_name) or _real(db)
        )
    open_db(db_path).close()
    assert called == []  # nothing running here, no stage: one statement, no bookkeeping
    db = open_db(db_path)
    run_id = runs.start_run(db, "experiment", "e1", {})
    db["runs"].update(run_id, {"pid": _dead_pid()})  # the run's process has died
    db.close()
    db = open_db(db_path)
    try:
        assert called == ["mark_dead_runs"]
        assert runs.experiment_runs(db)[0].status is runs.RunStatus.INTERRUPTED
    finally:
        db.close()

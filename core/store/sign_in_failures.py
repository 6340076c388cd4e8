"""Failed sign-in attempts per client (table ``sign_in_failures``): record, read, forget."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.connection import transaction

if TYPE_CHECKING:
    from core.store.engine import Database


def record_failure(db: Database, client: str, at: float, keep_s: float) -> None:
    """Store one failed attempt of ``client`` at ``at``; drop every failure older than
    ``keep_s`` seconds (of any client)."""
    with transaction(db):
        db.execute("delete from sign_in_failures where failed_at < ?", [at - keep_s])
        db.execute(
            "insert into sign_in_failures (client, failed_at) values (?, ?)", [client, float(at)]
        )


def failures_since(db: Database, client: str, since: float) -> list[float]:
    """The times of ``client``'s failed attempts at or after ``since``, oldest first."""
    found = db.execute(
        "select failed_at from sign_in_failures where client = ? and failed_at >= ? "
        "order by failed_at",
        [client, float(since)],
    )
    return [float(r[0]) for r in found]


def clear_failures(db: Database, client: str) -> None:
    """Forget ``client``'s failed attempts (after a successful sign-in)."""
    with transaction(db):
        db.execute("delete from sign_in_failures where client = ?", [client])

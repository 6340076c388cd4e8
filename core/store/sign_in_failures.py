"""Failed sign-in attempts per client (table ``sign_in_failures``): record, read, forget."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sqlalchemy as sa

from core.store.connection import transaction
from core.store.statements import run
from core.store.tables import sign_in_failures as failures

if TYPE_CHECKING:
    from core.store.engine import Database


def record_failure(db: Database, client: str, at: float, keep_s: float) -> None:
    """Store one failed attempt of ``client`` at ``at``; drop every failure older than
    ``keep_s`` seconds (of any client)."""
    with transaction(db):
        run(db, sa.delete(failures).where(failures.c.failed_at < at - keep_s))
        run(db, sa.insert(failures).values(client=client, failed_at=float(at)))


def failures_since(db: Database, client: str, since: float) -> list[float]:
    """The times of ``client``'s failed attempts at or after ``since``, oldest first."""
    query = (
        sa.select(failures.c.failed_at)
        .where(failures.c.client == client, failures.c.failed_at >= float(since))
        .order_by(failures.c.failed_at)
    )
    return [float(r[0]) for r in run(db, query).fetchall()]


def clear_failures(db: Database, client: str) -> None:
    """Forget ``client``'s failed attempts (after a successful sign-in)."""
    with transaction(db):
        run(db, sa.delete(failures).where(failures.c.client == client))

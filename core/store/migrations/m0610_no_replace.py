"""Labels cannot be rewritten with ``INSERT OR REPLACE`` from any SQLite client.

``REPLACE`` deletes the conflicting row without firing DELETE triggers (SQLite fires them only
with ``PRAGMA recursive_triggers``, which a plain ``sqlite3`` session does not set), so the
append-only triggers of ``m0001`` did not stop it. A ``BEFORE INSERT`` trigger per label table
refuses a new row whose ``id`` is already taken, before any conflict resolution runs: a
judgment, review or dispute resolution can only be superseded by a new row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.store.engine import Database


TABLES = ("judgments", "reviews", "dispute_resolutions")


def apply(db: Database) -> None:
    """Create one BEFORE INSERT trigger per label table."""
    for table in TABLES:
        db.execute(
            f"create trigger if not exists {table}_no_replace before insert on {table} "
            f"when new.id is not null and exists (select 1 from {table} where id = new.id) "
            f"begin select raise(abort, '{table} is append-only: that id exists; add a "
            "superseding row instead of replacing it'); end"
        )

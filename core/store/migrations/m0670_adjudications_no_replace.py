"""Adjudications (gold labels) cannot be rewritten with ``INSERT OR REPLACE`` either.

The same ``BEFORE INSERT`` guard as :mod:`core.store.migrations.m0610_no_replace`, for the label
table that arrived with adjudication (``m0601``): a settled label changes only by a new row that
supersedes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.store.engine import Database


def apply(db: Database) -> None:
    """Create the BEFORE INSERT trigger of table ``adjudications``."""
    db.execute(
        "create trigger if not exists adjudications_no_replace before insert on adjudications "
        "when new.id is not null and exists (select 1 from adjudications where id = new.id) "
        "begin select raise(abort, 'adjudications is append-only: that id exists; add a "
        "superseding row instead of replacing it'); end"
    )

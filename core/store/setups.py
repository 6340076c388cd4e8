"""Tables ``systems`` and ``judges``: the stored setups behind answer and rater names.

A system name (answers) and a judge name (``auto:<name>`` raters) each mean one configuration:
model, context strategy, parameters and prompt. Rows come back decoded (``params`` as a dict) by
:func:`core.store.connection.rows`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.store.connection import rows

if TYPE_CHECKING:
    from core.store.engine import Database


def get_system(db: Database, name: str) -> dict[str, Any] | None:
    """The stored system ``name`` (decoded), or None."""
    found = rows(db, "select * from systems where name = ?", [name])
    return found[0] if found else None


def get_judge(db: Database, name: str) -> dict[str, Any] | None:
    """The stored judge ``name`` (decoded), or None."""
    found = rows(db, "select * from judges where name = ?", [name])
    return found[0] if found else None


def system_names(db: Database) -> set[str]:
    """Names of the stored systems."""
    return {r[0] for r in db.execute("select name from systems")}


def insert_system(db: Database, row: dict[str, Any]) -> None:
    """Insert one ``systems`` row."""
    db.table("systems").insert(row)


def insert_judge(db: Database, row: dict[str, Any]) -> None:
    """Insert one ``judges`` row."""
    db.table("judges").insert(row)


def setup_models(db: Database) -> set[str]:
    """Model ids named by the stored systems, judges and model calls of the ledger."""
    return {
        r[0]
        for r in db.execute(
            "select model from systems union select model from judges union "
            "select distinct model from llm_calls"
        )
        if r[0]
    }

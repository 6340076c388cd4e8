"""Staged rows of an import (:mod:`core.store.row_stage`): a large import writes its new rows
here as JSON in short transactions, invisible to every reader, then copies them into their table
in one short switch transaction."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

SCHEMA = """
create table if not exists row_stage (
    stage text not null,            -- one import: '<host>:<pid>:<random>'
    seq integer not null,           -- the rows' order
    target text not null,           -- the table the row is for
    row text not null,              -- the row as a JSON object
    primary key (stage, seq)
);
"""


def apply(db: Database) -> None:
    """Create the staging table."""
    execute_script(db, SCHEMA)

"""Text sorts by bytes on PostgreSQL too: every text column ``COLLATE "C"``.

SQLite compares text by its bytes (``BINARY``); PostgreSQL by the column's collation, which is the
database's unless the column names one, and the database's is fixed when an operator creates
it (``en_US.UTF-8``, Debian's usual default, sorts ``B2`` after ``a3``). So every store read
ordered by text (document ids, rater names, question ids before a seeded sample) came back in
another order on PostgreSQL. This revision gives each text column of the workbench's tables the
``"C"`` collation (byte order, as SQLite), whatever the database's; a new database gets them here
too (the baseline is kept as it was), and :mod:`core.store.tables` declares them so.

``ALTER COLUMN ... TYPE text COLLATE "C"`` keeps the values (text to text: no rewrite of the
table; the column's indexes are rebuilt in the new order). One column stays:
``llm_calls.tags``, a JSON document two generated columns are computed from (PostgreSQL refuses
to alter such a column), never compared or ordered as text. SQLite: nothing to do.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

#: The columns left with the database's collation (see the module).
KEPT = {("llm_calls", "tags")}

#: The text columns of the schema's tables whose collation is not ``"C"`` yet, in table order.
_TEXT_COLUMNS = sa.text(
    "select c.table_name, c.column_name from information_schema.columns c "
    "join information_schema.tables t on t.table_schema = c.table_schema "
    "and t.table_name = c.table_name "
    "where c.table_schema = current_schema() and t.table_type = 'BASE TABLE' "
    "and c.data_type = 'text' and c.collation_name is distinct from 'C' "
    "and c.table_name <> 'alembic_version' "
    "order by c.table_name, c.ordinal_position"
)


def _quote(name: str) -> str:
    return '"{}"'.format(name.replace('"', '""'))


def upgrade() -> None:
    """On PostgreSQL, ``COLLATE "C"`` on every text column but :data:`KEPT`."""
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    found = [(str(t), str(c)) for t, c in bind.execute(_TEXT_COLUMNS) if (t, c) not in KEPT]
    by_table: dict[str, list[str]] = {}
    for table, column in found:
        by_table.setdefault(table, []).append(column)
    for table, columns in by_table.items():  # one statement per table: its indexes rebuilt once
        alter = ", ".join(f'alter column {_quote(c)} type text collate "C"' for c in columns)
        bind.exec_driver_sql(f"alter table {_quote(table)} {alter}")


def downgrade() -> None:
    """Back to the database's collation (``"default"``) on the same columns."""
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    found = bind.execute(
        sa.text(
            "select table_name, column_name from information_schema.columns "
            "where table_schema = current_schema() and data_type = 'text' "
            "and collation_name = 'C' order by table_name, ordinal_position"
        )
    )
    for table, column in found:
        bind.exec_driver_sql(
            f'alter table {_quote(table)} alter column {_quote(column)} type text collate "default"'
        )

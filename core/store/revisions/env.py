"""Alembic's environment: run the revisions on the connection the caller passes.

:func:`core.store.schema_upgrade.upgrade_schema` opens the transaction (``BEGIN IMMEDIATE`` on
SQLite, ``BEGIN`` and the migration lock on PostgreSQL) and passes its connection as
``config.attributes["connection"]``; there is no ``alembic.ini`` and no URL here.
"""

from __future__ import annotations

from alembic import context

connection = context.config.attributes.get("connection")
if connection is None:  # the alembic CLI: history, heads and revision work; upgrades do not
    raise SystemExit("error: upgrade a database with `python -m core --db DB migrate`")
context.configure(connection=connection, target_metadata=None)
with context.begin_transaction():  # inside the caller's transaction: nothing of its own
    context.run_migrations()

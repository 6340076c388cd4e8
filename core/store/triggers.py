"""The label tables' triggers as SQLAlchemy ``DDL`` per dialect (issue 33), defined once here and
used by both ways a schema is made: the baseline revision (``r0001_baseline`` runs
:func:`create_all` on its connection) and the MetaData (each table module calls :func:`attach`,
so ``metadata.create_all`` makes them after the table, ``execute_if(dialect=...)``).

Three rules, each a ``BEFORE`` trigger that aborts with a message (SQLite: ``raise(abort, ...)``;
PostgreSQL: a PL/pgSQL function raising SQLSTATE ``P0001`` and a row trigger calling it):

- **append-only** (``<table>_no_update`` / ``<table>_no_delete``): an UPDATE or DELETE aborts;
- **no-replace** (``<table>_no_replace``): an INSERT reusing a stored id aborts (SQLite's
  ``REPLACE`` deletes without firing DELETE triggers);
- **same-owner** (``<table>_same_owner``): a row may supersede only a row of the same person.

The text is what the numbered migrations made (``m0001``, ``m0310``, ``m0601``, ``m0610``,
``m0670``, ``m0680``, ``m0685``, ``m0690``), character for character: a database upgraded from an
older release and a new one hold the same triggers (``tests/store/test_triggers.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

#: The dialects a trigger is spelled for.
DIALECTS = ("sqlite", "postgresql")


def _quoted(text: str) -> str:
    return "'{}'".format(text.replace("'", "''"))


@dataclass(frozen=True)
class Trigger:
    """One ``BEFORE <event>`` trigger on ``table`` aborting with ``message`` when its condition
    holds (``sqlite_when`` / ``postgresql_when``; None: always)."""

    name: str
    table: str
    event: str  # insert, update or delete
    message: str
    sqlite_when: str | None = None
    postgresql_when: str | None = None

    def statements(self, dialect: str) -> list[str]:
        """The DDL text for ``dialect`` (one statement on SQLite, function and trigger on
        PostgreSQL)."""
        message = _quoted(self.message)
        if dialect == "sqlite":
            when = f" when {self.sqlite_when}" if self.sqlite_when else ""
            return [
                f"CREATE TRIGGER {self.name} before {self.event} on {self.table}{when} "
                f"begin select raise(abort, {message}); end"
            ]
        if dialect != "postgresql":
            raise ValueError(f"no DDL for dialect {dialect!r}")
        row = "old" if self.event == "delete" else "new"
        return [
            f"create or replace function {self.name}_fn() returns trigger language plpgsql as "
            f"$fn$ begin if {self.postgresql_when or 'true'} then raise exception using message "
            f"= {message}, errcode = 'P0001'; end if; return {row}; end $fn$",
            f"create or replace trigger {self.name} before {self.event} on {self.table} "
            f"for each row execute function {self.name}_fn()",
        ]

    def ddl(self, dialect: str) -> list[sa.DDL]:
        """:meth:`statements` as SQLAlchemy ``DDL``, each run only on ``dialect``."""
        return [
            sa.DDL(s).execute_if(dialect=dialect)  # type: ignore[no-untyped-call]
            for s in self.statements(dialect)
        ]


def append_only(table: str) -> list[Trigger]:
    """UPDATE and DELETE abort: ``<table> is append-only: add a superseding row``."""
    message = f"{table} is append-only: add a superseding row"
    return [Trigger(f"{table}_no_{op}", table, op, message) for op in ("update", "delete")]


def no_replace(table: str) -> Trigger:
    """An INSERT whose id is stored already aborts (instead of replacing that row)."""
    when = f"new.id is not null and exists (select 1 from {table} where id = new.id)"
    return Trigger(
        f"{table}_no_replace",
        table,
        "insert",
        f"{table} is append-only: that id exists; add a superseding row instead of replacing it",
        when,
        when,
    )


def same_owner(table: str, owner: str, message: str) -> Trigger:
    """A row superseding a row of another ``owner`` (column) aborts with ``message``."""
    theirs = f"(select {owner} from {table} where id = new.supersedes)"
    return Trigger(
        f"{table}_same_owner",
        table,
        "insert",
        message,
        f"new.supersedes is not null and new.{owner} is not {theirs}",
        f"new.supersedes is not null and new.{owner} is distinct from {theirs}",
    )


def _label_owner(table: str, owner: str) -> Trigger:
    return same_owner(
        table,
        owner,
        f"{table}: a label can only be superseded by its own {owner} "
        f"(nobody can change another {owner}'s labels)",
    )


#: Every table's triggers, in the order they are made.
TRIGGERS: dict[str, list[Trigger]] = {
    "judgments": [
        *append_only("judgments"),
        _label_owner("judgments", "rater"),
        no_replace("judgments"),
    ],
    "reviews": [
        *append_only("reviews"),
        _label_owner("reviews", "annotator"),
        no_replace("reviews"),
    ],
    "dispute_resolutions": [
        *append_only("dispute_resolutions"),
        _label_owner("dispute_resolutions", "annotator"),
        no_replace("dispute_resolutions"),
    ],
    "adjudications": [
        same_owner(
            "adjudications",
            "adjudicator",
            "adjudications: a decision can only be superseded by its own adjudicator",
        ),
        *append_only("adjudications"),
        no_replace("adjudications"),
    ],
    "validation_items": append_only("validation_items"),
    "gold_sources": append_only("gold_sources"),
    "entity_edits": append_only("entity_edits"),
}


def attach(table: sa.Table) -> None:
    """Make ``table``'s triggers of :data:`TRIGGERS` after ``CREATE TABLE`` (``create_all``),
    each in its dialect's spelling."""
    for trigger in TRIGGERS[table.name]:
        for dialect in DIALECTS:
            for ddl in trigger.ddl(dialect):
                sa.event.listen(table, "after_create", ddl)


def create_all(conn: sa.Connection) -> None:
    """Make every table's triggers on ``conn`` (its tables exist): the baseline revision's."""
    for triggers in TRIGGERS.values():
        for trigger in triggers:
            for ddl in trigger.ddl(conn.dialect.name):
                conn.execute(ddl)

"""Adjudications: an adjudicator's settled label of an item people disagreed on (its gold).

Append-only like every label table; a changed decision is a new row superseding the old one, and
only by the same adjudicator (trigger), so nobody can change another adjudicator's decision.
``task`` is ``side-by-side`` (label relative to the canonical system order: ``first``,
``second``, ``Equal``, ``None``), ``review`` (accept / reject / edit) or ``disputes`` (a
resolution).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import append_only, execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

SCHEMA = """
create table adjudications (
    id integer primary key,
    task text not null,
    item_key text not null,
    label text not null,
    rationale text not null default '',
    adjudicator text not null,
    supersedes integer references adjudications(id),
    created_at text not null
);
create index adjudications_item on adjudications(task, item_key);
"""


def apply(db: Database) -> None:
    """Create table ``adjudications`` (append-only)."""
    execute_script(db, SCHEMA)
    db.execute(
        "create trigger adjudications_same_owner before insert on adjudications "
        "when new.supersedes is not null and new.adjudicator is not "
        "(select adjudicator from adjudications where id = new.supersedes) "
        "begin select raise(abort, 'adjudications: a decision can only be superseded by "
        "its own adjudicator'); end"
    )
    append_only(db, "adjudications")

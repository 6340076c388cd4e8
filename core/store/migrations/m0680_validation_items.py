"""Validation items: side-by-side items an admin put into the team's queue so that an
auto-rater's alt-test (``python -m core validate-rater``) gets enough doubly-labelled items.

One row per (task, item, rater): ``item_key`` is the item's pair key, ``overlap`` how many
distinct people must label it (2), ``requested_by`` the admin and ``created_at`` when. The queue
(:func:`core.annotation.pairwise.verdict_queue`) puts these items first and keeps each open until
``overlap`` people have labelled it. Append-only: a request is never changed or taken back here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import append_only, execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

SCHEMA = """
create table validation_items (
    id integer primary key,
    task text not null,
    item_key text not null,
    rater text not null,
    overlap integer not null check (overlap >= 1),
    requested_by text not null,
    created_at text not null,
    unique (task, item_key, rater)
);
create index validation_items_task on validation_items(task);
"""


def apply(db: Database) -> None:
    """Create table ``validation_items`` (append-only)."""
    execute_script(db, SCHEMA)
    append_only(db, "validation_items")

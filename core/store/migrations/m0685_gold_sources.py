"""Gold sources: human raters (e.g. an imported expert panel) whose labels an admin made gold.

Append-only: each row marks (``action = 'add'``) or unmarks (``'remove'``) one rater, with who
did it and when; a rater is a gold source when its latest row is an ``add``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import append_only, execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

SCHEMA = """
create table gold_sources (
    id integer primary key,
    rater text not null,
    action text not null check (action in ('add', 'remove')),
    marked_by text not null,
    created_at text not null
);
create index gold_sources_rater on gold_sources(rater, id);
"""


def apply(db: Database) -> None:
    """Create table ``gold_sources`` (append-only)."""
    execute_script(db, SCHEMA)
    append_only(db, "gold_sources")

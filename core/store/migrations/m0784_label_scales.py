"""Label scales (issue 32): a labelling task read from a file declares its scale.

``label_scales``: one row per task (``task``, the ``criterion`` of its judgments of kind
``label``): ``scale`` ``categorical`` (one label of a set), ``ordinal`` (ordered labels or
numbers) or ``multilabel`` (a set of labels per item); ``labels``, the JSON list of labels in
their order (ordinal: lowest first); ``declared`` 1 when the labels were given (a label outside
them is refused), 0 when they are the labels seen so far. The built-in tasks (yes/no
``absolute`` and ``side-by-side``) keep their fixed scales and have no row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

SCHEMA = """
create table label_scales (
    task text primary key,
    scale text not null check (scale in ('categorical', 'ordinal', 'multilabel')),
    labels text not null default '[]',
    declared integer not null default 0,
    created_at text not null,
    updated_at text not null
);
"""


def apply(db: Database) -> None:
    """Create table ``label_scales``."""
    execute_script(db, SCHEMA)

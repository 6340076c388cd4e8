"""Custom label tasks (issue 32): a team labels a task an admin defines in the app.

``custom_tasks``: one row per task defined with ``tasks define`` or the Team page (``task``, its
scale and labels being the task's row of ``label_scales``): the ``guideline`` text shown beside
each item and who defined it. ``custom_task_items``: the task's items (``item`` its key), each
about a question (``question_id``) and optionally one system's answer (``system``, ``answer``
the text shown), in the order added (``position``). Labels are judgments of kind ``label``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

SCHEMA = """
create table custom_tasks (
    task text primary key references label_scales(task),
    guideline text not null default '',
    defined_by text not null default '',
    created_at text not null,
    updated_at text not null
);
create table custom_task_items (
    task text not null references custom_tasks(task),
    item text not null,
    question_id text not null references questions(id),
    system text,
    answer text not null default '',
    position integer not null,
    created_at text not null,
    primary key (task, item)
);
"""


def apply(db: Database) -> None:
    """Create tables ``custom_tasks`` and ``custom_task_items``."""
    execute_script(db, SCHEMA)

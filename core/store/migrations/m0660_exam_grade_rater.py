"""EXAM grades name their rater: ``exam_grades.rater`` is the model of the ground-truth rater
(``match_reference``) when one replaced the lexical verdict, else empty (the verdict came from
the answer key, the self-rating or the lexical SQuAD token F1)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

SCHEMA = """
alter table exam_grades add column rater text not null default '';
"""


def apply(db: Database) -> None:
    """Add the rater column of EXAM grades."""
    execute_script(db, SCHEMA)

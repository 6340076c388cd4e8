"""Tables ``systems`` and ``judges``: the stored setups behind answer and rater names.

A system name (answers) and a judge name (``auto:<name>`` raters) each mean one configuration:
model, context strategy, parameters and prompt. Readers return :class:`StoredSystem` and
:class:`StoredJudge` records (``params`` decoded); ``core.answering.systems.System`` and
``core.judging.specs.Judge`` are the configurations they are made from. SQLAlchemy Core over
:mod:`core.store.tables_more` (issue 33).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.store.connection import dumps
from core.store.statements import all_rows, run
from core.store.tables import answers, judgments, llm_calls
from core.store.tables_more import judges, systems

if TYPE_CHECKING:
    from core.store.engine import Database


@dataclass(frozen=True, slots=True)
class StoredSystem:
    """One ``systems`` row: ``context`` is the context strategy (``none``, ``rag``, ``full``,
    ``oracle``, or an imported evaluation's own word)."""

    name: str
    model: str
    context: str
    created_at: str
    params: dict[str, Any] = field(default_factory=dict)
    prompt: str = ""
    family: str = ""
    description: str = ""

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """The record of a decoded row (:func:`core.store.connection.rows`)."""
        params = row["params"]
        return cls(**{**row, "params": dict(params) if isinstance(params, dict) else {}})

    def to_row(self) -> dict[str, Any]:
        """The row to store (``params`` encoded)."""
        return {**asdict(self), "params": dumps(self.params)}


@dataclass(frozen=True, slots=True)
class StoredJudge:
    """One ``judges`` row: ``kind`` is a judge kind (``core.judging.specs.KINDS``), ``context``
    what the rater reads besides the answers (``none``, ``rag``, ``full``)."""

    name: str
    kind: str
    model: str
    context: str
    created_at: str
    params: dict[str, Any] = field(default_factory=dict)
    prompt: str = ""
    family: str = ""
    description: str = ""

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """The record of a decoded row (:func:`core.store.connection.rows`)."""
        params = row["params"]
        return cls(**{**row, "params": dict(params) if isinstance(params, dict) else {}})

    def to_row(self) -> dict[str, Any]:
        """The row to store (``params`` encoded)."""
        return {**asdict(self), "params": dumps(self.params)}


def get_system(db: Database, name: str) -> StoredSystem | None:
    """The stored system ``name``, or None."""
    found = all_rows(db, sa.select(systems).where(systems.c.name == name))
    return StoredSystem.from_row(found[0]) if found else None


def get_judge(db: Database, name: str) -> StoredJudge | None:
    """The stored judge ``name``, or None."""
    found = all_rows(db, sa.select(judges).where(judges.c.name == name))
    return StoredJudge.from_row(found[0]) if found else None


def system_names(db: Database) -> set[str]:
    """Names of the stored systems."""
    return {r[0] for r in run(db, sa.select(systems.c.name))}


def known_system_names(db: Database) -> set[str]:
    """Every system name the database uses: stored systems, answers' systems and the systems of
    judgments (an imported verdict may name a system with no answer stored)."""
    found = system_names(db)
    j = judgments.c
    for column in (answers.c.system, j.system, j.system_a, j.system_b):
        query = sa.select(column).distinct().where(column.is_not(None))
        found.update(r[0] for r in run(db, query))
    return found


def insert_system(db: Database, system: StoredSystem) -> None:
    """Insert one system."""
    run(db, sa.insert(systems).values(**system.to_row()))


def insert_judge(db: Database, judge: StoredJudge) -> None:
    """Insert one judge."""
    run(db, sa.insert(judges).values(**judge.to_row()))


def setup_models(db: Database) -> set[str]:
    """Model ids named by the stored systems, judges and model calls of the ledger."""
    return {
        r[0]
        for r in run(
            db,
            sa.union(
                sa.select(systems.c.model),
                sa.select(judges.c.model),
                sa.select(llm_calls.c.model).distinct(),
            ),
        )
        if r[0]
    }

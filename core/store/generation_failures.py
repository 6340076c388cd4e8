"""The ``generation_failures`` table (migration m0200): one row per failed question-generation
call (provider error or unparseable reply) with the raw reply. SQLAlchemy Core over
:mod:`core.store.tables` (issue 33)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import sqlalchemy as sa

from core.store.statements import run
from core.store.tables import generation_failures

if TYPE_CHECKING:
    from core.store.engine import Database


@dataclass(frozen=True, slots=True)
class GenerationFailure:
    """A failed generation call: what was asked (run, document, entity, model, prompt hash), why
    it failed (``kind``, ``error``) and the raw reply."""

    run_id: str | None
    document_id: str
    entity_id: int | None
    model: str
    prompt_hash: str
    kind: str
    error: str
    raw: str
    created_at: str


def record_generation_failure(db: Database, failure: GenerationFailure) -> None:
    """Append ``failure`` (its error cut to 1,000 characters)."""
    row = asdict(failure)
    row["error"] = failure.error[:1000]
    run(db, sa.insert(generation_failures).values(**row))

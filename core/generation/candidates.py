"""A question about to be stored, as every generator (LLM or baseline) produces it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: The name of the offline generator, stored as the questions' ``model`` (a baseline, not an LLM).
BASELINE = "baseline:entity-cooccurrence"


@dataclass
class Candidate:
    """A question about to be stored (before de-duplication). ``references``: further reference
    answers stored after ``answer`` (the offline generator's evidence sentences)."""

    question: str
    answer: str
    qtype: str
    entity_id: int | None
    provenance: dict[str, Any]
    metadata: dict[str, Any]
    references: list[str] = field(default_factory=list)

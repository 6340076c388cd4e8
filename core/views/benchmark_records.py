"""The records of the benchmark export (:mod:`core.views.benchmark` builds them; the dataset
card, :mod:`core.views.benchmark_card`, and the files, :mod:`core.views.benchmark_files`, read
them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

DEFAULT_STATUSES = ("accepted", "edited")


@dataclass(frozen=True)
class BenchmarkOptions:
    """What to export: review statuses, documents (None: all), the split and its seed."""

    statuses: tuple[str, ...] = DEFAULT_STATUSES
    documents: tuple[str, ...] | None = None
    split_by: str | None = None
    seed: int = 0
    test_share: float = 0.2


class BenchmarkFacts(TypedDict):
    """The figures the dataset card states, read off what is exported."""

    options: BenchmarkOptions
    counts: dict[str, int]  # table -> rows
    by_status: dict[str, int]
    by_origin: dict[str, int]
    languages: list[str]
    splits: dict[str, int]
    generators: dict[str, int]
    prompts: dict[str, int]
    reviewers: list[str]
    reviews: int
    with_review: int  # questions with at least one review
    guidelines: list[str]
    statuses_in_scope: dict[str, int]  # review status -> questions (all statuses)
    reviewed: int
    kept: int
    licences: list[tuple[str, str]]  # (licence, Hugging Face licence id)
    raters: dict[str, int]  # rater kind -> verdicts
    gold: dict[str, int]  # "task (source)" -> gold labels


@dataclass
class Benchmark:
    """Table -> rows (dicts keyed as the schema), and the figures the card states."""

    tables: dict[str, list[dict[str, Any]]]
    facts: BenchmarkFacts

"""Which document texts an export carries (:func:`core.views.benchmark.licence_of`): a Project
Gutenberg book and XQuAD articles travel; NarrativeQA stories and files of unknown licence go as
a pointer; and the card's title says "reviewed" only for kept reviews."""

from __future__ import annotations

import pytest

from core.store.documents import Document
from core.views.benchmark import licence_of
from core.views.benchmark_card import title
from core.views.benchmark_records import Benchmark, BenchmarkOptions


@pytest.mark.parametrize(
    ("source", "metadata", "hf", "travels", "url"),
    [
        ("file", {"gutenberg_header": True}, "other", True, ""),
        ("xquad", {}, "cc-by-sa-4.0", True, ""),
        ("narrativeqa", {"story_url": "http://x/s.txt"}, "apache-2.0", False, "http://x/s.txt"),
        ("file", {"gutenberg_header": False}, "unknown", False, ""),
        ("somewhere", {}, "unknown", False, ""),
    ],
)
def test_licence_of(source, metadata, hf, travels, url):
    doc = Document(id="d", text="t", kind="book", source=source, metadata=metadata)
    _, found_hf, found_travels, found_url = licence_of(doc)
    assert (found_hf, found_travels, found_url) == (hf, travels, url)


def _bench(statuses: tuple[str, ...], with_review: int, questions: int = 3) -> Benchmark:
    facts = {"with_review": with_review, "counts": {"questions": questions}}
    return Benchmark({}, {"options": BenchmarkOptions(statuses=statuses), **facts})


def test_title_says_reviewed_only_for_kept_reviews_by_people():
    """Kept statuses alone do not make a reviewed set: the demo's imported questions arrive
    accepted with no person's review (its card said "(reviewed)" with 0 reviewed by people)."""
    kept = ("accepted", "edited")
    assert title(_bench(kept, 3)) == "Long-span QA benchmark (reviewed)"
    assert title(_bench(kept, 0)) == "Long-span QA benchmark (accepted, edited)"
    assert title(_bench(kept, 2)) == "Long-span QA benchmark (accepted, edited)"
    assert title(_bench(("pending",), 0)) == "Long-span QA benchmark (pending)"

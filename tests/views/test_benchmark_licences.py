"""Which document texts an export carries (:func:`core.views.benchmark.licence_of`): a Project
Gutenberg book and XQuAD articles travel; NarrativeQA stories and files of unknown licence go as
a pointer; and the card's title says "reviewed" only for kept reviews."""

from __future__ import annotations

import pytest

from core.store.documents import Document
from core.views.benchmark import Benchmark, BenchmarkOptions, licence_of
from core.views.benchmark_card import title


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


def test_title_says_reviewed_only_for_kept_reviews():
    kept = Benchmark({}, {"options": BenchmarkOptions()})
    pending = Benchmark({}, {"options": BenchmarkOptions(statuses=("pending",))})
    assert title(kept) == "Long-span QA benchmark (reviewed)"
    assert title(pending) == "Long-span QA benchmark (pending)"

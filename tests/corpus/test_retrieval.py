"""BM25 retrieval: relevant passage found, budget respected, book order, cache, errors."""

from __future__ import annotations

import pytest

from core.corpus import retrieval
from core.corpus.documents import upsert_document
from core.errors import InputError
from core.store.documents import get_passages

FILLER = "The weather was grey and the road was long, and nothing much happened on it that day. "

TOPICS = [
    "The bishop gave the silver candlesticks to the convict and told him to become an honest man.",
    "A lighthouse keeper counted ships through the storm while gulls screamed above the rocks.",
    "The inspector stood on the bridge over the Seine and could not reconcile duty with mercy.",
    "Children played with a broken doll in the inn yard while the innkeeper counted coins.",
    "Barricades rose in the narrow streets and the students sang through the night.",
    "In the garden of the convent, the gardener grew melons and kept a little bell on his knee.",
]


def _book() -> str:
    # Each paragraph is ~330 tokens, so every topic lands in its own passage.
    return "\n\n".join(FILLER * 12 + topic + " " + FILLER * 5 for topic in TOPICS)


@pytest.fixture
def book(db):
    retrieval.clear_cache()
    upsert_document(db, "book", _book(), kind="book", source="file", title="Test")
    assert len(get_passages(db, "book")) == len(TOPICS)
    return db


def test_search_finds_relevant_passage(book):
    hits = retrieval.search(book, "book", "silver candlesticks bishop", k=3)
    assert hits, "expected at least one hit"
    top, score = hits[0]
    assert "candlesticks" in top.text and score > 0
    scores = [s for _, s in hits]
    assert scores == sorted(scores, reverse=True)


def test_search_stems_and_ignores_unknown_terms(book):
    hits = retrieval.search(book, "book", "barricade student singing zzzunknownzzz", k=1)
    assert "Barricades" in hits[0][0].text
    assert retrieval.search(book, "book", "zzzunknownzzz qqqq") == []
    assert retrieval.search(book, "book", "") == []


def test_retrieve_budget_and_book_order(book):
    passages = get_passages(book, "book")
    one = passages[0].n_tokens
    query = "convent gardener melons bishop candlesticks inspector Seine"
    got = retrieval.retrieve(book, "book", query, budget_tokens=2 * one + 10)
    assert sum(p.n_tokens for p in got) <= 2 * one + 10
    assert len(got) == 2
    assert [p.idx for p in got] == sorted(p.idx for p in got)
    # the two chosen passages are among the three relevant ones
    assert {p.idx for p in got} <= {0, 2, 5}
    everything = retrieval.retrieve(book, "book", query, budget_tokens=100_000)
    assert [p.idx for p in everything] == [0, 2, 5]


def test_budget_below_one_passage_gives_a_sentence_excerpt_of_the_best_passage(book):
    from core.corpus.documents import count_tokens
    from core.store.documents import get_document

    whole = get_passages(book, "book")[1]
    assert whole.n_tokens > 60
    got = retrieval.retrieve(book, "book", "lighthouse storm", budget_tokens=60)
    assert len(got) == 1
    (part,) = got
    assert part.idx == 1 and part.n_tokens <= 60 and part.n_tokens == count_tokens(part.text)
    # the excerpt is whole sentences of the stored passage, and holds the relevant one
    assert "lighthouse keeper counted ships through the storm" in part.text
    assert part.text == get_document(book, "book").text[part.start : part.end]
    assert whole.start <= part.start < part.end <= whole.end
    assert part.text.rstrip().endswith(".") and part.text[0].isupper()


def test_budget_below_every_sentence_is_an_error(book):
    with pytest.raises(InputError, match="smaller than every sentence"):
        retrieval.retrieve(book, "book", "lighthouse storm", budget_tokens=3)


def test_no_matching_passage_is_empty_not_an_error(book):
    assert retrieval.retrieve(book, "book", "zzzunknownzzz", budget_tokens=10) == []


def test_format_context_has_separators(book):
    got = retrieval.retrieve(book, "book", "lighthouse inn doll", budget_tokens=100_000)
    text = retrieval.format_context(got)
    assert text.count(retrieval.PASSAGE_SEPARATOR) == len(got) - 1
    assert text.startswith(f"[Passage {got[0].idx}]\n")
    for p in got:
        assert p.text in text


def test_index_cached_and_rebuilt_on_change(book, monkeypatch):
    retrieval.search(book, "book", "lighthouse")
    built = []
    import bm25s

    original = bm25s.BM25.index
    monkeypatch.setattr(
        bm25s.BM25, "index", lambda self, *a, **k: built.append(1) or original(self, *a, **k)
    )
    retrieval.search(book, "book", "inspector")
    retrieval.retrieve(book, "book", "convent")
    assert built == []
    assert retrieval.cache_info()["size"] == 1
    upsert_document(
        book,
        "book",
        _book() + "\n\nA new paragraph about a lighthouse.",
        kind="book",
        source="file",
    )
    hits = retrieval.search(book, "book", "new paragraph lighthouse", k=1)
    assert built == [1]
    assert "new paragraph" in hits[0][0].text


def test_errors(book):
    with pytest.raises(InputError, match="unknown document"):
        retrieval.search(book, "nope", "x")
    with pytest.raises(InputError):
        retrieval.retrieve(book, "book", "x", budget_tokens=0)
    with pytest.raises(InputError):
        retrieval.search(book, "book", "x", k=0)


def test_cache_keeps_indexes_within_the_passage_budget(db, monkeypatch):
    """More than CACHE_SIZE indexes stay while their passages fit CACHE_PASSAGES; past it the
    least recently used go, down to CACHE_SIZE at least."""
    retrieval.clear_cache()
    monkeypatch.setattr(retrieval, "CACHE_SIZE", 2)
    for n in range(5):
        upsert_document(db, f"doc{n}", _book(), kind="book", source="file", title=f"T{n}")
    per_doc = len(get_passages(db, "doc0"))
    monkeypatch.setattr(retrieval, "CACHE_PASSAGES", 4 * per_doc)
    for n in range(4):
        retrieval.search(db, f"doc{n}", "lighthouse")
    assert retrieval.cache_info()["size"] == 4  # 4 x per_doc passages: within the budget
    retrieval.search(db, "doc0", "lighthouse")  # doc0 is now the most recently used
    retrieval.search(db, "doc4", "lighthouse")  # over the budget: the oldest (doc1) goes
    assert retrieval.cache_info()["size"] == 4
    assert retrieval.cache_info()["passages"] == 4 * per_doc
    assert {key[0] for key in retrieval._cache} == {"doc0", "doc2", "doc3", "doc4"}
    monkeypatch.setattr(retrieval, "CACHE_PASSAGES", 0)  # no budget: CACHE_SIZE latest stay
    retrieval.search(db, "doc1", "lighthouse")
    assert retrieval.cache_info()["size"] == 2
    kept = {key[0] for key in retrieval._cache}
    assert kept == {"doc4", "doc1"}
    retrieval.clear_cache()

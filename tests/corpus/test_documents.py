"""Corpus: decoding, Gutenberg clean-up, passages with offsets, tokens, documents."""

import pytest

from core.corpus.documents import (
    count_tokens,
    decode_bytes,
    split_passages,
    upsert_document,
)
from core.corpus.gutenberg import clean_gutenberg
from core.errors import InputError
from core.store.documents import get_passages

GUTENBERG = """\ufeffThe Project Gutenberg eBook of A Test Book\r
\r
Title: A Test Book\r
\r
Author: Jane Writer\r
\r
Language: English\r
\r
*** START OF THE PROJECT GUTENBERG EBOOK A TEST BOOK ***\r
\r
Chapter one. It was a dark night.\r
\r
Chapter two. The end came.\r
\r
*** END OF THE PROJECT GUTENBERG EBOOK A TEST BOOK ***\r
\r
Licence text that must not be kept.\r
"""


def test_decode_bom_and_crlf():
    text = decode_bytes(GUTENBERG.encode("utf-8"))
    assert not text.startswith("\ufeff") and "\r" not in text


@pytest.mark.parametrize(
    "data,match",
    [
        (b"", "empty"),
        (b"   \n", "empty"),
        (b"abc\x00def", "binary"),
        ("caf\u00e9\nna\u00efve".encode("latin-1"), "not valid UTF-8"),
    ],
)
def test_decode_rejects_bad_bytes(data, match):
    with pytest.raises(InputError, match=match):
        decode_bytes(data, "book.txt")


def test_undecodable_error_names_line():
    with pytest.raises(InputError, match="line 2"):
        decode_bytes("ok\ncaf\u00e9".encode("latin-1"), "x.txt")


def test_clean_gutenberg_header_footer():
    g = clean_gutenberg(decode_bytes(GUTENBERG.encode("utf-8")))
    assert g.title == "A Test Book" and g.author == "Jane Writer" and g.had_header
    assert g.body.startswith("Chapter one.") and g.body.endswith("The end came.")
    assert "Licence" not in g.body


def test_clean_without_markers_keeps_text():
    g = clean_gutenberg("Just a story.\n\nWith two paragraphs.")
    assert g.body == "Just a story.\n\nWith two paragraphs." and not g.had_header and g.title == ""


def test_count_tokens_matches_cl100k():
    # "hello world" is two cl100k tokens: "hello", " world".
    assert count_tokens("hello world") == 2
    assert count_tokens("") == 0
    assert count_tokens("<|endoftext|>") > 1  # special tokens are plain text here


def test_passages_cover_paragraphs_with_offsets():
    text = "First paragraph here.\n\nSecond one.\n\n\n  Third, indented.\n"
    ps = split_passages(text, max_tokens=5)
    assert [p.text for p in ps] == ["First paragraph here.", "Second one.", "Third, indented."]
    for p in ps:
        assert text[p.start : p.end] == p.text
    merged = split_passages(text, max_tokens=400)
    assert len(merged) == 1 and merged[0].text == text.strip()


def test_trailing_spaces_before_blank_line_still_split():
    text = "One line.  \n\nTwo line.\t\n \nThree."
    assert [p.text for p in split_passages(text, max_tokens=3)] == [
        "One line.",
        "Two line.",
        "Three.",
    ]


def test_long_paragraph_split_at_sentences():
    para = " ".join(f"Sentence number {i} is here." for i in range(200))
    ps = split_passages(para, max_tokens=50)
    assert len(ps) > 5
    assert all(p.n_tokens <= 100 for p in ps)
    assert all(para[p.start : p.end] == p.text for p in ps)
    assert ps[0].text.startswith("Sentence number 0")


def test_upsert_document_is_idempotent(db):
    r1 = upsert_document(db, "d", "One.\n\nTwo.", kind="book", source="t")
    r2 = upsert_document(db, "d", "One.\n\nTwo.", kind="book", source="t")
    assert (r1["status"], r2["status"]) == ("inserted", "unchanged")
    r3 = upsert_document(db, "d", "One.\n\nTwo.\n\nThree.", kind="book", source="t")
    assert r3["status"] == "updated"
    assert db["documents"].count == 1
    assert [p.text for p in get_passages(db, "d")] == ["One.\n\nTwo.\n\nThree."]

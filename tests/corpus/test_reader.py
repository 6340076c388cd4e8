"""The shared reader accepts every documented encoding and refuses the rest with line/column."""

from __future__ import annotations

import codecs

import pytest

from core.corpus.names import check_name, name_problem
from core.corpus.tabular import decode_input, optional_number, read_records
from core.corpus.toml_input import read_toml_file
from core.errors import InputError
from core.pipeline.config import parse_config
from core.views.text import md

CSV = "id,question\nq1,Who is Ann?\nq2,Où est-il ?\n"


@pytest.mark.parametrize(
    "data",
    [
        CSV.encode("utf-8"),
        codecs.BOM_UTF8 + CSV.encode("utf-8"),
        codecs.BOM_UTF16_LE + CSV.encode("utf-16-le"),
        codecs.BOM_UTF16_BE + CSV.encode("utf-16-be"),
        CSV.replace("\n", "\r\n").encode("utf-8"),
    ],
    ids=["utf8", "utf8-bom", "utf16le-bom", "utf16be-bom", "crlf"],
)
def test_documented_encodings_read_alike(tmp_path, data):
    path = tmp_path / "q.csv"
    path.write_bytes(data)
    assert read_records(path, ["id", "question"]) == [
        (2, {"id": "q1", "question": "Who is Ann?"}),
        (3, {"id": "q2", "question": "Où est-il ?"}),
    ]


def test_errors_name_line_and_column(tmp_path):
    with pytest.raises(InputError, match=r"x\.csv, line 2, column 4: not valid UTF-8"):
        decode_input(b"ok\nabc\xe9\n", tmp_path / "x.csv")
    with pytest.raises(InputError, match=r"line 3, column 2: file looks binary"):
        decode_input(b"a\nb\nc\x00", "x")
    path = tmp_path / "e.toml"
    path.write_text('a = 1\nb = "x\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"e\.toml, line 2, column \d+: TOML syntax error"):
        read_toml_file(path)
    with pytest.raises(InputError, match="is a directory"):
        read_records(tmp_path, ["id"])


def test_numbers():
    rec = {"n": "12", "f": 1.5, "neg": "-1", "nan": "nan", "txt": "many", "lst": [1]}
    assert optional_number(rec, "n", "x", 1, integer=True) == 12
    assert optional_number(rec, "missing", "x", 1) is None
    for column, message in (
        ("neg", ">= 0"),
        ("nan", "finite"),
        ("txt", "expected a number"),
        ("lst", "found a list"),
    ):
        with pytest.raises(InputError, match=message):
            optional_number(rec, column, "x", 1)
    with pytest.raises(InputError, match="whole number"):
        optional_number(rec, "f", "x", 1, integer=True)


@pytest.mark.parametrize(
    "name",
    [
        "gpt-4o/rag4k-1s",
        "human:alice",
        "book:les-miserables",
        "nqa-0a1b",
        "a.b_c+d@e",
        "a|b",
        "Comm Statist",
        "Jos\u00e9",
        "Llama 3 70B",
        "auto:gpt-4 (PRD)",
        "[x]",
        "<b>",
        "-lead",
        "\u901a\u4e49",
        "y" * 128,
    ],
)
def test_safe_names_accepted(name):
    assert name_problem(name) is None and check_name(name, "x") == name


@pytest.mark.parametrize(
    "name",
    [
        "",
        " lead",
        "trail ",
        "x" * 129,
        "a\x00",
        "a\tb",
        "a\u200bb",
        "\u202ex",
        "a\u2066b",
        "a\u00a0b",
        "a\ufeffb",
        "a\ue000",
        5,
        None,
        ["a"],
    ],
)
def test_unsafe_names_refused(name):
    assert name_problem(name)
    with pytest.raises(InputError):
        check_name(name, "system name")


def test_names_are_nfc_normalised():
    assert check_name("Jose\u0301", "x") == "Jos\u00e9"
    assert name_problem("e\u0301" * 100) is None  # 200 code points, 100 after NFC


def test_schema_defaults_and_failure_share():
    raw = {"systems": [{"model": "offline:extractive", "kind": "rag"}]}
    exp = parse_config(raw, "x.toml")
    tour = exp.tournament
    assert (exp.name, exp.c, tour.budget, tour.batch, exp.max_failure_share) == (
        "x",
        200,
        1.0,
        25,
        0.2,
    )
    assert parse_config({**raw, "max_failure_share": 1}, "x.toml").max_failure_share == 1.0


def test_md_escapes_every_kind_of_markup():
    for markup in ("![i](http://x/a.png)", "<img src=x>", ":red[x]", "$x$", "[a](javascript:b)"):
        escaped = md(markup)
        assert all(f"\\{ch}" in escaped for ch in "[]()<>:$!" if ch in markup)
    assert md(None) == "" and md(0) == "0" and md(md("a.b")) == "a\\.b"


def test_book_layout_characters_are_normalised_others_refused(tmp_path):
    from core.corpus.tabular import read_document_text

    path = tmp_path / "b.txt"
    path.write_bytes(b"Page one.\x0cPage two.\n\x1a")
    assert read_document_text(path) == "Page one.\nPage two.\n"
    path.write_bytes(b"Page one.\x1aPage two.\n")
    with pytest.raises(InputError, match=r"line 1, column 10: control character U\+001A"):
        read_document_text(path)

"""CLI: `documents` lists ids; unknown document and model ids name the closest known ones."""

import json
from pathlib import Path

import pytest

from core.__main__ import main
from core.corpus.documents import require_document, upsert_document
from core.errors import ConfigError, InputError
from core.llm.registry import model_available, resolve

FIXTURE = Path(__file__).resolve().parents[1] / "corpus" / "data" / "gutenberg"


def _import(db_path, tmp_path):
    book = tmp_path / "wild huntress.txt"
    book.write_text((FIXTURE / "ebook_2010_possessive_cask.txt").read_text())
    assert main(["--db", str(db_path), "import-book", str(book)]) == 0
    return "book:wild-huntress"


def test_documents_lists_ids_as_json_and_table(db_path, tmp_path, capsys):
    doc_id = _import(db_path, tmp_path)
    capsys.readouterr()
    assert main(["--db", str(db_path), "documents", "--json"]) == 0
    docs = json.loads(capsys.readouterr().out)
    assert [d["id"] for d in docs] == [doc_id]
    assert docs[0]["title"] == "The Cask of Amontillado" and docs[0]["author"] == "Edgar Allan Poe"
    assert docs[0]["kind"] == "book" and docs[0]["tokens"] > 100 and docs[0]["passages"] >= 1
    assert main(["--db", str(db_path), "documents"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["id", "title", "author", "kind", "tokens", "passages"]
    assert out[1].startswith(doc_id)


def test_unknown_document_names_closest(db_path, tmp_path, capsys):
    _import(db_path, tmp_path)
    code = main(["--db", str(db_path), "entities", "book:wild_huntress"])
    err = capsys.readouterr().err
    assert code != 0 and "closest: book:wild-huntress" in err and "import it first" not in err


def test_require_document(db):
    with pytest.raises(InputError, match="no documents imported yet"):
        require_document(db, "x")
    upsert_document(db, "book:moby-dick", "Call me Ishmael.", kind="book", source="t")
    assert require_document(db, "book:moby-dick").id == "book:moby-dick"
    with pytest.raises(InputError, match="closest: book:moby-dick"):
        require_document(db, "book:moby_dik")


def test_unknown_model_before_keys(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    ok, reason = model_available("openai:gpt4o-mini")
    assert not ok and reason.startswith("unknown model") and "openai:gpt-4o-mini" in reason
    assert "OPENAI_API_KEY" not in reason
    with pytest.raises(ConfigError, match=r"unknown model .*did you mean openai:gpt-4o-mini"):
        resolve("openai:gpt4o-mini")
    ok, reason = model_available("openai:gpt-4o-mini")
    assert not ok and "OPENAI_API_KEY" in reason  # a known model: the key is what is missing

"""``import-questions`` reads an ``evidence`` column (as ``export benchmark`` writes it) into the
question's metadata, from JSONL objects or a JSON list in a CSV cell; a malformed one is one
line naming the column, and nothing is imported."""

from __future__ import annotations

import csv
import json

import pytest

from core.corpus.documents import upsert_document
from core.corpus.question_sets import import_questions
from core.errors import InputError
from core.store.questions import get_question

EVIDENCE = [{"passage_id": 9, "passage_index": 2, "start": 10, "end": 30, "text": "Ahab walked"}]
STORED = [{"passage_idx": 2, "start": 10, "end": 30, "text": "Ahab walked"}]


def _doc(db):
    upsert_document(db, "b1", "Ahab walked the deck.\n\nThe end.", kind="book", source="file")


def test_jsonl_and_csv_evidence_is_kept(db, tmp_path):
    _doc(db)
    path = tmp_path / "q.jsonl"
    row = {"id": "g1", "question": "Who?", "document_id": "b1", "answers": ["Ahab"]}
    path.write_text(json.dumps({**row, "evidence": EVIDENCE}) + "\n", encoding="utf-8")
    import_questions(db, path)
    assert get_question(db, "g1").metadata == {"evidence": STORED}
    path = tmp_path / "q.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, ["id", "question", "document_id", "answers", "evidence"])
        writer.writeheader()
        writer.writerow({**row, "id": "g2", "answers": "Ahab", "evidence": json.dumps(EVIDENCE)})
    import_questions(db, path)
    assert get_question(db, "g2").metadata == {"evidence": STORED}
    assert get_question(db, "g2").answers == ["Ahab"]


@pytest.mark.parametrize(
    "evidence",
    [
        "not json",
        {"text": "x"},
        [{"start": 1}],
        [{"text": "x", "start": "1"}],
        [{"text": "x", "passage_index": True}],
    ],
)
def test_malformed_evidence_is_one_line_and_imports_nothing(db, tmp_path, evidence):
    _doc(db)
    path = tmp_path / "q.jsonl"
    row = {"id": "g1", "question": "Who?", "document_id": "b1", "evidence": evidence}
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="evidence must be a list of objects") as caught:
        import_questions(db, path)
    assert "\n" not in str(caught.value) and "evidence" in str(caught.value)
    assert get_question(db, "g1") is None


def test_a_json_null_document_is_an_open_question_and_an_empty_csv_cell_an_error(db, tmp_path):
    """``export benchmark`` writes ``"document_id": null`` for an imported open question
    (Vicuna-80); importing it back keeps it open (no document, answered without context). In
    CSV an empty cell cannot say "none" on purpose, so it stays the one-line error it was."""
    path = tmp_path / "q.jsonl"
    row = {"id": "v1", "question": "Why?", "document_id": None, "answers": ["Because"]}
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert import_questions(db, path)["inserted"] == 1
    stored = get_question(db, "v1")
    assert (stored.document_id, stored.context_document_id, stored.context_kind) == (
        None,
        None,
        "none",
    )
    assert stored.answers == ["Because"]
    path = tmp_path / "q.csv"
    path.write_text("id,question,document_id\nv2,Why?,\n", encoding="utf-8")
    with pytest.raises(InputError, match="empty value"):
        import_questions(db, path)
    assert get_question(db, "v2") is None
